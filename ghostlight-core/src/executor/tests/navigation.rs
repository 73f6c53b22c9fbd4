//! Executor tests: navigation (see mod.rs for the harness).
