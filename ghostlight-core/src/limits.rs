//! Every bound and default of the 1.0 contract, named once.
//!
//! Schema rendering ([`crate::schema`]) and decoding ([`crate::decode`]) both read these
//! constants, so an advertised bound and an enforced bound can never drift apart. A number
//! from the specification appears here and nowhere else; where the specification only says
//! "bounded", the bound chosen here is documented on the constant.

/// An inclusive integer range with an optional default, as advertised in a schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntBound {
    /// Smallest accepted value.
    pub min: u64,
    /// Largest accepted value.
    pub max: u64,
    /// Value used when the field is omitted, if the field has one.
    pub default: Option<u64>,
}

impl IntBound {
    /// A range without a default.
    pub const fn new(min: u64, max: u64) -> Self {
        Self { min, max, default: None }
    }

    /// A range with a default used when the field is omitted.
    pub const fn with_default(min: u64, max: u64, default: u64) -> Self {
        Self { min, max, default: Some(default) }
    }

    /// Whether `value` lies inside the range.
    pub const fn contains(&self, value: u64) -> bool {
        value >= self.min && value <= self.max
    }
}

/// An inclusive bound on a count (array items) or a length (Unicode scalar values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CountBound {
    /// Fewest accepted items or characters.
    pub min: usize,
    /// Most accepted items or characters.
    pub max: usize,
}

impl CountBound {
    /// A bound from `min` to `max` inclusive.
    pub const fn new(min: usize, max: usize) -> Self {
        Self { min, max }
    }

    /// Whether `count` lies inside the bound.
    pub const fn contains(&self, count: usize) -> bool {
        count >= self.min && count <= self.max
    }
}

// ---------------------------------------------------------------------------------------------
// Shared by many tools
// ---------------------------------------------------------------------------------------------

/// `timeout_ms`: 100 to 30000 milliseconds, default 8000.
pub(crate) const TIMEOUT_MS: IntBound = IntBound::with_default(100, 30_000, 8_000);

/// Length of an absolute `http`/`https` URL (chosen: the common browser-safe ceiling).
pub(crate) const URL_CHARS: CountBound = CountBound::new(1, 8_192);

/// How long a read of a page (its text, a perception, a search, a presence check) may take
/// before it answers `timeout`: the contract gives those tools no `timeout_ms`, and a healthy
/// page answers far sooner.
pub const READ_CALL_MS: u64 = 20_000;

/// Characters of a governed URL in facts and sentences (chosen: the URL a page can set through
/// `history.replaceState` has no bound of its own). A longer URL is cut there and ends with
/// [`URL_CUT_MARKER`]; its scheme, host and port always stay whole (they are far shorter).
pub const FACT_URL_CHARS: usize = 2_048;
/// The mark that ends a governed URL cut at [`FACT_URL_CHARS`].
pub const URL_CUT_MARKER: char = '…';

/// Length of an opaque handle's token after its kind prefix (chosen).
pub(crate) const HANDLE_TOKEN_CHARS: CountBound = CountBound::new(1, 64);

/// `restrict_hosts` and `restrict_capabilities`: number of entries (chosen; `[]` narrows to
/// nothing and is valid).
pub(crate) const RESTRICTION_ENTRIES: CountBound = CountBound::new(0, 64);

/// Length of one host pattern such as `*.example.com:8443` (a DNS name is at most 253).
pub const HOST_PATTERN_CHARS: CountBound = CountBound::new(1, 261);

/// Length of a typed selector's `name` (chosen; names shown back are bounded tighter).
pub(crate) const SELECTOR_NAME_CHARS: CountBound = CountBound::new(1, 200);

/// Visible characters of a target name in sentences and facts.
pub const TARGET_NAME_CHARS: usize = 80;

/// Visible characters of a page title in facts (chosen).
pub(crate) const TITLE_CHARS: usize = 200;

/// Characters of a Ghostlight-authored summary (chosen).
pub(crate) const SUMMARY_CHARS: usize = 600;

/// Most next steps in an envelope.
pub(crate) const NEXT_STEPS_MAX: usize = 2;

/// Image-pixel coordinate (`x`, `y`, region `width`/`height`) ceiling (chosen; the
/// decoder checks syntax, the executor checks the rectangle against the current view).
pub(crate) const COORDINATE: IntBound = IntBound::new(0, 100_000);

/// A region's `width` or `height` in image pixels: positive, inside the coordinate ceiling.
pub(crate) const REGION_SIZE: IntBound = IntBound::new(1, COORDINATE.max);

// ---------------------------------------------------------------------------------------------
// Per tool
// ---------------------------------------------------------------------------------------------

/// `browser_window` zoom `percent`.
pub(crate) const ZOOM_PERCENT: IntBound = IntBound::new(25, 500);
/// `browser_window` resize `width`.
pub const WINDOW_WIDTH: IntBound = IntBound::new(320, 7_680);
/// `browser_window` resize `height`.
pub const WINDOW_HEIGHT: IntBound = IntBound::new(240, 4_320);

/// `browser_read` `max_chars`.
pub(crate) const READ_MAX_CHARS: IntBound = IntBound::with_default(500, 50_000, 8_000);

/// `browser_inspect` `max_items`.
pub(crate) const INSPECT_MAX_ITEMS: IntBound = IntBound::with_default(1, 200, 80);
/// `browser_inspect` `max_depth` for scope `document` (default chosen: the full range).
pub(crate) const INSPECT_MAX_DEPTH: IntBound = IntBound::with_default(1, 12, 12);

/// Forms one `browser_inspect` scope `forms` snapshot lists (chosen; later forms and their
/// controls are cut, `truncated`). Controls are bounded by `max_items`.
pub(crate) const INSPECT_FORMS_MAX: usize = 20;
/// Options listed for one select or radio group in a forms snapshot (chosen; adapters ask
/// the page for one more to tell a cut).
pub const FORM_OPTIONS_MAX: usize = 20;
/// Visible characters of a form name, legend, radio group or option label in a forms
/// snapshot (chosen).
pub const FORM_TEXT_CHARS: usize = 60;

/// `browser_find` `text` length (chosen).
pub(crate) const FIND_TEXT_CHARS: CountBound = CountBound::new(1, 200);
/// `browser_find` `max_results`.
pub(crate) const FIND_MAX_RESULTS: IntBound = IntBound::with_default(1, 50, 20);

/// `browser_click` `click_count`: single, double or triple.
pub(crate) const CLICK_COUNT: IntBound = IntBound::with_default(1, 3, 1);

/// `browser_scroll` wheel `ticks`.
pub(crate) const SCROLL_TICKS: IntBound = IntBound::new(1, 10);

/// `browser_fill_form` `fields` count.
pub(crate) const FILL_FIELDS: CountBound = CountBound::new(1, 30);
/// One fill `value` string, and each option of a list value (chosen).
pub(crate) const FILL_VALUE_CHARS: CountBound = CountBound::new(0, 10_000);
/// Options in one fill `value` list, for a multiple-choice list (chosen; an empty list
/// clears the selection).
pub(crate) const FILL_VALUE_OPTIONS: CountBound = CountBound::new(0, 100);

/// `browser_type_text` `text` length (chosen; empty only with `clear_first:true`).
pub(crate) const TYPE_TEXT_CHARS: CountBound = CountBound::new(0, 10_000);

/// `browser_press_key` `strokes` count.
pub(crate) const KEY_STROKES: CountBound = CountBound::new(1, 20);
/// Length of one `browser_press_key` key: one character or a named key such as `ArrowRight`.
pub(crate) const KEY_CHARS: CountBound = CountBound::new(1, 10);
/// `browser_press_key` `repeat`.
pub(crate) const KEY_REPEAT: IntBound = IntBound::with_default(1, 100, 1);

/// `browser_wait` text `value` length for `url_contains`, `text_present`, `text_absent`
/// (chosen).
pub(crate) const WAIT_TEXT_CHARS: CountBound = CountBound::new(1, 2_000);
/// `browser_wait` `value` for `value_equals`: the text a control's value must equal (chosen;
/// empty: a cleared control).
pub(crate) const WAIT_VALUE_CHARS: CountBound = CountBound::new(0, 2_000);
/// `browser_wait` `value` for `count_at_least`: how many controls must match (chosen; at most
/// what one selector scan perceives).
pub(crate) const WAIT_COUNT: IntBound = IntBound::new(1, 2_000);
/// Wildcards (`*`, `**`) in one `url_matches` glob (chosen: keeps every match linear).
pub(crate) const URL_GLOB_WILDCARDS: usize = 16;
/// `browser_wait` `duration` in whole milliseconds.
pub(crate) const WAIT_DURATION_MS: IntBound = IntBound::new(0, 10_000);

/// `browser_dialog` respond `text` length (chosen).
pub(crate) const DIALOG_TEXT_CHARS: CountBound = CountBound::new(0, 10_000);

/// `browser_upload` `paths` count.
pub(crate) const UPLOAD_PATHS: CountBound = CountBound::new(1, 5);
/// `browser_upload` inline `files` count.
pub(crate) const UPLOAD_FILES: CountBound = UPLOAD_PATHS;
/// Length of one absolute local path (chosen: Linux `PATH_MAX`).
pub(crate) const UPLOAD_PATH_CHARS: CountBound = CountBound::new(1, 4_096);
/// Length of one inline file `name` (chosen: common file-system name limit).
pub(crate) const UPLOAD_NAME_CHARS: CountBound = CountBound::new(1, 255);
/// Largest accepted file, in bytes.
pub(crate) const UPLOAD_FILE_MAX_BYTES: u64 = 5_000_000;
/// Largest accepted combined upload payload, in bytes.
pub const UPLOAD_TOTAL_MAX_BYTES: u64 = UPLOAD_FILE_MAX_BYTES;
/// The longest side of a region capture's output image, in pixels (adapters refuse a larger
/// region; `browser_screenshot` shrinks a retaken capture within it).
pub const MAX_REGION_SIDE: u32 = 4_096;
/// Largest image block a `browser_screenshot` returns, in bytes (chosen: the capture-reuse
/// ceiling, so every returned capture can be dropped or attached again; common model
/// providers accept images up to about this size). A larger capture is taken again scaled
/// down, and refused (`capture_too_large`) when even that does not fit.
pub const IMAGE_BLOCK_MAX_BYTES: u64 = CAPTURE_REUSE_MAX_BYTES;
/// Capture-reuse ceiling for `source_image`, in bytes.
pub(crate) const CAPTURE_REUSE_MAX_BYTES: u64 = UPLOAD_FILE_MAX_BYTES;
/// Length of one inline `data_base64` string: the base64 form of the largest file.
pub(crate) const UPLOAD_BASE64_CHARS: CountBound =
    CountBound::new(0, UPLOAD_FILE_MAX_BYTES.div_ceil(3) as usize * 4);

/// `browser_execute` `script` length.
pub(crate) const SCRIPT_CHARS: CountBound = CountBound::new(1, 20_000);
/// `browser_execute` `max_result_chars`.
pub(crate) const SCRIPT_RESULT_CHARS: IntBound = IntBound::with_default(100, 20_000, 8_000);
/// Characters of a failed script's error name and of its message kept in the `error` fact.
pub(crate) const SCRIPT_ERROR_CHARS: usize = 500;

/// `browser_sequence` `steps` count.
pub(crate) const SEQUENCE_STEPS: CountBound = CountBound::new(2, 8);

/// `browser_flow` `steps` count.
pub(crate) const FLOW_STEPS: CountBound = CountBound::new(1, 20);
/// `browser_flow` step `id` length (chosen).
pub(crate) const FLOW_STEP_ID_CHARS: CountBound = CountBound::new(1, 64);
/// `browser_flow` `flow_ref` JSON Pointer length (chosen).
pub(crate) const FLOW_POINTER_CHARS: CountBound = CountBound::new(0, 1_024);
/// Characters of a flow step's `arguments` given as JSON text (strict function calling; chosen:
/// above the largest inline upload as base64).
pub(crate) const FLOW_ARGUMENTS_TEXT_CHARS: usize = 7_000_000;
/// Bytes of step envelopes a flow records before it stops capturing them (chosen).
pub(crate) const FLOW_CAPTURE_BUDGET_BYTES: usize = 64_000;

/// The bounds of a `browser_record` recording, which the adapter that owns the recording
/// enforces (chosen: the specification says only "bounded"). Named once here so every adapter
/// (the WebDriver recorder, the extension, which receives them with its start operation)
/// applies the same numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordBounds {
    /// Milliseconds between two frame captures.
    pub interval_ms: u64,
    /// Frames kept at most; capture stops when reached (`frame_limit`).
    pub max_frames: usize,
    /// Bytes of kept (compressed) frames at most; a frame that would exceed it stops capture
    /// (`byte_limit`).
    pub max_frame_bytes: u64,
    /// Milliseconds capture may run (`time_limit`).
    pub time_limit_ms: u64,
    /// Milliseconds a stopped recording keeps its frames.
    pub retention_ms: u64,
    /// Recordings held at once (recording or stopped).
    pub max_recordings: usize,
    /// Widest kept frame, in pixels (wider viewports are scaled down).
    pub max_frame_width: u32,
    /// Tallest kept frame, in pixels (taller viewports are scaled down).
    pub max_frame_height: u32,
    /// Largest GIF delivered, in bytes.
    pub max_gif_bytes: usize,
    /// Shortest frame delay written, in 1/100 s (browsers slow down shorter delays).
    pub min_delay_cs: u16,
}

/// The recording bounds of every adapter.
pub const RECORD_BOUNDS: RecordBounds = RecordBounds {
    interval_ms: 500,
    max_frames: 60,
    max_frame_bytes: 8 * 1024 * 1024,
    time_limit_ms: 60_000,
    retention_ms: 10 * 60_000,
    max_recordings: 4,
    max_frame_width: 640,
    max_frame_height: 1_024,
    max_gif_bytes: 16 * 1024 * 1024,
    min_delay_cs: 2,
};

/// `browser_diagnose` `limit`.
pub(crate) const DIAGNOSE_LIMIT: IntBound = IntBound::with_default(1, 200, 50);
/// `browser_diagnose` `match` length (chosen).
pub(crate) const DIAGNOSE_MATCH_CHARS: CountBound = CountBound::new(1, 200);
/// `browser_diagnose` `after` cursor length (chosen).
pub(crate) const DIAGNOSE_CURSOR_CHARS: CountBound = CountBound::new(1, 128);

/// Origins (`scheme://host:port`) the `blocked_requests` fact names at most (chosen: enough to
/// tell a page's trackers from the navigation it tried; the count is always exact).
pub(crate) const BLOCKED_ORIGINS: usize = 5;

/// Characters of a received value echoed back in a decode error (never for secret fields).
pub(crate) const ECHO_CHARS: usize = 40;
/// Characters of a JSON Pointer shown in a decode error or fact; a longer one (only an unknown
/// member's key can make it so) is cut there and ends with `…` (chosen).
pub(crate) const POINTER_ECHO_CHARS: usize = 200;

// ---------------------------------------------------------------------------------------------
// Composition
// ---------------------------------------------------------------------------------------------

/// Length of a `browser_flow` step's `tool` name (chosen: above every tool name's length).
pub(crate) const FLOW_TOOL_NAME_CHARS: CountBound = CountBound::new(1, 32);

// ---------------------------------------------------------------------------------------------
// Authority configuration
// ---------------------------------------------------------------------------------------------

/// Host patterns in one configuration list (`hosts.allow`, `hosts.deny`, `ceilings.hosts`)
/// (chosen: generous for a person's policy, small enough that `policy_explain` stays bounded).
pub(crate) const CONFIG_HOST_PATTERNS: CountBound = CountBound::new(0, 256);

/// Folders in `uploads.roots` (chosen).
pub(crate) const UPLOAD_ROOTS: CountBound = CountBound::new(0, 32);

/// Length of `organization.name`, shown by `policy_explain` (chosen).
pub(crate) const ORGANIZATION_NAME_CHARS: CountBound = CountBound::new(1, 100);
