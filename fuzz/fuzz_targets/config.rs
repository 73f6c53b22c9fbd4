//! cargo-fuzz target `config`: the body is [`ghostlight_tests::fuzz::config`], which the workspace
//! test `tests/tests/fuzz.rs` also replays over the committed corpus.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ghostlight_tests::fuzz::config(data));
