//! The bounds every connector passes to the page scripts (the extension's page API reads them
//! from `GL_LIMITS`, see [`crate::bundle`]), and how long a reading script may run.

use std::time::Duration;

/// Accessible names [`DOM_JS`](crate::scripts::DOM_JS) computes, and names input receipts
/// carry, are cut to this many UTF-16 units in the page (core bounds them again, to
/// [`TARGET_NAME_CHARS`](ghostlight_core::port::TARGET_NAME_CHARS) visible characters).
pub const NAME_MAX_CHARS: usize = 160;
/// The most items one perception answers, whatever the caller asks (core asks at most 2,000
/// for selector matching).
pub const PERCEIVE_MAX_ITEMS: usize = 5_000;
/// The deepest structure tree the `Document` scope walks, whatever the caller asks.
pub const DOCUMENT_MAX_DEPTH: u32 = 64;
/// Visible text of an element is cut to this many UTF-16 units in the page.
pub const TEXT_MAX_CHARS: usize = 200;
/// A text search's query ([`PerceiveScope::Matching`](ghostlight_core::port::PerceiveScope::Matching))
/// longer than this is cut (core bounds queries far below it).
pub const QUERY_MAX_CHARS: usize = 1_000;
/// The most characters `read_text` returns, whatever the caller asks (core asks at most
/// 50,000).
pub const READ_MAX_CHARS: usize = 200_000;
/// An article shorter than this many characters is not substantive: `ArticleOrVisible` then
/// reads the visible text instead.
pub const ARTICLE_MIN_CHARS: usize = 280;
/// A text block shorter than this many characters is not a paragraph for the article
/// heuristic.
pub const ARTICLE_MIN_BLOCK_CHARS: usize = 25;
/// The most text nodes the article heuristic scores.
pub const ARTICLE_MAX_TEXT_NODES: usize = 50_000;
/// The most frame documents one walk through a page's frames visits (text, presence,
/// captures' frame boxes).
pub const MAX_WALK_FRAMES: usize = 24;
/// The shortest gap between two checks a text wait makes when the page changes (the script
/// also waits twice as long as its last check took, so a huge page is not kept busy).
pub const WATCH_THROTTLE: Duration = Duration::from_millis(50);
/// How often a text wait checks whatever the page reports: what is shown can change without
/// a mutation (a style sheet, a media query, an animation).
pub const WATCH_SWEEP: Duration = Duration::from_millis(500);
/// How long past its own end a text wait's script may run before the driver gives it up (the
/// page's timer answers first unless the page keeps its thread busy).
pub const WATCH_SCRIPT_MARGIN: Duration = Duration::from_secs(1);
/// How long one perception or reading script may run in the page.
pub const READ_SCRIPT_TIMEOUT: Duration = Duration::from_secs(20);
/// The shortest script timeout a reading script accepts from the call before it (an action's
/// `timeout_ms`, 8 s by default) instead of setting [`READ_SCRIPT_TIMEOUT`]: a healthy page
/// answers a read far sooner, and keeping the driver's setting saves a round trip per read.
pub const READ_SCRIPT_FLOOR: Duration = Duration::from_secs(5);
