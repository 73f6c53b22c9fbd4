//! Native-messaging framing: each message is a 32-bit length in native byte order followed by
//! that many bytes of UTF-8 JSON. The same framing carries messages on the server's socket, so
//! the host relays frames without re-encoding them.
//!
//! Bounds: a browser refuses a message to the extension over [`BROWSER_BOUND_MAX`] (1 MB, and
//! drops the host for it), so every frame that travels towards the browser is checked against
//! it before it is written; frames from the browser (screenshots) are bounded by
//! [`INBOUND_MAX`]. A length over the bound is refused before anything is allocated for it.

use serde::Serialize;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// The largest message a browser accepts from a native host (Chromium and Firefox: 1 MB).
pub const BROWSER_BOUND_MAX: usize = 1024 * 1024;

/// The largest message accepted from the browser (a viewport capture of a large screen is a
/// few megabytes of base64).
pub const INBOUND_MAX: usize = 64 * 1024 * 1024;

/// The length prefix's size in bytes.
pub const HEADER_LEN: usize = 4;

/// Why a frame could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// The frame's length is over the bound of its direction.
    #[error("a frame of {len} bytes is over the bound of {max} bytes")]
    TooLarge {
        /// The announced or encoded length.
        len: usize,
        /// The bound.
        max: usize,
    },
    /// The stream ended inside a frame.
    #[error("the stream ended inside a frame")]
    Truncated,
    /// The message could not be encoded as JSON.
    #[error("the message could not be encoded: {0}")]
    Encode(#[from] serde_json::Error),
    /// Reading or writing failed.
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
}

/// The payload length a header announces, refused when over `max`.
pub fn payload_len(header: [u8; HEADER_LEN], max: usize) -> Result<usize, FrameError> {
    let len = usize::try_from(u32::from_ne_bytes(header)).unwrap_or(usize::MAX);
    if len > max {
        return Err(FrameError::TooLarge { len, max });
    }
    Ok(len)
}

/// `message` as JSON, refused when over `max` bytes.
pub fn encode(message: &impl Serialize, max: usize) -> Result<Vec<u8>, FrameError> {
    let payload = serde_json::to_vec(message)?;
    check_len(payload.len(), max)?;
    Ok(payload)
}

fn check_len(len: usize, max: usize) -> Result<u32, FrameError> {
    match u32::try_from(len) {
        Ok(prefix) if len <= max => Ok(prefix),
        _ => Err(FrameError::TooLarge { len, max }),
    }
}

/// Read one frame's payload (at most `max` bytes); `None` when the stream ends cleanly before
/// a frame starts.
pub async fn read_frame<R: AsyncRead + Unpin>(
    reader: &mut R,
    max: usize,
) -> Result<Option<Vec<u8>>, FrameError> {
    let mut header = [0_u8; HEADER_LEN];
    let mut got = 0;
    while got < HEADER_LEN {
        let n = reader.read(&mut header[got..]).await?;
        if n == 0 {
            return if got == 0 { Ok(None) } else { Err(FrameError::Truncated) };
        }
        got += n;
    }
    let len = payload_len(header, max)?;
    let mut payload = vec![0_u8; len];
    reader.read_exact(&mut payload).await.map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => FrameError::Truncated,
        _ => FrameError::Io(e),
    })?;
    Ok(Some(payload))
}

/// Write one frame (refused when `payload` is over `max` bytes) and flush.
pub async fn write_frame<W: AsyncWrite + Unpin>(
    writer: &mut W,
    payload: &[u8],
    max: usize,
) -> Result<(), FrameError> {
    let prefix = check_len(payload.len(), max)?;
    let mut frame = Vec::with_capacity(HEADER_LEN + payload.len());
    frame.extend_from_slice(&prefix.to_ne_bytes());
    frame.extend_from_slice(payload);
    writer.write_all(&frame).await?;
    writer.flush().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn run<T>(future: impl std::future::Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread().build().expect("a runtime").block_on(future)
    }

    fn framed(payload: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        run(write_frame(&mut out, payload, usize::MAX)).expect("written");
        out
    }

    #[test]
    fn a_frame_is_a_native_endian_length_then_the_payload() {
        let bytes = framed(b"{}");
        assert_eq!(bytes[..4], 2_u32.to_ne_bytes());
        assert_eq!(&bytes[4..], b"{}");
    }

    #[test]
    fn clean_end_truncation_and_oversize() {
        assert!(matches!(run(read_frame(&mut &b""[..], 10)), Ok(None)));
        assert!(matches!(run(read_frame(&mut &b"\x01\x00"[..], 10)), Err(FrameError::Truncated)));
        let short = [&5_u32.to_ne_bytes()[..], b"ab"].concat();
        assert!(matches!(run(read_frame(&mut &short[..], 10)), Err(FrameError::Truncated)));
        let big = framed(&[b'x'; 11]);
        assert!(matches!(run(read_frame(&mut &big[..], 10)), Err(FrameError::TooLarge { len: 11, max: 10 })));
    }

    #[test]
    fn the_browser_bound_is_enforced_before_writing() {
        let payload = vec![b'a'; BROWSER_BOUND_MAX + 1];
        let mut out = Vec::new();
        assert!(matches!(
            run(write_frame(&mut out, &payload, BROWSER_BOUND_MAX)),
            Err(FrameError::TooLarge { .. })
        ));
        assert!(out.is_empty(), "nothing is written for a refused frame");
        let long = serde_json::Value::String("a".repeat(BROWSER_BOUND_MAX));
        assert!(matches!(encode(&long, BROWSER_BOUND_MAX), Err(FrameError::TooLarge { .. })));
        assert!(encode(&"short", BROWSER_BOUND_MAX).is_ok());
    }

    #[test]
    fn a_huge_announced_length_is_refused_without_allocating_it() {
        let bytes = u32::MAX.to_ne_bytes();
        assert!(matches!(run(read_frame(&mut &bytes[..], INBOUND_MAX)), Err(FrameError::TooLarge { .. })));
    }

    proptest! {
        #[test]
        fn frames_round_trip(payloads in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..300), 0..8)) {
            let mut stream = Vec::new();
            for payload in &payloads {
                stream.extend(framed(payload));
            }
            let mut reader = &stream[..];
            for payload in &payloads {
                let read = run(read_frame(&mut reader, 300)).expect("a frame");
                prop_assert_eq!(read.as_deref(), Some(&payload[..]));
            }
            prop_assert!(matches!(run(read_frame(&mut reader, 300)), Ok(None)));
        }

        #[test]
        fn no_input_panics_and_no_frame_exceeds_the_bound(bytes in proptest::collection::vec(any::<u8>(), 0..2048), max in 0_usize..512) {
            let mut reader = &bytes[..];
            for _ in 0..bytes.len() + 1 {
                match run(read_frame(&mut reader, max)) {
                    Ok(Some(payload)) => prop_assert!(payload.len() <= max),
                    Ok(None) | Err(_) => break,
                }
            }
        }
    }
}
