//! Ghostlight's page protocol: what every connector runs in a page and how it reads the
//! answers, in one place for the WebDriver adapter (`ghostlight-webdriver`) and the extension
//! connector (`ghostlight-extension`).
//!
//! - [`scripts`]: the page scripts (`scripts/` of this crate), one JavaScript source of roles,
//!   accessible names, what is shown, perception, text, element boxes and input; [`bounds`]:
//!   the bounds passed to them.
//! - [`perception`]: the perception and reading scripts' typed requests and answers, and the
//!   frame walk of perception ([`perception::gather`]) over a connector's
//!   [`Documents`](perception::Documents); [`perceived`]: the items as the port's elements.
//! - [`input`]: the input scripts' answers (hit test, focus, key guard, scroll) and bounds;
//!   [`fill`] and [`upload`]: the fill and upload scripts' languages, and local files read for
//!   an upload (this is the crate that touches the file system, never core).
//! - [`capture`]: capture geometry and bounds; [`evidence`]: the console and network
//!   evidence log; [`load_failure`]: a browser's load-failure code as a
//!   [`NetworkFailure`](ghostlight_core::port::NetworkFailure).
//! - [`bundle`]: the extension's page API (`page/dom.js`), composed from the scripts.
//!
//! The crate uses `ghostlight-core`'s port types and no async runtime or browser driver:
//! connectors bring their own way to run a script.
//!
//! ```
//! use ghostlight_core::port::{PerceiveScope, TextMode};
//! use ghostlight_page::perception::{PassOptions, ReadOptions};
//! use ghostlight_page::scripts;
//!
//! // A WebDriver "Execute Script" body perceiving the page's controls…
//! let script = scripts::with_dom(&scripts::call(scripts::PERCEIVE_FN, 2));
//! let (options, _root) = PassOptions::perceive(&PerceiveScope::Controls, 100);
//! assert!(script.ends_with("(arguments[0], arguments[1]);"));
//! assert_eq!(options.to_value().ok().map(|v| v["mode"].clone()), Some("controls".into()));
//! // …and the options of reading its visible text.
//! assert_eq!(ReadOptions::new(TextMode::Visible, 1_000).mode, "visible");
//! ```

pub mod bounds;
pub mod bundle;
pub mod capture;
pub mod evidence;
pub mod fill;
pub mod input;
pub mod load_failure;
pub mod perceived;
pub mod perception;
pub mod scripts;
pub mod upload;
