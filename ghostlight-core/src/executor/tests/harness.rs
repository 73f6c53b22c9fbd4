//! The shared harness.
