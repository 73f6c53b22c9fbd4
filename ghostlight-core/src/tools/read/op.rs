//! `browser_read`: bounded prose from the page (article first) or one target. Visible text
//! joins the text of the frames whose documents the call's authority admits (the `frames`
//! fact counts them); a frame outside authority is never read.

use super::facts;
use crate::limits::READ_MAX_CHARS;
use crate::port::{ReadInput, TextMode};
use crate::tools::read::{ReadMode, ReadRequest};

use crate::operation::outcome::Outcome;
use crate::operation::run::{Run, Step, host_of};

pub(crate) async fn run(run: &Run<'_>, request: &ReadRequest) -> Outcome {
    read(run, request).await.unwrap_or_else(|outcome| outcome)
}

async fn read(run: &Run<'_>, request: &ReadRequest) -> Step<Outcome> {
    let max_chars = usize::try_from(request.max_chars).unwrap_or(READ_MAX_CHARS.max as usize);
    let mode = match request.mode {
        None => TextMode::ArticleOrVisible,
        Some(ReadMode::Article) => TextMode::Article,
        Some(ReadMode::Visible) => TextMode::Visible,
    };
    let (lease, page, target, text) = match &request.target {
        // The whole page: read in the document last seen, checked in the same round trip.
        None => {
            let input = ReadInput { target: None, mode, max_chars };
            let (lease, page, text) = run.enter_with(request.tab.as_ref(), true, &input, "read").await?;
            (lease, page, None, text)
        }
        // A target is resolved against the page observed first.
        Some(target) => {
            let (lease, page) = run.enter_gated(request.tab.as_ref()).await?;
            let target = run.target(&lease, &page, target).await?;
            let input = ReadInput { target: Some(target.element.clone()), mode, max_chars };
            let host = host_of(&page.state.url);
            let text = run
                .port()
                .read_text(&run.reading(&lease.tab), &input)
                .await
                .map_err(|e| run.fail_on(&lease, &e, &format!("read {host}"), None))?;
            (lease, page, Some(target), text)
        }
    };
    let host = host_of(&page.state.url);
    // The adapter bounds the text; core bounds it again so the contract holds for any port.
    let (bounded, cut) = bound_chars(&text.text, max_chars);
    let truncated = text.truncated || cut;
    let frames = text.frames;
    let text = bounded;
    let characters = text.chars().count();
    let source = match &target {
        Some(target) => format!("{} on {host}", run.phrase(target.role, target.name.as_deref())),
        None => host.clone(),
    };
    let summary = match (characters, truncated) {
        (0, _) => format!("Found no readable text in {source}."),
        (n, false) => format!("Read {n} characters from {source}."),
        (n, true) => format!("Read the first {n} characters from {source}; more text follows."),
    };
    let mut outcome = Outcome::read(summary)
        .with_readiness(page.state.readiness)
        .fact(facts::TAB, lease.handle().as_str())
        .fact(facts::URL, run.url(&page.state))
        .fact(facts::TITLE, run.title(&page.state).unwrap_or_default())
        .fact(facts::TEXT, text)
        .fact(facts::TRUNCATED, truncated)
        .fact(facts::CHARACTERS, characters)
        .fact(facts::DOCUMENT_GENERATION, page.generation)
        .fact(facts::HOST, host);
    if frames > 0 {
        // The text of frames inside authority follows the page's own.
        outcome = outcome.fact(facts::FRAMES, frames);
    }
    outcome = crate::tools::common::with_gate(outcome, &page.state);
    if truncated {
        outcome = outcome.next("Read a narrower target, or raise max_chars (up to 50000) for more.");
    }
    Ok(outcome)
}

/// `text` cut to `max` characters, and whether it was cut.
fn bound_chars(text: &str, max: usize) -> (String, bool) {
    match text.char_indices().nth(max) {
        Some((end, _)) => (text[..end].to_owned(), true),
        None => (text.to_owned(), false),
    }
}
