//! An image file (`--image PATH`, `@path`): a PNG, JPEG, GIF or WebP file, recognized by its
//! first bytes, as an image part of the user's message, within the limits providers accept.

use std::io::Read;
use std::path::Path;

use base64::Engine;
use clawloop_core::message::ImageContent;

use crate::image_size::{ImageSize, image_size};

/// The largest image file sent: OpenAI's and Gemini's inline limit. Checked from the file's
/// metadata, so a larger file is refused without being read.
pub const MAX_IMAGE_BYTES: u64 = 20 * 1024 * 1024;
/// The longest side of an image sent, in pixels: Anthropic's limit, the strictest of the
/// providers'.
pub const MAX_IMAGE_SIDE: u32 = 8000;

/// The MIME type of an image by its magic bytes; `None` for anything else.
pub fn sniff_image(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// The image at `path` for `--image`; the error names the file and what is wrong with it.
pub fn load_image(path: &Path) -> Result<ImageContent, String> {
    let label = format!("--image {}", path.display());
    let bytes = read_bounded(path, &label)?;
    let Some(mime_type) = sniff_image(&bytes) else {
        return Err(format!("{label}: not a PNG, JPEG, GIF or WebP image"));
    };
    image_of(&label, mime_type, &bytes)
}

/// `bytes`, already known to be an image of `mime_type`, checked against the dimension limit
/// and encoded; `label` names the file in the error.
pub fn image_of(label: &str, mime_type: &str, bytes: &[u8]) -> Result<ImageContent, String> {
    check_dimensions(label, mime_type, bytes)?;
    Ok(ImageContent {
        data: base64::engine::general_purpose::STANDARD.encode(bytes),
        mime_type: mime_type.to_owned(),
        extra: Default::default(),
    })
}

/// The whole file at `path`, refused from its metadata when it is over [`MAX_IMAGE_BYTES`]
/// (and never read past the limit, should it grow meanwhile).
pub fn read_bounded(path: &Path, label: &str) -> Result<Vec<u8>, String> {
    let file =
        std::fs::File::open(path).map_err(|err| format!("{label}: cannot read it: {err}"))?;
    let meta = file
        .metadata()
        .map_err(|err| format!("{label}: cannot read it: {err}"))?;
    if meta.is_dir() {
        return Err(format!("{label}: is a directory, not a file"));
    }
    check_size(label, meta.len())?;
    let mut bytes = Vec::new();
    file.take(MAX_IMAGE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|err| format!("{label}: cannot read it: {err}"))?;
    check_size(label, bytes.len() as u64)?;
    Ok(bytes)
}

fn check_size(label: &str, len: u64) -> Result<(), String> {
    if len > MAX_IMAGE_BYTES {
        return Err(format!(
            "{label}: the file is {}, over the {} limit for an image or file",
            megabytes(len),
            megabytes(MAX_IMAGE_BYTES)
        ));
    }
    Ok(())
}

fn check_dimensions(label: &str, mime_type: &str, bytes: &[u8]) -> Result<(), String> {
    let Some(ImageSize { width, height }) = image_size(bytes) else {
        return Err(format!(
            "{label}: a damaged {mime_type} image (its dimensions cannot be read)"
        ));
    };
    if width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE {
        return Err(format!(
            "{label}: the image is {width}×{height} pixels, over the limit of \
             {MAX_IMAGE_SIDE} pixels per side"
        ));
    }
    Ok(())
}

fn megabytes(len: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if len.is_multiple_of(MIB) {
        format!("{} MB", len / MIB)
    } else {
        format!("{:.1} MB", len as f64 / MIB as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn images_are_known_by_their_magic_bytes() {
        let cases: [(&[u8], Option<&str>); 7] = [
            (b"\x89PNG\r\n\x1a\n rest", Some("image/png")),
            (&[0xFF, 0xD8, 0xFF, 0xE0], Some("image/jpeg")),
            (b"GIF89a...", Some("image/gif")),
            (b"GIF87a...", Some("image/gif")),
            (b"RIFF\x10\0\0\0WEBPVP8 ", Some("image/webp")),
            (b"RIFF\x10\0\0\0WAVE", None),
            (b"%PDF-1.7", None),
        ];
        for (bytes, expected) in cases {
            assert_eq!(sniff_image(bytes), expected, "{bytes:?}");
        }
    }

    #[test]
    fn sizes_read_in_megabytes() {
        assert_eq!(megabytes(MAX_IMAGE_BYTES), "20 MB");
        assert_eq!(megabytes(50 * 1024 * 1024 + 1), "50.0 MB");
        assert_eq!(megabytes(1536 * 1024), "1.5 MB");
    }
}
