//! Who the extension is, to each browser, and the native host's registered name.

/// The extension's Chromium id, fixed by the manifest's `key`.
pub const CHROMIUM_EXTENSION_ID: &str = "mlepgpjphaphagbnegjjbebkfibeeoaa";

/// The origin Chromium gives the host as its first argument (and the one `allowed_origins`
/// must name exactly, trailing slash included).
pub const CHROMIUM_ORIGIN: &str = "chrome-extension://mlepgpjphaphagbnegjjbebkfibeeoaa/";

/// The extension's Firefox add-on id (`browser_specific_settings.gecko.id`).
pub const GECKO_ID: &str = "connector@ghostlight";

/// The native host's registered name (its manifest is `ghostlight.native_host.json`).
pub const NATIVE_HOST_NAME: &str = "ghostlight.native_host";

/// The caller the browser names on the host's command line, when it is this extension:
/// Chromium passes the origin first; Firefox passes the host manifest's path, then the add-on
/// id.
pub fn caller(args: &[String]) -> Option<&'static str> {
    let named =
        |arg: Option<&String>, expected: &'static str| arg.filter(|a| *a == expected).map(|_| expected);
    named(args.get(1), CHROMIUM_ORIGIN).or_else(|| named(args.get(2), GECKO_ID))
}

/// Whether `origin` (as a host reports it) is this extension.
pub fn is_ours(origin: &str) -> bool {
    origin == CHROMIUM_ORIGIN || origin == GECKO_ID
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn only_this_extension_is_a_caller() {
        assert_eq!(caller(&args(&["host", CHROMIUM_ORIGIN])), Some(CHROMIUM_ORIGIN));
        assert_eq!(caller(&args(&["host", "/home/u/.mozilla/x.json", GECKO_ID])), Some(GECKO_ID));
        assert_eq!(caller(&args(&["host", "chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/"])), None);
        assert_eq!(caller(&args(&["host", "/x.json", "other@addon"])), None);
        assert_eq!(caller(&args(&["host"])), None);
        assert!(is_ours(GECKO_ID) && !is_ours("evil@addon"));
    }
}
