//! Workspace-level tests live under `tests/tests/`; [`fuzz`] holds the bodies of the
//! cargo-fuzz targets so that ordinary tests replay their corpora.
#![forbid(unsafe_code)]

pub mod fuzz;
