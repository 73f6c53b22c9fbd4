//! Every example program, run as a subprocess against the demo site it serves: headless
//! Chromium for each browser example, Firefox for `fill_form`, and `custom_port` with no
//! browser at all. Each test checks what the page itself answered in the program's output
//! (the article's sentence, the form's "Thanks, Ada!"), and the exit code.
//!
//! `cargo test` builds the package's examples before its tests, into
//! `<target>/<profile>/examples/`; when they are missing (a test binary run by hand) they are
//! built first. Browser examples run one at a time: each starts its own browser.
//!
//! Needs `chromedriver`, `chromium`, `geckodriver` and `firefox` on `PATH`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

use ghostlight_examples::ARTICLE_SENTENCE;

/// The longest one example may run before it is killed.
const TIMEOUT: Duration = Duration::from_secs(120);

/// One browser at a time (a small CI machine runs two cores).
static BROWSER: Mutex<()> = Mutex::new(());

/// What a finished example printed.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    /// Panic with the whole output unless the program exited 0 and printed every `expected`.
    fn expect(&self, name: &str, expected: &[&str]) {
        let missing: Vec<&&str> = expected.iter().filter(|text| !self.stdout.contains(**text)).collect();
        assert!(
            self.code == Some(0) && missing.is_empty(),
            "{name}: exit {:?}, missing {missing:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.code,
            self.stdout,
            self.stderr
        );
    }
}

/// `<target>/<profile>` of this test binary (`<target>/<profile>/deps/examples-HASH`).
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    exe.parent().and_then(Path::parent).expect("the test binary is under <target>/<profile>/deps").to_owned()
}

/// The built example `name`, building the package's examples once when one is missing.
fn example(name: &str) -> PathBuf {
    static BUILT: OnceLock<()> = OnceLock::new();
    let profile = profile_dir();
    let path = profile.join("examples").join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    if !path.is_file() {
        BUILT.get_or_init(|| {
            let target = profile.parent().expect("<target> above <profile>");
            let mut build = Command::new(env!("CARGO"));
            build.args(["build", "-p", "ghostlight-examples", "--examples", "--target-dir"]).arg(target);
            if profile.file_name().is_some_and(|p| p == "release") {
                build.arg("--release");
            }
            let status = build.status().expect("cargo runs");
            assert!(status.success(), "building the examples failed");
        });
    }
    assert!(path.is_file(), "no example binary at {}", path.display());
    path
}

/// Run example `name` with `args`, killed after [`TIMEOUT`]; prints its wall time.
fn run(name: &str, args: &[&str]) -> Run {
    let started = Instant::now();
    let mut child = Command::new(example(name))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("{name} did not start: {error}"));
    let drain = |mut pipe: Box<dyn Read + Send>| {
        thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("piped stdout")));
    let stderr = drain(Box::new(child.stderr.take().expect("piped stderr")));
    let code = loop {
        match child.try_wait().expect("the example can be waited for") {
            Some(status) => break status.code(),
            None if started.elapsed() > TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                let (out, err) = (stdout.join().unwrap_or_default(), stderr.join().unwrap_or_default());
                panic!("{name} {args:?} ran over {TIMEOUT:?}\n--- stdout\n{out}\n--- stderr\n{err}");
            }
            None => thread::sleep(Duration::from_millis(50)),
        }
    };
    let run =
        Run { code, stdout: stdout.join().unwrap_or_default(), stderr: stderr.join().unwrap_or_default() };
    eprintln!("{name} {args:?}: exit {code:?} in {} ms", started.elapsed().as_millis());
    run
}

/// Run a browser example, one at a time.
fn run_browser(name: &str, args: &[&str]) -> Run {
    let _one_browser = BROWSER.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    run(name, args)
}

#[test]
fn read_page_chromium() {
    run_browser("read_page", &["--browser", "chromium"]).expect(
        "read_page",
        &["[succeeded] browser_navigate: Opened 127.0.0.1:", "Title: Tides of Saint-Malo", ARTICLE_SENTENCE],
    );
}

const FILL_FORM: &[&str] = &[
    "[succeeded] browser_inspect: Found 4 controls",
    "[succeeded] browser_fill_form: Filled 3 fields",
    "[succeeded] browser_click: Clicked the \"Send\" button",
    "The page says: Thanks, Ada!",
    "Plan: pro. News: yes.",
];

#[test]
fn fill_form_chromium() {
    run_browser("fill_form", &["--browser", "chromium"]).expect("fill_form", FILL_FORM);
}

#[test]
fn fill_form_firefox() {
    run_browser("fill_form", &["--browser", "firefox"]).expect("fill_form on Firefox", FILL_FORM);
}

#[test]
fn flow_chromium() {
    let run = run_browser("flow", &["--browser", "chromium"]);
    run.expect("flow", &["[succeeded] browser_flow: Ran 6 of 6 flow steps.", "6 of 6 steps completed."]);
    for step in ["open", "name_field", "fill", "send_button", "send", "thanks"] {
        let line = run.stdout.lines().find(|line| line.split_whitespace().next() == Some(step));
        assert!(
            line.is_some_and(|line| line.contains(" succeeded ")),
            "step {step} did not succeed:\n{}",
            run.stdout
        );
    }
}

#[test]
fn agent_loop_chromium() {
    run_browser("agent_loop", &["--browser", "chromium"]).expect(
        "agent_loop",
        &[
            "24 tools:",
            "  browser_navigate ",
            "  policy_explain ",
            "\"status\":\"succeeded\"",
            "The tide at Saint-Malo rises and falls",
            "tool>  error: unknown tool \"browser_open\"",
            "\"reason\":\"invalid_arguments\"",
            "\"status\":\"blocked\"",
            "Every call answered as expected.",
        ],
    );
}

#[test]
fn custom_port_without_a_browser() {
    // Not under the browser lock: it starts nothing.
    run("custom_port", &[]).expect(
        "custom_port",
        &[
            "[succeeded] browser_navigate: Opened toy.example.",
            "This page lives in a HashMap",
            "[succeeded] browser_inspect: Found 4 controls on toy.example.",
            "[succeeded] browser_click: Clicked the \"Subscribe\" button on toy.example.",
            "[succeeded] browser_fill_form: Filled 2 fields on toy.example.",
            "\"Subscribed\" is on the page.",
            "[succeeded] browser_click: Clicked the \"About\" link on toy.example",
            "through the BrowserPort trait alone",
            "[failed] browser_click:",
            "[failed] browser_screenshot: This browser (toy) cannot capture",
        ],
    );
}

#[test]
fn a_browser_outside_the_choices_is_a_usage_error() {
    let run = run("read_page", &["--browser", "netscape"]);
    assert_eq!(run.code, Some(2), "clap's usage exit code\n{}", run.stderr);
    assert!(run.stderr.contains("chromium") && run.stderr.contains("firefox"), "{}", run.stderr);
}
