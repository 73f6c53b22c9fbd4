//! # ghostlight-webdriver
//!
//! The WebDriver adapter of Ghostlight (chromedriver and geckodriver through fantoccini).
//! It will implement `BrowserPort`; until then it holds nothing of its own.

#![forbid(unsafe_code)]
