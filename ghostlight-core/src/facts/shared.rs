//! The fact tables shared by every tool: the common facts each output schema lists, and the
//! details a refusal or failure may add.

/// The facts every tool's output schema lists: the host a summary names and refusal reasons.
pub(crate) mod common {
    use crate::facts::{Fact, FactType};

    /// What the `blocked_requests` fact holds.
    const BLOCKED_MEMBERS: [Fact; 2] = [
        Fact::new("count", FactType::Integer, "Requests refused."),
        Fact::new("origins", FactType::StringArray, "Up to five scheme://host:port they were going to."),
    ];

    crate::facts::fact_table! {
        COMMON_FACTS;
        HOST: Str("host", "The page's host (with :port when not the default) the summary names."),
        REASON: Str("reason", "Closed reason code of a refusal or failure."),
        BROWSERS: Strs("browsers", "Eligible browsers (startup refusals)."),
        BROWSER: Str("browser", "The one eligible browser (startup refusals)."),
        BLOCKED_REQUESTS: Json(
            "blocked_requests",
            FactType::Object(&BLOCKED_MEMBERS),
            "Requests to hosts outside authority stopped during the call, before they were sent."
        ),
    }
}

/// Details a refusal or failure may add whatever the tool. The output schema's `facts` object
/// is open for them; they are typed and described here, and `DETAIL_FACTS` lets tests check
/// them.
pub(crate) mod detail {
    use crate::facts::{Fact, FactType};

    /// A control named in a refusal: its role and, when it has one, its accessible name.
    const CONTROL_MEMBERS: [Fact; 2] = [
        Fact::new("role", FactType::String, "Closed semantic role."),
        Fact::new("name", FactType::String, "Bounded accessible name, when it has one."),
    ];

    crate::facts::fact_table! {
        DETAIL_FACTS;
        TAB: Str("tab", "Tab handle."),
        TARGET: Str("target", "Target handle."),
        VIEW: Str("view", "View handle."),
        TARGET_TAB: Str("target_tab", "The target's own tab."),
        MATCH_COUNT: Int("match_count", "Controls the selector matched."),
        CANDIDATES: Json("candidates", FactType::ObjectArray(&CONTROL_MEMBERS), "Controls the selector matched."),
        WIDTH: Int("width", "Width (px)."),
        HEIGHT: Int("height", "Height (px)."),
        MAX_SIDE: Int("max_side", "Longest side allowed (px)."),
        MAX_PIXELS: Int("max_pixels", "Most pixels allowed."),
        BYTES: Int("bytes", "Size of the image (bytes)."),
        MAX_BYTES: Int("max_bytes", "Largest image allowed (bytes)."),
        TAB_COUNT: Int("tab_count", "Controlled tabs."),
        LIMIT: Int("limit", "The limit reached."),
        SELECTED_COUNT: Int("selected_count", "Active controlled tabs."),
        POINTER: Str("pointer", "JSON pointer of the refused argument."),
        RULE: Str("rule", "The rule the argument broke."),
        TOOL: Str("tool", "Tool name."),
        WITHHELD_KEYS: Int("withheld_keys", "Keys not delivered."),
        OBSTRUCTED_BY: Json("obstructed_by", FactType::Object(&CONTROL_MEMBERS), "The element covering the target."),
        TIMEOUT_MS: Int("timeout_ms", "Timeout (ms)."),
        ENGINE: Str("engine", "Browser engine."),
        CAUSE: Str("cause", "Why the browser did not start."),
        DRIVER: Str("driver", "Driver executable."),
        NETWORK_ERROR: Str(
            "network_error",
            "Why the page did not load: name_not_resolved, connection_refused, connection_reset, timed_out, tls_error, port_blocked, offline, blocked or other."
        ),
        BROWSER_CODE: Str("browser_code", "The browser's error code, e.g. ERR_NAME_NOT_RESOLVED."),
        DECIDED_BY: Str("decided_by", "The authority layer that decided."),
        CAPABILITY: Str("capability", "The capability refused."),
        MISSING_CAPABILITIES: Strs("missing_capabilities", "Capabilities the call needs and lacks."),
        URL: Str("url", "Governed URL."),
        CREDENTIAL: Str("credential", "Credential class of the target."),
    }
}
