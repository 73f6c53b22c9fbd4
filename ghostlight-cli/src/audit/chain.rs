//! The audit chain: the line format that makes an audit file tamper-evident, and its verifier.
//!
//! Every line of an audit file is one JSON object carrying two members besides its content:
//!
//! * `seq`: the line's position in the file's chain, from 0, one more on every line;
//! * `prev`: the hex SHA-256 of the previous line's [canonical JSON](canonical_json) (the
//!   whole previous object, its own `seq` and `prev` included). Only the first line of a file
//!   has none.
//!
//! Each line is written in that canonical form, and the verifier refuses a line that is not,
//! so that the hash covers the very bytes of the line: no edit goes unseen, even one that
//! only reorders members or adds a space.
//!
//! The first line is an anchor, `{"kind":"audit_anchor","anchor":"<64 hex>","version":1,
//! "started":"<time>","seq":0}`: 32 random bytes that name the file's chain. Each later run
//! appending to the file writes an anchor of its own first, chained like any line (its `prev`
//! is the hash of the file's last line), so one file is one chain however many runs wrote it.
//! The other lines are the payload-free [`AuditRecord`](ghostlight_core::AuditRecord)s, as
//! before, with `seq` and `prev` added.
//!
//! [`scan`] checks a file: deleting, reordering or editing a line, cutting a line short, cutting
//! the file's head (the first line must be an anchor with `seq` 0 and no `prev`), or a forged
//! anchor that starts a chain afresh after line 1, break the chain at the first line at or
//! after the change. What a hash chain alone cannot show: a cut at the tail leaves a valid
//! chain, and the chain has no secret, so someone who may write the file can recompute every
//! hash after an edit. [`Verified`] therefore names the first anchor, the number of lines and
//! the last hash, for a person to compare with a copy kept elsewhere (a log shipper, a ticket,
//! another machine): a cut tail changes the count and the last hash, a recomputed chain the
//! last hash, a file rewritten whole the anchor as well.

use std::fmt::Write as _;
use std::io::{self, BufRead};

use serde_json::{Map, Value};
use sha2::{Digest as _, Sha256};

/// The `kind` of an anchor line.
pub const ANCHOR_KIND: &str = "audit_anchor";

/// The chain format's version, in every anchor.
pub const VERSION: u64 = 1;

/// The longest line a reader accepts, newline excluded (records are a few hundred bytes); a
/// longer line is reported as broken without being held in memory.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// The canonical JSON of `value`, the text a line's hash is taken over: object members sorted
/// by key (byte order), no whitespace, strings and numbers as `serde_json` writes them. The
/// writer and the verifier both hash through [`line_hash`], which uses this.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => write_object(map, out),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

fn write_object(map: &Map<String, Value>, out: &mut String) {
    let mut members: Vec<(&String, &Value)> = map.iter().collect();
    members.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    out.push('{');
    for (index, (key, member)) in members.into_iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        out.push_str(&Value::String(key.clone()).to_string());
        out.push(':');
        write_canonical(member, out);
    }
    out.push('}');
}

/// The hex SHA-256 of `line`'s [canonical JSON](canonical_json): the `prev` of the line after
/// it.
pub fn line_hash(line: &Value) -> String {
    hex_sha256(canonical_json(line).as_bytes())
}

/// The hex SHA-256 of `bytes`.
pub(crate) fn hex_sha256(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Lower-case hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        let _ = write!(text, "{byte:02x}");
    }
    text
}

/// A new anchor line's object (without `seq` and `prev`, which the writer adds): 32 random
/// bytes from the operating system, the format's version, and when the run started (`started`:
/// the `time` of the run's first record, which it is written just before).
pub(crate) fn anchor(started: Option<&Value>) -> Result<Map<String, Value>, getrandom::Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)?;
    let mut line = Map::new();
    line.insert("kind".into(), ANCHOR_KIND.into());
    line.insert("anchor".into(), hex(&bytes).into());
    line.insert("version".into(), VERSION.into());
    if let Some(started) = started {
        line.insert("started".into(), started.clone());
    }
    Ok(line)
}

/// Whether `line` is an anchor.
pub fn is_anchor(line: &Map<String, Value>) -> bool {
    line.get("kind").and_then(Value::as_str) == Some(ANCHOR_KIND)
}

/// What broke the chain at a line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Fault {
    /// The file holds no line at all.
    #[error("the file is empty: no anchor (nothing recorded yet, or every line was removed)")]
    Empty,
    /// The line is longer than [`MAX_LINE_BYTES`].
    #[error("the line is longer than {MAX_LINE_BYTES} bytes")]
    TooLong,
    /// The last line does not end with a newline: the file was cut inside a line, or a write
    /// did not finish.
    #[error("the line has no newline: the file was cut inside it or a write did not finish")]
    Unterminated,
    /// The line is not a JSON object (or not UTF-8, or empty).
    #[error("bad JSON: {0}")]
    BadJson(String),
    /// The line is JSON, but not in the canonical form the writer writes (edited by hand or
    /// by a tool that re-serialized it).
    #[error("not canonical JSON: the line was rewritten after it was written")]
    NotCanonical,
    /// The first line is not an anchor.
    #[error(
        "missing anchor: the first line is not an audit_anchor (written before chaining, or the file's head was cut)"
    )]
    MissingAnchor,
    /// The first line chains to a line that is not in the file.
    #[error("the first line chains to a line that is not in the file: the file's head was cut")]
    HeadCut,
    /// An anchor's `anchor` or `version` is not what this format writes.
    #[error("bad anchor: {0}")]
    BadAnchor(String),
    /// The line's `seq` is not the one after the previous line's.
    #[error("sequence gap: expected seq {expected}, found {}", found.map_or_else(|| "none".to_owned(), |s| s.to_string()))]
    SequenceGap {
        /// The `seq` the line should have.
        expected: u64,
        /// The `seq` it has.
        found: Option<u64>,
    },
    /// A later anchor without `prev`: a chain started afresh without linking to the lines
    /// before it.
    #[error("an anchor that does not chain to line {previous} (a forged or misplaced re-anchor)")]
    Unchained {
        /// The line it should have chained to.
        previous: u64,
    },
    /// The line's `prev` is not the hash of the previous line.
    #[error(
        "hash mismatch: prev is not the hash of line {previous} (line {previous} was edited, or lines between were removed or moved)"
    )]
    HashMismatch {
        /// The line it should have chained to.
        previous: u64,
    },
}

/// The first line that breaks the chain.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}{}: {fault}", seq.map_or_else(String::new, |s| format!(" (seq {s})")))]
pub struct Broken {
    /// The 1-based line number.
    pub line: u64,
    /// The line's `seq`, when it has one.
    pub seq: Option<u64>,
    /// What broke.
    pub fault: Fault,
}

/// An intact chain: what a person compares with a copy kept elsewhere.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    /// Lines in the file (anchors included).
    pub lines: u64,
    /// Audit records (lines that are not anchors).
    pub records: u64,
    /// Anchors (one per run that wrote to the file).
    pub anchors: u64,
    /// The first anchor's random value (hex).
    pub anchor: String,
    /// When the first run started, as its anchor says.
    pub started: Option<String>,
    /// The last line's `seq`.
    pub last_seq: u64,
    /// The hash of the last line (what the next line would carry as `prev`).
    pub last_hash: String,
}

impl std::fmt::Display for Verified {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let runs = if self.anchors == 1 { "run" } else { "runs" };
        let records = if self.records == 1 { "record" } else { "records" };
        write!(
            f,
            "{} {records} from {} {runs}, chain intact; anchor {}{}; last seq {}, last hash {}",
            self.records,
            self.anchors,
            self.anchor,
            self.started.as_deref().map_or_else(String::new, |s| format!(" (started {s})")),
            self.last_seq,
            self.last_hash,
        )
    }
}

/// What the chain's limits mean for a person reading a verdict.
pub const LIMITS: &str = "a cut tail, or a chain recomputed by someone who may write the file, is not \
    detectable from the file alone: compare the anchor, the count and the last hash with a copy kept elsewhere";

/// The verdict on a whole file.
pub type Verdict = Result<Verified, Broken>;

/// One line as [`scan`] read it: its number, and its JSON object or why it is not one.
#[derive(Debug)]
pub struct Line {
    /// The 1-based line number.
    pub number: u64,
    /// The line's object, or why it could not be read as one.
    pub content: Result<Map<String, Value>, Fault>,
}

/// Read the lines of an audit file from `reader`, at most [`MAX_LINE_BYTES`] each, showing
/// each to `each` (as [`Line`]s, all of them, also after a break), and verify the chain:
/// the first broken line, or what an intact chain ends with.
pub fn scan(mut reader: impl BufRead, mut each: impl FnMut(&Line)) -> io::Result<Verdict> {
    let mut checker = Checker::default();
    let mut buffer = Vec::new();
    let mut number = 0u64;
    while let Some(read) = next_line(&mut reader, &mut buffer)? {
        number += 1;
        let content = match read {
            Read::TooLong => Err(Fault::TooLong),
            Read::Unterminated | Read::Complete => parse(&buffer).and_then(|object| {
                if read == Read::Unterminated { Err(Fault::Unterminated) } else { Ok(object) }
            }),
        };
        let line = Line { number, content };
        each(&line);
        checker.push(line);
    }
    Ok(checker.finish())
}

/// The chain's state while lines are pushed in order; the first break is kept.
#[derive(Debug, Default)]
struct Checker {
    broken: Option<Broken>,
    /// `(line number, seq, hash)` of the last line.
    last: Option<(u64, u64, String)>,
    records: u64,
    anchors: u64,
    first_anchor: Option<(String, Option<String>)>,
}

impl Checker {
    fn push(&mut self, line: Line) {
        if self.broken.is_some() {
            return;
        }
        if let Err(broken) = self.check(line) {
            self.broken = Some(broken);
        }
    }

    fn check(&mut self, line: Line) -> Result<(), Broken> {
        let number = line.number;
        let object = line.content.map_err(|fault| Broken { line: number, seq: None, fault })?;
        let seq = object.get("seq").and_then(Value::as_u64);
        let broken = |fault| Broken { line: number, seq, fault };
        let prev = object.get("prev");
        let anchor = is_anchor(&object);
        match &self.last {
            None => {
                if !anchor {
                    return Err(broken(Fault::MissingAnchor));
                }
                if prev.is_some() {
                    return Err(broken(Fault::HeadCut));
                }
                if seq != Some(0) {
                    return Err(broken(Fault::SequenceGap { expected: 0, found: seq }));
                }
            }
            Some((previous, last_seq, last_hash)) => {
                let expected = last_seq.saturating_add(1);
                if seq != Some(expected) {
                    return Err(broken(Fault::SequenceGap { expected, found: seq }));
                }
                match prev.and_then(Value::as_str) {
                    None if anchor => return Err(broken(Fault::Unchained { previous: *previous })),
                    Some(prev) if prev == last_hash => {}
                    _ => return Err(broken(Fault::HashMismatch { previous: *previous })),
                }
            }
        }
        if anchor {
            let value = object.get("anchor").and_then(Value::as_str).unwrap_or_default();
            if value.len() != 64 || !value.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
                return Err(broken(Fault::BadAnchor("the anchor is not 64 lower-case hex digits".into())));
            }
            if object.get("version").and_then(Value::as_u64) != Some(VERSION) {
                return Err(broken(Fault::BadAnchor(format!("the version is not {VERSION}"))));
            }
            self.anchors += 1;
            if self.first_anchor.is_none() {
                let started = object.get("started").and_then(Value::as_str).map(str::to_owned);
                self.first_anchor = Some((value.to_owned(), started));
            }
        } else {
            self.records += 1;
        }
        let hash = line_hash(&Value::Object(object));
        self.last = Some((number, seq.unwrap_or_default(), hash));
        Ok(())
    }

    fn finish(self) -> Verdict {
        if let Some(broken) = self.broken {
            return Err(broken);
        }
        match (self.last, self.first_anchor) {
            (Some((lines, last_seq, last_hash)), Some((anchor, started))) => Ok(Verified {
                lines,
                records: self.records,
                anchors: self.anchors,
                anchor,
                started,
                last_seq,
                last_hash,
            }),
            _ => Err(Broken { line: 1, seq: None, fault: Fault::Empty }),
        }
    }
}

/// How [`next_line`] ended a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Read {
    /// Up to a newline (not kept in the buffer).
    Complete,
    /// At the end of the input without a newline.
    Unterminated,
    /// Longer than [`MAX_LINE_BYTES`]: skipped up to its newline, the buffer holds a prefix.
    TooLong,
}

/// The next line of `reader` into `buffer` (newline removed), or `None` at the end. A line
/// over [`MAX_LINE_BYTES`] is consumed without being kept.
fn next_line(reader: &mut impl BufRead, buffer: &mut Vec<u8>) -> io::Result<Option<Read>> {
    buffer.clear();
    let limit = u64::try_from(MAX_LINE_BYTES).unwrap_or(u64::MAX).saturating_add(1);
    let n = io::Read::take(&mut *reader, limit).read_until(b'\n', buffer)?;
    if n == 0 {
        return Ok(None);
    }
    if buffer.last() == Some(&b'\n') {
        buffer.pop();
        return Ok(Some(Read::Complete));
    }
    if buffer.len() <= MAX_LINE_BYTES {
        return Ok(Some(Read::Unterminated));
    }
    loop {
        let available = reader.fill_buf()?;
        if available.is_empty() {
            break;
        }
        if let Some(end) = available.iter().position(|&b| b == b'\n') {
            reader.consume(end + 1);
            break;
        }
        let all = available.len();
        reader.consume(all);
    }
    Ok(Some(Read::TooLong))
}

/// A line's bytes as a JSON object.
fn parse(bytes: &[u8]) -> Result<Map<String, Value>, Fault> {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(object)) => {
            let mut canonical = String::with_capacity(bytes.len());
            write_object(&object, &mut canonical);
            if canonical.as_bytes() == bytes { Ok(object) } else { Err(Fault::NotCanonical) }
        }
        Ok(_) => Err(Fault::BadJson("not a JSON object".into())),
        Err(error) => Err(Fault::BadJson(error.to_string())),
    }
}

/// The last line of a file of `len` bytes read through `read_at` (at most [`MAX_LINE_BYTES`]
/// plus its newline): its object, `Ok(None)` for an empty file, or why the tail cannot be
/// chained to (a cut or legacy line).
pub(crate) fn last_line(
    len: u64,
    read_at: impl Fn(&mut [u8], u64) -> io::Result<()>,
) -> Result<Option<Map<String, Value>>, String> {
    if len == 0 {
        return Ok(None);
    }
    let window = u64::try_from(MAX_LINE_BYTES).unwrap_or(u64::MAX).saturating_add(1).min(len);
    let mut tail = vec![0u8; usize::try_from(window).unwrap_or(MAX_LINE_BYTES)];
    read_at(&mut tail, len - window).map_err(|e| format!("cannot read its last line: {e}"))?;
    let Some(body) = tail.strip_suffix(b"\n") else {
        return Err("its last line is cut short (no newline)".into());
    };
    let start = body.iter().rposition(|&b| b == b'\n').map(|i| i + 1);
    let line = match start {
        Some(start) => &body[start..],
        None if window == len => body,
        None => return Err(format!("its last line is longer than {MAX_LINE_BYTES} bytes")),
    };
    let object = parse(line).map_err(|fault| format!("its last line is not a record ({fault})"))?;
    if object.get("seq").and_then(Value::as_u64).is_none() {
        return Err("its last line is not part of a chain (written before audit records were chained)".into());
    }
    Ok(Some(object))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn canonical_json_sorts_keys_at_every_depth_and_drops_whitespace() {
        let value = json!({"b": 1, "a": {"z": [1, {"y": "é\"\n", "x": null}], "m": true}, "A": 2.5});
        assert_eq!(
            canonical_json(&value),
            r#"{"A":2.5,"a":{"m":true,"z":[1,{"x":null,"y":"é\"\n"}]},"b":1}"#
        );
        assert_eq!(line_hash(&json!({})).len(), 64);
        // The empty object's SHA-256, as `printf '{}' | sha256sum` prints it.
        assert_eq!(line_hash(&json!({})), "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a");
    }

    #[test]
    fn lines_over_the_cap_are_skipped_without_being_held() {
        let long = "x".repeat(MAX_LINE_BYTES + 10);
        let text = format!("{long}\n{{\"a\":1}}\ntail");
        let mut reader = io::Cursor::new(text.into_bytes());
        let mut buffer = Vec::new();
        assert_eq!(next_line(&mut reader, &mut buffer).ok().flatten(), Some(Read::TooLong));
        assert_eq!(next_line(&mut reader, &mut buffer).ok().flatten(), Some(Read::Complete));
        assert_eq!(buffer, b"{\"a\":1}");
        assert_eq!(next_line(&mut reader, &mut buffer).ok().flatten(), Some(Read::Unterminated));
        assert_eq!(next_line(&mut reader, &mut buffer).ok().flatten(), None);
    }
}
