//! Gate kinds: what stands between the model and the content a page was asked for.

use super::wire::wire_choice;

wire_choice! {
    /// The kind of gate a loaded page presents instead of its content (advisory: it changes
    /// what Ghostlight says, never what is authorized).
    pub enum GateKind {
        /// A sign-in wall: the content needs an account.
        Login => "login",
        /// A consent interstitial covering the page (cookies, terms, age).
        Consent => "consent",
        /// A human-verification challenge (a CAPTCHA, a browser check).
        Challenge => "challenge",
        /// A rate limit: the site refuses more requests for now.
        RateLimit => "rate_limit",
    }
}

impl GateKind {
    /// The kind a page script's token names ([`GateKind::as_str`]); `None` for any other.
    pub fn from_token(token: &str) -> Option<GateKind> {
        <GateKind as super::WireChoice>::from_wire(token)
    }
}
