//! Leading HTTP status of an error message and transient HTTP errors (reference §15.2, §15.6).

use super::js_regex::{js_regexes, js_trim};

js_regexes! {
    HTTP_STATUS_CODE_PREFIX_RE = (r"^(?:http\s*)?(\d{3})(?:(?:\s*:\s*|\s+)([\s\S]+))?$", "i");
}

/// HTTP statuses [`is_transient_http_error`] accepts.
pub const TRANSIENT_HTTP_ERROR_CODES: [u16; 10] =
    [499, 500, 502, 503, 504, 521, 522, 523, 524, 529];

/// A leading HTTP status parsed from an error message (`extractLeadingHttpStatus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeadingHttpStatus<'a> {
    /// The three-digit status code.
    pub code: u16,
    /// The text after the status and its delimiter, trimmed; empty when there is none.
    pub rest: &'a str,
}

/// `extractLeadingHttpStatus`: parses `NNN`, `NNN text`, `NNN: text` or `HTTP NNN …` at the
/// very start of `raw` (regex `^(?:http\s*)?(\d{3})(?:(?:\s*:\s*|\s+)([\s\S]+))?$`, case
/// insensitive). The whole text must match, so `429Too` or `4290` give `None`. The caller trims
/// first where the reference does.
pub fn parse_leading_http_status(raw: &str) -> Option<LeadingHttpStatus<'_>> {
    // The pattern is anchored: a text that starts with neither a digit nor `http` cannot
    // match, and most error texts (and every empty one) are answered without the regex.
    let head = raw.as_bytes();
    let may_match = head.first().is_some_and(u8::is_ascii_digit)
        || head
            .get(..4)
            .is_some_and(|h| h.eq_ignore_ascii_case(b"http"));
    if !may_match {
        return None;
    }
    let caps = HTTP_STATUS_CODE_PREFIX_RE.captures(raw)?;
    let code = caps.get(1)?.as_str().parse::<u16>().ok()?;
    let rest = caps.get(2).map_or("", |m| js_trim(m.as_str()));
    Some(LeadingHttpStatus { code, rest })
}

/// `isTransientHttpError`: the trimmed text starts with an HTTP status in
/// [`TRANSIENT_HTTP_ERROR_CODES`] (499, 500, 502, 503, 504, 521–524, 529). `429 …` is not
/// transient, and neither is text without a leading status (`network timeout`).
pub fn is_transient_http_error(message: &str) -> bool {
    let trimmed = js_trim(message);
    if trimmed.is_empty() {
        return false;
    }
    parse_leading_http_status(trimmed).is_some_and(|s| TRANSIENT_HTTP_ERROR_CODES.contains(&s.code))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn regexes_compile() {
        assert_eq!(force_all_regexes(), 1);
    }

    #[test]
    fn leading_status_vectors() {
        let cases: Vec<(&str, Option<(u16, &str)>)> = vec![
            ("429 Too Many Requests", Some((429, "Too Many Requests"))),
            (
                "HTTP 503: Service Unavailable",
                Some((503, "Service Unavailable")),
            ),
            ("http503 down", Some((503, "down"))),
            ("402", Some((402, ""))),
            ("500:  boom  ", Some((500, "boom"))),
            ("401 line one\nline two", Some((401, "line one\nline two"))),
            ("429Too Many", None),
            ("4290", None),
            ("Error: 429 rate limit", None),
            (" 429 x", None),
            ("", None),
        ];
        let got: Vec<(&str, Option<(u16, &str)>)> = cases
            .iter()
            .map(|(raw, _)| {
                (
                    *raw,
                    parse_leading_http_status(raw).map(|s| (s.code, s.rest)),
                )
            })
            .collect();
        assert_eq!(got, cases);
    }

    #[test]
    fn transient_vectors() {
        let cases = [
            ("503 Service Unavailable", true),
            ("  500 Internal Server Error ", true),
            ("521 <!DOCTYPE html>", true),
            ("529 overloaded", true),
            ("499", true),
            ("429 Too Many Requests", false),
            ("network timeout", false),
            ("501 Not Implemented", false),
            ("", false),
        ];
        for (raw, expected) in cases {
            assert_eq!(is_transient_http_error(raw), expected, "{raw:?}");
        }
    }
}
