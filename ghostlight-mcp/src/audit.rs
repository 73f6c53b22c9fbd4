//! Audit records as JSON lines ([`JsonLinesAudit`]): one [`AuditRecord::to_json`] object per
//! line, on standard error or appended to a file (`[audit] destination`).

use std::fs::OpenOptions;
use std::io::Write;
use std::sync::{Arc, Mutex};

use ghostlight_core::executor::DiscardAudit;
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

/// The sink `options` ask for. A file is created when missing and appended to.
pub fn sink(options: &AuditOptions) -> Result<Arc<dyn AuditSink>, ConfigError> {
    Ok(match options {
        AuditOptions::Off => Arc::new(DiscardAudit),
        AuditOptions::Stderr => Arc::new(JsonLinesAudit::new(Box::new(std::io::stderr()))),
        AuditOptions::File(path) => {
            let file =
                OpenOptions::new().create(true).append(true).open(path).map_err(|error| {
                    ConfigError::Audit(format!("cannot open {}: {error}", path.display()))
                })?;
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
        assert!(sink(&AuditOptions::File(path.clone())).is_ok());
        assert!(path.exists());
        assert!(sink(&AuditOptions::File(dir.join("missing/dir/audit.jsonl"))).is_err());
    }
}
