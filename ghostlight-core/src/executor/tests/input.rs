//! Executor tests: input (see mod.rs for the harness).
