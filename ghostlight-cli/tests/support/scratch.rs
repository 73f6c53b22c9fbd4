//! A test's private directory, removed when the test is done with it (also when it fails).

use std::ffi::OsStr;
use std::ops::Deref;
use std::path::Path;

/// A fresh directory under the system's temporary directory, named after the test that made
/// it; removed with everything in it on drop. Derefs to its path.
pub(crate) struct Scratch(tempfile::TempDir);

impl Scratch {
    /// A new empty directory whose name starts with `ghostlight-<name>-`.
    pub(crate) fn new(name: &str) -> Scratch {
        let dir = tempfile::Builder::new()
            .prefix(&format!("ghostlight-{name}-"))
            .tempdir()
            .unwrap_or_else(|e| panic!("a scratch directory for {name}: {e}"));
        Scratch(dir)
    }
}

impl Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<OsStr> for Scratch {
    fn as_ref(&self) -> &OsStr {
        self.0.path().as_os_str()
    }
}
