//! `browser_diagnose`: bounded console and network evidence of a controlled tab.
//!
//! Evidence is untrusted page content. Core, not the adapter, enforces what the model may see:
//!
//! * entries whose URL is on a site outside the invocation's authority are withheld and
//!   counted (`host_filtered`);
//! * URLs lose userinfo, query and fragment (a URL without a web site shows its scheme only);
//!   headers, bodies, cookies and post data are never asked for;
//! * console text is normalized and bounded ([`CONSOLE_TEXT_CHARS`]), and every URL it
//!   quotes is shown as the authority projects it: inside authority without userinfo, query
//!   and fragment, outside it as its origin only (a browser's own messages quote the URLs
//!   of blocked requests); levels and methods are bounded too;
//! * the entry count never exceeds the requested `limit`;
//! * `match` is applied again to what is shown, so it cannot probe a withheld query string.
//!
//! Sentences count problems by kind; they never quote evidence.

use serde_json::{Map, Value, json};
use url::Url;

use super::facts;
use crate::authority::Site;
use crate::language::{bound_visible, count};
use crate::port::{DiagnosticEntry, DiagnosticSource, DiagnosticsQuery};
use crate::tools::diagnose::DiagnoseRequest;
use crate::vocab::{DiagnoseDetail, DiagnoseSource};

use crate::operation::outcome::Outcome;
use crate::operation::run::{Run, Step, host_of};

/// Longest console text returned, in visible characters.
pub(crate) const CONSOLE_TEXT_CHARS: usize = 500;
/// Longest console level or HTTP method returned.
const TOKEN_CHARS: usize = 16;

/// Kinds of problem, in the order sentences list them: (fact key, singular, plural).
const KINDS: [(&str, &str, &str); 6] = [
    ("console_error", "console error", "console errors"),
    ("exception", "exception", "exceptions"),
    ("console_warning", "console warning", "console warnings"),
    ("console_problem", "other console problem", "other console problems"),
    ("failed_request", "failed request", "failed requests"),
    ("http_error", "HTTP error response", "HTTP error responses"),
];

pub(crate) async fn run(run: &Run<'_>, request: &DiagnoseRequest) -> Outcome {
    diagnose(run, request).await.unwrap_or_else(|outcome| outcome)
}

async fn diagnose(run: &Run<'_>, request: &DiagnoseRequest) -> Step<Outcome> {
    let (lease, page) = run.enter(request.tab.as_ref()).await?;
    let host = host_of(&page.state.url);
    let limit = usize::try_from(request.limit).unwrap_or(usize::MAX);
    let query = DiagnosticsQuery {
        source: request.source,
        detail: request.detail,
        pattern: request.pattern.clone(),
        after: request.after.clone(),
        limit,
    };
    let evidence = run.port().diagnostics(&lease.tab, &query).await.map_err(|e| {
        run.fail_on(&lease, &e, &format!("read console and network evidence on {host}"), None)
    })?;

    let pattern = request.pattern.as_ref().map(|p| p.to_lowercase());
    let mut host_filtered: u64 = 0;
    let mut entries = Vec::new();
    let mut kinds = [0usize; KINDS.len()];
    let mut truncated = evidence.truncated;
    for entry in &evidence.entries {
        if let Some(site) = entry.url.as_ref().and_then(Site::from_url)
            && !run.snapshot.allows_site(&site)
        {
            host_filtered += 1;
            continue;
        }
        let text = entry.text.as_deref().map(|text| shown_text(run, text));
        if let Some(pattern) = &pattern
            && !matches_shown(entry, text.as_deref(), pattern)
        {
            continue;
        }
        if entries.len() == limit {
            truncated = true;
            break;
        }
        if entry.problem {
            kinds[kind(entry)] += 1;
        }
        entries.push(project(entry, text.as_deref()));
    }
    let problems: usize = kinds.iter().sum();
    let listed: Vec<String> = KINDS
        .iter()
        .zip(kinds)
        .filter(|(_, n)| *n > 0)
        .map(|((_, singular, plural), n)| count(n, singular, plural))
        .collect();
    let breakdown = if listed.is_empty() { String::new() } else { format!(" ({})", listed.join(", ")) };
    let watched = match request.source {
        DiagnoseSource::Both => "console and network",
        DiagnoseSource::Console => "the console",
        DiagnoseSource::Network => "network requests",
    };
    let mut summary = match (evidence.tracking_started && entries.is_empty(), request.detail) {
        (true, _) => format!(
            "Started tracking {watched} on {host}; reproduce the problem, then call browser_diagnose again."
        ),
        (false, DiagnoseDetail::Problems) if problems == 0 => format!("Found no problems on {host}."),
        (false, DiagnoseDetail::Problems) => {
            format!("Found {} on {host}{breakdown}.", count(problems, "problem", "problems"))
        }
        (false, DiagnoseDetail::All) => {
            let found = count(entries.len(), "entry", "entries");
            match problems {
                0 if entries.is_empty() => format!("Found no entries on {host}."),
                0 => format!("Found {found} on {host}, none of them problems."),
                1 => format!("Found {found} on {host}, 1 of them a problem{breakdown}."),
                n => format!("Found {found} on {host}, {n} of them problems{breakdown}."),
            }
        }
    };
    if host_filtered > 0 {
        let withheld = count(usize::try_from(host_filtered).unwrap_or(usize::MAX), "entry", "entries");
        summary = format!("{summary} Withheld {withheld} from hosts outside authority.");
    }
    // What the wire stopped: the browser's whole log (a refusal is not tied to a tab), the
    // newest `limit` entries, each only its origin and kind.
    let refusals = run.shared.wire.refusals().since(0);
    let refused: Vec<Value> = refusals
        .entries
        .iter()
        .rev()
        .take(limit)
        .rev()
        .map(|entry| json!({"origin": entry.origin, "kind": entry.kind.as_str()}))
        .collect();
    if refusals.count > 0 && request.source != DiagnoseSource::Console {
        let stopped = count(usize::try_from(refusals.count).unwrap_or(usize::MAX), "request", "requests");
        summary = format!(
            "{summary} Ghostlight stopped {stopped} to hosts outside authority before they were sent."
        );
    }
    let mut counts = Map::new();
    for ((key, _, _), n) in KINDS.iter().zip(kinds) {
        if n > 0 {
            counts.insert((*key).to_owned(), json!(n));
        }
    }
    let entry_count = entries.len();
    let waiting = evidence.tracking_started && entries.is_empty();
    let mut outcome = Outcome::read(summary)
        .with_readiness(page.state.readiness)
        .fact(facts::TAB, lease.handle().as_str())
        .fact(facts::REFUSED, Value::Array(refused))
        .fact(facts::REFUSED_COUNT, refusals.count)
        .fact(facts::ENTRIES, Value::Array(entries))
        .fact(facts::NEXT_CURSOR, evidence.next_cursor.clone())
        .fact(facts::TRUNCATED, truncated)
        .fact(facts::EVICTED, evidence.evicted)
        .fact(facts::HOST_FILTERED, host_filtered)
        .fact(facts::TRACKING_STARTED, evidence.tracking_started)
        .fact(facts::ENTRY_COUNT, entry_count)
        .fact(facts::PROBLEM_COUNT, problems)
        .fact(facts::PROBLEM_COUNTS, Value::Object(counts))
        .fact(facts::HOST, host);
    if truncated && evidence.next_cursor.is_some() {
        outcome = outcome.next("Call browser_diagnose again with after set to next_cursor for more entries.");
    }
    if waiting {
        outcome = outcome
            .next("To capture a page load, call browser_history with action \"reload\", then browser_diagnose again.");
    }
    Ok(outcome)
}

/// Whether `pattern` (lower-cased) occurs in what the model may see of `entry`: its shown
/// `text`, or its URL without userinfo, query and fragment. The port matches the full URL and
/// text; matching again here keeps `match` from probing the parts that are withheld.
fn matches_shown(entry: &DiagnosticEntry, text: Option<&str>, pattern: &str) -> bool {
    text.is_some_and(|text| text.to_lowercase().contains(pattern))
        || entry.url.as_ref().is_some_and(|url| bare_url(url).to_lowercase().contains(pattern))
}

/// Which [`KINDS`] a problem entry is.
fn kind(entry: &DiagnosticEntry) -> usize {
    match entry.source {
        DiagnosticSource::Console => match entry.level.to_ascii_lowercase().as_str() {
            "error" => 0,
            "exception" => 1,
            "warning" | "warn" => 2,
            _ => 3,
        },
        DiagnosticSource::Network => match entry.status {
            Some(status) if status >= 400 => 5,
            _ => 4,
        },
    }
}

/// Console text with every URL it quotes projected by the call's authority: a web URL inside
/// authority without userinfo, query and fragment; outside authority its origin only; any
/// other URL-like token (unparseable, or without a web site) its scheme only.
fn shown_text(run: &Run<'_>, text: &str) -> String {
    const SCHEMES: [&str; 4] = ["https://", "http://", "wss://", "ws://"];
    let mut shown = String::with_capacity(text.len());
    let mut rest = text;
    while let Some((start, scheme)) = SCHEMES
        .iter()
        .filter_map(|scheme| rest.find(scheme).map(|at| (at, *scheme)))
        .min_by_key(|(at, _)| *at)
    {
        shown.push_str(&rest[..start]);
        let token_end = rest[start..]
            .find(|c: char| {
                c.is_whitespace()
                    || matches!(c, '"' | '\'' | '<' | '>' | '`' | '(' | ')' | '[' | ']' | '{' | '}')
            })
            .map_or(rest.len(), |end| start + end);
        let token = &rest[start..token_end];
        let projected = match Url::parse(token) {
            Ok(url) => {
                let governed = run.snapshot.govern(&url);
                if governed.is_inside() { bare_url(&url) } else { governed.as_str().to_owned() }
            }
            Err(_) => scheme.trim_end_matches('/').to_owned(),
        };
        shown.push_str(&projected);
        rest = &rest[token_end..];
    }
    shown.push_str(rest);
    shown
}

/// One entry as the model sees it (`text`: its shown console text): absent keys omitted.
fn project(entry: &DiagnosticEntry, text: Option<&str>) -> Value {
    let mut item = Map::new();
    let source = match entry.source {
        DiagnosticSource::Console => "console",
        DiagnosticSource::Network => "network",
    };
    item.insert("source".into(), json!(source));
    item.insert("level".into(), json!(bound_visible(&entry.level, TOKEN_CHARS).unwrap_or_default()));
    item.insert("problem".into(), json!(entry.problem));
    if let Some(text) = text.and_then(|t| bound_visible(t, CONSOLE_TEXT_CHARS)) {
        item.insert("text".into(), json!(text));
    }
    if let Some(method) = entry.method.as_deref().and_then(|m| bound_visible(m, TOKEN_CHARS)) {
        item.insert("method".into(), json!(method));
    }
    if let Some(status) = entry.status {
        item.insert("status".into(), json!(status));
    }
    if let Some(url) = &entry.url {
        item.insert("url".into(), json!(bare_url(url)));
    }
    Value::Object(item)
}

/// A URL without userinfo, query and fragment; its scheme alone when it has no web site.
fn bare_url(url: &Url) -> String {
    if Site::from_url(url).is_none() {
        return format!("{}:", url.scheme());
    }
    let mut bare = url.clone();
    bare.set_query(None);
    bare.set_fragment(None);
    if bare.set_username("").is_err() || bare.set_password(None).is_err() {
        return bare.origin().ascii_serialization();
    }
    bare.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn urls_lose_userinfo_query_and_fragment() {
        assert_eq!(
            bare_url(&url("https://user:pw@example.com:8443/api/v1?token=secret#frag")),
            "https://example.com:8443/api/v1"
        );
        assert_eq!(bare_url(&url("data:text/plain,secret")), "data:");
        assert_eq!(bare_url(&url("http://example.com")), "http://example.com/");
    }
}
