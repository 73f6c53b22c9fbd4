//! The settings table against itself, clap, the file format, `config init` and README.

use clap::{Args, FromArgMatches};

use super::*;
use crate::config::{ConfigFile, default_file};
use crate::options::{BrowserArgs, ServeArgs};

/// The browser flags of `argv`.
fn flags(argv: &[String]) -> Result<BrowserArgs, clap::Error> {
    let command = BrowserArgs::augment_args(clap::Command::new("test"));
    let matches =
        command.try_get_matches_from(std::iter::once("test".to_owned()).chain(argv.iter().cloned()))?;
    BrowserArgs::from_arg_matches(&matches)
}

/// What the flags `argv`, or the `[browser]` body `section`, resolve to (an error as text).
fn resolved(argv: &[String], section: &str) -> String {
    let file = match ConfigFile::parse(&format!("[browser]\n{section}")) {
        Ok(file) => file,
        Err(error) => return format!("file: {error}"),
    };
    let args = match flags(argv) {
        Ok(args) => args,
        Err(error) => return format!("flags: {error}"),
    };
    let options = ServeArgs { browser: args, ..ServeArgs::default() }.resolve_with(Some(&file));
    match options {
        Ok(options) => format!("{:?}", options.browser),
        Err(error) => format!("error: {error}"),
    }
}

#[test]
fn every_entry_is_complete_and_distinct() {
    let mut keys = std::collections::HashSet::new();
    let mut flags = std::collections::HashSet::new();
    for setting in SETTINGS {
        assert!(keys.insert(setting.key), "{} twice", setting.key);
        for flag in std::iter::once(&setting.flag).chain(setting.aliases) {
            assert!(flags.insert(*flag), "--{flag} twice");
        }
        for text in [setting.key, setting.flag, setting.help, setting.doc, setting.default, setting.example] {
            assert!(!text.trim().is_empty(), "{}: an empty field", setting.key);
        }
        assert!(!setting.help.ends_with('.'), "{}: help ends without a full stop", setting.key);
        let switch = matches!(setting.kind, Kind::Switch { .. });
        assert_eq!(setting.value_name.is_empty(), switch, "{}: a value name unless a switch", setting.key);
        for other in setting.conflicts_with.iter().chain(setting.requires) {
            assert!(SETTINGS.iter().any(|s| s.flag == *other), "{}: no flag --{other}", setting.key);
        }
    }
    assert_eq!(*KEYS, SETTINGS.iter().map(|s| s.key).collect::<Vec<_>>());
}

/// The TOML value of an entry's example, and the flags giving the same.
fn example(setting: &Setting) -> (String, Vec<String>) {
    let value: toml::Value = toml::from_str::<toml::Table>(&format!("v = {}", setting.example))
        .ok()
        .and_then(|mut table| table.remove("v"))
        .unwrap_or_else(|| panic!("{}: the example is not TOML", setting.key));
    let flag = format!("--{}", setting.flag);
    match (setting.kind, value) {
        (Kind::Switch { flag_sets }, _) => (format!("{} = {flag_sets}", setting.key), vec![flag]),
        (Kind::List { .. }, _) => {
            (format!("{} = [\"--lang=de\"]", setting.key), vec![format!("{flag}=--lang=de")])
        }
        (_, toml::Value::String(text)) => {
            (format!("{} = {}", setting.key, setting.example), vec![flag, text])
        }
        (_, other) => panic!("{}: an example of an unexpected type {other:?}", setting.key),
    }
}

#[test]
fn a_flag_and_its_key_resolve_alike() {
    for setting in SETTINGS {
        let (line, argv) = example(setting);
        let by_file = resolved(&[], &line);
        let by_flag = resolved(&argv, "");
        let by_both = resolved(&argv, &line);
        let refused = |text: &str| text.starts_with("error:") || text.starts_with("flags:");
        if refused(&by_file) && refused(&by_flag) {
            // Refused both ways (clap may refuse first, e.g. a flag another requires).
            continue;
        }
        assert_eq!(by_flag, by_file, "{}: {argv:?} and {line:?}", setting.key);
        assert_eq!(by_both, by_file, "{}", setting.key);
        for alias in setting.aliases {
            let mut argv = argv.clone();
            argv[0] =
                format!("--{alias}{}", argv[0].strip_prefix(&format!("--{}", setting.flag)).unwrap_or(""));
            assert_eq!(resolved(&argv, ""), by_file, "{}: --{alias}", setting.key);
        }
    }
}

#[test]
fn the_flag_wins_over_the_file() {
    let file = "engine = \"firefox\"\nheadless = true\nwindow = \"800x600\"\nargs = [\"--lang=de\"]\n";
    let argv: Vec<String> =
        ["--browser", "chromium", "--headed", "--browser-arg=--lang=fr"].map(String::from).to_vec();
    let both = resolved(&argv, file);
    let expected = resolved(&argv, "window = \"800x600\"\n");
    assert_eq!(both, expected);
    assert!(
        both.contains("Chromium") && both.contains("headless: false") && both.contains("--lang=fr"),
        "{both}"
    );
}

#[test]
fn the_shown_defaults_are_the_adapters() {
    for setting in SETTINGS.iter().filter(|setting| setting.example_is_default) {
        let line = format!("{} = {}", setting.key, setting.example);
        let file =
            ConfigFile::parse(&format!("[browser]\n{line}\n")).unwrap_or_else(|e| panic!("{line}: {e}"));
        let options =
            resolve(&Given::default(), Some(&file.browser.0)).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(options, BrowserOptions::default(), "{line} is not the default");
    }
}

#[test]
fn config_init_writes_every_key_and_each_parses_back() {
    let file = default_file();
    assert_eq!(ConfigFile::parse(&file).ok(), Some(ConfigFile::default()));
    let section = init_section();
    for setting in SETTINGS {
        let prefix = format!("# {} = {}", setting.key, setting.example);
        let line = section.lines().find(|line| line.starts_with(&prefix));
        let line = line.unwrap_or_else(|| panic!("{} missing from config init:\n{section}", setting.key));
        // Uncommented, the line is a valid setting (its comment stays one).
        let uncommented = &line[2..];
        let parsed = ConfigFile::parse(&format!("[browser]\n{uncommented}\n"));
        assert!(parsed.is_ok(), "{uncommented}: {parsed:?}");
    }
    for line in section.lines() {
        assert!(line.chars().count() <= INIT_WIDTH, "too long: {line}");
    }
    assert!(file.contains(&section));
}

#[test]
fn unknown_keys_name_the_key_meant() {
    let error =
        ConfigFile::parse("[browser]\nheadles = false\n").err().map(|e| e.to_string()).unwrap_or_default();
    assert!(error.ends_with("did you mean `headless`?"), "{error}");
    let error =
        ConfigFile::parse("[browser]\nheaded = true\n").err().map(|e| e.to_string()).unwrap_or_default();
    assert!(error.contains("unknown field `headed`"), "{error}");
    let error = ConfigFile::parse("[browser]\nengine = \"safari\"\n")
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(error.contains("`chromium`, `firefox`"), "{error}");
}

#[test]
fn flags_refuse_values_as_the_file_does() {
    for (argv, line) in [
        (["--window", "big"], "window = \"big\""),
        (["--browser", "safari"], "engine = \"safari\""),
        (["--driver-url", "ftp://h/"], "driver_url = \"ftp://h/\""),
        (["--diagnostics", "always"], "diagnostics = \"always\""),
    ] {
        let argv = argv.map(String::from);
        assert!(flags(&argv).is_err(), "{argv:?}");
        assert!(ConfigFile::parse(&format!("[browser]\n{line}\n")).is_err(), "{line}");
    }
    let secret = ["--proxy", "http://ada:hunter2@h:1"].map(String::from);
    let parsed = flags(&secret).unwrap_or_else(|e| panic!("{e}"));
    let error = ServeArgs { browser: parsed, ..ServeArgs::default() }.resolve_with(None).err();
    let error = error.map(|e| e.to_string()).unwrap_or_default();
    assert!(error.contains("credentials") && !error.contains("hunter2"), "{error}");
}

#[test]
fn readme_lists_every_browser_key() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md");
    let readme = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let rows = readme_rows();
    let start = readme.find("| `[browser] ").unwrap_or_else(|| panic!("README has no [browser] rows"));
    let end = readme[start..]
        .lines()
        .take_while(|line| line.starts_with("| `[browser] "))
        .map(|line| line.len() + 1)
        .sum::<usize>()
        + start;
    if readme[start..end] != rows {
        if std::env::var_os("GHOSTLIGHT_BLESS").is_some() {
            let blessed = format!("{}{rows}{}", &readme[..start], &readme[end..]);
            std::fs::write(&path, blessed).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        } else {
            panic!(
                "README's [browser] rows differ from the settings table (GHOSTLIGHT_BLESS=1 rewrites them):\n{rows}"
            );
        }
    }
    // The paragraph listing the browser flags names every one.
    let paragraph = readme.split("\n\n").find(|p| p.contains("Browser flags (")).unwrap_or_default();
    for setting in SETTINGS {
        let flag = format!("`--{}", setting.flag);
        assert!(paragraph.contains(&flag), "README's browser flags paragraph misses --{}", setting.flag);
    }
}

#[test]
fn plain_text_drops_markdown() {
    assert_eq!(plain("`\"x\"`: see [below](#a) and [b]"), "\"x\": see below and [b]");
    assert_eq!(plain("the extension ([below](#use-it)); the rest"), "the extension; the rest");
}
