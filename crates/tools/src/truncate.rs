//! Output truncation shared by the tools: pi's `truncate.ts` (`truncateHead`, `truncateTail`,
//! `truncateLine`, `formatSize`) with the same limits, counting and result shape.
//!
//! Lines are what `split("\n")` gives (so a trailing newline counts as one more, empty, line);
//! bytes are UTF-8 bytes including the newlines that join kept lines.

mod head_stream;

use clawloop_core::tool::{ToolLimits, ToolResult};
use serde::Serialize;
use serde_json::{Map, Value};

pub(crate) use head_stream::HeadCollector;

/// pi's `DEFAULT_MAX_LINES`.
pub const DEFAULT_MAX_LINES: usize = 2000;
/// pi's `DEFAULT_MAX_BYTES` (50 KB).
pub const DEFAULT_MAX_BYTES: usize = 50 * 1024;
/// pi's `GREP_MAX_LINE_LENGTH`: longest line `grep` prints, in UTF-16 units (JS string length).
pub const GREP_MAX_LINE_LENGTH: usize = 500;

/// The two limits a truncation respects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TruncationOptions {
    /// Lines kept at most.
    pub max_lines: usize,
    /// UTF-8 bytes kept at most.
    pub max_bytes: usize,
}

impl Default for TruncationOptions {
    fn default() -> Self {
        TruncationOptions {
            max_lines: DEFAULT_MAX_LINES,
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }
}

impl TruncationOptions {
    /// The output limits of a tool context.
    pub fn from_limits(limits: &ToolLimits) -> Self {
        TruncationOptions {
            max_lines: limits.max_output_lines,
            max_bytes: limits.max_output_bytes,
        }
    }
}

/// Which limit cut the output (pi's `truncatedBy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TruncatedBy {
    /// The line limit.
    Lines,
    /// The byte limit.
    Bytes,
}

/// pi's `TruncationResult`; serialized camelCase as tools store it in `details.truncation`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TruncationResult {
    /// The kept text.
    pub content: String,
    /// Whether anything was cut.
    pub truncated: bool,
    /// Which limit cut it; `None` (JSON `null`) when nothing was cut.
    pub truncated_by: Option<TruncatedBy>,
    /// Lines of the input.
    pub total_lines: usize,
    /// UTF-8 bytes of the input.
    pub total_bytes: usize,
    /// Lines kept.
    pub output_lines: usize,
    /// UTF-8 bytes kept.
    pub output_bytes: usize,
    /// `truncate_tail` only: the one kept line is the end of a line longer than the byte limit.
    pub last_line_partial: bool,
    /// `truncate_head` only: the first line alone exceeds the byte limit, nothing was kept.
    pub first_line_exceeds_limit: bool,
    /// The line limit applied.
    pub max_lines: usize,
    /// The byte limit applied.
    pub max_bytes: usize,
}

impl TruncationResult {
    /// The result for input that fits both limits.
    fn untouched(content: &str, total_lines: usize, options: TruncationOptions) -> Self {
        TruncationResult {
            content: content.to_owned(),
            truncated: false,
            truncated_by: None,
            total_lines,
            total_bytes: content.len(),
            output_lines: total_lines,
            output_bytes: content.len(),
            last_line_partial: false,
            first_line_exceeds_limit: false,
            max_lines: options.max_lines,
            max_bytes: options.max_bytes,
        }
    }
}

/// pi's `formatSize`: `"512B"`, `"50.0KB"`, `"1.5MB"`.
pub fn format_size(bytes: usize) -> String {
    let value = bytes as f64;
    if bytes < 1024 {
        format!("{bytes}B")
    } else if bytes < 1024 * 1024 {
        format!("{}KB", to_fixed_1(value / 1024.0))
    } else {
        format!("{}MB", to_fixed_1(value / (1024.0 * 1024.0)))
    }
}

/// JS `toFixed(1)`: rounds half away from zero on the decimal value (Rust's `{:.1}` rounds the
/// binary value half to even, which differs on ties such as 1.25).
fn to_fixed_1(value: f64) -> String {
    let scaled = (value * 10.0).round() / 10.0;
    format!("{scaled:.1}")
}

/// pi's `truncateHead`: keeps whole lines from the start within both limits. If the first line
/// alone is over the byte limit, nothing is kept and `first_line_exceeds_limit` is set.
pub fn truncate_head(content: &str, options: TruncationOptions) -> TruncationResult {
    let lines: Vec<&str> = content.split('\n').collect();
    let total_lines = lines.len();
    let total_bytes = content.len();
    if total_lines <= options.max_lines && total_bytes <= options.max_bytes {
        return TruncationResult::untouched(content, total_lines, options);
    }
    let first_line_bytes = lines.first().map_or(0, |line| line.len());
    if first_line_bytes > options.max_bytes {
        return TruncationResult {
            content: String::new(),
            truncated: true,
            truncated_by: Some(TruncatedBy::Bytes),
            total_lines,
            total_bytes,
            output_lines: 0,
            output_bytes: 0,
            last_line_partial: false,
            first_line_exceeds_limit: true,
            max_lines: options.max_lines,
            max_bytes: options.max_bytes,
        };
    }
    let mut kept = 0usize;
    let mut kept_bytes = 0usize;
    let mut truncated_by = TruncatedBy::Lines;
    for (index, line) in lines.iter().enumerate().take(options.max_lines) {
        let line_bytes = line.len() + usize::from(index > 0);
        if kept_bytes + line_bytes > options.max_bytes {
            truncated_by = TruncatedBy::Bytes;
            break;
        }
        kept += 1;
        kept_bytes += line_bytes;
    }
    if kept >= options.max_lines && kept_bytes <= options.max_bytes {
        truncated_by = TruncatedBy::Lines;
    }
    let output = lines[..kept].join("\n");
    TruncationResult {
        output_bytes: output.len(),
        content: output,
        truncated: true,
        truncated_by: Some(truncated_by),
        total_lines,
        total_bytes,
        output_lines: kept,
        last_line_partial: false,
        first_line_exceeds_limit: false,
        max_lines: options.max_lines,
        max_bytes: options.max_bytes,
    }
}

/// pi's `truncateTail`: keeps whole lines from the end within both limits. If the last line
/// alone is over the byte limit, its last `max_bytes` bytes are kept (starting on a character
/// boundary) and `last_line_partial` is set.
pub fn truncate_tail(content: &str, options: TruncationOptions) -> TruncationResult {
    let lines: Vec<&str> = content.split('\n').collect();
    let total_lines = lines.len();
    let total_bytes = content.len();
    if total_lines <= options.max_lines && total_bytes <= options.max_bytes {
        return TruncationResult::untouched(content, total_lines, options);
    }
    let mut kept: Vec<&str> = Vec::new();
    let mut kept_bytes = 0usize;
    let mut truncated_by = TruncatedBy::Lines;
    let mut last_line_partial = false;
    for line in lines.iter().rev() {
        if kept.len() >= options.max_lines {
            break;
        }
        let line_bytes = line.len() + usize::from(!kept.is_empty());
        if kept_bytes + line_bytes > options.max_bytes {
            truncated_by = TruncatedBy::Bytes;
            if kept.is_empty() {
                let tail = tail_bytes(line, options.max_bytes);
                kept_bytes = tail.len();
                kept.push(tail);
                last_line_partial = true;
            }
            break;
        }
        kept.push(line);
        kept_bytes += line_bytes;
    }
    if kept.len() >= options.max_lines && kept_bytes <= options.max_bytes {
        truncated_by = TruncatedBy::Lines;
    }
    kept.reverse();
    let output = kept.join("\n");
    TruncationResult {
        output_bytes: output.len(),
        output_lines: kept.len(),
        content: output,
        truncated: true,
        truncated_by: Some(truncated_by),
        total_lines,
        total_bytes,
        last_line_partial,
        first_line_exceeds_limit: false,
        max_lines: options.max_lines,
        max_bytes: options.max_bytes,
    }
}

/// The last `max_bytes` bytes of `text`, moved forward to the next character boundary (pi's
/// `truncateStringToBytesFromEnd`).
fn tail_bytes(text: &str, max_bytes: usize) -> &str {
    if text.len() <= max_bytes {
        return text;
    }
    let mut start = text.len() - max_bytes;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

/// pi's `truncateLine`: a line longer than `max_chars` UTF-16 units is cut there and marked
/// `... [truncated]`. Returns the text and whether it was cut.
///
/// Deviation: a cut that would split a surrogate pair (JS keeps the lone high surrogate) cuts
/// before the pair, since a Rust string cannot hold half a character.
pub fn truncate_line(line: &str, max_chars: usize) -> (String, bool) {
    let mut units = 0usize;
    let mut cut = None;
    for (index, c) in line.char_indices() {
        if units + c.len_utf16() > max_chars {
            cut = Some(index);
            break;
        }
        units += c.len_utf16();
    }
    match cut {
        // JS length is in UTF-16 units; a line whose units fit is untouched.
        None => (line.to_owned(), false),
        Some(index) => (format!("{}... [truncated]", &line[..index]), true),
    }
}

/// The `"<size> limit reached"` notice of `grep`, `find` and `ls` (`"50.0KB limit reached"`).
pub fn byte_limit_notice(max_bytes: usize) -> String {
    format!("{} limit reached", format_size(max_bytes))
}

/// Joins notices the way `grep`, `find` and `ls` append them: `"\n\n[a. b]"`, or nothing when
/// there are none.
pub fn notices_suffix(notices: &[String]) -> String {
    if notices.is_empty() {
        String::new()
    } else {
        format!("\n\n[{}]", notices.join(". "))
    }
}

/// The result of `grep`, `find` and `ls`: `content` with its [`notices_suffix`], and `details`
/// unless there are none.
pub(crate) fn result_with_notices(
    content: &str,
    notices: &[String],
    details: Map<String, Value>,
) -> ToolResult {
    ToolResult {
        details: (!details.is_empty()).then_some(Value::Object(details)),
        ..ToolResult::text(format!("{content}{}", notices_suffix(notices)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn opts(max_lines: usize, max_bytes: usize) -> TruncationOptions {
        TruncationOptions {
            max_lines,
            max_bytes,
        }
    }

    #[test]
    fn format_size_matches_pi() {
        assert_eq!(format_size(0), "0B");
        assert_eq!(format_size(1023), "1023B");
        assert_eq!(format_size(1024), "1.0KB");
        assert_eq!(format_size(51_200), "50.0KB");
        assert_eq!(format_size(1280), "1.3KB");
        assert_eq!(format_size(1024 * 1024), "1.0MB");
        assert_eq!(format_size(1_572_864), "1.5MB");
    }

    #[test]
    fn content_within_limits_is_untouched() {
        let result = truncate_head("a\nb\n", opts(3, 100));
        assert_eq!(
            result,
            TruncationResult {
                content: "a\nb\n".into(),
                truncated: false,
                truncated_by: None,
                total_lines: 3,
                total_bytes: 4,
                output_lines: 3,
                output_bytes: 4,
                last_line_partial: false,
                first_line_exceeds_limit: false,
                max_lines: 3,
                max_bytes: 100,
            }
        );
        assert_eq!(truncate_tail("a\nb\n", opts(3, 100)).truncated, false);
    }

    #[test]
    fn head_cuts_by_lines_then_by_bytes() {
        let by_lines = truncate_head("1\n2\n3\n4", opts(2, 100));
        assert_eq!(
            (
                by_lines.content.as_str(),
                by_lines.truncated_by,
                by_lines.output_lines,
                by_lines.total_lines
            ),
            ("1\n2", Some(TruncatedBy::Lines), 2, 4)
        );
        // "aaa" (3) + "\nbbb" (4) = 7 fits 8; "\nccc" would make 11.
        let by_bytes = truncate_head("aaa\nbbb\nccc", opts(10, 8));
        assert_eq!(
            (
                by_bytes.content.as_str(),
                by_bytes.truncated_by,
                by_bytes.output_bytes
            ),
            ("aaa\nbbb", Some(TruncatedBy::Bytes), 7)
        );
    }

    #[test]
    fn head_with_an_oversized_first_line_keeps_nothing() {
        let result = truncate_head("abcdef\nx", opts(10, 4));
        assert_eq!(
            result,
            TruncationResult {
                content: String::new(),
                truncated: true,
                truncated_by: Some(TruncatedBy::Bytes),
                total_lines: 2,
                total_bytes: 8,
                output_lines: 0,
                output_bytes: 0,
                last_line_partial: false,
                first_line_exceeds_limit: true,
                max_lines: 10,
                max_bytes: 4,
            }
        );
    }

    #[test]
    fn tail_keeps_the_end_and_a_partial_last_line() {
        let by_lines = truncate_tail("1\n2\n3\n4", opts(2, 100));
        assert_eq!(
            (by_lines.content.as_str(), by_lines.truncated_by),
            ("3\n4", Some(TruncatedBy::Lines))
        );
        let by_bytes = truncate_tail("aaa\nbbb\nccc", opts(10, 8));
        assert_eq!(
            (by_bytes.content.as_str(), by_bytes.truncated_by),
            ("bbb\nccc", Some(TruncatedBy::Bytes))
        );
        // "é" is two bytes: the last 4 bytes of "xéé" start mid-character, so 3 bytes are kept.
        let partial = truncate_tail("a\nxéé", opts(10, 4));
        assert_eq!(
            partial,
            TruncationResult {
                content: "éé".into(),
                truncated: true,
                truncated_by: Some(TruncatedBy::Bytes),
                total_lines: 2,
                total_bytes: 7,
                output_lines: 1,
                output_bytes: 4,
                last_line_partial: true,
                first_line_exceeds_limit: false,
                max_lines: 10,
                max_bytes: 4,
            }
        );
        let mid = truncate_tail("a\nxxé", opts(10, 3));
        assert_eq!(mid.content, "xé");
        let mid = truncate_tail("a\nxéx", opts(10, 2));
        assert_eq!(mid.content, "x");
    }

    #[test]
    fn truncation_result_serializes_as_pi_details() {
        let json = serde_json::to_value(truncate_head("1\n2\n3", opts(1, 100))).ok();
        assert_eq!(
            json,
            Some(serde_json::json!({
                "content": "1", "truncated": true, "truncatedBy": "lines", "totalLines": 3,
                "totalBytes": 5, "outputLines": 1, "outputBytes": 1, "lastLinePartial": false,
                "firstLineExceedsLimit": false, "maxLines": 1, "maxBytes": 100
            }))
        );
    }

    #[test]
    fn truncate_line_counts_utf16_units() {
        assert_eq!(truncate_line("abc", 3), ("abc".to_owned(), false));
        assert_eq!(
            truncate_line("abcd", 3),
            ("abc... [truncated]".to_owned(), true)
        );
        // "😀" is two UTF-16 units.
        assert_eq!(truncate_line("😀😀", 4), ("😀😀".to_owned(), false));
        assert_eq!(
            truncate_line("😀😀", 3),
            ("😀... [truncated]".to_owned(), true)
        );
    }

    #[test]
    fn notices_join_like_pi() {
        assert_eq!(notices_suffix(&[]), "");
        assert_eq!(
            notices_suffix(&[
                "100 matches limit reached".into(),
                byte_limit_notice(51_200)
            ]),
            "\n\n[100 matches limit reached. 50.0KB limit reached]"
        );
    }
}
