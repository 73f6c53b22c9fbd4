//! Tiny but valid images: a black PNG of any size and a 1×1 GIF.
//!
//! The PNG is 1-bit greyscale, all zero, so its scanlines (filter byte 0, pixels 0) are a run
//! of zero bytes. That run is deflated with fixed Huffman codes as one literal and
//! distance-1 matches of 258 bytes: a 1280×3000 image takes about 3 KB and no raw buffer.

/// The largest side of an image the scripted browser renders.
pub(super) const MAX_SIDE: u32 = 8192;

/// A 1×1 GIF89a.
pub(super) const GIF: &[u8] = &[
    0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff,
    0xff, 0xff, 0x2c, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 0x44, 0x01, 0x00,
    0x3b,
];

/// Writes deflate bits, least significant first.
struct Bits {
    out: Vec<u8>,
    acc: u8,
    used: u32,
}

impl Bits {
    fn put(&mut self, value: u32, count: u32) {
        for i in 0..count {
            if (value >> i) & 1 == 1 {
                self.acc |= 1 << self.used;
            }
            self.used += 1;
            if self.used == 8 {
                self.out.push(self.acc);
                self.acc = 0;
                self.used = 0;
            }
        }
    }

    /// A Huffman code, most significant bit first.
    fn code(&mut self, code: u32, len: u32) {
        for i in (0..len).rev() {
            self.put((code >> i) & 1, 1);
        }
    }
}

/// A zlib stream of `len` (≥ 1) zero bytes.
fn zlib_zeros(len: u64) -> Vec<u8> {
    const LITERAL_ZERO: u32 = 0b0011_0000; // literal 0, 8 bits
    const LENGTH_258: u32 = 0b1100_0101; // length code 285, 8 bits
    let mut bits = Bits { out: vec![0x78, 0x01], acc: 0, used: 0 };
    bits.put(1, 1); // final block
    bits.put(1, 2); // fixed Huffman codes
    bits.code(LITERAL_ZERO, 8);
    let mut left = len.saturating_sub(1);
    while left >= 258 {
        bits.code(LENGTH_258, 8);
        bits.code(0, 5); // distance 1
        left -= 258;
    }
    for _ in 0..left {
        bits.code(LITERAL_ZERO, 8);
    }
    bits.code(0, 7); // end of block
    if bits.used > 0 {
        bits.out.push(bits.acc);
    }
    // Adler-32 of zeros: a stays 1, b adds 1 per byte.
    let adler = ((len % 65521) << 16) | 1;
    bits.out.extend_from_slice(&(adler as u32).to_be_bytes());
    bits.out
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xedb8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

fn chunk(png: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    let len = u32::try_from(data.len()).unwrap_or(u32::MAX);
    png.extend_from_slice(&len.to_be_bytes());
    let start = png.len();
    png.extend_from_slice(kind);
    png.extend_from_slice(data);
    let crc = crc32(&png[start..]);
    png.extend_from_slice(&crc.to_be_bytes());
}

/// A black `width`×`height` PNG (both at least 1 and at most [`MAX_SIDE`]).
pub(super) fn black_png(width: u32, height: u32) -> Vec<u8> {
    let mut png = vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
    let mut header = Vec::with_capacity(13);
    header.extend_from_slice(&width.to_be_bytes());
    header.extend_from_slice(&height.to_be_bytes());
    header.extend_from_slice(&[1, 0, 0, 0, 0]); // 1-bit greyscale, deflate, no interlace
    chunk(&mut png, b"IHDR", &header);
    let row = u64::from(width).div_ceil(8) + 1;
    chunk(&mut png, b"IDAT", &zlib_zeros(row * u64::from(height)));
    chunk(&mut png, b"IEND", &[]);
    png
}
