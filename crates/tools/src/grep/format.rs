//! pi's grep output: one block per match, re-read from the file so context lines come along.
//!
//! A match line reads `path:N: text`, a context line `path-N- text`; every line is cut at 500
//! UTF-16 units. Blocks of nearby matches overlap and repeat their shared lines, as pi's do.

use std::path::Path;

use crate::grep::search::Match;
use crate::truncate::{GREP_MAX_LINE_LENGTH, truncate_line};

/// The formatted lines and whether any was cut at the line length limit.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Blocks {
    /// Output lines, in match order.
    pub(crate) lines: Vec<String>,
    /// Whether some line was longer than [`GREP_MAX_LINE_LENGTH`].
    pub(crate) lines_truncated: bool,
}

/// Formats every match with `context` lines around it. `root` is the searched path; `is_dir`
/// says whether it was a directory (paths are then shown relative to it, else by file name).
pub(crate) fn format_blocks(
    matches: &[Match],
    root: &Path,
    is_dir: bool,
    context: usize,
) -> Blocks {
    let mut blocks = Blocks::default();
    // Matches of one file are adjacent (the walk finishes a file before the next), so caching
    // the last file read is enough.
    let mut cached: Option<(&Path, Vec<String>)> = None;
    for found in matches {
        let lines = match &cached {
            Some((path, lines)) if *path == found.path.as_path() => lines,
            _ => {
                let lines = file_lines(&found.path);
                &cached.insert((found.path.as_path(), lines)).1
            }
        };
        let shown = display_path(&found.path, root, is_dir);
        if lines.is_empty() {
            blocks.lines.push(format!(
                "{shown}:{}: (unable to read file)",
                found.line_number
            ));
            continue;
        }
        let line_number = usize::try_from(found.line_number).unwrap_or(usize::MAX);
        let (start, end) = if context > 0 {
            (
                line_number.saturating_sub(context).max(1),
                line_number.saturating_add(context).min(lines.len()),
            )
        } else {
            (line_number, line_number)
        };
        for current in start..=end {
            let text = lines
                .get(current.saturating_sub(1))
                .map_or("", String::as_str);
            let (text, cut) = truncate_line(&text.replace('\r', ""), GREP_MAX_LINE_LENGTH);
            blocks.lines_truncated |= cut;
            if current == line_number {
                blocks.lines.push(format!("{shown}:{current}: {text}"));
            } else {
                blocks.lines.push(format!("{shown}-{current}- {text}"));
            }
        }
    }
    blocks
}

/// The file's lines with CRLF and lone CR read as line breaks; empty when it cannot be read
/// (an empty file still has one, empty, line).
fn file_lines(path: &Path) -> Vec<String> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes)
            .replace("\r\n", "\n")
            .replace('\r', "\n")
            .split('\n')
            .map(str::to_owned)
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// pi's `formatPath`: relative to the searched directory with `/` separators, or the file name.
fn display_path(path: &Path, root: &Path, is_dir: bool) -> String {
    if is_dir && let Ok(relative) = path.strip_prefix(root) {
        let parts: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let relative = parts.join("/");
        if !relative.is_empty() && !relative.starts_with("..") {
            return relative;
        }
    }
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn context_blocks_repeat_shared_lines_like_pi() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("sub").join("f.txt");
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(&file, "a\r\nm1\nm2\nb").unwrap();
        let matches = [
            Match {
                path: file.clone(),
                line_number: 2,
            },
            Match {
                path: file.clone(),
                line_number: 3,
            },
        ];
        let blocks = format_blocks(&matches, dir.path(), true, 1);
        assert_eq!(
            blocks.lines,
            [
                "sub/f.txt-1- a",
                "sub/f.txt:2: m1",
                "sub/f.txt-3- m2",
                "sub/f.txt-2- m1",
                "sub/f.txt:3: m2",
                "sub/f.txt-4- b",
            ]
        );
        let single = format_blocks(&matches[..1], &file, false, 0);
        assert_eq!(single.lines, ["f.txt:2: m1"]);
    }

    #[test]
    fn long_lines_are_cut_and_unreadable_files_say_so() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("long.txt");
        std::fs::write(&file, "x".repeat(600)).unwrap();
        let matches = [Match {
            path: file,
            line_number: 1,
        }];
        let blocks = format_blocks(&matches, dir.path(), true, 0);
        assert_eq!(
            blocks,
            Blocks {
                lines: vec![format!("long.txt:1: {}... [truncated]", "x".repeat(500))],
                lines_truncated: true,
            }
        );
        let gone = [Match {
            path: dir.path().join("gone.txt"),
            line_number: 7,
        }];
        assert_eq!(
            format_blocks(&gone, dir.path(), true, 2).lines,
            ["gone.txt:7: (unable to read file)"]
        );
    }
}
