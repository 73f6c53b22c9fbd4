//! MCP over standard input and output, where every request line gets an answer.
//!
//! rmcp drops a line that is not JSON (a syntax error, nesting deeper than serde_json's 128
//! levels, a number like `1e400`) and a line over its length limit without a word, answers a
//! well-formed non-message with an id-less error, and the client waits forever for those
//! requests. So the server reads standard input itself, line by line:
//!
//! - a line that is a JSON-RPC message goes on to rmcp unchanged;
//! - a line that is not JSON answers `-32700` (parse error), one that is JSON but no JSON-RPC
//!   message answers `-32600` (invalid request), and a line over [`MAX_LINE_BYTES`] answers
//!   `-32600` too. Each carries the request's `id` when one can be recovered from the line
//!   (a string or number at the top level, found even when the rest of the line does
//!   not parse), else `null`, as JSON-RPC 2.0 asks. The message names the rule, never the
//!   line's content.
//!
//! Each line is parsed once: a message goes to rmcp already typed, through a [`Transport`] of
//! this module's own (no second parse, no in-memory pipes). rmcp's messages and these answers
//! share standard output line by line: one writer task writes whole lines from both.

use std::future::Future;

use rmcp::ServiceExt as _;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::service::RoleServer;
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use crate::error::ServeError;
use crate::server::GhostlightServer;

/// The longest request line accepted, in bytes: the largest upload the contract allows
/// (5,000,000 bytes of files, about 6.7 MB as base64) with room for the rest of the message.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;
/// How much of an oversized line is kept to look for its `id`.
const ID_SCAN_BYTES: usize = 64 * 1024;
/// Messages read ahead of rmcp, and lines queued for standard output: a reader or writer
/// this far ahead waits (back-pressure instead of unbounded memory).
const QUEUE_DEPTH: usize = 32;
/// The byte-order mark a line may start with (rmcp's own transport skips it too).
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// JSON-RPC's parse error.
const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's invalid request.
const INVALID_REQUEST: i64 = -32600;

/// Serve one MCP session over standard input and output until the client closes it.
pub async fn serve_stdio(server: GhostlightServer) -> Result<(), ServeError> {
    let (input, output) = rmcp::transport::stdio_pipes();
    serve_lines(server, input, output).await
}

/// Serve one MCP session over `input` and `output` (newline-delimited JSON-RPC) until
/// `input` ends. See the module documentation.
pub async fn serve_lines<R, W>(server: GhostlightServer, input: R, output: W) -> Result<(), ServeError>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let (messages, incoming) = mpsc::channel(QUEUE_DEPTH);
    let (lines, outgoing) = mpsc::channel(QUEUE_DEPTH);
    let reader = tokio::spawn(read_requests(input, messages, lines.clone()));
    let writer = tokio::spawn(write_lines(outgoing, output));
    let served = async {
        let running = server
            .serve(LineTransport { incoming, lines })
            .await
            .map_err(|error| ServeError::Initialize(error.to_string()))?;
        running.waiting().await.map_err(|error| ServeError::Service(error.to_string()))?;
        Ok(())
    }
    .await;
    reader.abort();
    let _ = reader.await;
    // Every sender is gone by now (the reader's and the transport's): the writer ends once it
    // has written what is queued.
    let _ = writer.await;
    served
}

/// rmcp's side of the session: messages the reader parsed, and lines for the writer.
struct LineTransport {
    incoming: mpsc::Receiver<ClientJsonRpcMessage>,
    lines: mpsc::Sender<Vec<u8>>,
}

impl Transport<RoleServer> for LineTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let line = serde_json::to_vec(&item);
        let lines = self.lines.clone();
        async move {
            let mut line = line.map_err(std::io::Error::other)?;
            line.push(b'\n');
            lines
                .send(line)
                .await
                .map_err(|_| std::io::Error::new(std::io::ErrorKind::BrokenPipe, "standard output is closed"))
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        self.incoming.recv().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.incoming.close();
        Ok(())
    }
}

/// Read request lines, hand each message to rmcp, and queue an answer for every other line.
async fn read_requests<R: AsyncRead + Unpin>(
    input: R,
    messages: mpsc::Sender<ClientJsonRpcMessage>,
    lines: mpsc::Sender<Vec<u8>>,
) {
    let mut input = BufReader::new(input);
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = match read_line(&mut input, &mut line).await {
            Ok(read) => read,
            Err(_) => break,
        };
        let verdict = match read {
            Line::End => break,
            Line::Whole => Gate::check(&line),
            Line::Oversized { head } => Verdict::Answer(error_answer(
                recover_id(&head),
                INVALID_REQUEST,
                format!("Invalid Request: the message is over the {MAX_LINE_BYTES}-byte limit"),
            )),
        };
        let delivered = match verdict {
            Verdict::Skip => true,
            Verdict::Forward(message) => messages.send(*message).await.is_ok(),
            Verdict::Answer(answer) => {
                let mut answer = answer.into_bytes();
                answer.push(b'\n');
                lines.send(answer).await.is_ok()
            }
        };
        if !delivered {
            break;
        }
    }
    // End of input: dropping `messages` ends rmcp's receiving, which ends the session.
}

/// One line read.
enum Line {
    /// A line (without its newline) is in the buffer.
    Whole,
    /// The line was longer than [`MAX_LINE_BYTES`]; its first bytes (to look for an id).
    Oversized { head: Vec<u8> },
    /// The input ended.
    End,
}

/// Read one `\n`-terminated line into `line` (without the newline and a `\r` before it),
/// never holding more than [`MAX_LINE_BYTES`] of it.
async fn read_line<R: AsyncRead + Unpin>(
    input: &mut BufReader<R>,
    line: &mut Vec<u8>,
) -> std::io::Result<Line> {
    let mut oversized = false;
    loop {
        let available = input.fill_buf().await?;
        if available.is_empty() {
            return Ok(if line.is_empty() && !oversized { Line::End } else { finish(line, oversized) });
        }
        let newline = available.iter().position(|b| *b == b'\n');
        let take = newline.map_or(available.len(), |i| i + 1);
        let chunk = &available[..newline.unwrap_or(available.len())];
        if oversized {
            // Keep only the head (already at most ID_SCAN_BYTES).
        } else if line.len() + chunk.len() > MAX_LINE_BYTES {
            oversized = true;
            let room = ID_SCAN_BYTES.saturating_sub(line.len());
            line.extend_from_slice(&chunk[..chunk.len().min(room)]);
            line.truncate(ID_SCAN_BYTES);
        } else {
            line.extend_from_slice(chunk);
        }
        input.consume(take);
        if newline.is_some() {
            return Ok(finish(line, oversized));
        }
    }
}

fn finish(line: &mut Vec<u8>, oversized: bool) -> Line {
    if oversized {
        return Line::Oversized { head: std::mem::take(line) };
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    Line::Whole
}

/// What to do with one line.
#[derive(Debug)]
enum Verdict {
    /// Nothing (an empty line).
    Skip,
    /// Hand this message to rmcp (boxed: a message is far larger than an answer line).
    Forward(Box<ClientJsonRpcMessage>),
    /// Answer it with this JSON-RPC error line.
    Answer(String),
}

/// The check of one request line.
struct Gate;

impl Gate {
    /// Whether `line` goes on to rmcp (parsed, once), or is answered here.
    fn check(line: &[u8]) -> Verdict {
        let line = line.strip_prefix(UTF8_BOM).unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return Verdict::Skip;
        }
        let error = match serde_json::from_slice::<ClientJsonRpcMessage>(line) {
            Ok(message) => return Verdict::Forward(Box::new(message)),
            Err(error) => error,
        };
        // Not a message: say whether it is JSON at all (parse error) or JSON of another
        // shape (invalid request). A line that is no message is rare; the second look at it
        // costs nothing on the way of a message.
        match error.classify() {
            serde_json::error::Category::Data => Verdict::Answer(error_answer(
                recover_id(line),
                INVALID_REQUEST,
                "Invalid Request: the message is not a JSON-RPC 2.0 request, notification or response".into(),
            )),
            serde_json::error::Category::Eof => Verdict::Answer(error_answer(
                recover_id(line),
                PARSE_ERROR,
                "Parse error: the message ends early".into(),
            )),
            _ => Verdict::Answer(error_answer(
                recover_id(line),
                PARSE_ERROR,
                format!("Parse error: the message is not valid JSON ({})", rule_of(&error)),
            )),
        }
    }
}

/// The rule a serde_json error broke, without any of the input: `recursion limit exceeded`,
/// `number out of range`, `expected value at column 7`.
fn rule_of(error: &serde_json::Error) -> String {
    let text = error.to_string();
    // serde_json appends " at line L column C"; keep the rule and the column.
    match text.rsplit_once(" at line ") {
        Some((rule, place)) => match place.split_once(" column ") {
            Some((_, column)) => format!("{rule} at column {column}"),
            None => rule.to_owned(),
        },
        None => text,
    }
}

/// A JSON-RPC error response line.
fn error_answer(id: Option<Value>, code: i64, message: String) -> String {
    json!({"jsonrpc": "2.0", "id": id.unwrap_or(Value::Null), "error": {"code": code, "message": message}})
        .to_string()
}

/// The `id` member of the top-level object in `line`, when it is a number or a string that
/// parses on its own, whatever the rest of the line holds (deep nesting, a huge number, a
/// syntax error after it, a truncated tail).
fn recover_id(line: &[u8]) -> Option<Value> {
    let mut depth = 0usize;
    let mut i = 0;
    let at_key = |i: usize| line.get(i..i + 4) == Some(b"\"id\"");
    while i < line.len() {
        match line[i] {
            b'"' => {
                if depth == 1 && at_key(i) {
                    let mut j = i + 4;
                    while line.get(j).is_some_and(u8::is_ascii_whitespace) {
                        j += 1;
                    }
                    if line.get(j) == Some(&b':') {
                        return id_value(&line[j + 1..]);
                    }
                }
                i = skip_string(line, i);
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// The index just past the string starting at `start` (a `"`).
fn skip_string(line: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < line.len() {
        match line[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    line.len()
}

/// A JSON number or string at the start of `rest` (after whitespace).
fn id_value(rest: &[u8]) -> Option<Value> {
    let start = rest.iter().position(|b| !b.is_ascii_whitespace())?;
    let rest = &rest[start..];
    let end = if rest.first() == Some(&b'"') {
        skip_string(rest, 0)
    } else {
        rest.iter()
            .position(|b| !(b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E')))
            .unwrap_or(rest.len())
    };
    let value: Value = serde_json::from_slice(rest.get(..end)?).ok()?;
    (value.is_string() || value.is_number()).then_some(value)
}

/// Write queued lines (rmcp's messages and the answers, each whole with its newline) to
/// `output` until every sender is gone or the output closes.
async fn write_lines<W: AsyncWrite + Unpin>(mut lines: mpsc::Receiver<Vec<u8>>, mut output: W) {
    while let Some(line) = lines.recv().await {
        if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &str) -> Value {
        match Gate::check(line.as_bytes()) {
            Verdict::Answer(text) => serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}")),
            other => panic!("{line:?} was not answered: {other:?}"),
        }
    }

    #[test]
    fn messages_pass_and_blank_lines_are_skipped() {
        let request = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
        assert!(matches!(Gate::check(request.as_bytes()), Verdict::Forward(_)));
        let with_bom = format!("\u{feff}{request}");
        assert!(matches!(Gate::check(with_bom.as_bytes()), Verdict::Forward(_)));
        assert!(matches!(Gate::check(b"   "), Verdict::Skip));
    }

    #[test]
    fn unparsable_lines_are_answered_with_their_id() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"x","arguments":{}{}}}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        for (line, id) in [
            (deep.as_str(), json!(7)),
            (r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"n":1e400}}"#, json!("a")),
            (r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"#, json!(3)),
            ("not json at all", Value::Null),
        ] {
            let answer = answer(line);
            assert_eq!(answer["id"], id, "{line}");
            assert_eq!(answer["error"]["code"], PARSE_ERROR, "{line}");
            let message = answer["error"]["message"].as_str().unwrap_or_default();
            assert!(message.starts_with("Parse error: "), "{message}");
        }
    }

    #[test]
    fn json_that_is_no_message_is_an_invalid_request_with_its_id() {
        let answer = answer(r#"{"jsonrpc":"2.0","id":9,"method":42}"#);
        assert_eq!(
            (answer["id"].clone(), answer["error"]["code"].clone()),
            (json!(9), json!(INVALID_REQUEST))
        );
    }

    #[test]
    fn ids_are_found_only_at_the_top_level() {
        assert_eq!(recover_id(br#"{"params":{"id":5},"id":6"#), Some(json!(6)));
        assert_eq!(recover_id(br#"{"method":"say \"id\":4","id" : "x"}"#), Some(json!("x")));
        assert_eq!(recover_id(br#"{"id":{"nested":1}}"#), None);
        assert_eq!(recover_id(b"[1,2"), None);
    }

    #[tokio::test]
    async fn oversized_lines_are_answered_and_the_session_goes_on() {
        let mut long = br#"{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"p":""#.to_vec();
        long.extend(std::iter::repeat_n(b'a', MAX_LINE_BYTES));
        long.extend_from_slice(b"\"}}\nnext\n");
        let mut input = BufReader::new(&long[..]);
        let mut line = Vec::new();
        match read_line(&mut input, &mut line).await.expect("read") {
            Line::Oversized { head } => assert_eq!(recover_id(&head), Some(json!(11))),
            _ => panic!("not oversized"),
        }
        line.clear();
        assert!(matches!(read_line(&mut input, &mut line).await.expect("read"), Line::Whole));
        assert_eq!(line, b"next");
    }
}
