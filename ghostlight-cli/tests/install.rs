//! The extension connector from the command line, driving the real `ghostlight` binary in a
//! temporary HOME: `ghostlight install` (dry run, idempotence, uninstall of what this
//! installation owns), `doctor`'s registration lines, `config check` of the connector, and
//! the spec's startup refusals of `ghostlight mcp --connector extension` as registrations
//! change (eligible browsers, silent repair of stale registrations, a registration owned by
//! another installation, none usable).
//!
//! Each installation is a directory holding a hard link to the built `ghostlight` and a
//! stand-in `ghostlight-native-host`; browsers are stand-in executables on a private `PATH`.
//! One test runs the real thing: headless Chromium with the profile a person's Chromium uses
//! (`~/.config/chromium`), the extension loaded from where `install` placed it, and the real
//! native host (built by the test when missing), reached through a registration the server
//! repairs silently.

#![cfg(all(target_os = "linux", feature = "extension"))]

mod support;

use std::os::unix::fs::PermissionsExt as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use rmcp::service::{RoleClient, RunningService, ServiceExt};
use serde_json::{Value, json};
use support::{describe, invoke, status};

/// The Chromium origin and Firefox id the manifests must name.
const ORIGIN: &str = "chrome-extension://mlepgpjphaphagbnegjjbebkfibeeoaa/";
const GECKO: &str = "connector@ghostlight";

/// A temporary user: HOME, a `PATH` of stand-in browsers, a runtime directory, and
/// installations of Ghostlight.
struct Scene {
    root: tempfile::TempDir,
}

impl Scene {
    fn new() -> Scene {
        let root = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("a scratch directory");
        for dir in ["home", "bin", "run"] {
            std::fs::create_dir_all(root.path().join(dir)).expect("a directory");
        }
        std::fs::set_permissions(root.path().join("run"), std::fs::Permissions::from_mode(0o700))
            .expect("chmod");
        Scene { root }
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.root.path().join(relative)
    }

    /// An installation named `name`: the built binary (hard-linked, else copied) and a
    /// native host beside it.
    fn installation(&self, name: &str) -> PathBuf {
        let dir = self.path(name);
        std::fs::create_dir_all(&dir).expect("a directory");
        let exe = dir.join("ghostlight");
        let built = Path::new(env!("CARGO_BIN_EXE_ghostlight"));
        if std::fs::hard_link(built, &exe).is_err() {
            std::fs::copy(built, &exe).expect("a copy of the binary");
        }
        executable(&dir.join("ghostlight-native-host"));
        std::fs::canonicalize(dir).expect("canonical")
    }

    /// An installation holding the real native host (built when missing).
    fn real_installation(&self, name: &str) -> PathBuf {
        let dir = self.installation(name);
        let host = dir.join("ghostlight-native-host");
        std::fs::remove_file(&host).expect("the stand-in removed");
        let built = native_host();
        if std::fs::hard_link(&built, &host).is_err() {
            std::fs::copy(&built, &host).expect("a copy of the native host");
        }
        dir
    }

    /// Put the stand-in browser `name` on the scene's `PATH` (or take it away).
    fn browser(&self, name: &str, present: bool) {
        let path = self.path("bin").join(name);
        if present {
            executable(&path);
        } else {
            std::fs::remove_file(path).expect("removed");
        }
    }

    fn command(&self, installation: &Path) -> std::process::Command {
        let mut command = std::process::Command::new(installation.join("ghostlight"));
        command
            .env_clear()
            .env("HOME", self.path("home"))
            .env("PATH", self.path("bin"))
            .env("XDG_RUNTIME_DIR", self.path("run"));
        command
    }

    /// Run `ghostlight ARGS` from `installation`.
    fn run(&self, installation: &Path, args: &[&str]) -> Output {
        self.command(installation).args(args).output().expect("the binary runs")
    }

    /// `ghostlight mcp ARGS` from `installation`, as an MCP client's child.
    async fn serve(&self, installation: &Path, args: &[&str]) -> RunningService<RoleClient, ()> {
        let mut command = tokio::process::Command::from(self.command(installation));
        command.arg("mcp").args(args);
        let (transport, _stderr) = rmcp::transport::TokioChildProcess::builder(command)
            .stderr(std::process::Stdio::inherit())
            .spawn()
            .expect("ghostlight mcp starts");
        ().serve(transport).await.expect("ghostlight mcp initializes")
    }

    fn chromium_manifest(&self) -> PathBuf {
        self.path("home/.config/chromium/NativeMessagingHosts/ghostlight.native_host.json")
    }

    fn firefox_manifest(&self) -> PathBuf {
        self.path("home/.mozilla/native-messaging-hosts/ghostlight.native_host.json")
    }

    fn extension_dir(&self) -> PathBuf {
        self.path("home/.local/share/ghostlight/extension")
    }
}

/// The `ghostlight-native-host` built beside the `ghostlight` under test (`cargo build -p
/// ghostlight-extension` when missing).
fn native_host() -> PathBuf {
    let ghostlight = Path::new(env!("CARGO_BIN_EXE_ghostlight"));
    let host = ghostlight.with_file_name("ghostlight-native-host");
    if !host.is_file() {
        let profile_dir = ghostlight.parent().expect("a profile directory");
        let target = profile_dir.parent().expect("a target directory");
        let mut build = std::process::Command::new(env!("CARGO"));
        build.args([
            "build",
            "-p",
            "ghostlight-extension",
            "--bin",
            "ghostlight-native-host",
            "--target-dir",
        ]);
        build.arg(target).current_dir(support::workspace_root());
        if profile_dir.ends_with("release") {
            build.arg("--release");
        }
        let status = build.status().expect("cargo runs");
        assert!(status.success() && host.is_file(), "cannot build {}", host.display());
    }
    host
}

fn executable(path: &Path) {
    std::fs::write(path, "#!/bin/sh\nexit 0\n").expect("write");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn json_file(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .expect("JSON")
}

#[test]
fn install_is_idempotent_its_dry_run_writes_nothing_and_uninstall_removes_only_its_own() {
    let scene = Scene::new();
    let a = scene.installation("a");
    let b = scene.installation("b");
    scene.browser("chromium", true);
    scene.browser("firefox-esr", true);

    let dry = scene.run(&a, &["install", "--dry-run"]);
    let text = stdout(&dry);
    assert_eq!(dry.status.code(), Some(0), "{text}");
    assert!(text.contains("Chromium  would register") && text.contains("Firefox   would register"), "{text}");
    assert!(text.contains(ORIGIN) && text.contains("Dry run: nothing was written."), "{text}");
    assert!(!scene.chromium_manifest().exists() && !scene.extension_dir().exists(), "a dry run wrote");

    let first = scene.run(&a, &["install"]);
    let text = stdout(&first);
    assert_eq!(first.status.code(), Some(0), "{text}");
    assert!(text.contains("Chromium  registered") && text.contains("extension placed"), "{text}");
    assert!(text.contains("chrome://extensions") && text.contains("about:debugging"), "{text}");
    let chromium = json_file(&scene.chromium_manifest());
    assert_eq!(chromium["name"], "ghostlight.native_host");
    assert_eq!(chromium["type"], "stdio");
    assert_eq!(chromium["path"], json!(a.join("ghostlight-native-host")));
    assert_eq!(chromium["allowed_origins"], json!([ORIGIN]));
    let firefox = json_file(&scene.firefox_manifest());
    assert_eq!(firefox["allowed_extensions"], json!([GECKO]));
    assert_eq!(firefox["path"], chromium["path"]);
    let shipped = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../extension/manifest.json"))
        .expect("the repository's extension");
    assert_eq!(std::fs::read(scene.extension_dir().join("manifest.json")).expect("placed"), shipped);
    assert!(!scene.path("home/.config/google-chrome").exists(), "Chrome is not installed");

    let before = std::fs::metadata(scene.chromium_manifest()).and_then(|m| m.modified()).expect("mtime");
    let second = scene.run(&a, &["install"]);
    let text = stdout(&second);
    assert_eq!(second.status.code(), Some(0), "{text}");
    assert!(
        text.contains("Chromium  already installed") && text.contains("Already installed; nothing changed."),
        "{text}"
    );
    let after = std::fs::metadata(scene.chromium_manifest()).and_then(|m| m.modified()).expect("mtime");
    assert_eq!(before, after, "an idempotent run rewrote the manifest");

    let doctor = stdout(&scene.run(&a, &["doctor", "--connector", "extension"]));
    assert!(doctor.contains("extension Chromium: registered by this installation"), "{doctor}");
    assert!(doctor.contains("found   native-host") && doctor.contains("Ready."), "{doctor}");
    let seen_from_b = stdout(&scene.run(&b, &["doctor"]));
    assert!(
        seen_from_b.contains("extension Firefox: owned by another Ghostlight installation"),
        "{seen_from_b}"
    );

    // Another installation's uninstall leaves a's registrations and the shared files alone.
    let foreign = scene.run(&b, &["install", "--uninstall"]);
    let text = stdout(&foreign);
    assert_eq!(foreign.status.code(), Some(0), "{text}");
    assert!(text.contains("left alone: owned by another installation"), "{text}");
    assert!(
        scene.chromium_manifest().exists() && scene.extension_dir().join("manifest.json").exists(),
        "{text}"
    );

    let dry_removal = scene.run(&a, &["install", "--uninstall", "--dry-run"]);
    assert!(stdout(&dry_removal).contains("would remove"), "{}", stdout(&dry_removal));
    assert!(scene.chromium_manifest().exists(), "a dry run removed");
    let removal = scene.run(&a, &["install", "--uninstall"]);
    let text = stdout(&removal);
    assert_eq!(removal.status.code(), Some(0), "{text}");
    assert!(!scene.chromium_manifest().exists() && !scene.firefox_manifest().exists(), "{text}");
    assert!(!scene.extension_dir().exists(), "{text}");
    let again = stdout(&scene.run(&a, &["install", "--uninstall"]));
    assert!(again.contains("Nothing of this installation to remove."), "{again}");
}

#[test]
fn install_needs_the_native_host_beside_it_and_config_check_validates_the_connector() {
    let scene = Scene::new();
    let a = scene.installation("a");
    scene.browser("chromium", true);
    std::fs::remove_file(a.join("ghostlight-native-host")).expect("removed");
    let refused = scene.run(&a, &["install"]);
    assert_eq!(refused.status.code(), Some(2));
    let error = String::from_utf8_lossy(&refused.stderr);
    assert!(error.contains("ghostlight-native-host is not beside this ghostlight"), "{error}");
    assert!(!scene.chromium_manifest().exists());

    let good = scene.path("good.toml");
    std::fs::write(&good, "[browser]\nconnector = \"extension\"\n").expect("write");
    let checked = scene.run(&a, &["config", "check", good.to_str().expect("utf-8")]);
    assert_eq!(checked.status.code(), Some(0), "{}", String::from_utf8_lossy(&checked.stderr));
    let bad = scene.path("bad.toml");
    std::fs::write(&bad, "[browser]\nconnector = \"carrier-pigeon\"\n").expect("write");
    let checked = scene.run(&a, &["config", "check", bad.to_str().expect("utf-8")]);
    assert_eq!(checked.status.code(), Some(2));
    let error = String::from_utf8_lossy(&checked.stderr);
    assert!(
        error.contains("bad.toml:2") && error.contains("webdriver") && error.contains("extension"),
        "{error}"
    );
    let init =
        scene.run(&a, &["config", "init", "--config", scene.path("init.toml").to_str().expect("utf-8")]);
    assert_eq!(init.status.code(), Some(0));
    let written = std::fs::read_to_string(scene.path("init.toml")).expect("written");
    assert!(written.contains("# connector = \"webdriver\""), "{written}");
}

/// `browser_tabs list` through the server: the envelope.
async fn list(client: &RunningService<RoleClient, ()>) -> Value {
    invoke(client, "browser_tabs", json!({"action": "list"})).await
}

fn assert_manual(envelope: &Value, browsers: &[&str]) {
    assert_eq!(status(envelope), "attention_required", "{}", describe(envelope));
    assert_eq!(envelope["facts"]["reason"], "browser_startup_manual", "{}", describe(envelope));
    assert_eq!(envelope["facts"]["browsers"], json!(browsers), "{}", describe(envelope));
    match browsers {
        [one] => assert_eq!(envelope["facts"]["browser"], json!(one), "{}", describe(envelope)),
        _ => assert!(envelope["facts"].get("browser").is_none(), "{}", describe(envelope)),
    }
    assert_eq!(envelope["next_steps"], json!([]), "{}", describe(envelope));
    let summary = envelope["summary"].as_str().unwrap_or_default();
    assert!(!summary.contains("declined") && !summary.contains("choose"), "{summary}");
}

#[tokio::test]
async fn manual_startup_refusals_follow_the_registrations() {
    let scene = Scene::new();
    let a = scene.installation("a");
    let b = scene.installation("b");
    let client = scene.serve(&a, &["--connector", "extension", "--startup", "manual"]).await;

    // Nothing installed: the browsers found (none) and one remedy.
    let none = list(&client).await;
    assert_manual(&none, &[]);
    assert!(describe(&none).contains("`ghostlight install`"), "{}", describe(&none));

    // Two browsers, neither registered: still one remedy, naming both.
    scene.browser("chromium", true);
    scene.browser("firefox", true);
    let unregistered = list(&client).await;
    assert_manual(&unregistered, &["Chromium", "Firefox"]);
    assert!(unregistered["summary"].as_str().is_some_and(|s| s.contains("ghostlight install")));

    // Registered by this installation: open one of them.
    assert_eq!(scene.run(&a, &["install"]).status.code(), Some(0));
    let eligible = list(&client).await;
    assert_manual(&eligible, &["Chromium", "Firefox"]);
    assert!(
        eligible["summary"].as_str().is_some_and(|s| s.contains("open a Chromium or Firefox window")),
        "{}",
        describe(&eligible)
    );

    // A stale registration of this installation (an older copy) is repaired silently first.
    let mut stale = json_file(&scene.firefox_manifest());
    stale["description"] = json!("an older Ghostlight");
    stale["path"] = json!(a.join("ghostlight-native-host-0.0.9"));
    std::fs::write(scene.firefox_manifest(), stale.to_string()).expect("write");
    let repaired = list(&client).await;
    assert_manual(&repaired, &["Chromium", "Firefox"]);
    assert!(!describe(&repaired).contains("repair"), "{}", describe(&repaired));
    assert_eq!(json_file(&scene.firefox_manifest())["path"], json!(a.join("ghostlight-native-host")));

    // One browser left: the singular fact too.
    scene.browser("firefox", false);
    assert_manual(&list(&client).await, &["Chromium"]);

    // Another installation takes Chromium over: exactly the spec's sentence, one next step, and
    // nothing changes.
    assert_eq!(scene.run(&b, &["install"]).status.code(), Some(0));
    let owned = std::fs::read(scene.chromium_manifest()).expect("b's manifest");
    let elsewhere = list(&client).await;
    assert_eq!(status(&elsewhere), "attention_required", "{}", describe(&elsewhere));
    assert_eq!(elsewhere["summary"], "Another Ghostlight installation owns the browser registration.");
    assert_eq!(elsewhere["facts"]["reason"], "native_host_owned_elsewhere");
    let steps = elsewhere["next_steps"].as_array().cloned().unwrap_or_default();
    assert_eq!(steps.len(), 1, "{}", describe(&elsewhere));
    assert!(steps[0].as_str().is_some_and(|s| s.contains("`ghostlight install` from the installation")));
    assert_eq!(std::fs::read(scene.chromium_manifest()).expect("unchanged"), owned, "recovery changed it");

    // That installation is gone (its host removed): no usable registration, one remedy.
    std::fs::remove_file(b.join("ghostlight-native-host")).expect("removed");
    let unusable = list(&client).await;
    assert_manual(&unusable, &["Chromium"]);
    assert!(unusable["summary"].as_str().is_some_and(|s| s.contains("ghostlight install")));
    let _ = client.cancel().await;
}

#[tokio::test]
async fn several_browsers_under_auto_get_the_same_refusal_from_the_configured_connector() {
    let scene = Scene::new();
    let a = scene.installation("a");
    scene.browser("chromium", true);
    scene.browser("google-chrome", true);
    scene.browser("firefox", true);
    assert_eq!(scene.run(&a, &["install"]).status.code(), Some(0));
    let config = scene.path("home/.config/ghostlight/config.toml");
    std::fs::create_dir_all(scene.path("home/.config/ghostlight")).expect("a directory");
    std::fs::write(&config, "[browser]\nconnector = \"extension\"\nstartup = \"auto\"\n").expect("write");
    let client = scene.serve(&a, &[]).await;
    let envelope = list(&client).await;
    assert_manual(&envelope, &["Chromium", "Chrome", "Firefox"]);
    let explained = invoke(&client, "policy_explain", json!({})).await;
    assert_eq!(status(&explained), "succeeded", "{}", describe(&explained));
    let _ = client.cancel().await;
}

/// The real Chromium binary (Debian's `/usr/bin/chromium` wrapper adds an empty
/// `--load-extension=` that would override ours).
fn chromium_binary() -> PathBuf {
    let debian = Path::new("/usr/lib/chromium/chromium");
    if debian.is_file() {
        return debian.to_path_buf();
    }
    support::on_path("chromium").expect("Chromium is needed: apt-get install chromium")
}

#[tokio::test]
async fn a_real_chromium_connects_through_what_install_registered() {
    let scene = Scene::new();
    let a = scene.real_installation("a");
    std::os::unix::fs::symlink(chromium_binary(), scene.path("bin/chromium")).expect("chromium on PATH");
    assert_eq!(scene.run(&a, &["install"]).status.code(), Some(0));
    // An older copy of this installation's registration: repaired silently when serving starts.
    let mut stale = json_file(&scene.chromium_manifest());
    stale["path"] = json!(a.join("ghostlight-native-host-0.0.9"));
    std::fs::write(scene.chromium_manifest(), stale.to_string()).expect("write");
    std::fs::create_dir_all(scene.path("tmp")).expect("a directory");

    // The person's Chromium: its usual profile in HOME, the extension from where install put it.
    let mut chromium = std::process::Command::new(chromium_binary());
    chromium
        .arg("--headless=new")
        .args(ghostlight_webdriver::CHROMIUM_FLAGS)
        .arg(format!("--user-data-dir={}", scene.path("home/.config/chromium").display()))
        .arg(format!("--load-extension={}", scene.extension_dir().display()))
        .arg("about:blank")
        .env_clear()
        .env("HOME", scene.path("home"))
        .env("XDG_RUNTIME_DIR", scene.path("run"))
        .env("TMPDIR", scene.path("tmp"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    if nix::unistd::geteuid().is_root() {
        chromium.arg(ghostlight_webdriver::NO_SANDBOX_FLAG);
    }
    let mut process = chromium.spawn().expect("Chromium starts");
    let group = nix::unistd::Pid::from_raw(i32::try_from(process.id()).expect("a pid"));

    let client = scene.serve(&a, &["--connector", "extension", "--startup", "manual"]).await;
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut listed = list(&client).await;
    while status(&listed) != "succeeded" && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(200)).await;
        listed = list(&client).await;
    }
    let _ = client.cancel().await;
    let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
    let _ = process.wait();
    assert_eq!(status(&listed), "succeeded", "{}", describe(&listed));
    assert_eq!(listed["facts"]["tabs"], json!([]), "{}", describe(&listed));
    assert_eq!(json_file(&scene.chromium_manifest())["path"], json!(a.join("ghostlight-native-host")));
}

#[test]
fn session_status_describes_the_extension_connector() {
    let scene = Scene::new();
    let a = scene.installation("a");
    let started = scene.run(&a, &["session", "start", "--connector", "extension"]);
    assert_eq!(started.status.code(), Some(0), "{}", String::from_utf8_lossy(&started.stderr));
    let status = stdout(&scene.run(&a, &["session", "status"]));
    let stopped = scene.run(&a, &["session", "stop"]);
    assert!(
        status.contains("browser: the person's own browser through the Ghostlight extension, not connected"),
        "{status}"
    );
    assert!(!status.contains("headless"), "no WebDriver words under the extension connector: {status}");
    assert_eq!(stopped.status.code(), Some(0), "{}", String::from_utf8_lossy(&stopped.stderr));
}
