//! Credential classes: the fields Ghostlight never types into and hands to the person.

/// The class of a credential target the browser reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CredentialClass {
    /// A password field.
    Password,
    /// A one-time-code field.
    OneTimeCode,
    /// A payment card field (number, security code, expiry).
    PaymentCard,
}

impl CredentialClass {
    /// The fact value: `password`, `one_time_code`, `payment_card`.
    pub const fn as_str(self) -> &'static str {
        match self {
            CredentialClass::Password => "password",
            CredentialClass::OneTimeCode => "one_time_code",
            CredentialClass::PaymentCard => "payment_card",
        }
    }

    /// The class a fact value ([`CredentialClass::as_str`]) names, as page scripts report it.
    pub fn from_token(token: &str) -> Option<CredentialClass> {
        [CredentialClass::Password, CredentialClass::OneTimeCode, CredentialClass::PaymentCard]
            .into_iter()
            .find(|class| class.as_str() == token)
    }

    /// The noun in sentences.
    pub const fn noun(self) -> &'static str {
        match self {
            CredentialClass::Password => "password field",
            CredentialClass::OneTimeCode => "one-time-code field",
            CredentialClass::PaymentCard => "payment card field",
        }
    }
}
