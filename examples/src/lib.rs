//! Runnable examples of embedding and driving Ghostlight; each program is under `examples/`.

#![forbid(unsafe_code)]
