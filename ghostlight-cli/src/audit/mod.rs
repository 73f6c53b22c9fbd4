//! Audit records as JSON lines ([`JsonLinesAudit`]): one [`AuditRecord::to_json`] object per
//! line, on standard error or appended to a file (`[audit] destination`), chained so that a
//! deleted, moved or edited line is detectable ([`chain`]: the format and its verifier, which
//! `ghostlight audit verify` and `ghostlight audit show` run).
//!
//! Each line carries its `seq` and the SHA-256 of the line before (`prev`); a run writes an
//! anchor line (32 random bytes) before its first record. A run appending to an existing file
//! chains its anchor to the file's last line, so one file is one chain however many runs (or
//! processes, which take turns under an exclusive `flock`) wrote it. Standard error is chained
//! the same way, from the run's anchor: records a log collector keeps can be verified once the
//! other log lines are filtered out.

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileExt as _;
use std::path::Path;
use std::sync::{Arc, Mutex};

use ghostlight_core::DiscardAudit;
use ghostlight_core::{AuditRecord, AuditSink};
use nix::fcntl::{Flock, FlockArg};
use serde_json::{Map, Value};

use crate::error::ConfigError;
use crate::options::AuditOptions;
use crate::private_file;

pub mod chain;

/// An [`AuditSink`] writing one chained JSON object per line ([`chain`] has the format). A
/// write that fails is reported on standard error and the record dropped: auditing never fails
/// an invocation.
pub struct JsonLinesAudit {
    out: Mutex<Writer>,
}

impl std::fmt::Debug for JsonLinesAudit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonLinesAudit").finish_non_exhaustive()
    }
}

/// Where the lines go, and the chain's state after the last line this sink wrote.
struct Writer {
    target: Target,
    /// The last line this sink wrote: `None` until the run's anchor is written.
    last: Option<Link>,
}

enum Target {
    /// A stream only this sink writes (standard error): the chain is kept in memory.
    Stream(Box<dyn Write + Send>),
    /// A file other processes may append to: locked per write, its tail read again when it
    /// grew since this sink's last line.
    File(File),
}

/// A line written: its `seq`, its hash, and the file's length after it (files only).
struct Link {
    seq: u64,
    hash: String,
    len: u64,
}

impl JsonLinesAudit {
    /// Records written to `out`, chained from an anchor written before the first of them.
    pub fn new(out: Box<dyn Write + Send>) -> JsonLinesAudit {
        JsonLinesAudit { out: Mutex::new(Writer { target: Target::Stream(out), last: None }) }
    }

    /// Records appended to the audit file at `path`, opened as [`private_file::read_append`]
    /// does, chained to its last line. Refused when the file's last line cannot be chained to:
    /// cut short, longer than [`chain::MAX_LINE_BYTES`], or written before records were chained.
    pub fn file(path: &Path) -> Result<JsonLinesAudit, ConfigError> {
        let file = private_file::read_append(path).map_err(|e| ConfigError::Audit(e.to_string()))?;
        let unusable = |why: String| {
            ConfigError::Audit(format!(
                "{}: {why}; check it with `ghostlight audit verify {}`, then move it aside (a new file starts a new chain)",
                path.display(),
                path.display()
            ))
        };
        let len = file.metadata().map_err(|e| unusable(e.to_string()))?.len();
        chain::last_line(len, |buffer, offset| file.read_exact_at(buffer, offset)).map_err(unusable)?;
        Ok(JsonLinesAudit { out: Mutex::new(Writer { target: Target::File(file), last: None }) })
    }
}

impl AuditSink for JsonLinesAudit {
    fn record(&self, record: &AuditRecord) {
        let mut writer = self.out.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Err(error) = writer.write(record) {
            tracing::warn!(%error, "an audit record could not be written");
        }
    }
}

impl Writer {
    fn write(&mut self, record: &AuditRecord) -> std::io::Result<()> {
        let Value::Object(content) = record.to_json() else {
            return Err(std::io::Error::other("the record is not a JSON object"));
        };
        match &mut self.target {
            Target::Stream(out) => {
                let (text, link) = lines(self.last.as_ref(), self.last.is_none(), content, 0)?;
                out.write_all(text.as_bytes())?;
                out.flush()?;
                self.last = Some(link);
            }
            Target::File(file) => {
                // Other processes may append to the same file: one at a time, each chaining to
                // the line before its own. The lock is on a duplicate of the descriptor (the
                // same open file) and released when the guard drops.
                let guard = Flock::lock(file.try_clone()?, FlockArg::LockExclusive)
                    .map_err(|(_, errno)| std::io::Error::from(errno))?;
                let len = guard.metadata()?.len();
                let anchored = self.last.is_some();
                let previous = match &self.last {
                    Some(link) if link.len == len => {
                        Some(Link { seq: link.seq, hash: link.hash.clone(), len })
                    }
                    _ => match chain::last_line(len, |buffer, offset| guard.read_exact_at(buffer, offset)) {
                        Ok(None) => None,
                        Ok(Some(line)) => {
                            let seq = line.get("seq").and_then(Value::as_u64).unwrap_or_default();
                            Some(Link { seq, hash: chain::line_hash(&Value::Object(line)), len })
                        }
                        Err(why) => {
                            // Someone else broke the tail: the record is kept, chained to this
                            // sink's last line, and `audit verify` shows the break.
                            tracing::warn!(why, "the audit file's last line cannot be chained to");
                            self.last.take()
                        }
                    },
                };
                let (text, link) = lines(previous.as_ref(), !anchored, content, len)?;
                (&*guard).write_all(text.as_bytes())?;
                self.last = Some(link);
            }
        }
        Ok(())
    }
}

/// The text of the lines that record `content` after `previous` (the anchor first when
/// `anchor`), and the link of the last of them; `len` is the file's length before them.
fn lines(
    previous: Option<&Link>,
    anchor: bool,
    content: Map<String, Value>,
    len: u64,
) -> std::io::Result<(String, Link)> {
    let mut text = String::new();
    let mut last: Option<(u64, String)> = previous.map(|link| (link.seq, link.hash.clone()));
    let mut push = |mut object: Map<String, Value>| {
        let seq = last.as_ref().map_or(0, |(seq, _)| seq.saturating_add(1));
        object.insert("seq".into(), seq.into());
        if let Some((_, hash)) = &last {
            object.insert("prev".into(), hash.clone().into());
        }
        let line = chain::canonical_json(&Value::Object(object));
        let hash = chain::hex_sha256(line.as_bytes());
        text.push_str(&line);
        text.push('\n');
        last = Some((seq, hash));
    };
    if anchor {
        push(chain::anchor(content.get("time")).map_err(std::io::Error::other)?);
    }
    push(content);
    let (seq, hash) = last.unwrap_or_default();
    let len = len.saturating_add(u64::try_from(text.len()).unwrap_or(u64::MAX));
    Ok((text, Link { seq, hash, len }))
}

/// The sink `options` ask for. A file is opened as [`private_file::append`] does: created
/// `0600` when missing, appended to, and refused (never followed, never `chmod`-ed) when it is
/// a link, not a regular file, another user's, or open to others; and refused when its last
/// line cannot be chained to ([`JsonLinesAudit::file`]).
pub fn sink(options: &AuditOptions) -> Result<Arc<dyn AuditSink>, ConfigError> {
    Ok(match options {
        AuditOptions::Off => Arc::new(DiscardAudit),
        AuditOptions::Stderr => Arc::new(JsonLinesAudit::new(Box::new(std::io::stderr()))),
        AuditOptions::File(path) => Arc::new(JsonLinesAudit::file(path)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_destination_is_created_and_appended_and_a_wider_one_refused() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("audit.jsonl");
        assert!(sink(&AuditOptions::File(path.clone())).is_ok());
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &std::path::Path| std::fs::metadata(p).map(|m| m.permissions().mode() & 0o777).ok();
        assert_eq!(mode(&path), Some(0o600), "created for the user alone");
        // An existing, wider file is refused, never narrowed behind the person's back.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644))
            .unwrap_or_else(|e| panic!("{e}"));
        let refused =
            sink(&AuditOptions::File(path.clone())).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(refused.contains("chmod 600"), "{refused}");
        assert_eq!(mode(&path), Some(0o644));
        assert!(sink(&AuditOptions::File(dir.path().join("missing/dir/audit.jsonl"))).is_err());
    }
}
