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
        // Read under a shared lock, so that another process's line is never seen half written.
        let guard = Flock::lock(file.try_clone().map_err(|e| unusable(e.to_string()))?, FlockArg::LockShared)
            .map_err(|(_, errno)| unusable(errno.to_string()))?;
        let len = guard.metadata().map_err(|e| unusable(e.to_string()))?.len();
        chain::last_line(len, |buffer, offset| guard.read_exact_at(buffer, offset)).map_err(unusable)?;
        drop(guard);
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
                let mut torn = false;
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
                            // A line cut short (a write that failed half way) is ended
                            // first, so that this record stays a line of its own.
                            tracing::warn!(why, "the audit file's last line cannot be chained to");
                            let mut end = [0u8; 1];
                            torn =
                                len > 0 && guard.read_exact_at(&mut end, len - 1).is_ok() && end != [b'\n'];
                            self.last.take()
                        }
                    },
                };
                let (mut text, mut link) = lines(previous.as_ref(), !anchored, content, len)?;
                if torn {
                    text.insert(0, '\n');
                    link.len = link.len.saturating_add(1);
                }
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
    use chain::{Broken, Fault, Verdict};
    use ghostlight_core::{Effect, Handle, HandleKind, Status, ToolName};
    use proptest::prelude::*;
    use std::time::{Duration, SystemTime};

    /// `n` records from the real sink, as one run writes them into a file.
    fn write_run(path: &Path, n: usize) {
        let audit = JsonLinesAudit::file(path).unwrap_or_else(|e| panic!("{e}"));
        for index in 0..n {
            audit.record(&record(index));
        }
    }

    fn record(index: usize) -> AuditRecord {
        let tools = [ToolName::Navigate, ToolName::Read, ToolName::Click, ToolName::FillForm];
        let at = SystemTime::UNIX_EPOCH + Duration::from_millis(1_764_600_000_000 + index as u64);
        AuditRecord::invalid(
            Handle::from_token(HandleKind::Invocation, &format!("t{index}")),
            tools[index % 4],
        )
        .finish(Status::Failed, Effect::None, Duration::from_millis(index as u64))
        .stamped(at, "ses_test")
    }

    fn verify_text(text: &str) -> Verdict {
        chain::scan(std::io::Cursor::new(text.as_bytes()), |_| {}).unwrap_or_else(|e| panic!("{e}"))
    }

    fn broken(text: &str) -> Broken {
        match verify_text(text) {
            Ok(verified) => panic!("verified: {verified}\n{text}"),
            Err(broken) => broken,
        }
    }

    /// A file of one run: an anchor and 9 records (lines 1 to 10).
    fn valid_file() -> (tempfile::TempDir, String) {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("audit.jsonl");
        write_run(&path, 9);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
        (dir, text)
    }

    fn lines_of(text: &str) -> Vec<String> {
        text.lines().map(str::to_owned).collect()
    }

    fn joined(lines: &[String]) -> String {
        lines.iter().map(|line| format!("{line}\n")).collect()
    }

    #[test]
    fn a_file_written_by_the_sink_verifies_across_runs() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("audit.jsonl");
        write_run(&path, 5);
        write_run(&path, 0); // a run that recorded nothing leaves no anchor
        write_run(&path, 3);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
        let verified = verify_text(&text).unwrap_or_else(|broken| panic!("{broken}\n{text}"));
        assert_eq!((verified.lines, verified.records, verified.anchors, verified.last_seq), (10, 8, 2, 9));
        let first = lines_of(&text);
        assert!(first[0].starts_with(r#"{"anchor":""#) && !first[0].contains("prev"), "{}", first[0]);
        assert!(
            first[6].contains(r#""kind":"audit_anchor""#) && first[6].contains(r#""prev":""#),
            "{}",
            first[6]
        );
        assert_eq!(verified.last_hash, chain::hex_sha256(first[9].as_bytes()));
        // Payload-free as before: the record's own members, plus seq and prev.
        let second: Value = serde_json::from_str(&first[1]).unwrap_or_default();
        let mut keys: Vec<&str> =
            second.as_object().map(|o| o.keys().map(String::as_str).collect()).unwrap_or_default();
        keys.sort_unstable();
        let expected = [
            "capabilities",
            "decision",
            "duration_ms",
            "effect",
            "hosts",
            "invocation",
            "prev",
            "seq",
            "session",
            "status",
            "time",
            "tool",
        ];
        assert_eq!(keys, expected);
    }

    #[test]
    fn two_sinks_on_one_file_take_turns_and_keep_one_chain() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("audit.jsonl");
        let (a, b) = (
            JsonLinesAudit::file(&path).unwrap_or_else(|e| panic!("{e}")),
            JsonLinesAudit::file(&path).unwrap_or_else(|e| panic!("{e}")),
        );
        std::thread::scope(|scope| {
            for sink in [&a, &b] {
                scope.spawn(move || (0..50).for_each(|index| sink.record(&record(index))));
            }
        });
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
        let verified = verify_text(&text).unwrap_or_else(|broken| panic!("{broken}"));
        assert_eq!((verified.records, verified.anchors), (100, 2));
    }

    #[test]
    fn a_stream_is_chained_from_its_own_anchor() {
        #[derive(Clone, Default)]
        struct Shared(Arc<Mutex<Vec<u8>>>);
        impl Write for Shared {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap_or_else(|p| p.into_inner()).extend_from_slice(bytes);
                Ok(bytes.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let shared = Shared::default();
        let audit = JsonLinesAudit::new(Box::new(shared.clone()));
        (0..4).for_each(|index| audit.record(&record(index)));
        let text =
            String::from_utf8(shared.0.lock().map(|b| b.clone()).unwrap_or_default()).unwrap_or_default();
        let verified = verify_text(&text).unwrap_or_else(|broken| panic!("{broken}"));
        assert_eq!((verified.records, verified.anchors), (4, 1));
    }

    #[test]
    fn deleting_a_record_is_caught_at_the_next_one() {
        let (_dir, text) = valid_file();
        let mut lines = lines_of(&text);
        lines.remove(4);
        let broken = broken(&joined(&lines));
        assert_eq!((broken.line, broken.seq), (5, Some(5)));
        assert_eq!(broken.fault, Fault::SequenceGap { expected: 4, found: Some(5) });
        assert!(broken.to_string().starts_with("line 5 (seq 5): sequence gap"), "{broken}");
    }

    #[test]
    fn deleting_a_record_and_renumbering_is_caught_by_the_hash() {
        let (_dir, text) = valid_file();
        let mut lines = lines_of(&text);
        lines.remove(4);
        for (index, line) in lines.iter_mut().enumerate().skip(4) {
            *line = line.replace(&format!(r#""seq":{}"#, index + 1), &format!(r#""seq":{index}"#));
        }
        assert_eq!(broken(&joined(&lines)).fault, Fault::HashMismatch { previous: 4 });
    }

    #[test]
    fn swapping_two_records_is_caught() {
        let (_dir, text) = valid_file();
        let mut lines = lines_of(&text);
        lines.swap(3, 4);
        let broken = broken(&joined(&lines));
        assert_eq!((broken.line, broken.fault), (4, Fault::SequenceGap { expected: 3, found: Some(4) }));
    }

    #[test]
    fn editing_a_record_is_caught_at_the_next_one_which_names_it() {
        let (_dir, text) = valid_file();
        let mut lines = lines_of(&text);
        assert!(lines[3].contains(r#""status":"failed""#));
        lines[3] = lines[3].replace(r#""status":"failed""#, r#""status":"succeeded""#);
        let broken = broken(&joined(&lines));
        assert_eq!((broken.line, broken.fault.clone()), (5, Fault::HashMismatch { previous: 4 }));
        assert!(broken.to_string().contains("line 4 was edited"), "{broken}");
        // An edit that keeps the meaning but not the canonical bytes is caught on the line.
        let mut lines = lines_of(&text);
        lines[3] = lines[3].replacen(':', ": ", 1);
        assert_eq!((broken_line(&lines), broken_fault(&lines)), (4, Fault::NotCanonical));
    }

    fn broken_line(lines: &[String]) -> u64 {
        broken(&joined(lines)).line
    }

    fn broken_fault(lines: &[String]) -> Fault {
        broken(&joined(lines)).fault
    }

    #[test]
    fn truncating_inside_a_line_is_caught() {
        let (_dir, text) = valid_file();
        // The file cut in the middle of line 6.
        let lines = lines_of(&text);
        let cut: usize = lines[..5].iter().map(|l| l.len() + 1).sum::<usize>() + lines[5].len() / 2;
        let broken = broken(&text[..cut]);
        assert_eq!(broken.line, 6);
        assert!(matches!(broken.fault, Fault::BadJson(_)), "{broken}");
        // Cut just before line 6's newline: complete JSON, but no newline.
        let cut = lines[..6].iter().map(|l| l.len() + 1).sum::<usize>() - 1;
        assert_eq!(self::broken(&text[..cut]).fault, Fault::Unterminated);
        // A span cut out of the middle (from inside line 3 to inside line 7).
        let from = lines[..2].iter().map(|l| l.len() + 1).sum::<usize>() + 10;
        let to = lines[..6].iter().map(|l| l.len() + 1).sum::<usize>() + 10;
        // Records start alike, so the joined line may well be valid JSON: line 7's record
        // under line 3's number, caught by its seq.
        let spliced = format!("{}{}", &text[..from], &text[to..]);
        let broken = self::broken(&spliced);
        assert_eq!((broken.line, broken.fault), (3, Fault::SequenceGap { expected: 2, found: Some(6) }));
    }

    #[test]
    fn a_forged_anchor_that_restarts_the_chain_is_caught() {
        let (_dir, text) = valid_file();
        let lines = lines_of(&text);
        // Records 5 to 9 (lines 5 to 9) replaced by a fresh anchor, and the rest chained to it
        // again: the anchor has no prev, and the chain before it is not linked.
        let mut forged: Vec<String> = lines[..4].to_vec();
        let mut anchor = chain::anchor(None).unwrap_or_else(|e| panic!("{e}"));
        anchor.insert("seq".into(), 4.into());
        let mut prev = chain::line_hash(&Value::Object(anchor.clone()));
        forged.push(chain::canonical_json(&Value::Object(anchor)));
        let mut last: Map<String, Value> = serde_json::from_str(&lines[9]).unwrap_or_default();
        last.insert("seq".into(), 5.into());
        last.insert("prev".into(), prev.clone().into());
        prev = chain::line_hash(&Value::Object(last.clone()));
        forged.push(chain::canonical_json(&Value::Object(last)));
        let broken = broken(&joined(&forged));
        assert_eq!((broken.line, broken.seq, broken.fault), (5, Some(4), Fault::Unchained { previous: 4 }));
        assert!(!prev.is_empty());
        // Everything before the forged anchor deleted as well: its seq must be 0.
        let broken = self::broken(&joined(&forged[4..]));
        assert_eq!((broken.line, broken.fault), (1, Fault::SequenceGap { expected: 0, found: Some(4) }));
        // The head cut up to a later run's anchor: that anchor chains to a line not there.
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("audit.jsonl");
        write_run(&path, 2);
        write_run(&path, 2);
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        assert_eq!(self::broken(&joined(&lines_of(&text)[3..])).fault, Fault::HeadCut);
        assert_eq!(self::broken(&joined(&lines_of(&text)[1..])).fault, Fault::MissingAnchor);
    }

    #[test]
    fn empty_and_oversized_lines_are_reported() {
        assert_eq!(broken("").fault, Fault::Empty);
        let (_dir, text) = valid_file();
        let mut lines = lines_of(&text);
        lines[2] = "x".repeat(chain::MAX_LINE_BYTES + 1);
        let broken = broken(&joined(&lines));
        assert_eq!((broken.line, broken.fault), (3, Fault::TooLong));
        lines[2] = String::new();
        assert!(matches!(broken_fault(&lines), Fault::BadJson(_)));
    }

    #[test]
    fn a_line_cut_short_while_running_is_ended_and_the_break_shown() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("audit.jsonl");
        let audit = JsonLinesAudit::file(&path).unwrap_or_else(|e| panic!("{e}"));
        audit.record(&record(0));
        let mut file = private_file::append(&path).unwrap_or_else(|e| panic!("{e}"));
        file.write_all(b"{\"seq\":2,\"too").unwrap_or_else(|e| panic!("{e}"));
        audit.record(&record(1));
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let lines = lines_of(&text);
        assert_eq!(lines.len(), 4, "{text}");
        assert!(lines[3].contains(r#""seq":2"#) && lines[3].ends_with('}'), "{text}");
        let broken = broken(&text);
        assert_eq!(broken.line, 3);
        assert!(matches!(broken.fault, Fault::BadJson(_)), "{broken}");
    }

    #[test]
    fn a_file_whose_tail_cannot_be_chained_to_is_refused_at_start() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("audit.jsonl");
        for (text, why) in [
            ("{\"tool\":\"browser_read\"}\n", "before audit records were chained"),
            ("{\"seq\":0,\"kind\":\"audit_an", "cut short"),
        ] {
            let mut file = private_file::rewrite(&path).unwrap_or_else(|e| panic!("{e}"));
            file.write_all(text.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
            let error = JsonLinesAudit::file(&path).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(error.contains(why) && error.contains("ghostlight audit verify"), "{error}");
        }
    }

    /// One change to one line of a valid file.
    #[derive(Debug, Clone)]
    enum Mutation {
        /// Delete the line.
        Delete(usize),
        /// Swap it with the next.
        Swap(usize),
        /// Put it in twice.
        Duplicate(usize),
        /// Replace one byte.
        Byte(usize, usize, u8),
        /// Cut the file inside the line.
        Cut(usize, usize),
    }

    fn mutation() -> impl Strategy<Value = Mutation> {
        prop_oneof![
            any::<usize>().prop_map(Mutation::Delete),
            any::<usize>().prop_map(Mutation::Swap),
            any::<usize>().prop_map(Mutation::Duplicate),
            (any::<usize>(), any::<usize>(), any::<u8>()).prop_map(|(l, at, b)| Mutation::Byte(l, at, b)),
            (any::<usize>(), any::<usize>()).prop_map(|(l, at)| Mutation::Cut(l, at)),
        ]
    }

    fn apply(text: &str, mutation: &Mutation) -> Vec<u8> {
        let mut lines: Vec<Vec<u8>> = text.lines().map(|l| l.as_bytes().to_vec()).collect();
        let n = lines.len();
        let join = |lines: &[Vec<u8>]| lines.iter().flat_map(|l| l.iter().copied().chain([b'\n'])).collect();
        match *mutation {
            Mutation::Delete(line) => {
                lines.remove(line % n);
            }
            Mutation::Swap(line) => lines.swap(line % (n - 1), line % (n - 1) + 1),
            Mutation::Duplicate(line) => {
                let copy = lines[line % n].clone();
                lines.insert(line % n, copy);
            }
            Mutation::Byte(line, at, byte) => {
                let line = &mut lines[line % n];
                let at = at % line.len();
                line[at] = byte;
            }
            Mutation::Cut(line, at) => {
                let line = line % n;
                let mut bytes: Vec<u8> = join(&lines[..line]);
                bytes.extend_from_slice(&lines[line][..at % lines[line].len()]);
                return bytes;
            }
        }
        join(&lines)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Any one-line change to a valid file is caught, or it leaves the file as it was, or
        /// it is at the tail and changes what `verify` reports (the record count or the last
        /// hash), which a copy kept elsewhere shows.
        #[test]
        fn any_single_line_mutation_is_caught_or_changes_the_summary(mutation in mutation()) {
            let (_dir, text) = valid_file();
            let original = verify_text(&text).unwrap_or_else(|broken| panic!("{broken}"));
            let mutated = apply(&text, &mutation);
            if mutated != text.as_bytes() {
                let verdict = chain::scan(std::io::Cursor::new(&mutated), |_| {}).unwrap_or_else(|e| panic!("{e}"));
                if let Ok(verified) = verdict {
                    prop_assert!(
                        (verified.lines, &verified.last_hash) != (original.lines, &original.last_hash),
                        "{mutation:?} verified with the same summary"
                    );
                }
            }
        }
    }

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
