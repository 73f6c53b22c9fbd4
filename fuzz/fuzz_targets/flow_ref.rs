//! cargo-fuzz target `flow_ref`: the body is [`ghostlight_tests::fuzz::flow_ref`], which the workspace
//! test `tests/tests/fuzz.rs` also replays over the committed corpus.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ghostlight_tests::fuzz::flow_ref(data));
