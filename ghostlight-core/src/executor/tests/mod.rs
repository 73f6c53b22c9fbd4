//! Executor tests over the scripted port: envelopes are snapshot-tested with insta (handles
//! are deterministic in tests), handle rules and refusals each have a test.

mod harness;

mod boundary;
mod composite;
mod confirm;
mod gates;
mod input;
mod navigation;
mod perception;
mod pipeline;
