//! The one helper module of the browser tests (and of the tool benchmark, which includes it by
//! path): every test target declares `mod support;` once and uses what it needs.
//!
//! | module | concept |
//! | --- | --- |
//! | [`dom_table`] | the DOM semantics table and its perception check, for any `BrowserPort` |
//! | [`e2e_suite`] | the end-to-end suite of all 24 tools, generic over the port (WebDriver and extension) |
//! | [`engines`] | engine selection, the per-engine test functions (`per_engine!`), time-bounded scenarios, a browser per engine |
//! | [`server`] | the loopback page server (`Site`) on 127.0.0.1 and 127.0.0.2 |
//! | [`sink`] | the denied host's own log: every TCP connection and UDP datagram that reached 127.0.0.2 |
//! | [`sites`] | the fixture sites, one module per area (each has `start`) |
//! | [`hostile_suite`] | pages that try to wedge a session: every answer within its timeout, other tabs and sessions answering, for any port |
//! | [`nested_suite`] | documents without an origin of their own and object/embed documents, judged by the executor's gate, for any port |
//! | [`port`] | small `BrowserPort` steps the tests repeat (open a tab, navigation input, PNG size) |
//! | [`tools`] | `Ghostlight` over a browser: governed workspaces and tool calls |
//! | [`wire_suite`] | authority on the wire, one scenario per request kind, for any port (WebDriver and extension) |
//! | [`dead_ends`] | loopback endpoints that never answer (a hanging server, a closed port) |
//! | [`processes`] | process inspection through `/proc`, for the lifecycle and fault tests |
//!
//! Every test runs against both engines unless `GHOSTLIGHT_TEST_ENGINES` (a comma-separated
//! list, e.g. `chromium`) limits them; a selected engine whose driver is missing fails loudly.
//! `GHOSTLIGHT_TEST_SCENARIOS` (comma-separated name fragments) runs only the scenarios whose
//! names contain one of them.
//!
//! `benches/tools/main.rs` includes this module by path, so it depends on nothing that only a
//! test target has.

// Each test binary compiles this whole module but uses only the helpers of its own area.
#![allow(dead_code)]

pub(crate) mod dead_ends;
pub(crate) mod dom_table;
pub(crate) mod e2e_suite;
pub(crate) mod engines;
pub(crate) mod hostile_suite;
pub(crate) mod nested_suite;
pub(crate) mod port;
pub(crate) mod processes;
pub(crate) mod server;
pub(crate) mod sink;
pub(crate) mod sites;
pub(crate) mod tools;
pub(crate) mod wire_suite;
