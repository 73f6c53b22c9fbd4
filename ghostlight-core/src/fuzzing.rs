//! Internals the fuzz targets and their seed replays (`fuzz/`, `tests/src/fuzz.rs`) drive
//! directly. Not part of the public API: no semver promise, hidden from the docs.

pub use crate::limits::HOST_PATTERN_CHARS;
pub use crate::tools::flow::{FlowRef, check_reference, find_references, is_json_pointer, resolve_arguments};
