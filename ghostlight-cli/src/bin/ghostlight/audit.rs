//! `audit verify` and `audit show`: check an audit file's chain, and print its records for a
//! person. Both read the file line by line (a line over 64 KiB is reported, not held), and
//! exit 0 when the chain is intact, 1 at the first broken line, 2 when the file cannot be read.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::ExitCode;

use ghostlight_cli::audit::chain::{self, Line, Verdict};
use serde_json::{Map, Value};

use crate::error::CliError;

/// Open `path` for reading: standard input for `-` (records filtered out of a log, e.g.
/// `grep '^{' stderr.log | ghostlight audit verify -`), else a regular file (a FIFO or a
/// device is refused rather than waited on), or a usage error naming it.
fn open(path: &Path) -> Result<Box<dyn BufRead>, CliError> {
    if path.as_os_str() == "-" {
        return Ok(Box::new(std::io::stdin().lock()));
    }
    let metadata =
        std::fs::metadata(path).map_err(|source| CliError::File { path: path.to_owned(), source })?;
    if !metadata.is_file() {
        return Err(CliError::Usage(format!("{} is not a regular file", path.display())));
    }
    let file = File::open(path).map_err(|source| CliError::File { path: path.to_owned(), source })?;
    Ok(Box::new(BufReader::new(file)))
}

/// Scan `path`, showing each line to `each`.
fn scan(path: &Path, each: impl FnMut(&Line)) -> Result<Verdict, CliError> {
    chain::scan(open(path)?, each).map_err(|source| CliError::File { path: path.to_owned(), source })
}

/// Print the verdict (`FILE: ...`) and the limits of what it shows; the exit code it means.
fn verdict(out: &mut impl Write, path: &Path, verdict: &Verdict) -> Result<ExitCode, CliError> {
    match verdict {
        Ok(verified) => {
            writeln!(out, "{}: {verified}", path.display())?;
            writeln!(out, "note: {}", chain::LIMITS)?;
            Ok(ExitCode::SUCCESS)
        }
        Err(broken) => {
            writeln!(out, "{}: chain broken at {broken}", path.display())?;
            Ok(ExitCode::FAILURE)
        }
    }
}

/// `ghostlight audit verify FILE`: one line saying the chain is intact (and what to compare
/// with a copy kept elsewhere), or naming the first broken line (exit 1).
pub(crate) fn verify(path: &Path) -> Result<ExitCode, CliError> {
    let result = scan(path, |_| {})?;
    verdict(&mut std::io::stdout().lock(), path, &result)
}

/// `ghostlight audit show FILE`: every line as a table row (anchors and unreadable lines as
/// notes), then the verdict.
pub(crate) fn show(path: &Path) -> Result<ExitCode, CliError> {
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{:>6}  {:<30}  {:<26}  {:<9}  {:<9}  {:<9}  {:>7}  {:<18}  HOSTS",
        "LINE", "TIME", "TOOL", "DECISION", "STATUS", "EFFECT", "MS", "SESSION"
    )?;
    let mut failed = None;
    let result = scan(path, |line| {
        if failed.is_none()
            && let Err(error) = row(&mut out, line)
        {
            failed = Some(error);
        }
    })?;
    if let Some(error) = failed {
        return Err(CliError::Output(error));
    }
    verdict(&mut out, path, &result)
}

/// One line of `audit show`.
fn row(out: &mut impl Write, line: &Line) -> std::io::Result<()> {
    let number = line.number;
    let object = match &line.content {
        Ok(object) => object,
        Err(fault) => return writeln!(out, "{number:>6}  (not a record: {fault})"),
    };
    if chain::is_anchor(object) {
        return writeln!(
            out,
            "{number:>6}  {:<30}  -- anchor {} (a run starts here)",
            text(object, "started"),
            text(object, "anchor"),
        );
    }
    let tool = match object.get("parent") {
        Some(parent) => format!(
            "  {} (step {})",
            text(object, "tool"),
            parent.get("step").and_then(Value::as_u64).map_or_else(|| "?".to_owned(), |s| s.to_string())
        ),
        None => text(object, "tool"),
    };
    let hosts = object
        .get("hosts")
        .and_then(Value::as_array)
        .map(|hosts| hosts.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    writeln!(
        out,
        "{number:>6}  {:<30}  {:<26}  {:<9}  {:<9}  {:<9}  {:>7}  {:<18}  {hosts}",
        text(object, "time"),
        tool,
        text(object, "decision"),
        text(object, "status"),
        text(object, "effect"),
        object.get("duration_ms").and_then(Value::as_u64).map_or_else(String::new, |ms| ms.to_string()),
        text(object, "session"),
    )
}

/// A string member, or `-`, bounded to one short cell.
fn text(object: &Map<String, Value>, key: &str) -> String {
    let value = object.get(key).and_then(Value::as_str).unwrap_or("-");
    let mut cell: String = value.chars().filter(|c| !c.is_control()).take(80).collect();
    if value.chars().count() > 80 {
        cell.push('…');
    }
    cell
}
