//! Confirmation on the terminal, for `ghostlight call` and `ghostlight flow` run by a person
//! at a terminal: the question is written to, and the answer read from, the controlling
//! terminal (`/dev/tty`), never standard input (which may carry the call's arguments).
//!
//! Without a terminal (standard error is not one, or there is no controlling terminal, or the
//! platform has no `/dev/tty`), every question is [`Confirmation::Unavailable`]. Only `y` or
//! `yes` (any case) is a yes; any other line is a no; end of input dismisses the question.
//!
//! A terminal is a channel outside the page, but not outside an agent that itself drives the
//! terminal: use this channel only where the person owns the terminal.

use std::io::{BufRead, BufReader, IsTerminal, Write};

use ghostlight_core::{Confirmation, ConfirmationRequest, Confirmer};

/// Asks the person at the controlling terminal.
#[derive(Debug, Default, Clone, Copy)]
pub struct TerminalConfirmer;

/// How a terminal question ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    Yes,
    No,
    Dismissed,
    NoTerminal,
}

impl TerminalConfirmer {
    /// Whether a person at a terminal can be asked: standard error is a terminal and the
    /// controlling terminal opens.
    pub fn available() -> bool {
        std::io::stderr().is_terminal() && open_tty().is_some()
    }
}

fn open_tty() -> Option<std::fs::File> {
    if cfg!(unix) { std::fs::OpenOptions::new().read(true).write(true).open("/dev/tty").ok() } else { None }
}

/// The prompt written to the terminal.
pub fn prompt(request: &ConfirmationRequest) -> String {
    format!(
        "ghostlight: {} Only you can answer this (not the page, not the AI model). [y/N] ",
        request.question()
    )
}

fn ask(prompt: &str) -> Answer {
    if !std::io::stderr().is_terminal() {
        return Answer::NoTerminal;
    }
    let Some(mut tty) = open_tty() else { return Answer::NoTerminal };
    if tty.write_all(prompt.as_bytes()).and_then(|()| tty.flush()).is_err() {
        return Answer::NoTerminal;
    }
    let mut line = String::new();
    match BufReader::new(tty).read_line(&mut line) {
        Ok(0) | Err(_) => Answer::Dismissed,
        Ok(_) => match line.trim().to_ascii_lowercase().as_str() {
            "y" | "yes" => Answer::Yes,
            _ => Answer::No,
        },
    }
}

#[async_trait::async_trait]
impl Confirmer for TerminalConfirmer {
    async fn confirm(&self, request: &ConfirmationRequest) -> Confirmation {
        let prompt = prompt(request);
        let answer = tokio::task::spawn_blocking(move || ask(&prompt)).await;
        match answer {
            Ok(Answer::Yes) => Confirmation::Accepted(request.digest),
            Ok(Answer::No) => Confirmation::Declined,
            Ok(Answer::Dismissed) | Err(_) => Confirmation::Cancelled,
            Ok(Answer::NoTerminal) => Confirmation::Unavailable,
        }
    }
}

/// The extension's popup as the confirmation channel of the extension connector
/// ([`ExtensionBrowser::ask_person`](ghostlight_extension::ExtensionBrowser::ask_person)): the
/// answer is bound here to the call asked about, by its digest.
#[cfg(feature = "extension")]
#[derive(Debug, Clone)]
pub struct PopupConfirmer(pub std::sync::Arc<ghostlight_extension::ExtensionBrowser>);

#[cfg(feature = "extension")]
#[async_trait::async_trait]
impl Confirmer for PopupConfirmer {
    async fn confirm(&self, request: &ConfirmationRequest) -> Confirmation {
        use ghostlight_extension::PopupAnswer;
        match self.0.ask_person(request.question()).await {
            Some(PopupAnswer::Allowed) => Confirmation::Accepted(request.digest),
            Some(PopupAnswer::Denied) => Confirmation::Declined,
            Some(PopupAnswer::Dismissed) => Confirmation::Cancelled,
            None => Confirmation::Unavailable,
        }
    }
}
