//! The GIF codec of recordings: a screenshot becomes a downscaled, 256-colour,
//! LZW-compressed GIF frame at capture time (`quantize`), and kept frames are written out as a
//! looping GIF at save time (`encode`). Pure functions over bytes: no session, no async.

use std::sync::Arc;
use std::time::Instant;

use ghostlight_core::port::{PortError, PortErrorKind, PortResult, RECORD_BOUNDS};

/// Widest kept frame, in pixels (wider viewports are scaled down).
pub(crate) const MAX_FRAME_WIDTH: u32 = RECORD_BOUNDS.max_frame_width;
/// Tallest kept frame, in pixels (taller viewports are scaled down).
pub(crate) const MAX_FRAME_HEIGHT: u32 = RECORD_BOUNDS.max_frame_height;
/// NeuQuant speed of the GIF encode (1 best … 30 fastest).
pub(crate) const GIF_SPEED: i32 = 10;
/// Largest GIF delivered.
pub(crate) const MAX_GIF_BYTES: usize = RECORD_BOUNDS.max_gif_bytes;

/// One kept frame: a downscaled, quantized and LZW-compressed GIF frame (delay not yet
/// set), and when it was captured.
#[derive(Debug, Clone)]
pub(super) struct Frame {
    /// Palette and LZW-compressed pixels.
    pub(super) gif: Arc<gif::Frame<'static>>,
    /// When the screenshot was taken.
    pub(super) at: Instant,
}

impl Frame {
    /// The bytes the frame holds (compressed pixels and palette).
    pub(super) fn bytes(&self) -> u64 {
        let palette = self.gif.palette.as_ref().map_or(0, Vec::len);
        u64::try_from(self.gif.buffer.len().saturating_add(palette)).unwrap_or(u64::MAX)
    }
}

/// A downscaled, quantized frame.
pub(super) struct Shrunk {
    /// Palette and LZW-compressed pixels.
    pub(super) frame: gif::Frame<'static>,
    /// Its width.
    pub(super) width: u32,
    /// Its height.
    pub(super) height: u32,
}

/// Decode a screenshot, scale it to `size` (or within the frame bounds), quantize it to a
/// 256-colour GIF frame (NeuQuant at [`GIF_SPEED`]) and LZW-compress it. Done per frame at
/// capture time, so a save only writes the frames out.
pub(super) fn quantize(png: &[u8], size: Option<(u32, u32)>) -> Option<Shrunk> {
    // `DynamicImage` methods run the image crate's own (optimized) code; the generic
    // `imageops` functions would be compiled into this crate.
    let image = image::load_from_memory_with_format(png, image::ImageFormat::Png).ok()?;
    let (width, height) = size.unwrap_or_else(|| fit(image.width(), image.height()));
    let image = if (width, height) == (image.width(), image.height()) {
        image
    } else {
        image.resize_exact(width, height, image::imageops::FilterType::Triangle)
    };
    let (w, h) = (u16::try_from(width).ok()?, u16::try_from(height).ok()?);
    let mut rgba = image.to_rgba8().into_raw();
    let mut frame = gif::Frame::from_rgba_speed(w, h, &mut rgba, GIF_SPEED);
    frame.make_lzw_pre_encoded();
    Some(Shrunk { frame, width, height })
}

/// `width`×`height` scaled down (never up) to fit the frame bounds, at least 1×1.
pub(super) fn fit(width: u32, height: u32) -> (u32, u32) {
    let (w, h) = (f64::from(width.max(1)), f64::from(height.max(1)));
    let scale = (f64::from(MAX_FRAME_WIDTH) / w).min(f64::from(MAX_FRAME_HEIGHT) / h).min(1.0);
    let scaled = |v: f64| {
        let rounded = (v * scale).round().clamp(1.0, f64::from(u32::MAX));
        // The value is clamped to the u32 range above.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let whole = rounded as u32;
        whole
    };
    (scaled(w), scaled(h))
}

/// Write `frames` (all `size`) with `delays` as a looping GIF.
pub(super) fn encode(frames: &[Frame], delays: &[u16], size: (u32, u32)) -> PortResult<Vec<u8>> {
    let failed = || PortError::new(PortErrorKind::Other, "the replay could not be encoded");
    let (width, height) =
        (u16::try_from(size.0).map_err(|_| failed())?, u16::try_from(size.1).map_err(|_| failed())?);
    let mut encoder = gif::Encoder::new(Vec::new(), width, height, &[]).map_err(|_| failed())?;
    encoder.set_repeat(gif::Repeat::Infinite).map_err(|_| failed())?;
    for (frame, delay) in frames.iter().zip(delays) {
        if (frame.gif.width, frame.gif.height) != (width, height) {
            return Err(failed());
        }
        let mut timed = frame.gif.as_ref().clone();
        timed.delay = *delay;
        encoder.write_lzw_pre_encoded_frame(&timed).map_err(|_| failed())?;
        if encoder.get_ref().len() > MAX_GIF_BYTES {
            return Err(PortError::new(
                PortErrorKind::Other,
                "the replay is larger than the adapter delivers",
            ));
        }
    }
    encoder.into_inner().map_err(|_| failed())
}
