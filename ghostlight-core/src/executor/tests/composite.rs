//! Executor tests: composite (see mod.rs for the harness).
