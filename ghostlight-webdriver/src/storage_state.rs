//! Storage state: the cookies and `localStorage` of a browser, loaded into a fresh session
//! when it starts and saved back when it stops ([`WebDriverConfig::storage_state`]).
//!
//! The file has Playwright's `storageState` shape, so a state saved by one tool loads in the
//! other: `{"cookies": [{name, value, domain, path, expires, httpOnly, secure, sameSite}],
//! "origins": [{origin, localStorage: [{name, value}]}]}` (`expires` in seconds since the
//! epoch, `-1` for a session cookie).
//!
//! Everything goes through WebDriver BiDi, on both engines:
//! - cookies with `storage.setCookie` / `storage.getCookies`;
//! - an origin's `localStorage` in a background tab opened on that origin, whose document
//!   request is intercepted and answered with an empty page (`network.addIntercept`,
//!   `network.provideResponse`), so loading a state sends nothing to the sites it names.
//!
//! What is saved: every cookie of the browser, and the `localStorage` of the origins of the
//! open tabs and of the loaded state. An origin visited only in a tab that was closed before
//! the save is not saved.
//!
//! The file holds secrets (session cookies): it is written with mode 0600, atomically, and
//! neither values nor the file's content ever reach a log; `Debug` leaves values out.
//!
//! [`WebDriverConfig::storage_state`]: crate::WebDriverConfig::storage_state

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use ghostlight_core::port::{PortError, PortErrorKind, PortResult};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use url::Url;

use crate::bidi::{Bidi, Endpoint};

/// The largest storage state file read, in bytes.
pub const MAX_STORAGE_STATE_BYTES: u64 = 16 * 1024 * 1024;
/// The most cookies a storage state may hold.
pub const MAX_STORED_COOKIES: usize = 10_000;
/// The most origins a storage state may hold.
pub const MAX_STORED_ORIGINS: usize = 1_000;
/// How long an origin's empty document may take to load.
const ORIGIN_LOAD_TIMEOUT: Duration = Duration::from_secs(10);
/// How often an origin's document is polled while it loads.
const ORIGIN_POLL: Duration = Duration::from_millis(25);
/// The body served for an origin's intercepted document.
const EMPTY_DOCUMENT: &str = "<!doctype html><title></title>";

/// Where the storage state lives and whether it is written back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StorageStateFile {
    /// The JSON file.
    pub path: PathBuf,
    /// Write the browser's state to `path` when the session stops (the file need not exist
    /// at the start then; without `save`, a missing file is refused).
    pub save: bool,
}

/// Cookies and `localStorage` by origin, in Playwright's `storageState` shape.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StorageState {
    /// The cookies.
    #[serde(default)]
    pub cookies: Vec<StoredCookie>,
    /// `localStorage` items by origin.
    #[serde(default)]
    pub origins: Vec<OriginStorage>,
}

/// One cookie.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StoredCookie {
    /// The cookie's name.
    pub name: String,
    /// The cookie's value (a secret: never logged).
    pub value: String,
    /// The domain (a leading `.` matches subdomains too).
    pub domain: String,
    /// The path.
    #[serde(default = "root_path")]
    pub path: String,
    /// When it expires, in seconds since the epoch; `-1` for a session cookie.
    #[serde(default = "session_cookie")]
    pub expires: f64,
    /// Hidden from page scripts.
    #[serde(default)]
    pub http_only: bool,
    /// Sent over HTTPS only.
    #[serde(default)]
    pub secure: bool,
    /// `Strict`, `Lax` or `None`.
    #[serde(default)]
    pub same_site: SameSite,
}

impl fmt::Debug for StoredCookie {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoredCookie")
            .field("name", &self.name)
            .field("domain", &self.domain)
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// A cookie's `SameSite` attribute.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SameSite {
    /// Sent with same-site requests only.
    Strict,
    /// Also sent with top-level navigations from other sites (browsers' default).
    #[default]
    Lax,
    /// Sent with every request (needs `secure`).
    None,
}

impl SameSite {
    /// The BiDi value.
    const fn bidi(self) -> &'static str {
        match self {
            SameSite::Strict => "strict",
            SameSite::Lax => "lax",
            SameSite::None => "none",
        }
    }

    /// The attribute of a BiDi value (`default` and unknown values: `Lax`).
    fn from_bidi(value: &str) -> SameSite {
        match value {
            "strict" => SameSite::Strict,
            "none" => SameSite::None,
            _ => SameSite::Lax,
        }
    }
}

/// One origin's `localStorage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OriginStorage {
    /// `scheme://host[:port]`, `http` or `https`.
    pub origin: String,
    /// The items.
    pub local_storage: Vec<StorageItem>,
}

/// One `localStorage` item.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StorageItem {
    /// The key.
    pub name: String,
    /// The value (never logged).
    pub value: String,
}

impl fmt::Debug for StorageItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StorageItem").field("name", &self.name).finish_non_exhaustive()
    }
}

fn root_path() -> String {
    "/".to_owned()
}

fn session_cookie() -> f64 {
    -1.0
}

/// Why a storage state file cannot be used. Never repeats the file's content.
#[derive(Debug, thiserror::Error)]
pub enum StorageStateError {
    /// The file is not there (and nothing is to be saved to it).
    #[error("the storage state file {0} does not exist (set save_storage_state to create it at exit)")]
    Missing(PathBuf),
    /// The file could not be read or written.
    #[error("the storage state file {path} could not be {action}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// `read` or `written`.
        action: &'static str,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is larger than [`MAX_STORAGE_STATE_BYTES`].
    #[error("the storage state file {0} is larger than {MAX_STORAGE_STATE_BYTES} bytes")]
    TooLarge(PathBuf),
    /// The file is not a storage state.
    #[error("the storage state file {path} is not a storage state: {problem}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong (line and column, or the rule broken; never a value).
        problem: String,
    },
}

impl StorageStateFile {
    /// The state to load: the file's, or an empty state when the file is missing and is to
    /// be saved.
    pub fn read(&self) -> Result<StorageState, StorageStateError> {
        let path = &self.path;
        let meta = match std::fs::metadata(path) {
            Ok(meta) => meta,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return if self.save {
                    Ok(StorageState::default())
                } else {
                    Err(StorageStateError::Missing(path.clone()))
                };
            }
            Err(source) => return Err(StorageStateError::Io { path: path.clone(), action: "read", source }),
        };
        if meta.len() > MAX_STORAGE_STATE_BYTES {
            return Err(StorageStateError::TooLarge(path.clone()));
        }
        let text = std::fs::read_to_string(path).map_err(|source| StorageStateError::Io {
            path: path.clone(),
            action: "read",
            source,
        })?;
        let invalid = |problem: String| StorageStateError::Invalid { path: path.clone(), problem };
        let state: StorageState = serde_json::from_str(&text)
            // serde's message may quote a value; keep only where the problem is.
            .map_err(|e| invalid(format!("malformed at line {}, column {}", e.line(), e.column())))?;
        state.check().map_err(|problem| invalid(problem.to_owned()))?;
        Ok(state)
    }

    /// Write `state` to the file atomically, readable by this user only.
    pub fn write(&self, state: &StorageState) -> Result<(), StorageStateError> {
        use std::io::Write as _;
        use std::os::unix::fs::OpenOptionsExt as _;
        let path = &self.path;
        let io = |source| StorageStateError::Io { path: path.clone(), action: "written", source };
        let text = serde_json::to_vec_pretty(state).map_err(|e| io(std::io::Error::other(e)))?;
        let temporary = sibling(path, ".ghostlight-tmp");
        // A stale one of an earlier run goes (a link is removed itself, never followed); the
        // new one is created exclusively, so nothing planted there meanwhile is written to.
        let _ = std::fs::remove_file(&temporary);
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&temporary)
            .map_err(io)?;
        file.write_all(&text).and_then(|()| file.sync_all()).map_err(io)?;
        std::fs::rename(&temporary, path).map_err(io)
    }
}

/// `path` with `suffix` appended to its file name.
fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().map(std::ffi::OsStr::to_owned).unwrap_or_default();
    name.push(suffix);
    path.with_file_name(name)
}

impl StorageState {
    /// The first rule the state breaks, if any.
    fn check(&self) -> Result<(), &'static str> {
        if self.cookies.len() > MAX_STORED_COOKIES {
            return Err("it holds more cookies than allowed");
        }
        if self.origins.len() > MAX_STORED_ORIGINS {
            return Err("it holds more origins than allowed");
        }
        if self.cookies.iter().any(|c| c.name.is_empty() && c.value.is_empty()) {
            return Err("a cookie has neither a name nor a value");
        }
        if self.cookies.iter().any(|c| c.domain.trim_start_matches('.').is_empty()) {
            return Err("a cookie has no domain");
        }
        if self.origins.iter().any(|o| web_origin(&o.origin).is_none()) {
            return Err("an origin is not an http or https origin (scheme://host[:port])");
        }
        Ok(())
    }
}

/// The normalised origin of `text` when it is exactly an `http`/`https` origin.
fn web_origin(text: &str) -> Option<String> {
    let url = Url::parse(text).ok()?;
    if !matches!(url.scheme(), "http" | "https") || url.path() != "/" || url.query().is_some() {
        return None;
    }
    let origin = url.origin().ascii_serialization();
    (origin == text.trim_end_matches('/')).then_some(origin)
}

/// A BiDi connection for storage work, with the requests it intercepted.
struct StorageSession {
    bidi: Bidi,
    blocked: mpsc::UnboundedReceiver<Value>,
}

impl StorageSession {
    async fn connect(endpoint: &Endpoint) -> PortResult<StorageSession> {
        let (sender, blocked) = mpsc::unbounded_channel();
        let handler = move |method: &str, params: &Value| {
            if method == "network.beforeRequestSent" && params.get("isBlocked") == Some(&Value::Bool(true)) {
                let _ = sender.send(params.clone());
            }
        };
        let bidi = Bidi::connect(endpoint, Box::new(handler)).await?;
        Ok(StorageSession { bidi, blocked })
    }

    /// Open a background tab showing an empty document of `origin` (its request answered
    /// here, never sent), run `function` there with `argument`, close the tab; the result.
    async fn in_origin(&mut self, origin: &str, function: &str, argument: &str) -> PortResult<Value> {
        let created =
            self.bidi.command("browsingContext.create", json!({ "type": "tab", "background": true })).await?;
        let context = created.get("context").and_then(Value::as_str).map(str::to_owned).ok_or_else(|| {
            PortError::new(PortErrorKind::Other, "the browser opened no tab for the storage state")
        })?;
        let outcome = self.run_in_origin(&context, origin, function, argument).await;
        let _ = self.bidi.command("browsingContext.close", json!({ "context": context })).await;
        outcome
    }

    async fn run_in_origin(
        &mut self,
        context: &str,
        origin: &str,
        function: &str,
        argument: &str,
    ) -> PortResult<Value> {
        let document = format!("{origin}/");
        let added = self
            .bidi
            .command(
                "network.addIntercept",
                json!({
                    "phases": ["beforeRequestSent"],
                    "urlPatterns": [{ "type": "string", "pattern": document }],
                }),
            )
            .await?;
        let intercept = added.get("intercept").cloned().unwrap_or(Value::Null);
        let outcome = self.load_and_run(context, &document, origin, function, argument).await;
        let _ = self.bidi.command("network.removeIntercept", json!({ "intercept": intercept })).await;
        outcome
    }

    async fn load_and_run(
        &mut self,
        context: &str,
        document: &str,
        origin: &str,
        function: &str,
        argument: &str,
    ) -> PortResult<Value> {
        let (bidi, blocked) = (&self.bidi, &mut self.blocked);
        let navigate = bidi.command(
            "browsingContext.navigate",
            json!({ "context": context, "url": document, "wait": "none" }),
        );
        let deadline = tokio::time::Instant::now() + ORIGIN_LOAD_TIMEOUT;
        // The navigation may not be answered before its request is (Chromium waits for the
        // commit): intercept and answer while the command is in flight.
        let answer = async {
            let request = loop {
                let event = tokio::time::timeout_at(deadline, blocked.recv())
                    .await
                    .map_err(|_| load_timeout())?
                    .ok_or_else(load_timeout)?;
                if event.get("context").and_then(Value::as_str) == Some(context) {
                    break event.pointer("/request/request").cloned().unwrap_or(Value::Null);
                }
            };
            bidi.command(
                    "network.provideResponse",
                    json!({
                        "request": request,
                        "statusCode": 200,
                        "reasonPhrase": "OK",
                        "headers": [{ "name": "Content-Type", "value": { "type": "string", "value": "text/html" } }],
                        "body": { "type": "string", "value": EMPTY_DOCUMENT },
                    }),
                )
                .await
        };
        let (navigated, answered) = tokio::join!(navigate, answer);
        answered?;
        navigated?;
        loop {
            let probe = self
                .call(context, "() => document.readyState === 'complete' ? location.origin : ''", "")
                .await;
            if probe.ok().as_ref().and_then(Value::as_str) == Some(origin) {
                break;
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(load_timeout());
            }
            tokio::time::sleep(ORIGIN_POLL).await;
        }
        self.call(context, function, argument).await
    }

    /// Call `function` with one string argument in `context`'s document (in a sandbox, out of
    /// the page's reach); its JSON-like result.
    async fn call(&mut self, context: &str, function: &str, argument: &str) -> PortResult<Value> {
        let result = self
            .bidi
            .command(
                "script.callFunction",
                json!({
                    "functionDeclaration": function,
                    "arguments": [{ "type": "string", "value": argument }],
                    "target": { "context": context, "sandbox": "ghostlight-storage" },
                    "awaitPromise": false,
                    "resultOwnership": "none",
                }),
            )
            .await?;
        if result.get("type").and_then(Value::as_str) != Some("success") {
            return Err(PortError::new(PortErrorKind::Other, "a storage state script failed in the browser"));
        }
        Ok(result.pointer("/result/value").cloned().unwrap_or(Value::Null))
    }
}

fn load_timeout() -> PortError {
    PortError::new(PortErrorKind::Timeout, "an origin of the storage state did not load in time")
}

/// Store the items (a JSON array of `[key, value]`) in this origin's `localStorage`.
const STORE_ITEMS: &str = "(items) => { for (const [k, v] of JSON.parse(items)) localStorage.setItem(k, v); return localStorage.length; }";
/// This origin's `localStorage` as a JSON array of `[key, value]`.
const READ_ITEMS: &str = "() => JSON.stringify(Object.entries(localStorage))";

/// Load `state` into the browser whose BiDi endpoint is `endpoint`.
pub(crate) async fn load(endpoint: &Endpoint, state: &StorageState) -> PortResult<()> {
    let mut session = StorageSession::connect(endpoint).await?;
    for cookie in &state.cookies {
        session.bidi.command("storage.setCookie", json!({ "cookie": bidi_cookie(cookie) })).await?;
    }
    if state.origins.iter().any(|o| !o.local_storage.is_empty()) {
        session.bidi.command("session.subscribe", json!({ "events": ["network.beforeRequestSent"] })).await?;
    }
    for origin in state.origins.iter().filter(|o| !o.local_storage.is_empty()) {
        let items: Vec<(&str, &str)> =
            origin.local_storage.iter().map(|i| (i.name.as_str(), i.value.as_str())).collect();
        let items = serde_json::to_string(&items).unwrap_or_default();
        let origin = web_origin(&origin.origin).unwrap_or_else(|| origin.origin.clone());
        session.in_origin(&origin, STORE_ITEMS, &items).await?;
    }
    Ok(())
}

/// The state of the browser whose BiDi endpoint is `endpoint`: every cookie, and the
/// `localStorage` of the open tabs' origins and of `also` (the loaded state's origins).
pub(crate) async fn save(endpoint: &Endpoint, also: &[String]) -> PortResult<StorageState> {
    let mut session = StorageSession::connect(endpoint).await?;
    let answer = session.bidi.command("storage.getCookies", json!({})).await?;
    let cookies = answer
        .get("cookies")
        .and_then(Value::as_array)
        .map(|list| list.iter().filter_map(stored_cookie).collect())
        .unwrap_or_default();

    let tree = session.bidi.command("browsingContext.getTree", json!({ "maxDepth": 0 })).await?;
    let mut open = Vec::new();
    for context in tree.get("contexts").and_then(Value::as_array).into_iter().flatten() {
        let (Some(id), Some(url)) =
            (context.get("context").and_then(Value::as_str), context.get("url").and_then(Value::as_str))
        else {
            continue;
        };
        if let Some(origin) = Url::parse(url).ok().and_then(|u| web_origin(&u.origin().ascii_serialization()))
        {
            open.push((id.to_owned(), origin));
        }
    }
    let mut origins = Vec::new();
    let mut seen = BTreeSet::new();
    for (context, origin) in &open {
        if seen.insert(origin.clone())
            && let Ok(items) = session.call(context, READ_ITEMS, "").await
        {
            origins.push(origin_storage(origin, &items));
        }
    }
    let closed: Vec<&String> = also.iter().filter(|o| !seen.contains(*o)).collect();
    if !closed.is_empty() {
        session.bidi.command("session.subscribe", json!({ "events": ["network.beforeRequestSent"] })).await?;
    }
    for origin in closed {
        if seen.insert(origin.clone()) {
            let items = session.in_origin(origin, READ_ITEMS, "").await?;
            origins.push(origin_storage(origin, &items));
        }
    }
    origins.retain(|o: &OriginStorage| !o.local_storage.is_empty());
    Ok(StorageState { cookies, origins })
}

/// The origins of `state` (normalised).
pub(crate) fn origins_of(state: &StorageState) -> Vec<String> {
    state.origins.iter().filter_map(|o| web_origin(&o.origin)).collect()
}

/// An origin's storage from [`READ_ITEMS`]'s answer.
fn origin_storage(origin: &str, items: &Value) -> OriginStorage {
    let pairs: Vec<(String, String)> =
        items.as_str().and_then(|text| serde_json::from_str(text).ok()).unwrap_or_default();
    OriginStorage {
        origin: origin.to_owned(),
        local_storage: pairs.into_iter().map(|(name, value)| StorageItem { name, value }).collect(),
    }
}

/// A cookie as `storage.setCookie` takes it. `SameSite=None` without `secure` (what
/// Chromium reports for a cookie set without the attribute, and what it refuses to set) is
/// left to the browser's default.
fn bidi_cookie(cookie: &StoredCookie) -> Value {
    let mut value = json!({
        "name": cookie.name,
        "value": { "type": "string", "value": cookie.value },
        "domain": cookie.domain,
        "path": cookie.path,
        "httpOnly": cookie.http_only,
        "secure": cookie.secure,
    });
    if cookie.secure || cookie.same_site != SameSite::None {
        value["sameSite"] = json!(cookie.same_site.bidi());
    }
    if cookie.expires >= 0.0 {
        value["expiry"] = json!(cookie.expires.trunc() as u64);
    }
    value
}

/// A cookie from `storage.getCookies` (`None` for a binary value).
fn stored_cookie(cookie: &Value) -> Option<StoredCookie> {
    let text = |key: &str| cookie.get(key).and_then(Value::as_str).map(str::to_owned);
    let flag = |key: &str| cookie.get(key).and_then(Value::as_bool).unwrap_or(false);
    let value = cookie.get("value")?;
    if value.get("type").and_then(Value::as_str) != Some("string") {
        return None;
    }
    Some(StoredCookie {
        name: text("name")?,
        value: value.get("value").and_then(Value::as_str)?.to_owned(),
        domain: text("domain")?,
        path: text("path").unwrap_or_else(root_path),
        expires: cookie.get("expiry").and_then(Value::as_f64).unwrap_or(-1.0),
        http_only: flag("httpOnly"),
        secure: flag("secure"),
        same_site: SameSite::from_bidi(text("sameSite").as_deref().unwrap_or("lax")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(dir: &Path, text: Option<&str>, save: bool) -> StorageStateFile {
        let path = dir.join("state.json");
        if let Some(text) = text {
            std::fs::write(&path, text).expect("write");
        }
        StorageStateFile { path, save }
    }

    #[test]
    fn playwright_states_load_with_defaults() {
        let dir = tempfile::tempdir().expect("dir");
        let text = r#"{"cookies":[{"name":"sid","value":"s3cret","domain":".a.example","path":"/",
            "expires":-1,"httpOnly":true,"secure":false,"sameSite":"Lax"},
            {"name":"b","value":"1","domain":"b.example"}],
            "origins":[{"origin":"http://127.0.0.1:8080","localStorage":[{"name":"k","value":"v"}]}]}"#;
        let state = file(dir.path(), Some(text), false).read().expect("a state");
        assert_eq!(state.cookies.len(), 2);
        assert_eq!(state.cookies[1].path, "/");
        assert_eq!(state.cookies[1].expires, -1.0);
        assert_eq!(state.cookies[1].same_site, SameSite::Lax);
        assert_eq!(origins_of(&state), vec!["http://127.0.0.1:8080".to_owned()]);
        let debug = format!("{state:?}");
        assert!(!debug.contains("s3cret") && debug.contains("sid"), "values stay out of Debug: {debug}");
    }

    #[test]
    fn bad_files_are_refused_without_quoting_them() {
        let dir = tempfile::tempdir().expect("dir");
        let missing = file(dir.path(), None, false).read().expect_err("missing");
        assert!(matches!(missing, StorageStateError::Missing(_)));
        assert_eq!(file(dir.path(), None, true).read().expect("empty when saved"), StorageState::default());
        for (text, rule) in [
            (r#"{"cookies":[{"name":"a","value":"s3cret"}]}"#, "line"),
            (r#"{"cookies":[{"name":"a","value":"s3cret","domain":"."}]}"#, "no domain"),
            (r#"{"origins":[{"origin":"file:///etc","localStorage":[]}]}"#, "http or https"),
            (r#"{"origins":[{"origin":"http://a.example/path","localStorage":[]}]}"#, "http or https"),
            (r#"{"cookies":[],"extra":"s3cret"}"#, "line"),
        ] {
            let error = file(dir.path(), Some(text), false).read().expect_err(text).to_string();
            assert!(error.contains(rule) && !error.contains("s3cret"), "{text}: {error}");
        }
    }

    #[test]
    fn writes_are_private_and_read_back() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().expect("dir");
        let target = file(dir.path(), None, true);
        let state = StorageState {
            cookies: vec![StoredCookie {
                name: "a".into(),
                value: "b".into(),
                domain: "a.example".into(),
                path: "/".into(),
                expires: 2_000_000_000.0,
                http_only: false,
                secure: true,
                same_site: SameSite::Strict,
            }],
            origins: vec![OriginStorage {
                origin: "https://a.example".into(),
                local_storage: vec![StorageItem { name: "k".into(), value: "v".into() }],
            }],
        };
        target.write(&state).expect("written");
        let mode = std::fs::metadata(&target.path).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(target.read().expect("read back"), state);
    }

    #[test]
    fn cookies_convert_both_ways() {
        let cookie = StoredCookie {
            name: "n".into(),
            value: "v".into(),
            domain: "a.example".into(),
            path: "/p".into(),
            expires: 2_000_000_000.5,
            http_only: true,
            secure: true,
            same_site: SameSite::None,
        };
        let wire = bidi_cookie(&cookie);
        assert_eq!(wire["expiry"], json!(2_000_000_000_u64));
        assert_eq!(wire["sameSite"], json!("none"));
        let mut back = stored_cookie(&wire).expect("a cookie");
        back.expires = cookie.expires;
        assert_eq!(back, cookie);
        let session = bidi_cookie(&StoredCookie { expires: -1.0, ..cookie.clone() });
        assert!(session.get("expiry").is_none());
        let lax_by_default = bidi_cookie(&StoredCookie { secure: false, ..cookie });
        assert!(lax_by_default.get("sameSite").is_none(), "the browser's default applies");
        assert!(
            stored_cookie(&json!({"name":"n","domain":"d","value":{"type":"base64","value":"AA=="}}))
                .is_none()
        );
    }
}
