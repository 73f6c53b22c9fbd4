//! Executor tests: perception (see mod.rs for the harness).
