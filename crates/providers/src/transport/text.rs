//! Small text helpers shared by the transport and the wire APIs.

/// The longest prefix of `text` that is at most `max_bytes` long and ends on a char boundary.
///
/// Error bodies are cut before they are stored or logged; cutting at a byte index could split a
/// multi-byte character and panic, so the cut moves back to the previous boundary.
pub fn truncate_at_char_boundary(text: &str, max_bytes: usize) -> &str {
    if text.len() <= max_bytes {
        return text;
    }
    let mut end = max_bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_splits_a_character() {
        let text = "aé😀b";
        for max in 0..=text.len() + 1 {
            let cut = truncate_at_char_boundary(text, max);
            assert!(cut.len() <= max);
            assert!(text.starts_with(cut));
        }
        assert_eq!(truncate_at_char_boundary(text, 3), "aé");
        assert_eq!(truncate_at_char_boundary(text, 6), "aé");
        assert_eq!(truncate_at_char_boundary(text, 7), "aé😀");
    }
}
