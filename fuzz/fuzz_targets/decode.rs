//! Tool decoding: (tool name, JSON bytes) → typed request or decode error, never a panic.
//! The first byte picks the tool; the rest is the arguments document.

#![no_main]

use ghostlight_core::{ToolName, decode_call};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else { return };
    let tool = ToolName::ALL[usize::from(selector) % ToolName::ALL.len()];
    let Ok(arguments) = serde_json::from_slice::<serde_json::Value>(rest) else { return };
    if let Err(error) = decode_call(tool, &arguments) {
        // Every error names a pointer and a bounded message.
        assert!(error.message().len() < 4_096);
    }
});
