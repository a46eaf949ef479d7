//! Truncating one tool-result text to a char budget (reference openclaw-runner §10.1,
//! OpenClaw 2026.4 `truncateToolResultText`): keep the head, or the head and the tail when the
//! end looks important, cut at line breaks where that loses little, and say how much was cut.
//!
//! Positions and lengths are chars (SPEC §3) where OpenClaw counts UTF-16 units; the two agree
//! on text without astral characters.

use clawloop_core::js_text::js_trim;

/// The least a truncation keeps of the head, unless the caller asks for less.
pub const MIN_KEEP_CHARS: usize = 2_000;

/// Put between the head and the tail in head+tail mode.
pub const MIDDLE_OMISSION_MARKER: &str =
    "\n\n⚠️ [... middle content omitted — showing head and tail ...]\n\n";

/// How many trailing chars [`has_important_tail`] looks at.
const IMPORTANT_TAIL_WINDOW: usize = 2_000;

/// The tail never gets more than this many chars in head+tail mode.
const MAX_TAIL_CHARS: usize = 4_000;

/// Words that make the end of an output worth keeping (errors, then summaries).
const IMPORTANT_TAIL_WORDS: [&str; 15] = [
    "error",
    "exception",
    "failed",
    "fatal",
    "traceback",
    "panic",
    "stack trace",
    "errno",
    "exit code",
    "total",
    "summary",
    "result",
    "complete",
    "finished",
    "done",
];

/// The notice appended to a truncated text (OpenClaw `formatContextLimitTruncationNotice`):
/// `[... N more characters truncated]` with N at least 1.
pub fn context_limit_truncation_notice(truncated_chars: usize) -> String {
    format!("[... {} more characters truncated]", truncated_chars.max(1))
}

/// `text` cut to about `max_chars` chars (OpenClaw `truncateToolResultText` with its default
/// notice).
///
/// A text of at most `max_chars` chars is returned unchanged. Otherwise the kept part gets
/// `budget = max(min_keep_chars, max_chars - notice length)` chars, so the result can be longer
/// than `max_chars` when `min_keep_chars` is larger. When the last 2 000 chars look important
/// (an error word, a summary word, or a closing `}`) and the budget exceeds twice
/// `min_keep_chars`, 30% of the budget (at most 4 000) goes to the tail, the rest minus the
/// [`MIDDLE_OMISSION_MARKER`] to the head; otherwise only the head is kept. Cuts move to a line
/// break when that costs at most 20% of the part. The notice counts every char not kept
/// ([`context_limit_truncation_notice`]).
///
/// ```
/// use clawloop_session::transforms::truncate_tool_result_text;
///
/// let out = truncate_tool_result_text(&"x".repeat(50_000), 100, 2_000);
/// assert_eq!(out.chars().count(), 2_037);
/// assert!(out.ends_with("[... 48000 more characters truncated]"));
/// ```
pub fn truncate_tool_result_text(text: &str, max_chars: usize, min_keep_chars: usize) -> String {
    let chars = CharIndex::new(text);
    let len = chars.len();
    if len <= max_chars {
        return text.to_owned();
    }
    let notice_len = notice_chars(len - max_chars);
    let budget = min_keep_chars.max(max_chars.saturating_sub(notice_len));

    if has_important_tail(&chars) && budget > min_keep_chars.saturating_mul(2) {
        let tail_budget = js_floor(as_f64(budget) * 0.3).min(MAX_TAIL_CHARS);
        let marker_len = MIDDLE_OMISSION_MARKER.chars().count();
        // Signed: with a small budget the head share goes negative and head+tail is off.
        let head_budget = to_i128(budget) - to_i128(tail_budget) - to_i128(marker_len);
        if head_budget > to_i128(min_keep_chars) {
            let head_budget = usize::try_from(head_budget).unwrap_or(usize::MAX);
            let mut head_cut = head_budget;
            if let Some(nl) = chars.last_newline_at_or_before(head_budget)
                && as_f64(nl) > as_f64(head_budget) * 0.8
            {
                head_cut = nl;
            }
            let mut tail_start = len.saturating_sub(tail_budget);
            if let Some(nl) = chars.first_newline_at_or_after(tail_start)
                && as_f64(nl) < as_f64(tail_start) + as_f64(tail_budget) * 0.2
            {
                tail_start = nl + 1;
            }
            let mut kept = String::with_capacity(text.len().saturating_add(128));
            kept.push_str(chars.slice(0, head_cut));
            kept.push_str(MIDDLE_OMISSION_MARKER);
            kept.push_str(chars.slice(tail_start, len));
            let kept_len = head_cut.min(len) + marker_len + (len - tail_start.min(len));
            kept.push_str(&context_limit_truncation_notice(
                len.saturating_sub(kept_len),
            ));
            return kept;
        }
    }

    let mut cut = budget;
    if let Some(nl) = chars.last_newline_at_or_before(budget)
        && as_f64(nl) > as_f64(budget) * 0.8
    {
        cut = nl;
    }
    let head = chars.slice(0, cut);
    let kept_len = cut.min(len);
    let mut out = String::with_capacity(head.len() + 40);
    out.push_str(head);
    out.push_str(&context_limit_truncation_notice(len - kept_len));
    out
}

/// Chars of the notice for `truncated_chars` (its digits plus the fixed text).
fn notice_chars(truncated_chars: usize) -> usize {
    context_limit_truncation_notice(truncated_chars)
        .chars()
        .count()
}

fn to_i128(n: usize) -> i128 {
    i128::try_from(n).unwrap_or(i128::MAX)
}

/// A count as a JS number. The ratios (0.3, 0.8, 0.2) are applied in floating point, as
/// OpenClaw does, so rounding at exact multiples matches it; counts stay far below 2^53.
#[allow(clippy::cast_precision_loss)]
pub(crate) fn as_f64(n: usize) -> f64 {
    n as f64
}

/// JS `Math.floor` of a non-negative product, as a count (saturating; NaN is 0).
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
pub(crate) fn js_floor(x: f64) -> usize {
    x.floor().max(0.0) as usize
}

/// OpenClaw's `hasImportantTail`: the lowercased last 2 000 chars hold an error or summary word
/// (whole word, ASCII word boundaries as JS `\b`), or end in `}` after trimming.
fn has_important_tail(chars: &CharIndex<'_>) -> bool {
    let len = chars.len();
    let tail = chars
        .slice(len.saturating_sub(IMPORTANT_TAIL_WINDOW), len)
        .to_lowercase();
    js_trim(&tail).ends_with('}')
        || IMPORTANT_TAIL_WORDS
            .iter()
            .any(|word| contains_word(&tail, word))
}

/// Whether `word` occurs in `haystack` with a JS `\b` on both sides: no ASCII word char
/// (`[A-Za-z0-9_]`) right before or after it.
fn contains_word(haystack: &str, word: &str) -> bool {
    let is_word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    haystack.match_indices(word).any(|(at, _)| {
        let before = haystack.get(..at).and_then(|s| s.chars().next_back());
        let after = haystack
            .get(at + word.len()..)
            .and_then(|s| s.chars().next());
        !is_word(before) && !is_word(after)
    })
}

/// Byte offsets of a string's chars, so positions counted in chars slice it safely.
struct CharIndex<'a> {
    text: &'a str,
    /// Byte offset of each char, then the text's length.
    starts: Vec<usize>,
}

impl<'a> CharIndex<'a> {
    fn new(text: &'a str) -> Self {
        let mut starts: Vec<usize> = text.char_indices().map(|(at, _)| at).collect();
        starts.push(text.len());
        CharIndex { text, starts }
    }

    /// The number of chars.
    fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// Chars `from..to`, both clamped to the text (JS `slice` semantics for in-range input).
    fn slice(&self, from: usize, to: usize) -> &'a str {
        let len = self.len();
        let (from, to) = (from.min(len), to.min(len));
        if from >= to {
            return "";
        }
        self.text
            .get(self.starts[from]..self.starts[to])
            .unwrap_or("")
    }

    /// JS `lastIndexOf("\n", at)`: the last newline at a char position ≤ `at`.
    fn last_newline_at_or_before(&self, at: usize) -> Option<usize> {
        let end = at.min(self.len().saturating_sub(1));
        if self.len() == 0 {
            return None;
        }
        let bytes_end = self.starts[end + 1];
        let byte = self.text.get(..bytes_end)?.rfind('\n')?;
        self.starts.binary_search(&byte).ok()
    }

    /// JS `indexOf("\n", at)`: the first newline at a char position ≥ `at`.
    fn first_newline_at_or_after(&self, at: usize) -> Option<usize> {
        let from = self.starts[at.min(self.len())];
        let byte = from + self.text.get(from..)?.find('\n')?;
        self.starts.binary_search(&byte).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    const LINE: &str = "0123456789abcdefghij0123456789abcdefghij0123456789abcdefghij0123456789abcdefghij012345678\n";
    const BUILD: &str = "build step ok: compiled module without warnings\n";

    /// The facts the conformance vectors check, in one comparable value.
    #[derive(Debug, PartialEq)]
    struct Shape {
        len: usize,
        prefix: String,
        suffix: String,
        has_marker: bool,
    }

    fn shape(out: &str, suffix_chars: usize) -> Shape {
        let n = out.chars().count();
        Shape {
            len: n,
            prefix: out.chars().take(10).collect(),
            suffix: out.chars().skip(n.saturating_sub(suffix_chars)).collect(),
            has_marker: out.contains(MIDDLE_OMISSION_MARKER),
        }
    }

    fn expected(len: usize, prefix: &str, suffix: &str, has_marker: bool) -> Shape {
        Shape {
            len,
            prefix: prefix.to_owned(),
            suffix: suffix.to_owned(),
            has_marker,
        }
    }

    #[test]
    fn reference_and_scenario_vectors() {
        let traceback = format!(
            "{}Traceback (most recent call last):\nValueError: bad input\n",
            LINE.repeat(300)
        );
        let fatal = format!("{}FATAL: linker ran out of memory\n", BUILD.repeat(300));
        let cases: Vec<(String, usize, usize, Shape)> = vec![
            (
                "x".repeat(50_000),
                100,
                MIN_KEEP_CHARS,
                expected(
                    2037,
                    "xxxxxxxxxx",
                    "[... 48000 more characters truncated]",
                    false,
                ),
            ),
            (
                LINE.repeat(200),
                5000,
                MIN_KEEP_CHARS,
                expected(
                    4986,
                    "0123456789",
                    "012345678[... 13051 more characters truncated]",
                    false,
                ),
            ),
            (
                traceback,
                10_000,
                MIN_KEEP_CHARS,
                expected(
                    9876,
                    "0123456789",
                    "bad input\n[... 17218 more characters truncated]",
                    true,
                ),
            ),
            (
                fatal,
                9000,
                4600,
                expected(
                    8963,
                    "build step",
                    "warnings[... 5505 more characters truncated]",
                    false,
                ),
            ),
            (
                BUILD.repeat(120),
                300,
                1200,
                expected(
                    1235,
                    "build step",
                    "warnings[... 4561 more characters truncated]",
                    false,
                ),
            ),
        ];
        for (text, max, keep, want) in cases {
            let out = truncate_tool_result_text(&text, max, keep);
            assert_eq!(shape(&out, want.suffix.chars().count()), want, "max {max}");
        }
    }

    #[test]
    fn short_text_unchanged() {
        assert_eq!(
            truncate_tool_result_text("ok: 3 files\n", 100, 2000),
            "ok: 3 files\n"
        );
        assert_eq!(truncate_tool_result_text("", 0, 2000), "");
        assert_eq!(truncate_tool_result_text("abc", 3, 0), "abc");
    }

    #[test]
    fn min_keep_larger_than_text_keeps_all_and_says_one() {
        assert_eq!(
            truncate_tool_result_text(&"y".repeat(150), 100, 2000),
            format!("{}[... 1 more characters truncated]", "y".repeat(150))
        );
    }

    #[test]
    fn recovery_min_keep_zero_can_go_below_two_thousand() {
        let out = truncate_tool_result_text(&"r".repeat(900), 600, 0);
        assert_eq!(
            out,
            format!("{}[... 335 more characters truncated]", "r".repeat(565))
        );
        // A budget smaller than the notice keeps nothing but the notice.
        assert_eq!(
            truncate_tool_result_text(&"r".repeat(900), 10, 0),
            "[... 900 more characters truncated]"
        );
    }

    #[test]
    fn multibyte_text_is_cut_on_char_boundaries() {
        let text = "é😀\n".repeat(2000);
        for max in [0, 1, 2, 3, 50, 2999, 3000, 5999, 6000] {
            for keep in [0, 1, 7, 2000] {
                let out = truncate_tool_result_text(&text, max, keep);
                assert!(out.starts_with('é') || out.starts_with('['), "{max}/{keep}");
            }
        }
        let out = truncate_tool_result_text(&"é".repeat(10), 5, 3);
        assert_eq!(out, "ééé[... 7 more characters truncated]");
    }

    #[test]
    fn extreme_parameters_never_panic() {
        let texts = ["", "a", "\n", "é😀\n\n", "error}\n", &"z\n".repeat(3000)];
        let sizes = [0, 1, 2, 33, 63, 64, 2000, 6001, usize::MAX / 2, usize::MAX];
        for text in texts {
            for &max in &sizes {
                for &keep in &sizes {
                    let out = truncate_tool_result_text(text, max, keep);
                    // Either unchanged, or a prefix of the text followed by what was added.
                    let head: String = out
                        .chars()
                        .take_while(|c| *c != '[' && *c != '\u{26A0}')
                        .collect();
                    assert!(
                        out == text || text.starts_with(head.trim_end_matches('\n')),
                        "{max}/{keep}"
                    );
                }
            }
        }
    }

    #[test]
    fn head_tail_with_json_end() {
        let text = format!("{{\"items\": [{}]}}", "1,".repeat(20_000));
        let out = truncate_tool_result_text(&text, 10_000, 2000);
        assert!(out.contains(MIDDLE_OMISSION_MARKER));
        assert!(out.contains("1,1,]}"), "{}", &out[out.len() - 80..]);
    }

    #[test]
    fn important_tail_words() {
        let cases = [
            ("all done", true),
            ("undone", false),
            ("exit code 2", true),
            ("Exception_ignored", false),
            ("stack trace:", true),
            ("{\"a\": 1}\n  ", true),
            ("panicked", false),
            ("ERRNO=2", true),
            ("plain output", false),
        ];
        let actual: Vec<(&str, bool)> = cases
            .iter()
            .map(|(t, _)| (*t, has_important_tail(&CharIndex::new(t))))
            .collect();
        assert_eq!(actual, cases.to_vec());
    }

    #[test]
    fn newline_search_matches_js() {
        let idx = CharIndex::new("ab\né\nc");
        assert_eq!(
            (
                idx.last_newline_at_or_before(0),
                idx.last_newline_at_or_before(2),
                idx.last_newline_at_or_before(3),
                idx.last_newline_at_or_before(99),
                idx.first_newline_at_or_after(0),
                idx.first_newline_at_or_after(3),
                idx.first_newline_at_or_after(5),
                idx.first_newline_at_or_after(99),
            ),
            (
                None,
                Some(2),
                Some(2),
                Some(4),
                Some(2),
                Some(4),
                None,
                None
            )
        );
        let empty = CharIndex::new("");
        assert_eq!(
            (
                empty.last_newline_at_or_before(3),
                empty.first_newline_at_or_after(0),
                empty.slice(0, 5)
            ),
            (None, None, "")
        );
    }
}
