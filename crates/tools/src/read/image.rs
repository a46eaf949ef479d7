//! Image detection by content, as pi's `read` does it: the first bytes decide, never the file
//! name, so a `.png` holding text reads as text and an extension-less PNG reads as an image.

/// The MIME type of a supported image format (JPEG, PNG, GIF, WebP) whose signature starts
/// `head`; `None` for anything else.
pub fn detect_image_mime_type(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(&[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A]) {
        Some("image/png")
    } else if head.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if head.len() >= 12 && head.starts_with(b"RIFF") && head.get(8..12) == Some(b"WEBP") {
        Some("image/webp")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn signatures_decide() {
        assert_eq!(
            detect_image_mime_type(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"),
            Some("image/png")
        );
        assert_eq!(
            detect_image_mime_type(b"\xFF\xD8\xFF\xE0"),
            Some("image/jpeg")
        );
        assert_eq!(detect_image_mime_type(b"GIF89a\x01\0"), Some("image/gif"));
        assert_eq!(
            detect_image_mime_type(b"RIFF\x24\0\0\0WEBPVP8 "),
            Some("image/webp")
        );
        assert_eq!(detect_image_mime_type(b"RIFF\x24\0\0\0WAVEfmt "), None);
        assert_eq!(detect_image_mime_type(b"\x89PNG"), None);
        assert_eq!(detect_image_mime_type(b""), None);
        assert_eq!(detect_image_mime_type(b"plain text"), None);
    }
}
