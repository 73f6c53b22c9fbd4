//! Workspace-level tests live under `tests/tests/`.
#![forbid(unsafe_code)]
