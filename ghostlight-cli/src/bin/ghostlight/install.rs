//! `ghostlight install [--uninstall] [--dry-run]`: register this installation's native host
//! with the browsers found (Chromium, Chrome, Firefox on `PATH`), place the extension's files
//! where a person loads them from, and print how to load it in each browser.
//!
//! Idempotent: a second run changes nothing and says so. A registration of another
//! installation is taken over (that is what running `install` from this one asks for);
//! `--uninstall` removes only what this installation owns.

#[cfg(feature = "extension")]
use std::io::Write as _;
use std::process::ExitCode;

use crate::error::CliError;

/// Run `install` (or `--uninstall`); with `dry_run`, say what would change and change nothing.
pub(crate) fn run(uninstall: bool, dry_run: bool) -> Result<ExitCode, CliError> {
    #[cfg(feature = "extension")]
    {
        let context = Context::from_env()?;
        if uninstall { context.uninstall(dry_run) } else { context.install(dry_run) }
    }
    #[cfg(not(feature = "extension"))]
    {
        let _ = (uninstall, dry_run);
        Err(CliError::Usage(crate::error::EXTENSION_UNAVAILABLE.to_owned()))
    }
}

#[cfg(feature = "extension")]
use ghostlight_extension::identity::CHROMIUM_EXTENSION_ID;
#[cfg(feature = "extension")]
use ghostlight_extension::registration::{
    BrowserKind, HOST_BINARY, Installation, Places, RegistrationError, RegistrationState,
};

#[cfg(feature = "extension")]
impl From<RegistrationError> for CliError {
    fn from(error: RegistrationError) -> Self {
        match error {
            RegistrationError::Io { path, source } => CliError::File { path, source },
            other => CliError::Usage(other.to_string()),
        }
    }
}

/// This installation and the user's places.
#[cfg(feature = "extension")]
struct Context {
    installation: Installation,
    places: Places,
}

#[cfg(feature = "extension")]
impl Context {
    fn from_env() -> Result<Context, CliError> {
        let (installation, places) = Installation::current_with_places()?;
        Ok(Context { installation, places })
    }

    fn install(&self, dry_run: bool) -> Result<ExitCode, CliError> {
        let mut out = std::io::stdout().lock();
        let host = self.installation.host();
        if !self.installation.has_host() {
            return Err(CliError::Usage(format!(
                "{HOST_BINARY} is not beside this ghostlight ({} is missing): install both from the same \
                 build (cargo install --path ghostlight-cli && cargo install --path ghostlight-extension)",
                host.display()
            )));
        }
        let browsers = self.places.installed();
        if browsers.is_empty() {
            writeln!(
                out,
                "No supported browser found on PATH (Chromium, Chrome or Firefox); nothing to register."
            )?;
            return Ok(ExitCode::FAILURE);
        }
        let verb = |now: &'static str, later: &'static str| if dry_run { later } else { now };
        let mut changed = false;
        for browser in &browsers {
            let registration = self.installation.inspect(*browser, &self.places);
            let path = registration.path.display();
            let action = match &registration.state {
                RegistrationState::Ours => {
                    writeln!(out, "{:<9} already installed: {path}", browser.name())?;
                    continue;
                }
                RegistrationState::Missing => verb("registered", "would register").to_owned(),
                RegistrationState::Stale => verb("repaired", "would repair").to_owned(),
                RegistrationState::Unusable { why } => {
                    format!(
                        "{} ({why})",
                        verb("replaced an unusable registration", "would replace an unusable registration")
                    )
                }
                RegistrationState::Elsewhere { host } => format!(
                    "{} {}",
                    verb(
                        "took over from another installation:",
                        "would take over from another installation:"
                    ),
                    host.display()
                ),
            };
            changed = true;
            writeln!(out, "{:<9} {action}: {path}", browser.name())?;
            if dry_run {
                for line in self.installation.manifest_text(*browser).lines() {
                    writeln!(out, "          | {line}")?;
                }
            } else {
                self.installation.register(*browser, &self.places)?;
            }
        }
        let dir = self.places.extension_dir();
        let stale = ghostlight_extension::bundle::differing(&dir);
        if stale.is_empty() {
            writeln!(out, "extension already in place: {}", dir.display())?;
        } else {
            changed = true;
            writeln!(
                out,
                "extension {}: {} ({})",
                verb("placed", "would place"),
                dir.display(),
                stale.join(", ")
            )?;
            if !dry_run {
                ghostlight_extension::bundle::place(&dir)?;
            }
        }
        if !changed {
            writeln!(out, "Already installed; nothing changed.")?;
        } else if dry_run {
            writeln!(out, "Dry run: nothing was written.")?;
        }
        writeln!(out)?;
        self.print_steps(&mut out, &browsers)?;
        Ok(ExitCode::SUCCESS)
    }

    fn print_steps(&self, out: &mut impl std::io::Write, browsers: &[BrowserKind]) -> std::io::Result<()> {
        let dir = self.places.extension_dir();
        writeln!(out, "Load the extension (once per browser profile):")?;
        for browser in browsers {
            match browser {
                BrowserKind::Chromium | BrowserKind::Chrome => writeln!(
                    out,
                    "  {}: open chrome://extensions, turn on Developer mode, choose \"Load unpacked\" and select {}; \
                     the id shown must be {CHROMIUM_EXTENSION_ID}. After `ghostlight install` updates the files, \
                     press the extension's reload button.",
                    browser.name(),
                    dir.display()
                )?,
                BrowserKind::Firefox => writeln!(
                    out,
                    "  Firefox: open about:debugging#/runtime/this-firefox, choose \"Load Temporary Add-on…\" and \
                     select {}; Firefox forgets it when it restarts, so load it again after each restart.",
                    dir.join("manifest.json").display()
                )?,
            }
        }
        writeln!(
            out,
            "Then serve with `ghostlight mcp --connector extension` (or set connector = \"extension\" under \
             [browser] in the configuration file) and keep the browser open; the toolbar button pauses or \
             disconnects Ghostlight."
        )
    }

    fn uninstall(&self, dry_run: bool) -> Result<ExitCode, CliError> {
        let mut out = std::io::stdout().lock();
        let mut changed = false;
        let mut foreign = false;
        for browser in BrowserKind::ALL {
            let registration = self.installation.inspect(browser, &self.places);
            let path = registration.path.display();
            match &registration.state {
                RegistrationState::Ours | RegistrationState::Stale => {
                    changed = true;
                    let verb = if dry_run { "would remove" } else { "removed" };
                    writeln!(out, "{:<9} {verb}: {path}", browser.name())?;
                    if !dry_run {
                        self.installation.unregister(browser, &self.places)?;
                    }
                }
                RegistrationState::Elsewhere { host } => {
                    foreign = true;
                    writeln!(
                        out,
                        "{:<9} left alone: owned by another installation ({}): {path}",
                        browser.name(),
                        host.display()
                    )?;
                }
                RegistrationState::Unusable { why } => {
                    writeln!(
                        out,
                        "{:<9} left alone: not this installation's ({why}): {path}",
                        browser.name()
                    )?;
                }
                RegistrationState::Missing => {}
            }
        }
        let dir = self.places.extension_dir();
        let present = ghostlight_extension::bundle::files().iter().any(|(name, _)| dir.join(name).exists());
        if present && foreign {
            writeln!(out, "extension left in place (another installation uses it): {}", dir.display())?;
        } else if present {
            changed = true;
            let verb = if dry_run { "would remove" } else { "removed" };
            writeln!(out, "extension {verb}: {}", dir.display())?;
            if !dry_run {
                ghostlight_extension::bundle::remove(&dir)?;
            }
        }
        if !changed {
            writeln!(out, "Nothing of this installation to remove.")?;
        } else if dry_run {
            writeln!(out, "Dry run: nothing was removed.")?;
        } else {
            writeln!(out, "Remove the extension from each browser too (chrome://extensions, about:addons).")?;
        }
        Ok(ExitCode::SUCCESS)
    }
}
