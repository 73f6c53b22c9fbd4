//! The native-messaging host: started by the browser for the extension, it connects to the
//! server's socket, proves the secret and checks the server's proof, then relays frames both
//! ways unchanged until either side closes (stdin's end when the browser goes away).

use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::UnixStream;

use crate::endpoint::{self, EndpointError, SOCKET_NAME, check_private};
use crate::framing::{self, BROWSER_BOUND_MAX, FrameError, INBOUND_MAX, read_frame, write_frame};
use crate::identity::caller;
use crate::protocol::{HostHello, PROTOCOL_VERSION, ServerAuth};
use crate::secret::Secret;

/// The longest wait for the server to accept the connection and answer the proof.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(5);

/// The largest handshake message.
const HANDSHAKE_MAX: usize = 4096;

/// Why the host stopped.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// The browser started the host for another extension.
    #[error("the caller is not the Ghostlight extension")]
    UnknownCaller,
    /// The socket directory or the secret cannot be used.
    #[error(transparent)]
    Endpoint(#[from] EndpointError),
    /// No server listens (or it did not answer in time).
    #[error("the Ghostlight server is not reachable: {0}")]
    Unreachable(std::io::Error),
    /// The peer on the socket is another user's process.
    #[error("the socket's peer is another user's process")]
    ForeignPeer,
    /// The server refused the host or answered without the secret's other half.
    #[error("the server did not prove the shared secret")]
    Unproven,
    /// Relaying failed.
    #[error(transparent)]
    Frame(#[from] FrameError),
}

/// Run the host for the command line `args` (the browser's), relaying the process's stdin and
/// stdout; answers when either side closed.
pub async fn run(args: &[String]) -> Result<(), HostError> {
    let origin = caller(args).ok_or(HostError::UnknownCaller)?;
    let dir = endpoint::socket_dir_from_env()?;
    check_private(&dir, true)?;
    let secret = Secret::load(&endpoint::secret_file_from_env()?)?;
    let stream =
        match tokio::time::timeout(HANDSHAKE_TIMEOUT, UnixStream::connect(dir.join(SOCKET_NAME))).await {
            Ok(Ok(stream)) => stream,
            Ok(Err(e)) => return Err(HostError::Unreachable(e)),
            Err(_) => return Err(HostError::Unreachable(std::io::ErrorKind::TimedOut.into())),
        };
    let mut stream = stream;
    if !same_user(&stream) {
        return Err(HostError::ForeignPeer);
    }
    match tokio::time::timeout(HANDSHAKE_TIMEOUT, prove(&mut stream, &secret, origin)).await {
        Ok(result) => result?,
        Err(_) => return Err(HostError::Unproven),
    }
    relay(tokio::io::stdin(), tokio::io::stdout(), stream).await
}

/// Whether the socket's peer runs as this user.
pub(crate) fn same_user(stream: &UnixStream) -> bool {
    stream.peer_cred().is_ok_and(|cred| cred.uid() == endpoint::own_uid())
}

/// Send the host's half and check the server's.
async fn prove(stream: &mut UnixStream, secret: &Secret, origin: &str) -> Result<(), HostError> {
    let hello =
        HostHello::Auth { proof: secret.host_proof(), origin: origin.to_owned(), protocol: PROTOCOL_VERSION };
    write_frame(stream, &framing::encode(&hello, HANDSHAKE_MAX)?, HANDSHAKE_MAX).await?;
    let answer = read_frame(stream, HANDSHAKE_MAX).await?.ok_or(HostError::Unproven)?;
    match serde_json::from_slice::<ServerAuth>(&answer) {
        Ok(ServerAuth::Accepted { proof }) if secret.is_server_proof(&proof) => Ok(()),
        _ => Err(HostError::Unproven),
    }
}

/// Relay frames between the browser (`from_browser`, `to_browser`) and the server until one
/// side closes. Frames towards the browser are held to the browser's 1 MB bound.
pub async fn relay<I, O>(mut from_browser: I, mut to_browser: O, server: UnixStream) -> Result<(), HostError>
where
    I: AsyncRead + Unpin,
    O: AsyncWrite + Unpin,
{
    let (mut from_server, mut to_server) = server.into_split();
    let up = async {
        while let Some(frame) = read_frame(&mut from_browser, INBOUND_MAX).await? {
            write_frame(&mut to_server, &frame, INBOUND_MAX).await?;
        }
        Ok::<(), FrameError>(())
    };
    let down = async {
        while let Some(frame) = read_frame(&mut from_server, BROWSER_BOUND_MAX).await? {
            write_frame(&mut to_browser, &frame, BROWSER_BOUND_MAX).await?;
        }
        Ok::<(), FrameError>(())
    };
    tokio::select! {
        result = up => result?,
        result = down => result?,
    }
    Ok(())
}
