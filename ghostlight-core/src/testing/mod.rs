//! A deterministic scripted [`BrowserPort`](crate::port::BrowserPort) for tests of core and of
//! host frameworks (feature `testing`).
//!
//! [`ScriptedBrowser`] serves [`ScriptedPage`] fixtures registered by exact URL (other web URLs
//! get a default page titled with their host; hosts under `.invalid` fail to load as a network
//! error, `ERR_NAME_NOT_RESOLVED`). Tabs keep history and a document identity that
//! changes on every navigation, reload or history move; element references name their
//! document (`t1:d3:2`), so they go stale with it. It uses no real time, randomness or
//! threads: `sleep` advances a virtual clock.
//!
//! For assertions it keeps a log of calls (method and tab, never a payload), counts calls in
//! flight (every call but `sleep` yields once to its executor), and injects faults.
//!
//! [`portability_violations`] checks a tool schema against the forms draft-07 and 2020-12
//! validators read alike (what MCP clients' validators and portability checks accept).
//!
//! [`strict_subset_violations`] checks a function's parameters against the JSON Schema subset
//! of OpenAI's strict function calling, for tests of exports such as
//! [`ToolDeclaration::strict_input_schema`](crate::ToolDeclaration::strict_input_schema).
//!
//! ```
//! use ghostlight_core::port::{BrowserPort, NavigateInput};
//! use ghostlight_core::testing::{ScriptedBrowser, ScriptedElement, ScriptedPage};
//! use std::time::Duration;
//!
//! let browser = ScriptedBrowser::new().site(
//!     "https://example.com/",
//!     ScriptedPage::new("Example").text("Hello").element(ScriptedElement::button("Save")),
//! );
//! let url = url::Url::parse("https://example.com/").expect("a URL");
//! let input = NavigateInput { url, discard_beforeunload: false };
//! let opened = futures::executor::block_on(browser.open_tab(&input, Duration::from_secs(1)))
//!     .expect("opened");
//! assert_eq!(opened.page.title, "Example");
//! assert_eq!(browser.method_names(), ["open_tab"]);
//! ```

mod browser;
mod image;
mod portable_schema;
mod site;
mod strict_subset;
#[cfg(test)]
mod tests;

pub use browser::{PortCall, ScriptedBrowser};
pub use portable_schema::portability_violations;
pub use site::{ClickEffect, FieldKind, ScriptedElement, ScriptedPage};
pub use strict_subset::strict_subset_violations;
