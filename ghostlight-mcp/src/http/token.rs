//! Bearer tokens: what the HTTP transport accepts as a client's secret.

use std::collections::BTreeSet;

/// The shortest bearer token accepted.
pub const TOKEN_MIN_CHARS: usize = 16;
/// The fewest distinct characters a bearer token may have.
pub const TOKEN_MIN_DISTINCT: usize = 8;
/// The least guessing work a bearer token must take, in bits, estimated as its length times
/// log2 of its distinct characters (a random hex token of 32 characters has about 128).
pub const TOKEN_MIN_BITS: f64 = 64.0;
/// How to make a good token, for error messages and the docs.
pub const TOKEN_ADVICE: &str = "make one with `openssl rand -hex 32`";

/// Why a bearer token is refused (the token itself is never repeated).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TokenError {
    /// Fewer than [`TOKEN_MIN_CHARS`] characters.
    #[error("the HTTP bearer token must be at least {} characters ({})", TOKEN_MIN_CHARS, TOKEN_ADVICE)]
    TooShort,
    /// A space, a control character or a character outside ASCII.
    #[error("the HTTP bearer token must be visible ASCII characters without spaces")]
    NotVisibleAscii,
    /// Too few distinct characters, or too little estimated guessing work.
    #[error(
        "the HTTP bearer token is too easy to guess: {distinct} distinct characters in {length} \
         (at least {} distinct and about {} bits of randomness are needed; {})",
        TOKEN_MIN_DISTINCT,
        TOKEN_MIN_BITS,
        TOKEN_ADVICE
    )]
    Guessable {
        /// Its distinct characters.
        distinct: usize,
        /// Its length.
        length: usize,
    },
}

/// An operator-supplied bearer token (never printed by `Debug`).
#[derive(Clone, PartialEq, Eq)]
pub struct BearerToken(String);

impl BearerToken {
    /// Check a token: at least [`TOKEN_MIN_CHARS`] visible ASCII characters, no spaces, at
    /// least [`TOKEN_MIN_DISTINCT`] distinct ones and [`TOKEN_MIN_BITS`] of estimated
    /// guessing work (`aaaaaaaaaaaaaaaa` is 16 characters and no secret).
    pub fn new(token: &str) -> Result<BearerToken, TokenError> {
        let length = token.chars().count();
        if length < TOKEN_MIN_CHARS {
            return Err(TokenError::TooShort);
        }
        if !token.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(TokenError::NotVisibleAscii);
        }
        let distinct = token.bytes().collect::<BTreeSet<u8>>().len();
        let bits = length as f64 * (distinct as f64).log2();
        if distinct < TOKEN_MIN_DISTINCT || bits < TOKEN_MIN_BITS {
            return Err(TokenError::Guessable { distinct, length });
        }
        Ok(BearerToken(token.to_owned()))
    }

    /// The token.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BearerToken(..)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weak_tokens_are_refused_with_the_reason() {
        for weak in ["aaaaaaaaaaaaaaaa", "abababababababababababab", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"] {
            let error = BearerToken::new(weak).expect_err(weak).to_string();
            assert!(error.contains("too easy to guess") && error.contains("openssl rand"), "{error}");
        }
        assert_eq!(BearerToken::new("short"), Err(TokenError::TooShort));
        assert_eq!(BearerToken::new("with a space 0123456789"), Err(TokenError::NotVisibleAscii));
        assert!(BearerToken::new("sixteen chars ok").is_err());
        for good in ["0123456789abcdef", "3f9c2a7be41d08c56a7f1e2d3c4b5a69"] {
            assert!(BearerToken::new(good).is_ok(), "{good}");
        }
        let token = BearerToken::new("0123456789abcdef").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(format!("{token:?}"), "BearerToken(..)");
    }

    #[test]
    fn messages_are_the_documented_ones() {
        assert_eq!(
            TokenError::TooShort.to_string(),
            "the HTTP bearer token must be at least 16 characters (make one with `openssl rand -hex 32`)"
        );
        assert_eq!(
            TokenError::Guessable { distinct: 1, length: 16 }.to_string(),
            "the HTTP bearer token is too easy to guess: 1 distinct characters in 16 (at least 8 distinct \
             and about 64 bits of randomness are needed; make one with `openssl rand -hex 32`)"
        );
    }
}
