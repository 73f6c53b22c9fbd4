//! `browser_record`: a short memory-only GIF of browser work.

pub(crate) mod op;

use crate::capability::{Capability, CapabilitySet};
use crate::declaration::{Annotations, ToolDeclaration};
use crate::decode::{DecodeError, ObjectReader};
use crate::facts::tool_facts;
use crate::handles::{Handle, HandleKind};
use crate::names::ToolName;
use crate::schema::{Field, FieldType};
use crate::tools::Tool;
use crate::tools::common::{SELECTOR, TAB, TARGET, TargetRef, read_target};
use crate::vocab::WireChoice;
use crate::vocab::wire_choice;

wire_choice! {
    /// The recording action, as named on the wire.
    pub enum Action {
        /// Start an owned recording.
        Start => "start",
        /// Report state and deadlines.
        Status => "status",
        /// Capture a final frame, stop and freeze.
        Stop => "stop",
        /// Deliver the replay (auto-stopping an active recording).
        Save => "save",
        /// Erase the captured bytes.
        Discard => "discard",
    }
}

const ACTION: Field = Field::required(
    "action",
    FieldType::Choice { values: Action::NAMES, default: None },
    "Recording action.",
);
const RECORDING: Field = Field::optional(
    "recording",
    FieldType::Handle(HandleKind::Recording),
    "Recording handle; default: the only one.",
);
const DOWNLOAD: Field =
    Field::optional("download", FieldType::Bool { default: Some(false) }, "Save: browser downloads the GIF.");

tool_facts! {
    RECORDING: Str("recording", "Recording handle."),
    TAB: Str("tab", "Recorded tab."),
    STATE: Str("state", "recording, stopped, discarded or expired."),
    CAPTURE_DEADLINE_MS: NullableInt("capture_deadline_ms", "Milliseconds until capture stops itself."),
    RETENTION_DEADLINE_MS: NullableInt("retention_deadline_ms", "Milliseconds until the frames are erased."),
    STOP_REASON: NullableStr("stop_reason", "Why capture stopped."),
    DURATION_MS: Int("duration_ms", "Exact replay duration."),
    FRAMES: Int("frames", "Frames kept in the replay."),
    CAPTURED_FRAMES: Int("captured_frames", "Frames captured."),
    SKIPPED_FRAMES: Int("skipped_frames", "Frames not taken: the page was outside authority."),
    BYTES: Int("bytes", "Encoded GIF size."),
    WIDTH: Int("width", "Replay width (px)."),
    HEIGHT: Int("height", "Replay height (px)."),
    DELIVERY: NullableStr("delivery", "Where the replay went: client, download or attach."),
    RECORDING_COUNT: Int("recording_count", "Recordings this session holds."),
    RECORDINGS: Strs("recordings", "Recording handles this session holds."),
}

/// The tool's declaration.
pub(crate) const DECLARATION: ToolDeclaration = ToolDeclaration {
    name: ToolName::Record,
    description: "Record browser work as a short memory-only GIF: start, then save or discard.",
    fields: &[ACTION, TAB, RECORDING, TARGET, SELECTOR, DOWNLOAD],
    example: r#"{"action":"start"}"#,
    facts: facts::ALL,
    annotations: Annotations { read_only: false, destructive: true, idempotent: false, open_world: false },
};

/// Where a saved replay goes: exactly one place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delivery {
    /// Returned to the client as one `image/gif` content block.
    Client,
    /// Saved by the browser as a downloaded file.
    Download,
    /// Attached by the browser to this file input.
    Attach(TargetRef),
}

/// One decoded recording action with exactly the inputs its branch takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordAction {
    /// Start an owned recording of the named (or default) tab.
    Start {
        /// The explicitly named tab, if any.
        tab: Option<Handle>,
    },
    /// Report state and deadlines.
    Status {
        /// The recording; `None` resolves the only owned recording.
        recording: Option<Handle>,
    },
    /// Capture a final frame, stop and freeze.
    Stop {
        /// The recording; `None` resolves the only owned recording.
        recording: Option<Handle>,
    },
    /// Deliver the replay to one place, auto-stopping an active recording.
    Save {
        /// The recording; `None` resolves the only owned recording.
        recording: Option<Handle>,
        /// Where the replay goes.
        delivery: Delivery,
    },
    /// Erase the captured bytes.
    Discard {
        /// The recording; `None` resolves the only owned recording.
        recording: Option<Handle>,
    },
}

impl RecordAction {
    /// The wire name of the action.
    pub fn action(&self) -> Action {
        match self {
            RecordAction::Start { .. } => Action::Start,
            RecordAction::Status { .. } => Action::Status,
            RecordAction::Stop { .. } => Action::Stop,
            RecordAction::Save { .. } => Action::Save,
            RecordAction::Discard { .. } => Action::Discard,
        }
    }
}

/// A decoded `browser_record` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordRequest {
    /// What to do.
    pub action: RecordAction,
}

impl Tool for RecordRequest {
    const DECLARATION: ToolDeclaration = DECLARATION;

    fn decode(reader: &mut ObjectReader<'_>) -> Result<Self, DecodeError> {
        decode(reader)
    }

    /// start `read`; status, stop and discard none; save `write` when attaching to a file
    /// input, otherwise `read`.
    fn capabilities(&self) -> CapabilitySet {
        match &self.action {
            RecordAction::Start { .. } => CapabilitySet::of(&[Capability::Read]),
            RecordAction::Save { delivery: Delivery::Attach(_), .. } => {
                CapabilitySet::of(&[Capability::Write])
            }
            RecordAction::Save { .. } => CapabilitySet::of(&[Capability::Read]),
            RecordAction::Status { .. } | RecordAction::Stop { .. } | RecordAction::Discard { .. } => {
                CapabilitySet::EMPTY
            }
        }
    }

    /// The explicitly named tab (only `start` names one).
    fn tab(&self) -> Option<&Handle> {
        match &self.action {
            RecordAction::Start { tab } => tab.as_ref(),
            _ => None,
        }
    }

    /// Start and save are tab-bound; status, stop and discard are recording bookkeeping.
    fn tab_bound(&self) -> bool {
        !self.capabilities().is_empty()
    }
}

fn decode(reader: &mut ObjectReader<'_>) -> Result<RecordRequest, DecodeError> {
    let action = reader.choice::<Action>(&ACTION)?;
    let tab = reader.handle(&TAB)?;
    let recording = reader.handle(&RECORDING)?;
    let target = read_target(reader, &TARGET, &SELECTOR)?;
    let download = reader.bool_or_default(&DOWNLOAD)?;
    let action = action.ok_or_else(|| reader.missing(&ACTION))?;
    let target_field = match &target {
        Some(TargetRef::Handle(_)) => Some(&TARGET),
        Some(TargetRef::Selector(_)) => Some(&SELECTOR),
        None => None,
    };

    if tab.is_some() && action != Action::Start {
        return Err(reader.not_here(&TAB, "is valid only for start"));
    }
    if action != Action::Save {
        if let Some(field) = target_field {
            return Err(reader.not_here(field, "is valid only for save"));
        }
        if download {
            return Err(reader.not_here(&DOWNLOAD, "is valid only for save"));
        }
    }
    let action = match action {
        Action::Start => {
            if recording.is_some() {
                return Err(reader.not_here(&RECORDING, "is not accepted for start: start returns a new one"));
            }
            RecordAction::Start { tab }
        }
        Action::Status => RecordAction::Status { recording },
        Action::Stop => RecordAction::Stop { recording },
        Action::Discard => RecordAction::Discard { recording },
        Action::Save => {
            let delivery = match (target, download) {
                (Some(_), true) => {
                    return Err(reader.conflict(&DOWNLOAD, target_field.unwrap_or(&TARGET)));
                }
                (Some(target), false) => Delivery::Attach(target),
                (None, true) => Delivery::Download,
                (None, false) => Delivery::Client,
            };
            RecordAction::Save { recording, delivery }
        }
    };
    Ok(RecordRequest { action })
}

#[cfg(test)]
mod tests {
    use crate::tools::request::Request;
    use serde_json::json;

    use super::*;
    use crate::decode::DecodeErrorKind as K;
    use crate::selector::{Role, Selector};
    use crate::tools::testing::{accept, refuse};

    const T: ToolName = ToolName::Record;

    fn decoded(arguments: serde_json::Value) -> RecordRequest {
        match accept(T, arguments) {
            Request::Record(request) => request,
            other => panic!("decoded as {other:?}"),
        }
    }

    fn handle(text: &str, kind: HandleKind) -> Handle {
        match Handle::parse(text, kind) {
            Ok(handle) => handle,
            Err(error) => panic!("{error:?}"),
        }
    }

    #[test]
    fn branches_and_capabilities() {
        let read = CapabilitySet::of(&[Capability::Read]);
        let rec = Some(handle("rec_1", HandleKind::Recording));

        let request = decoded(json!({"action": "start"}));
        assert_eq!(request.action, RecordAction::Start { tab: None });
        assert_eq!(request.capabilities(), read);
        assert_eq!(request.tab(), None);
        let request = decoded(json!({"action": "start", "tab": "tab_1", "download": false}));
        assert_eq!(request.action, RecordAction::Start { tab: Some(handle("tab_1", HandleKind::Tab)) });
        assert_eq!(request.tab().map(Handle::as_str), Some("tab_1"));

        for (action, expected) in [
            ("status", RecordAction::Status { recording: None }),
            ("stop", RecordAction::Stop { recording: None }),
            ("discard", RecordAction::Discard { recording: None }),
        ] {
            let request = decoded(json!({"action": action}));
            assert_eq!(request.action, expected);
            assert_eq!(request.action.action().as_str(), action);
            assert_eq!(request.capabilities(), CapabilitySet::EMPTY);
            assert_eq!(request.tab(), None);
            let request = decoded(json!({"action": action, "recording": "rec_1", "download": false}));
            assert_eq!(request.capabilities(), CapabilitySet::EMPTY);
            match request.action {
                RecordAction::Status { recording }
                | RecordAction::Stop { recording }
                | RecordAction::Discard { recording } => assert_eq!(recording, rec),
                other => panic!("{other:?}"),
            }
        }

        let request = decoded(json!({"action": "save"}));
        assert_eq!(request.action, RecordAction::Save { recording: None, delivery: Delivery::Client });
        assert_eq!(request.capabilities(), read);
        let request = decoded(json!({"action": "save", "recording": "rec_1", "download": false}));
        assert_eq!(request.action, RecordAction::Save { recording: rec.clone(), delivery: Delivery::Client });
        let request = decoded(json!({"action": "save", "download": true}));
        assert_eq!(request.action, RecordAction::Save { recording: None, delivery: Delivery::Download });
        assert_eq!(request.capabilities(), read);
        let request = decoded(json!({"action": "save", "recording": "rec_1", "target": "target_1"}));
        assert_eq!(
            request.action,
            RecordAction::Save {
                recording: rec,
                delivery: Delivery::Attach(TargetRef::Handle(handle("target_1", HandleKind::Target))),
            }
        );
        assert_eq!(request.capabilities(), CapabilitySet::of(&[Capability::Write]));
        let request = decoded(
            json!({"action": "save", "selector": {"name": "Avatar", "role": "button"}, "download": false}),
        );
        assert_eq!(
            request.action,
            RecordAction::Save {
                recording: None,
                delivery: Delivery::Attach(TargetRef::Selector(Selector {
                    name: "Avatar".into(),
                    role: Some(Role::Button),
                    exact: false,
                })),
            }
        );
        assert_eq!(request.capabilities(), CapabilitySet::of(&[Capability::Write]));
    }

    #[test]
    fn refusals() {
        refuse(T, json!({}), "/action", K::MissingField);
        refuse(T, json!({"action": "pause"}), "/action", K::NotAllowed);
        // tab only for start.
        for action in ["status", "stop", "save", "discard"] {
            let error = refuse(T, json!({"action": action, "tab": "tab_1"}), "/tab", K::Conflict);
            assert_eq!(error.message(), "/tab is valid only for start");
        }
        // recording refused for start.
        refuse(T, json!({"action": "start", "recording": "rec_1"}), "/recording", K::Conflict);
        refuse(T, json!({"action": "status", "recording": "tab_1"}), "/recording", K::InvalidHandle);
        // target, selector and download:true only for save.
        for action in ["start", "status", "stop", "discard"] {
            let error = refuse(T, json!({"action": action, "target": "target_1"}), "/target", K::Conflict);
            assert_eq!(error.message(), "/target is valid only for save");
            refuse(T, json!({"action": action, "selector": {"name": "A"}}), "/selector", K::Conflict);
            refuse(T, json!({"action": action, "download": true}), "/download", K::Conflict);
        }
        // One place per save.
        let error = refuse(
            T,
            json!({"action": "save", "target": "target_1", "download": true}),
            "/download",
            K::Conflict,
        );
        assert_eq!(error.message(), "/download cannot be combined with /target");
        let error = refuse(
            T,
            json!({"action": "save", "selector": {"name": "A"}, "download": true}),
            "/download",
            K::Conflict,
        );
        assert_eq!(error.message(), "/download cannot be combined with /selector");
        refuse(
            T,
            json!({"action": "save", "target": "target_1", "selector": {"name": "A"}}),
            "/selector",
            K::Conflict,
        );
        refuse(
            T,
            json!({"action": "save", "selector": {"name": "A", "id": 1}}),
            "/selector/id",
            K::UnknownField,
        );
        refuse(T, json!({"action": "save", "download": "yes"}), "/download", K::WrongType);
        refuse(T, json!({"action": "save", "target": "view_1"}), "/target", K::InvalidHandle);
        refuse(T, json!({"action": "start", "timeout_ms": 1000}), "/timeout_ms", K::UnknownField);
    }

    #[test]
    fn every_declared_field_is_read() {
        accept(T, json!({"action": "status"}));
    }
}
