//! Reading text out of request URLs: percent-decoding and query parameters.

/// Decodes `%XX` escapes (and `+` stays `+`: only query values use form encoding, see
/// [`query_param`]). Invalid escapes are kept as written; invalid UTF-8 becomes U+FFFD.
pub(crate) fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            // `from_str_radix` would also take a sign (`%+1`); escapes are two hex digits.
            .filter(|hex| hex.iter().all(u8::is_ascii_hexdigit))
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                out.push(byte);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `text` as one path segment: every byte but RFC 3986's unreserved ones as `%XX`.
pub(crate) fn percent_encode_segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The first value of query parameter `name` in `path` (`/x?alt=sse&key=abc` → `abc` for
/// `key`), form-decoded (`+` is a space).
pub(crate) fn query_param(path: &str, name: &str) -> Option<String> {
    let query = path.split_once('?')?.1;
    let query = query.split('#').next().unwrap_or_default();
    query.split('&').find_map(|pair| {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        (percent_decode(&key.replace('+', " ")) == name)
            .then(|| percent_decode(&value.replace('+', " ")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_escapes_leniently() {
        assert_eq!(percent_decode("a%20b%2Fc"), "a b/c");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz%4"), "%zz%4");
        assert_eq!(percent_decode("%+1"), "%+1");
        assert_eq!(percent_decode("%ff"), "\u{fffd}");
        assert_eq!(percent_decode("%F0%9F%A6%9E"), "\u{1f99e}");
    }

    #[test]
    fn encodes_segments_reversibly() {
        assert_eq!(percent_encode_segment("acme"), "acme");
        assert_eq!(percent_encode_segment("my id/\u{e9}"), "my%20id%2F%C3%A9");
        let odd = "a b/%?#\u{1f99e}";
        assert_eq!(percent_decode(&percent_encode_segment(odd)), odd);
    }

    #[test]
    fn reads_query_parameters() {
        let path = "/v1beta/models/g:streamGenerateContent?alt=sse&key=AI%2Bza+x&key=second";
        assert_eq!(query_param(path, "key").as_deref(), Some("AI+za x"));
        assert_eq!(query_param(path, "alt").as_deref(), Some("sse"));
        assert_eq!(query_param(path, "nope"), None);
        assert_eq!(query_param("/x", "key"), None);
        assert_eq!(query_param("/x?key", "key").as_deref(), Some(""));
    }
}
