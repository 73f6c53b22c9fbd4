//! Governed URLs: the only form in which a page's URL appears in facts and summaries.
//!
//! * Userinfo never appears.
//! * Inside the invocation's authority, the full URL (path, query and fragment included).
//! * Outside it, only `scheme://host[:port]`, so nothing of the path, query or fragment of a
//!   page Ghostlight was not allowed to be on is revealed.
//! * At most [`FACT_URL_CHARS`] characters: a longer one is cut and ends with
//!   [`URL_CUT_MARKER`] (the scheme, host and port always stay whole).
//! * A URL without a web site is reduced to its scheme (`file:`, `data:`); `about:blank`, an
//!   empty page, is shown as is and counts as inside.
//!
//! A committed landing (after a click, a redirect, a script) is checked the same way: when
//! [`GovernedUrl::is_inside`] is false the executor reports the landing as outside authority,
//! and further tab-bound work there is blocked by authorization until the tab is navigated
//! back inside.

use std::fmt;

use serde::{Serialize, Serializer};
use url::Url;

use crate::limits::{FACT_URL_CHARS, URL_CUT_MARKER};

use super::host::Site;
use super::snapshot::AuthoritySnapshot;

/// A URL projected for presentation under one snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GovernedUrl {
    text: String,
    site: Option<Site>,
    inside: bool,
}

impl GovernedUrl {
    /// The projected text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The page's site, for a web URL (its `Display` is the host as sentences name it).
    pub fn site(&self) -> Option<&Site> {
        self.site.as_ref()
    }

    /// Whether the page is inside the invocation's authority.
    pub fn is_inside(&self) -> bool {
        self.inside
    }
}

impl fmt::Display for GovernedUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Serialize for GovernedUrl {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

/// Project `url` under `snapshot` (see the module documentation).
pub(super) fn govern(snapshot: &AuthoritySnapshot, url: &Url) -> GovernedUrl {
    let Some(site) = Site::from_url(url) else {
        let blank = url.as_str() == "about:blank";
        let text = if blank { url.as_str().to_owned() } else { format!("{}:", url.scheme()) };
        return GovernedUrl { text, site: None, inside: blank };
    };
    if snapshot.allows_site(&site) {
        let mut clean = url.clone();
        // Web URLs always accept these; a failure would leave userinfo, so fall back to the
        // origin-only form rather than show it.
        if clean.set_username("").is_ok() && clean.set_password(None).is_ok() {
            return GovernedUrl { text: bounded(clean.into()), site: Some(site), inside: true };
        }
    }
    let text = format!("{}://{site}", url.scheme());
    let inside = snapshot.allows_site(&site);
    GovernedUrl { text, site: Some(site), inside }
}

/// `text` cut to [`FACT_URL_CHARS`] characters, the last of them [`URL_CUT_MARKER`].
fn bounded(text: String) -> String {
    match text.char_indices().nth(FACT_URL_CHARS - 1) {
        Some((cut, _)) if text.chars().count() > FACT_URL_CHARS => {
            let mut short = text[..cut].to_owned();
            short.push(URL_CUT_MARKER);
            short
        }
        _ => text,
    }
}

impl AuthoritySnapshot {
    /// `govern` under this snapshot.
    pub fn govern(&self, url: &Url) -> GovernedUrl {
        govern(self, url)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::authority::Restrictions;
    use crate::authority::host::HostPattern;
    use crate::authority::layers::CompiledAuthority;

    fn governed(restrict: Option<&[&str]>, url: &str) -> (String, bool) {
        let hosts = restrict.map(|list| {
            list.iter().map(|p| HostPattern::parse(p).unwrap_or_else(|e| panic!("{p}: {e}"))).collect()
        });
        let snapshot = CompiledAuthority::default().snapshot(&Restrictions { hosts, capabilities: None });
        let parsed = Url::parse(url).unwrap_or_else(|e| panic!("{url}: {e}"));
        let governed = snapshot.govern(&parsed);
        (governed.to_string(), governed.is_inside())
    }

    #[test]
    fn inside_the_full_url_without_userinfo() {
        assert_eq!(
            governed(None, "https://ada:pw@example.com/a/b?q=1#frag"),
            ("https://example.com/a/b?q=1#frag".into(), true)
        );
        assert_eq!(
            governed(Some(&["example.com"]), "https://EXAMPLE.com:8443/x"),
            ("https://example.com:8443/x".into(), true)
        );
    }

    #[test]
    fn outside_only_scheme_host_and_port() {
        let only = Some(&["example.com"][..]);
        assert_eq!(
            governed(only, "https://evil.example/secret?token=1#x"),
            ("https://evil.example".into(), false)
        );
        assert_eq!(
            governed(only, "https://example.com@evil.example:8443/p"),
            ("https://evil.example:8443".into(), false)
        );
        assert_eq!(governed(only, "http://evil.example:80/p"), ("http://evil.example".into(), false));
        assert_eq!(governed(only, "http://[::1]:3000/admin"), ("http://[::1]:3000".into(), false));
        assert_eq!(
            governed(only, "https://xn--bcher-kva.example./p"),
            ("https://xn--bcher-kva.example".into(), false)
        );
    }

    #[test]
    fn a_long_url_is_cut_with_a_marker_and_its_host_whole() {
        let long = format!("https://example.com:8443/p?q={}", "x".repeat(2_000_000));
        let (text, inside) = governed(None, &long);
        assert!(inside);
        assert_eq!(text.chars().count(), FACT_URL_CHARS);
        assert!(text.starts_with("https://example.com:8443/p?q=xxx"), "{}", &text[..40]);
        assert!(text.ends_with(URL_CUT_MARKER));
        let exact =
            format!("https://example.com/{}", "y".repeat(FACT_URL_CHARS - "https://example.com/".len()));
        assert_eq!(governed(None, &exact).0, exact, "a URL at the bound is whole");
        let outside =
            governed(Some(&["example.com"]), &format!("https://evil.example/{}", "z".repeat(10_000)));
        assert_eq!(outside, ("https://evil.example".into(), false));
    }

    #[test]
    fn non_web_urls_reduce_to_their_scheme() {
        assert_eq!(governed(None, "about:blank"), ("about:blank".into(), true));
        assert_eq!(governed(None, "file:///home/ada/secret.txt"), ("file:".into(), false));
        assert_eq!(governed(None, "data:text/html,<b>secret</b>"), ("data:".into(), false));
        assert_eq!(governed(None, "chrome://settings/passwords"), ("chrome:".into(), false));
    }
}
