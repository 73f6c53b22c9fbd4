//! A server killed with SIGKILL leaves nothing behind: its driver, browser (crash handlers
//! included) end within seconds, and the next server start removes its profile folder. The
//! real binary over stdio, headless Chromium, a page on 127.0.0.1.

#![cfg(target_os = "linux")]

mod support;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::json;
use support::{invoke, require_chromedriver, spawn_binary, status};

/// How long everything the killed server started may take to end.
const GRACE: Duration = Duration::from_secs(10);

/// Every process (not a zombie) whose command line contains `needle`.
fn processes_with(needle: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            let state = stat.rsplit_once(')')?.1.split_whitespace().next()?.to_owned();
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            (state != "Z" && cmdline.contains(needle)).then_some(pid)
        })
        .collect()
}

/// The profile folder of the browser the server `pid` started (its name carries the pid).
fn profile_of_server(pid: u32) -> Option<PathBuf> {
    let marker = format!("-{pid}-");
    let Ok(entries) = std::fs::read_dir("/proc") else { return None };
    entries.flatten().find_map(|entry| {
        let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
        let cmdline = String::from_utf8_lossy(&cmdline).into_owned();
        let dir = cmdline.split('\0').find_map(|arg| arg.strip_prefix("--user-data-dir="))?;
        dir.contains(&marker).then(|| PathBuf::from(dir))
    })
}

#[tokio::test]
async fn a_killed_server_leaves_no_process_and_no_profile() {
    require_chromedriver();
    let site = support::site::Site::serve(|_| {
        support::site::Reply::html(200, "<!doctype html><title>Alive</title><h1>Alive</h1>")
    });
    let (client, pid) = spawn_binary(&[], None).await;
    let opened = invoke(&client, "browser_navigate", json!({"url": site.url("/").as_str()})).await;
    assert_eq!(status(&opened), "succeeded", "{opened}");
    // The server's own profile: its folder names the server's process id.
    let found = Instant::now() + GRACE;
    let profile = loop {
        if let Some(dir) = profile_of_server(pid) {
            break dir;
        }
        assert!(Instant::now() < found, "no browser of server {pid} found");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let needle = profile.to_string_lossy().into_owned();
    let before = processes_with(&needle);
    assert!(!before.is_empty(), "the browser runs with {needle}");

    let killed = std::process::Command::new("kill").args(["-KILL", &pid.to_string()]).status();
    assert!(killed.is_ok_and(|s| s.success()), "kill -9 {pid}");
    let deadline = Instant::now() + GRACE;
    loop {
        let left = processes_with(&needle);
        if left.is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "still running {GRACE:?} after the server was killed: {left:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    drop(client);
    assert!(profile.exists(), "a killed server cannot remove its profile itself");

    // The next server's first browser start sweeps the dead server's profile folder.
    let (next, _) = spawn_binary(&[], None).await;
    let opened = invoke(&next, "browser_navigate", json!({"url": site.url("/").as_str()})).await;
    assert_eq!(status(&opened), "succeeded", "{opened}");
    assert!(!profile.exists(), "{} is left behind", profile.display());
    let _ = next.cancel().await;
}
