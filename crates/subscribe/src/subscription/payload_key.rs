//! The key a delivered block is remembered under (OpenClaw `createBlockReplyPayloadKey`),
//! written as JSON directly.

use clawloop_core::js_text::js_trim;

use crate::text_scan::find_json_escape;

/// The key under which a delivered block is remembered, so that final payloads repeating it
/// can be dropped (OpenClaw `createBlockReplyPayloadKey`): JSON of the trimmed text and media.
pub fn block_reply_payload_key(text: &str, media_urls: &[String]) -> String {
    // The bytes of `json!({ "text": …, "mediaList": … }).to_string()`, written directly:
    // building the `Value` copied every block once more, and serde_json's byte-by-byte escape
    // loop was a visible cost per streamed byte.
    let Ok(media) = serde_json::to_string(media_urls) else {
        // Serializing strings cannot fail; the `Value` form stays as the fallback.
        return serde_json::json!({ "text": js_trim(text), "mediaList": media_urls }).to_string();
    };
    let text = js_trim(text);
    // Room for an escape every 16 bytes (a newline per line of prose or code): with none,
    // most keys of multi-line blocks were reallocated and copied once more as they grew.
    let mut key = String::with_capacity(text.len() + text.len() / 16 + media.len() + 24);
    key.push_str("{\"text\":");
    push_json_string(&mut key, text);
    key.push_str(",\"mediaList\":");
    key.push_str(&media);
    key.push('}');
    key
}

/// Appends `text` as a JSON string literal, byte for byte as `serde_json` writes it: `"` and
/// `\` backslash-escaped, control chars below U+0020 as `\b` `\t` `\n` `\f` `\r` or `\u00xx`
/// (lowercase hex), everything else (DEL and all non-ASCII included) as is. Runs without an
/// escape are found a word at a time and copied whole.
fn push_json_string(out: &mut String, text: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('"');
    let mut rest = text;
    while let Some(at) = find_json_escape(rest.as_bytes()) {
        // The escaped bytes are ASCII, so `at` and `at + 1` are char boundaries.
        out.push_str(&rest[..at]);
        let byte = rest.as_bytes()[at];
        // Pushed char by char: for two-byte escapes that is cheaper than a `memcpy` call.
        out.push('\\');
        match byte {
            b'"' | b'\\' => out.push(char::from(byte)),
            0x08 => out.push('b'),
            b'\t' => out.push('t'),
            b'\n' => out.push('n'),
            0x0C => out.push('f'),
            b'\r' => out.push('r'),
            _ => {
                out.push_str("u00");
                out.push(char::from(HEX[usize::from(byte >> 4)]));
                out.push(char::from(HEX[usize::from(byte & 0xF)]));
            }
        }
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Every escape is byte for byte serde_json's, control chars included.
        #[test]
        fn json_string_matches_serde_json(text in "[\\x00-\\x7f\"\\\\é🎉\u{2028}]{0,40}") {
            let mut ours = String::new();
            push_json_string(&mut ours, &text);
            prop_assert_eq!(Some(ours), serde_json::to_string(&text).ok());
        }

        /// The key is byte for byte what `json!` produced before.
        #[test]
        fn payload_key_matches_the_json_value_form(
            text in ".{0,40}",
            media in prop::collection::vec(".{0,10}", 0..3),
        ) {
            prop_assert_eq!(
                block_reply_payload_key(&text, &media),
                serde_json::json!({ "text": js_trim(&text), "mediaList": media }).to_string()
            );
        }
    }
}
