//! An image's dimensions from its header (PNG IHDR, JPEG SOF, GIF screen, WebP VP8/VP8L/VP8X),
//! without decoding it: enough to refuse an image a provider would reject.

/// Width and height in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageSize {
    /// Pixels across.
    pub width: u32,
    /// Pixels down.
    pub height: u32,
}

/// The dimensions in the header of a PNG, JPEG, GIF or WebP image; `None` for anything else or
/// a header cut short.
pub fn image_size(bytes: &[u8]) -> Option<ImageSize> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        png(bytes)
    } else if bytes.starts_with(&[0xFF, 0xD8]) {
        jpeg(bytes)
    } else if bytes.starts_with(b"GIF8") {
        Some(ImageSize {
            width: le16(bytes, 6)?,
            height: le16(bytes, 8)?,
        })
    } else if bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WEBP") {
        webp(bytes)
    } else {
        None
    }
}

fn png(bytes: &[u8]) -> Option<ImageSize> {
    if bytes.get(12..16) != Some(b"IHDR") {
        return None;
    }
    Some(ImageSize {
        width: be32(bytes, 16)?,
        height: be32(bytes, 20)?,
    })
}

/// Walks the segments to the first start-of-frame marker, which holds the dimensions.
fn jpeg(bytes: &[u8]) -> Option<ImageSize> {
    let mut at = 2;
    loop {
        // Markers may be padded with any number of 0xFF fill bytes.
        while *bytes.get(at)? == 0xFF && *bytes.get(at + 1)? == 0xFF {
            at += 1;
        }
        if *bytes.get(at)? != 0xFF {
            return None;
        }
        let marker = *bytes.get(at + 1)?;
        at += 2;
        match marker {
            // Stand-alone markers carry no length.
            0x01 | 0xD0..=0xD7 => continue,
            0xD8..=0xDA => return None,
            0xC0..=0xCF if !matches!(marker, 0xC4 | 0xC8 | 0xCC) => {
                return Some(ImageSize {
                    height: u32::from(be16(bytes, at + 3)?),
                    width: u32::from(be16(bytes, at + 5)?),
                });
            }
            _ => at += usize::from(be16(bytes, at)?),
        }
    }
}

fn webp(bytes: &[u8]) -> Option<ImageSize> {
    match bytes.get(12..16)? {
        b"VP8 " => {
            if bytes.get(23..26) != Some(&[0x9D, 0x01, 0x2A]) {
                return None;
            }
            Some(ImageSize {
                width: le16(bytes, 26)? & 0x3FFF,
                height: le16(bytes, 28)? & 0x3FFF,
            })
        }
        b"VP8L" => {
            if *bytes.get(20)? != 0x2F {
                return None;
            }
            let bits = u32::from_le_bytes(bytes.get(21..25)?.try_into().ok()?);
            Some(ImageSize {
                width: (bits & 0x3FFF) + 1,
                height: ((bits >> 14) & 0x3FFF) + 1,
            })
        }
        b"VP8X" => Some(ImageSize {
            width: le24(bytes, 24)? + 1,
            height: le24(bytes, 27)? + 1,
        }),
        _ => None,
    }
}

fn be16(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

fn le16(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from(u16::from_le_bytes(
        bytes.get(at..at + 2)?.try_into().ok()?,
    )))
}

fn le24(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at + 3)?;
    Some(u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[2]) << 16)
}

fn be32(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn png_header(width: u32, height: u32) -> Vec<u8> {
        let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        bytes.extend(width.to_be_bytes());
        bytes.extend(height.to_be_bytes());
        bytes.extend([8, 6, 0, 0, 0]);
        bytes
    }

    fn size(width: u32, height: u32) -> Option<ImageSize> {
        Some(ImageSize { width, height })
    }

    #[test]
    fn dimensions_come_from_each_formats_header() {
        let jpeg = [
            // SOI, an APP0 segment of 4 bytes, fill bytes, SOF0 of 17x9.
            &[0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x4A, 0x46][..],
            &[
                0xFF, 0xFF, 0xC0, 0x00, 0x11, 0x08, 0x00, 0x09, 0x00, 0x11, 0x03,
            ],
        ]
        .concat();
        let mut vp8 = b"RIFF\0\0\0\0WEBPVP8 \0\0\0\0\0\0\0\x9d\x01\x2a".to_vec();
        vp8.extend([0x40, 0x01, 0xF0, 0x00]); // 320 x 240
        let mut vp8l = b"RIFF\0\0\0\0WEBPVP8L\0\0\0\0\x2f".to_vec();
        // width-1 = 99 in bits 0..14, height-1 = 49 in bits 14..28.
        vp8l.extend((99u32 | (49 << 14)).to_le_bytes());
        let mut vp8x = b"RIFF\0\0\0\0WEBPVP8X\0\0\0\0\0\0\0\0".to_vec();
        vp8x.extend([0x3F, 0x1F, 0x00, 0x0F, 0x00, 0x00]); // 8000 x 16
        let cases: Vec<(&str, Vec<u8>, Option<ImageSize>)> = vec![
            ("png", png_header(9000, 12), size(9000, 12)),
            ("png cut short", png_header(1, 1)[..20].to_vec(), None),
            (
                "png without IHDR",
                b"\x89PNG\r\n\x1a\nfake-but-magic".to_vec(),
                None,
            ),
            ("jpeg", jpeg.clone(), size(17, 9)),
            ("jpeg cut short", jpeg[..12].to_vec(), None),
            (
                "jpeg without a frame",
                vec![0xFF, 0xD8, 0xFF, 0xDA, 0, 2],
                None,
            ),
            ("gif", b"GIF89a\x20\x03\x58\x02".to_vec(), size(800, 600)),
            ("webp lossy", vp8, size(320, 240)),
            ("webp lossless", vp8l, size(100, 50)),
            ("webp extended", vp8x, size(8000, 16)),
            ("text", b"hello".to_vec(), None),
        ];
        for (name, bytes, expected) in cases {
            assert_eq!(image_size(&bytes), expected, "{name}");
        }
    }
}
