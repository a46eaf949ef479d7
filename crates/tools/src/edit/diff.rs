//! The edit tool's display diff: pi's `generateDiffString` (pi-mono §3.7.1 step 5) over a line
//! diff from `similar`.
//!
//! Not a patch format: every shown line carries its line number (`+`/`-` lines their number in
//! the new/old file, context lines their old number), right-aligned to the width of the larger
//! line count, with up to `context_lines` unchanged lines around each change and ` ...` where
//! unchanged lines are skipped.

use std::time::Duration;

use similar::{Algorithm, ChangeTag, TextDiff};

/// pi's default number of context lines around a change.
pub const DEFAULT_CONTEXT_LINES: usize = 4;

/// How long the line diff may search for a minimal diff before settling for a coarser one: the
/// diff is only shown to people, so a huge rewrite must not stall the tool.
const DIFF_DEADLINE: Duration = Duration::from_secs(2);

/// The diff text and the first changed line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditDiff {
    /// pi's `details.diff`.
    pub diff: String,
    /// 1-based line of the first change in the new file; `None` when nothing changed.
    pub first_changed_line: Option<usize>,
}

/// One run of lines with the same change kind, as jsdiff's `diffLines` reports it.
struct Part {
    tag: ChangeTag,
    value: String,
}

/// pi's `generateDiffString(old, new, contextLines)`.
pub fn generate_diff_string(old: &str, new: &str, context_lines: usize) -> EditDiff {
    let parts = line_parts(old, new);
    let max_line_num = old.split('\n').count().max(new.split('\n').count());
    let width = max_line_num.to_string().len();
    let blank = " ".repeat(width);

    let mut output: Vec<String> = Vec::new();
    let mut old_line = 1usize;
    let mut new_line = 1usize;
    let mut last_was_change = false;
    let mut first_changed_line = None;

    for (i, part) in parts.iter().enumerate() {
        let mut raw: Vec<&str> = part.value.split('\n').collect();
        if raw.last() == Some(&"") {
            raw.pop();
        }
        match part.tag {
            ChangeTag::Insert | ChangeTag::Delete => {
                if first_changed_line.is_none() {
                    first_changed_line = Some(new_line);
                }
                for line in raw {
                    if part.tag == ChangeTag::Insert {
                        output.push(format!("+{new_line:>width$} {line}"));
                        new_line += 1;
                    } else {
                        output.push(format!("-{old_line:>width$} {line}"));
                        old_line += 1;
                    }
                }
                last_was_change = true;
            }
            ChangeTag::Equal => {
                let next_is_change = parts
                    .get(i + 1)
                    .is_some_and(|next| next.tag != ChangeTag::Equal);
                if last_was_change || next_is_change {
                    let mut shown: &[&str] = &raw;
                    let mut skip_start = 0usize;
                    let mut skip_end = 0usize;
                    if !last_was_change {
                        skip_start = raw.len().saturating_sub(context_lines);
                        shown = &raw[skip_start..];
                    }
                    if !next_is_change && shown.len() > context_lines {
                        skip_end = shown.len() - context_lines;
                        shown = &shown[..context_lines];
                    }
                    if skip_start > 0 {
                        output.push(format!(" {blank} ..."));
                        old_line += skip_start;
                        new_line += skip_start;
                    }
                    for line in shown {
                        output.push(format!(" {old_line:>width$} {line}"));
                        old_line += 1;
                        new_line += 1;
                    }
                    if skip_end > 0 {
                        output.push(format!(" {blank} ..."));
                        old_line += skip_end;
                        new_line += skip_end;
                    }
                } else {
                    old_line += raw.len();
                    new_line += raw.len();
                }
                last_was_change = false;
            }
        }
    }
    EditDiff {
        diff: output.join("\n"),
        first_changed_line,
    }
}

/// The line diff as runs of equal, removed and added lines (each line with its `\n`), removals
/// before additions within a change, as jsdiff orders them.
fn line_parts(old: &str, new: &str) -> Vec<Part> {
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Myers)
        .timeout(DIFF_DEADLINE)
        .diff_lines(old, new);
    let mut parts: Vec<Part> = Vec::new();
    for op in diff.ops() {
        for change in diff.iter_changes(op) {
            let tag = change.tag();
            match parts.last_mut() {
                Some(last) if last.tag == tag => last.value.push_str(change.value()),
                _ => parts.push(Part {
                    tag,
                    value: change.value().to_owned(),
                }),
            }
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// The example pinned in pi-mono §3.7.1.
    #[test]
    fn matches_the_pinned_pi_example() {
        let old: String = (1..=12).map(|n| format!("line {n}\n")).collect();
        let new = old.replace("line 6\nline 7", "LINE SIX");
        assert_eq!(
            generate_diff_string(&old, &new, DEFAULT_CONTEXT_LINES),
            EditDiff {
                diff: "    ...\n  2 line 2\n  3 line 3\n  4 line 4\n  5 line 5\n- 6 line 6\n- 7 line 7\n+ 6 LINE SIX\n  8 line 8\n  9 line 9\n 10 line 10\n 11 line 11\n    ...".to_owned(),
                first_changed_line: Some(6),
            }
        );
    }

    #[test]
    fn change_on_the_first_line_and_a_last_line_without_newline() {
        assert_eq!(
            generate_diff_string("a\nb", "A\nb", DEFAULT_CONTEXT_LINES),
            EditDiff {
                diff: "-1 a\n+1 A\n 2 b".to_owned(),
                first_changed_line: Some(1),
            }
        );
        assert_eq!(
            generate_diff_string("a\nb", "a\nB", DEFAULT_CONTEXT_LINES),
            EditDiff {
                diff: " 1 a\n-2 b\n+2 B".to_owned(),
                first_changed_line: Some(2),
            }
        );
    }

    #[test]
    fn identical_texts_have_no_change() {
        assert_eq!(
            generate_diff_string("same\n", "same\n", DEFAULT_CONTEXT_LINES),
            EditDiff {
                diff: String::new(),
                first_changed_line: None,
            }
        );
    }
}
