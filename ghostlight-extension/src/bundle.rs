//! The extension's files, built into the binary: those of the repository's `extension/` folder
//! (one source; the crate reaches it through its `extension` link, so a packaged crate carries
//! the files) and the page API, `page/dom.js`, composed from the page scripts of
//! `ghostlight-page` ([`ghostlight_page::bundle`]; it is in no folder of the repository); and
//! placing them in a folder a person loads the extension from.

use std::path::Path;
use std::sync::LazyLock;

use ghostlight_page::bundle::{PAGE_API_PATH, page_api};

use crate::registration::RegistrationError;

/// The files of the repository's `extension/` folder.
const FOLDER_FILES: [(&str, &[u8]); 10] = [
    ("manifest.json", include_bytes!("../extension/manifest.json")),
    ("background.js", include_bytes!("../extension/background.js")),
    ("diagnostics.js", include_bytes!("../extension/diagnostics.js")),
    ("network.js", include_bytes!("../extension/network.js")),
    ("recording.js", include_bytes!("../extension/recording.js")),
    ("replay.html", include_bytes!("../extension/replay.html")),
    ("replay.js", include_bytes!("../extension/replay.js")),
    ("popup.html", include_bytes!("../extension/popup.html")),
    ("popup.js", include_bytes!("../extension/popup.js")),
    ("popup.css", include_bytes!("../extension/popup.css")),
];

/// The page API's text, composed once.
static PAGE_API: LazyLock<String> = LazyLock::new(page_api);

/// The whole bundle, composed once.
static FILES: LazyLock<Vec<(&'static str, &'static [u8])>> = LazyLock::new(|| {
    let mut files = FOLDER_FILES.to_vec();
    files.push((PAGE_API_PATH, PAGE_API.as_bytes()));
    files
});

/// Every file of the extension a browser loads: its name and content.
pub fn files() -> &'static [(&'static str, &'static [u8])] {
    &FILES
}

/// The files of the bundle missing from `dir` or different there.
pub fn differing(dir: &Path) -> Vec<&'static str> {
    files()
        .iter()
        .filter(|(name, content)| std::fs::read(dir.join(name)).map_or(true, |found| found != *content))
        .map(|(name, _)| *name)
        .collect()
}

/// Write the files of the bundle that are missing from `dir` or different there (the folder
/// created when missing); the names written.
pub fn place(dir: &Path) -> Result<Vec<&'static str>, RegistrationError> {
    let stale = differing(dir);
    if stale.is_empty() {
        return Ok(stale);
    }
    std::fs::create_dir_all(dir)
        .map_err(|source| RegistrationError::Io { path: dir.to_path_buf(), source })?;
    for (name, content) in files().iter().filter(|(name, _)| stale.contains(name)) {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|source| RegistrationError::Io { path: parent.to_path_buf(), source })?;
        }
        std::fs::write(&path, content).map_err(|source| RegistrationError::Io { path, source })?;
    }
    Ok(stale)
}

/// Remove the bundle's files from `dir`, and `dir` itself when that leaves it empty; whether
/// anything was removed.
pub fn remove(dir: &Path) -> Result<bool, RegistrationError> {
    let mut removed = false;
    for (name, _) in files() {
        let path = dir.join(name);
        match std::fs::remove_file(&path) {
            Ok(()) => removed = true,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => return Err(RegistrationError::Io { path, source }),
        }
    }
    // Only empty folders go (anything a person put there stays).
    for (name, _) in files() {
        if let Some(parent) = Path::new(name).parent().filter(|p| !p.as_os_str().is_empty()) {
            let _ = std::fs::remove_dir(dir.join(parent));
        }
    }
    let _ = std::fs::remove_dir(dir);
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundle_holds_every_file_of_the_extension_folder() {
        let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("extension");
        let mut on_disk = Vec::new();
        let mut folders = vec![folder.clone()];
        while let Some(current) = folders.pop() {
            for entry in std::fs::read_dir(&current).expect("the extension folder").flatten() {
                let path = entry.path();
                if path.is_dir() {
                    folders.push(path);
                } else if let Ok(name) = path.strip_prefix(&folder) {
                    on_disk.push(name.to_string_lossy().into_owned());
                }
            }
        }
        on_disk.retain(|name| name != "README.md");
        // The page API is composed, never a file of the folder.
        assert!(!on_disk.iter().any(|name| name == PAGE_API_PATH), "{PAGE_API_PATH} is composed: remove it");
        on_disk.push(PAGE_API_PATH.to_owned());
        on_disk.sort();
        let mut bundled: Vec<String> = files().iter().map(|(name, _)| (*name).to_owned()).collect();
        bundled.sort();
        assert_eq!(bundled, on_disk, "add the new file to bundle::FOLDER_FILES");
    }

    #[test]
    fn placing_is_idempotent_and_removal_keeps_foreign_files() {
        let root = tempfile::tempdir().expect("a temp dir");
        let dir = root.path().join("extension");
        assert_eq!(place(&dir).expect("placed").len(), files().len());
        let api = std::fs::read_to_string(dir.join(PAGE_API_PATH)).expect("the page API");
        assert!(api.contains("Symbol.for('ghostlight.page')"));
        assert!(place(&dir).expect("again").is_empty());
        std::fs::write(dir.join("popup.css"), "changed").expect("write");
        assert_eq!(place(&dir).expect("repaired"), ["popup.css"]);
        std::fs::write(dir.join("notes.txt"), "mine").expect("write");
        assert!(remove(&dir).expect("removed"));
        assert!(dir.join("notes.txt").exists() && !dir.join("manifest.json").exists());
    }
}
