//! cargo-fuzz target `decode`: the body is [`ghostlight_tests::fuzz::decode`], which the workspace
//! test `tests/tests/fuzz.rs` also replays over the committed corpus.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ghostlight_tests::fuzz::decode(data));
