//! Audit records as JSON lines ([`JsonLinesAudit`]): one [`AuditRecord::to_json`] object per
//! line, on standard error or appended to a file (`[audit] destination`).

use std::io::Write;
use std::sync::{Arc, Mutex};

use ghostlight_core::DiscardAudit;
use ghostlight_core::{AuditRecord, AuditSink};

use crate::error::ConfigError;
use crate::options::AuditOptions;
use crate::private_file;

/// An [`AuditSink`] writing one JSON object per line. A write that fails is reported once on
/// standard error and the record dropped: auditing never fails an invocation.
pub struct JsonLinesAudit {
    out: Mutex<Box<dyn Write + Send>>,
}

impl std::fmt::Debug for JsonLinesAudit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonLinesAudit").finish_non_exhaustive()
    }
}

impl JsonLinesAudit {
    /// Records written to `out`.
    pub fn new(out: Box<dyn Write + Send>) -> JsonLinesAudit {
        JsonLinesAudit { out: Mutex::new(out) }
    }
}

impl AuditSink for JsonLinesAudit {
    fn record(&self, record: &AuditRecord) {
        let line = record.to_json().to_string();
        let Ok(mut out) = self.out.lock() else { return };
        if let Err(error) = writeln!(out, "{line}").and_then(|()| out.flush()) {
            tracing::warn!(%error, "an audit record could not be written");
        }
    }
}

/// The sink `options` ask for. A file is opened as [`private_file::append`] does: created
/// `0600` when missing, appended to, and refused (never followed, never `chmod`-ed) when it is
/// a link, not a regular file, another user's, or open to others.
pub fn sink(options: &AuditOptions) -> Result<Arc<dyn AuditSink>, ConfigError> {
    Ok(match options {
        AuditOptions::Off => Arc::new(DiscardAudit),
        AuditOptions::Stderr => Arc::new(JsonLinesAudit::new(Box::new(std::io::stderr()))),
        AuditOptions::File(path) => {
            let file = private_file::append(path).map_err(|e| ConfigError::Audit(e.to_string()))?;
            Arc::new(JsonLinesAudit::new(Box::new(file)))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_destination_is_created_and_appended_and_a_wider_one_refused() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("audit.jsonl");
        assert!(sink(&AuditOptions::File(path.clone())).is_ok());
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &std::path::Path| std::fs::metadata(p).map(|m| m.permissions().mode() & 0o777).ok();
        assert_eq!(mode(&path), Some(0o600), "created for the user alone");
        // An existing, wider file is refused, never narrowed behind the person's back.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644))
            .unwrap_or_else(|e| panic!("{e}"));
        let refused =
            sink(&AuditOptions::File(path.clone())).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(refused.contains("chmod 600"), "{refused}");
        assert_eq!(mode(&path), Some(0o644));
        assert!(sink(&AuditOptions::File(dir.path().join("missing/dir/audit.jsonl"))).is_err());
    }
}
