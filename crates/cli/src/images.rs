//! `--image PATH`: a PNG, JPEG, GIF or WebP file, recognized by its first bytes, as an image
//! part of the user's message.

use std::path::Path;

use base64::Engine;
use clawloop_core::message::ImageContent;

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

/// The image at `path`; the error names the file and what is wrong with it.
pub fn load_image(path: &Path) -> Result<ImageContent, String> {
    let bytes = std::fs::read(path)
        .map_err(|err| format!("--image {}: cannot read it: {err}", path.display()))?;
    let Some(mime_type) = sniff_image(&bytes) else {
        return Err(format!(
            "--image {}: not a PNG, JPEG, GIF or WebP image",
            path.display()
        ));
    };
    Ok(ImageContent {
        data: base64::engine::general_purpose::STANDARD.encode(&bytes),
        mime_type: mime_type.to_owned(),
        extra: Default::default(),
    })
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
}
