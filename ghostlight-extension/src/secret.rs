//! The per-installation secret the host and the server prove to each other.
//!
//! 32 random bytes (from `/dev/urandom`), kept as 64 hex digits in a 0600 file of the user's.
//! The host sends the first half, the server answers the second half; each side compares what
//! it receives in constant time. Together with the peer-uid check on the socket, neither side
//! can be posed as by another user, and a same-user process that does not know the secret
//! (one that cannot read the file) learns at most the host's half from a server it fakes.

use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::Path;

use subtle::ConstantTimeEq;

use crate::endpoint::{EndpointError, check_private};

/// The secret's length in bytes.
const SECRET_LEN: usize = 32;

/// The shared secret. Its `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret([u8; SECRET_LEN]);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(…)")
    }
}

impl Secret {
    /// Read the secret from `path`, which must be this user's regular 0600 file.
    pub fn load(path: &Path) -> Result<Secret, EndpointError> {
        check_private(path, false)?;
        let mut text = String::new();
        std::fs::File::open(path)
            .and_then(|f| f.take(256).read_to_string(&mut text))
            .map_err(|e| EndpointError::io(path, e))?;
        let bytes = from_hex(text.trim()).ok_or_else(|| EndpointError::WrongKind(path.to_path_buf()))?;
        let secret: [u8; SECRET_LEN] =
            bytes.try_into().map_err(|_| EndpointError::WrongKind(path.to_path_buf()))?;
        Ok(Secret(secret))
    }

    /// Read the secret from `path`, creating it (and its 0700 parent directories) with a fresh
    /// random secret when it does not exist.
    pub fn load_or_create(path: &Path) -> Result<Secret, EndpointError> {
        if std::fs::symlink_metadata(path).is_ok() {
            return Secret::load(path);
        }
        if let Some(parent) = path.parent() {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(parent)
                .map_err(|e| EndpointError::io(parent, e))?;
        }
        let mut bytes = [0_u8; SECRET_LEN];
        std::fs::File::open("/dev/urandom")
            .and_then(|mut f| f.read_exact(&mut bytes))
            .map_err(|e| EndpointError::io(Path::new("/dev/urandom"), e))?;
        let created = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path);
        match created {
            Ok(mut file) => {
                file.write_all(to_hex(&bytes).as_bytes()).map_err(|e| EndpointError::io(path, e))?;
                Ok(Secret(bytes))
            }
            // Another process created it meanwhile: theirs wins.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Secret::load(path),
            Err(e) => Err(EndpointError::io(path, e)),
        }
    }

    /// The host's half of the proof (hex).
    pub fn host_proof(&self) -> String {
        to_hex(&self.0[..SECRET_LEN / 2])
    }

    /// The server's half of the proof (hex).
    pub fn server_proof(&self) -> String {
        to_hex(&self.0[SECRET_LEN / 2..])
    }

    /// Whether `proof` is the host's half (constant time in its content).
    pub fn is_host_proof(&self, proof: &str) -> bool {
        constant_time_eq(proof.as_bytes(), self.host_proof().as_bytes())
    }

    /// Whether `proof` is the server's half (constant time in its content).
    pub fn is_server_proof(&self, proof: &str) -> bool {
        constant_time_eq(proof.as_bytes(), self.server_proof().as_bytes())
    }
}

/// Equal bytes, compared in constant time in their content (the length is not secret: both
/// halves have a fixed length).
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    bool::from(a.ct_eq(b))
}

fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn from_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.is_ascii() {
        return None;
    }
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok()).collect()
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn created_once_0600_then_loaded() {
        let root = tempfile::tempdir().expect("a temp dir");
        let path = root.path().join("conf/ghostlight/native-host.secret");
        let made = Secret::load_or_create(&path).expect("created");
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(Secret::load(&path).expect("loaded"), made);
        assert_eq!(Secret::load_or_create(&path).expect("kept"), made);
        assert!(made.is_host_proof(&made.host_proof()));
        assert!(made.is_server_proof(&made.server_proof()));
        assert!(!made.is_host_proof(&made.server_proof()));
        assert!(!made.is_server_proof(""));
        assert_eq!(format!("{made:?}"), "Secret(…)");
    }

    #[test]
    fn a_readable_or_malformed_file_is_refused() {
        let root = tempfile::tempdir().expect("a temp dir");
        let path = root.path().join("secret");
        Secret::load_or_create(&path).expect("created");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        assert!(matches!(Secret::load(&path), Err(EndpointError::NotPrivate { .. })));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        std::fs::write(&path, "not hex").expect("write");
        assert!(matches!(Secret::load(&path), Err(EndpointError::WrongKind(_))));
    }

    #[test]
    fn hex_round_trips() {
        assert_eq!(from_hex(&to_hex(&[0, 1, 254, 255])), Some(vec![0, 1, 254, 255]));
        assert_eq!(from_hex("abc"), None);
        assert_eq!(from_hex("zz"), None);
        assert_eq!(from_hex("éé"), None);
    }
}
