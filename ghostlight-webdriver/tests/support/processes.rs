//! Process inspection through `/proc`: the processes of a launched browser, a driver, this
//! test; and a bounded poll for a condition on them.

use std::path::Path;
use std::time::{Duration, Instant};

/// Processes (not zombies) whose command line contains `needle`.
pub(crate) fn processes_with(needle: &Path) -> Vec<u32> {
    let needle = needle.to_string_lossy().into_owned();
    scan(|pid, cmdline, _| (!cmdline.is_empty() && cmdline.contains(&needle)).then_some(pid))
}

/// Live (not zombie) processes of process group `group`.
pub(crate) fn processes_in_group(group: u32) -> Vec<u32> {
    scan(|pid, _, stat| (stat.group == group && stat.state != 'Z').then_some(pid))
}

/// The driver: the child of the group's watchdog that is not the watchdog's own reader.
pub(crate) fn driver_of(group: u32) -> Option<u32> {
    scan(|pid, cmdline, stat| {
        (stat.parent == group
            && stat.state != 'Z'
            && (cmdline.contains("chromedriver") || cmdline.contains("geckodriver")))
        .then_some(pid)
    })
    .first()
    .copied()
}

/// The browser's main process: a child of the driver (in `group`) whose command line names
/// the profile.
pub(crate) fn browser_main(group: u32, profile: &Path) -> Option<u32> {
    let driver = driver_of(group)?;
    let needle = profile.to_string_lossy().into_owned();
    scan(|pid, cmdline, stat| (stat.parent == driver && cmdline.contains(&needle)).then_some(pid))
        .first()
        .copied()
}

/// The live child processes of this test process.
pub(crate) fn own_children() -> Vec<u32> {
    let me = std::process::id();
    scan(|pid, _, stat| (stat.parent == me && stat.state != 'Z').then_some(pid))
}

/// Poll `check` until it answers true or `limit` passes.
pub(crate) async fn eventually(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if check() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

struct Stat {
    state: char,
    parent: u32,
    group: u32,
}

fn scan(mut keep: impl FnMut(u32, &str, &Stat) -> Option<u32>) -> Vec<u32> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else { return found };
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|name| name.parse::<u32>().ok()) else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline"))
            .map(|bytes| String::from_utf8_lossy(&bytes).replace('\0', " "))
            .unwrap_or_default();
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // Fields after the parenthesised command name: state ppid pgrp …
        let Some(rest) = stat.rsplit_once(')').map(|(_, rest)| rest) else { continue };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let (Some(state), Some(parent), Some(group)) = (
            fields.first().and_then(|s| s.chars().next()),
            fields.get(1).and_then(|s| s.parse().ok()),
            fields.get(2).and_then(|s| s.parse().ok()),
        ) else {
            continue;
        };
        if let Some(pid) = keep(pid, &cmdline, &Stat { state, parent, group }) {
            found.push(pid);
        }
    }
    found
}
