//! Whether the text after an HTTP status is an HTML error page.
//!
//! pi's clients pass a page on as it came (`502 <!DOCTYPE html>…</html>`); the providers crate
//! condenses it to its title and [`HTML_ERROR_PAGE_MARKER`] (`502 Bad Gateway (HTML error
//! page)`) so raw markup never reaches transcripts and logs. Both forms are the same fact for
//! the user-facing copy (reference §16 steps 5 and 19), so both are recognized here, once.

use super::js_regex::js_regexes;

js_regexes! {
    HTML_BODY_RE = (r"^\s*(?:<!doctype\s+html\b|<html\b)", "i");
    HTML_CLOSE_RE = (r"<\/html>", "i");
}

/// What the providers crate appends to an HTML error page's title in an `errorMessage`.
pub const HTML_ERROR_PAGE_MARKER: &str = "(HTML error page)";

/// `rest` (the text after the leading status) is an HTML document or its condensed form.
pub fn is_html_error_body(rest: &str) -> bool {
    (HTML_BODY_RE.is_match(rest) && HTML_CLOSE_RE.is_match(rest))
        || rest.trim_end().ends_with(HTML_ERROR_PAGE_MARKER)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regexes_compile() {
        assert_eq!(force_all_regexes(), 2);
    }

    #[test]
    fn pages_and_their_condensed_form_are_html() {
        for rest in [
            "<!DOCTYPE html><html><body>Bad gateway</body></html>",
            "  <html><head><title>502</title></head></html>",
            "Bad Gateway (HTML error page)",
            "Forbidden (HTML error page) ",
        ] {
            assert!(is_html_error_body(rest), "{rest}");
        }
        for rest in [
            "Bad gateway",
            "<!DOCTYPE html> without a closing tag",
            "(HTML error page) was mentioned first, then something else",
        ] {
            assert!(!is_html_error_body(rest), "{rest}");
        }
    }
}
