//! Audit records as JSON lines ([`JsonLinesAudit`]): one [`AuditRecord::to_json`] object per
//! line, on standard error or appended to a file (`[audit] destination`).

use std::fs::OpenOptions;
use std::io::Write;
use std::sync::{Arc, Mutex};

use ghostlight_core::DiscardAudit;
use ghostlight_core::{AuditRecord, AuditSink};

use crate::error::ConfigError;
use crate::options::AuditOptions;

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

/// The permissions of the audit file: the user's alone (records name hosts and times).
const AUDIT_FILE_MODE: u32 = 0o600;

/// The sink `options` ask for. A file is created when missing (mode 0600 whatever the umask;
/// an existing one is narrowed to 0600) and appended to.
pub fn sink(options: &AuditOptions) -> Result<Arc<dyn AuditSink>, ConfigError> {
    Ok(match options {
        AuditOptions::Off => Arc::new(DiscardAudit),
        AuditOptions::Stderr => Arc::new(JsonLinesAudit::new(Box::new(std::io::stderr()))),
        AuditOptions::File(path) => {
            use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
            let cannot = |error: std::io::Error| {
                ConfigError::Audit(format!("cannot open {}: {error}", path.display()))
            };
            let file = OpenOptions::new()
                .create(true)
                .append(true)
                .mode(AUDIT_FILE_MODE)
                .open(path)
                .map_err(cannot)?;
            // `mode` is filtered by the umask on creation, and ignored for an existing file.
            file.set_permissions(std::fs::Permissions::from_mode(AUDIT_FILE_MODE)).map_err(cannot)?;
            Arc::new(JsonLinesAudit::new(Box::new(file)))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_destination_is_created_and_appended() {
        let dir = std::env::temp_dir().join(format!("ghostlight-audit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        let path = dir.join("audit.jsonl");
        let _ = std::fs::remove_file(&path);
        assert!(sink(&AuditOptions::File(path.clone())).is_ok());
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &std::path::Path| std::fs::metadata(p).map(|m| m.permissions().mode() & 0o777).ok();
        assert_eq!(mode(&path), Some(0o600), "created for the user alone");
        // An existing, wider file is narrowed.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644))
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(sink(&AuditOptions::File(path.clone())).is_ok());
        assert_eq!(mode(&path), Some(0o600));
        assert!(sink(&AuditOptions::File(dir.join("missing/dir/audit.jsonl"))).is_err());
    }
}
