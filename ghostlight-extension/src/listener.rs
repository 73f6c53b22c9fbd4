//! The server's side of the socket: bind it privately, accept the native host, check who it
//! is (same user, the secret's host half, this extension's origin), prove the secret's other
//! half, wait for the extension's hello, and hand the connection to the shared slot.
//!
//! One connection is live at a time: while it lives, a newcomer is refused (an authenticated
//! relay can never be evicted by another); once it ends, the next host is accepted.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ghostlight_core::port::{NetworkPolicy, PortError, PortErrorKind, PortResult, RequestKind, TabRef};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::watch;

use crate::convert::{tab_parts, tab_ref};
use crate::endpoint::{EndpointError, SOCKET_NAME, prepare_private_dir};
use crate::framing::{self, read_frame, write_frame};
use crate::host::{HANDSHAKE_TIMEOUT, same_user};
use crate::identity::is_ours;
use crate::link::Link;
use crate::protocol::{FromExtension, Hello, HostHello, PROTOCOL_VERSION, ServerAuth, ToExtension};
use crate::secret::Secret;

/// The longest wait for the extension's hello once its host is accepted.
pub const HELLO_TIMEOUT: Duration = Duration::from_secs(10);

/// The largest handshake message.
const HANDSHAKE_MAX: usize = 4096;

/// Why the server cannot listen.
#[derive(Debug, thiserror::Error)]
pub enum ListenError {
    /// The socket directory or the secret cannot be used.
    #[error(transparent)]
    Endpoint(#[from] EndpointError),
    /// Another Ghostlight server already listens on this socket.
    #[error("another Ghostlight server listens on {0}")]
    InUse(PathBuf),
}

/// The live connection (if any), the browser run it came from, and a signal that changes
/// whenever the connection does.
///
/// Tab references carry the browser run's id ([`Hello::instance`]): once a browser from
/// another run connects, the tabs of the run before answer [`PortErrorKind::TabGone`] (a new
/// browser numbers its tabs afresh, so a bare tab id could name someone else's tab). While no
/// browser is connected, a tab of the last run answers as the connection does.
pub(crate) struct Slot {
    link: Mutex<Option<Arc<Link>>>,
    /// The browser run of the connection accepted last.
    run: Mutex<Option<String>>,
    changed: watch::Sender<u64>,
    /// The network policy every connection is governed by, once the executor gave one; the
    /// extension's reports of stopped requests are logged in it.
    network: Mutex<Option<NetworkPolicy>>,
}

impl Slot {
    pub(crate) fn new() -> Slot {
        Slot {
            link: Mutex::new(None),
            run: Mutex::new(None),
            changed: watch::Sender::new(0),
            network: Mutex::new(None),
        }
    }

    /// Govern every connection by `policy` from now on.
    pub(crate) fn govern(&self, policy: NetworkPolicy) {
        *self.network.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(policy);
    }

    /// The governing policy, if any.
    pub(crate) fn network(&self) -> Option<NetworkPolicy> {
        self.network.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// Log the extension's report that it stopped a request to `url` (an origin) of `kind`.
    fn refused(&self, url: &str, kind: &str) {
        let (Some(policy), Ok(url)) = (self.network(), url::Url::parse(url)) else { return };
        let kind = match kind {
            "document" => RequestKind::Document,
            "frame" => RequestKind::Frame,
            "resource" => RequestKind::Resource,
            _ => RequestKind::Unknown,
        };
        // The extension decided by the rules; logged as a refusal, whatever the policy says now.
        policy.refuse(&url, kind);
    }

    /// The browser's id of `tab`: [`PortErrorKind::TabGone`] for a tab of an earlier browser
    /// run, or for a reference this connector never made.
    pub(crate) fn tab_id(&self, tab: &TabRef) -> PortResult<i64> {
        let gone = |why: &str| PortError::new(PortErrorKind::TabGone, why);
        let (run, id) = tab_parts(tab).ok_or_else(|| gone("not a tab of the extension connector"))?;
        match self.run_guard().as_deref() {
            Some(current) if current != run => Err(gone("the browser that had this tab has closed")),
            _ => Ok(id),
        }
    }

    /// The reference of the browser's tab `id` in the current browser run.
    pub(crate) fn tab_ref(&self, id: i64) -> TabRef {
        tab_ref(self.run_guard().as_deref().unwrap_or_default(), id)
    }

    fn run_guard(&self) -> std::sync::MutexGuard<'_, Option<String>> {
        self.run.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The live connection.
    pub(crate) fn live(&self) -> Option<Arc<Link>> {
        self.guard().as_ref().filter(|link| !link.is_closed()).cloned()
    }

    /// A receiver that sees every change of the connection.
    pub(crate) fn watch(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// End the live connection, if any.
    pub(crate) fn clear(&self) {
        if let Some(link) = self.guard().take() {
            link.shutdown();
        }
        self.changed.send_modify(|n| *n += 1);
    }

    fn guard(&self) -> std::sync::MutexGuard<'_, Option<Arc<Link>>> {
        self.link.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Bind `dir/ghostlight.sock` (the directory made private first; a socket left by a server
/// that is gone is replaced); the socket is 0600.
pub(crate) fn bind(dir: &Path) -> Result<(UnixListener, PathBuf), ListenError> {
    prepare_private_dir(dir)?;
    let path = dir.join(SOCKET_NAME);
    if std::fs::symlink_metadata(&path).is_ok() {
        if std::os::unix::net::UnixStream::connect(&path).is_ok() {
            return Err(ListenError::InUse(path));
        }
        std::fs::remove_file(&path).map_err(|e| EndpointError::io(&path, e))?;
    }
    let listener = UnixListener::bind(&path).map_err(|e| EndpointError::io(&path, e))?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
        .map_err(|e| EndpointError::io(&path, e))?;
    Ok((listener, path))
}

/// Accept hosts until the task is aborted.
pub(crate) async fn accept(listener: UnixListener, secret: Secret, slot: Arc<Slot>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else { continue };
        tokio::spawn(admit(stream, secret.clone(), Arc::clone(&slot)));
    }
}

/// Admit one host, or drop it (another user, no proof, not our extension, no hello in time,
/// another connection live).
async fn admit(mut stream: UnixStream, secret: Secret, slot: Arc<Slot>) {
    if !same_user(&stream) {
        return;
    }
    let Ok(Some(hello)) =
        tokio::time::timeout(HANDSHAKE_TIMEOUT + HELLO_TIMEOUT, handshake(&mut stream, &secret)).await
    else {
        return;
    };
    let mut live = slot.guard();
    if live.as_ref().is_some_and(|link| !link.is_closed()) {
        return;
    }
    let weak = Arc::downgrade(&slot);
    let reporting = Arc::downgrade(&slot);
    let on_refused: crate::link::OnRefused = Arc::new(move |url: &str, kind: &str| {
        if let Some(slot) = reporting.upgrade() {
            slot.refused(url, kind);
        }
    });
    let link = Arc::new(Link::start(
        stream,
        hello,
        move || {
            if let Some(slot) = weak.upgrade() {
                let mut live = slot.guard();
                if live.as_ref().is_some_and(|link| link.is_closed()) {
                    *live = None;
                }
                drop(live);
                slot.changed.send_modify(|n| *n += 1);
            }
        },
        on_refused,
    ));
    if link.notify(&ToExtension::Welcome).is_err() {
        return;
    }
    *slot.run_guard() = Some(link.hello().instance.clone());
    *live = Some(link);
    drop(live);
    slot.changed.send_modify(|n| *n += 1);
}

/// Check the host's proof and origin, prove ours, and read the extension's hello.
async fn handshake(stream: &mut UnixStream, secret: &Secret) -> Option<Hello> {
    let first = read_frame(stream, HANDSHAKE_MAX).await.ok()??;
    let HostHello::Auth { proof, origin, protocol } = serde_json::from_slice(&first).ok()?;
    if !secret.is_host_proof(&proof) || !is_ours(&origin) || protocol != PROTOCOL_VERSION {
        return None;
    }
    let accepted =
        framing::encode(&ServerAuth::Accepted { proof: secret.server_proof() }, HANDSHAKE_MAX).ok()?;
    write_frame(stream, &accepted, HANDSHAKE_MAX).await.ok()?;
    let frame = tokio::time::timeout(HELLO_TIMEOUT, read_frame(stream, HANDSHAKE_MAX)).await.ok()?.ok()??;
    let FromExtension::Hello(hello) = serde_json::from_slice(&frame).ok()? else { return None };
    let refusal = if hello.protocol != PROTOCOL_VERSION {
        format!(
            "This Ghostlight speaks protocol {PROTOCOL_VERSION} and the extension protocol {}: load the \
             extension that came with this Ghostlight (run `ghostlight install`, then reload the extension).",
            hello.protocol
        )
    } else if !hello.is_well_formed() {
        "Ghostlight refused the extension's hello (no browser run id or an unknown engine): reload the \
         extension."
            .to_owned()
    } else {
        return Some(hello);
    };
    if let Ok(refused) = framing::encode(&ToExtension::Refused { message: refusal }, HANDSHAKE_MAX) {
        let _ = write_frame(stream, &refused, HANDSHAKE_MAX).await;
    }
    None
}
