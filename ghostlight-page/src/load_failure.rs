//! A browser's load-failure code as core's closed [`NetworkError`] category, shared by every
//! adapter: Chromium's `ERR_…` names (`net::ERR_…` from its extension and DevTools APIs, and
//! on its certificate interstitial), Firefox's `about:neterror` codes (`certerror:…` for its
//! certificate page) and its `NS_ERROR_…` names (its extension APIs).

use ghostlight_core::port::{NetworkError, NetworkFailure};

/// The failure a browser's `code` names; the code is kept without a `net::` or `certerror:`
/// prefix.
pub fn network_failure(code: &str) -> NetworkFailure {
    let code = code.strip_prefix("net::").unwrap_or(code);
    let (certificate, code) = match code.strip_prefix("certerror:") {
        Some(rest) => (true, rest),
        None => (false, code),
    };
    let error = match code {
        _ if certificate => NetworkError::Tls,
        _ if code.starts_with("ERR_CERT_") || code.starts_with("ERR_SSL_") => NetworkError::Tls,
        _ if code.starts_with("SEC_ERROR_") || code.starts_with("SSL_ERROR_") => NetworkError::Tls,
        "nssFailure2" | "nssBadCert" | "sslv3Used" | "inadequateSecurityError" => NetworkError::Tls,
        "ERR_NAME_NOT_RESOLVED" | "ERR_NAME_RESOLUTION_FAILED" | "dnsNotFound" | "NS_ERROR_UNKNOWN_HOST" => {
            NetworkError::NameNotResolved
        }
        "ERR_CONNECTION_REFUSED"
        | "ERR_ADDRESS_UNREACHABLE"
        | "ERR_CONNECTION_FAILED"
        | "connectionFailure"
        | "NS_ERROR_CONNECTION_REFUSED" => NetworkError::ConnectionRefused,
        "ERR_CONNECTION_RESET"
        | "ERR_CONNECTION_CLOSED"
        | "ERR_CONNECTION_ABORTED"
        | "ERR_EMPTY_RESPONSE"
        | "netReset"
        | "netInterrupt"
        | "NS_ERROR_NET_RESET"
        | "NS_ERROR_NET_INTERRUPT" => NetworkError::ConnectionReset,
        "ERR_CONNECTION_TIMED_OUT" | "ERR_TIMED_OUT" | "netTimeout" | "NS_ERROR_NET_TIMEOUT" => {
            NetworkError::TimedOut
        }
        "ERR_UNSAFE_PORT" | "deniedPortAccess" | "NS_ERROR_PORT_ACCESS_NOT_ALLOWED" => {
            NetworkError::PortBlocked
        }
        "ERR_INTERNET_DISCONNECTED" | "netOffline" | "NS_ERROR_OFFLINE" => NetworkError::Offline,
        "ERR_BLOCKED_BY_CLIENT"
        | "ERR_BLOCKED_BY_ADMINISTRATOR"
        | "ERR_BLOCKED_BY_RESPONSE"
        | "blockedByPolicy" => NetworkError::Blocked,
        _ => NetworkError::Other,
    };
    NetworkFailure { error, browser_code: code.to_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_failure_codes_map_to_closed_categories() {
        let cases = [
            ("ERR_NAME_NOT_RESOLVED", NetworkError::NameNotResolved),
            ("dnsNotFound", NetworkError::NameNotResolved),
            ("NS_ERROR_UNKNOWN_HOST", NetworkError::NameNotResolved),
            ("ERR_CONNECTION_REFUSED", NetworkError::ConnectionRefused),
            ("net::ERR_CONNECTION_REFUSED", NetworkError::ConnectionRefused),
            ("connectionFailure", NetworkError::ConnectionRefused),
            ("NS_ERROR_CONNECTION_REFUSED", NetworkError::ConnectionRefused),
            ("ERR_CONNECTION_RESET", NetworkError::ConnectionReset),
            ("NS_ERROR_NET_RESET", NetworkError::ConnectionReset),
            ("netTimeout", NetworkError::TimedOut),
            ("ERR_CERT_AUTHORITY_INVALID", NetworkError::Tls),
            ("net::ERR_CERT_AUTHORITY_INVALID", NetworkError::Tls),
            ("certerror:SEC_ERROR_UNKNOWN_ISSUER", NetworkError::Tls),
            ("SEC_ERROR_UNKNOWN_ISSUER", NetworkError::Tls),
            ("ERR_UNSAFE_PORT", NetworkError::PortBlocked),
            ("deniedPortAccess", NetworkError::PortBlocked),
            ("NS_ERROR_PORT_ACCESS_NOT_ALLOWED", NetworkError::PortBlocked),
            ("netOffline", NetworkError::Offline),
            ("ERR_BLOCKED_BY_CLIENT", NetworkError::Blocked),
            ("ERR_SOMETHING_NEW", NetworkError::Other),
        ];
        for (code, error) in cases {
            assert_eq!(network_failure(code).error, error, "{code}");
        }
        let certificate = network_failure("certerror:SEC_ERROR_UNKNOWN_ISSUER");
        assert_eq!(certificate.browser_code, "SEC_ERROR_UNKNOWN_ISSUER");
        let prefixed = network_failure("net::ERR_CERT_DATE_INVALID");
        assert_eq!(prefixed.browser_code, "ERR_CERT_DATE_INVALID");
    }
}
