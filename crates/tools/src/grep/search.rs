//! Finding the matching lines: ripgrep's walker, regex engine and searcher, stopping at the
//! match limit (pi counts rg's `match` events, one per matching line).

use std::path::{Path, PathBuf};

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::sinks::Lossy;
use grep_searcher::{BinaryDetection, SearcherBuilder};
use ignore::overrides::{Override, OverrideBuilder};
use tokio_util::sync::CancellationToken;

use crate::find::walker::walker;

/// One matching line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Match {
    /// The file, as the walk produced it (the search root joined with the relative path).
    pub(crate) path: PathBuf,
    /// 1-based line number.
    pub(crate) line_number: u64,
}

/// What the search found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Found {
    /// The matches in walk order, at most the limit.
    pub(crate) matches: Vec<Match>,
    /// Whether the limit was reached (pi sets this on the limit-th match even if no more follow).
    pub(crate) limit_reached: bool,
}

/// rg's pattern flags as pi passes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pattern<'a> {
    /// The regex, or the literal text with `literal`.
    pub(crate) text: &'a str,
    /// `--ignore-case`.
    pub(crate) ignore_case: bool,
    /// `--fixed-strings`.
    pub(crate) literal: bool,
}

/// rg's matcher for the pattern; the error text is rg's (`regex parse error: …`).
pub(crate) fn matcher(pattern: &Pattern<'_>) -> Result<RegexMatcher, String> {
    RegexMatcherBuilder::new()
        .case_insensitive(pattern.ignore_case)
        .fixed_strings(pattern.literal)
        // Lines are searched one at a time, so a pattern that needs `\n` can never match;
        // rg refuses it with this setting and so do we.
        .line_terminator(Some(b'\n'))
        .build(pattern.text)
        .map_err(|err| err.to_string())
}

/// rg's `--glob` filter relative to `root`.
pub(crate) fn glob_filter(root: &Path, glob: &str) -> Result<Override, String> {
    let mut builder = OverrideBuilder::new(root);
    builder.add(glob).map_err(|err| err.to_string())?;
    builder.build().map_err(|err| err.to_string())
}

/// Searches every file under `root` (or `root` itself when it is a file) until `limit`
/// matching lines were found or `cancel` fires. Unreadable files and binary files (a NUL
/// byte) are skipped, as rg skips them.
pub(crate) fn search(
    root: &Path,
    matcher: &RegexMatcher,
    overrides: Option<Override>,
    limit: u64,
    cancel: &CancellationToken,
) -> Found {
    let mut searcher = SearcherBuilder::new()
        .binary_detection(BinaryDetection::quit(b'\x00'))
        .line_number(true)
        .build();
    let mut found = Found::default();
    for entry in walker(root, overrides).build() {
        if cancel.is_cancelled() || found.limit_reached {
            break;
        }
        let Ok(entry) = entry else { continue };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let path = entry.path();
        let sink = Lossy(|line_number, _line| {
            found.matches.push(Match {
                path: path.to_owned(),
                line_number,
            });
            let reached = found.matches.len() as u64 >= limit;
            found.limit_reached = reached;
            Ok(!reached && !cancel.is_cancelled())
        });
        // A file that cannot be read is skipped, as rg goes on past it.
        let _ = searcher.search_path(matcher, path, sink);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn pattern(text: &str) -> Pattern<'_> {
        Pattern {
            text,
            ignore_case: false,
            literal: false,
        }
    }

    #[test]
    fn newline_patterns_are_refused_like_rg() {
        assert_eq!(
            matcher(&pattern("a\nb")).unwrap_err(),
            "the literal \"\\n\" is not allowed in a regex"
        );
    }

    #[test]
    fn search_stops_at_the_limit_and_skips_binary_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "x\nx\nx\n").unwrap();
        std::fs::write(dir.path().join("b.bin"), b"x\0x\n").unwrap();
        let m = matcher(&pattern("x")).unwrap();
        let cancel = CancellationToken::new();
        let found = search(dir.path(), &m, None, 2, &cancel);
        let lines: Vec<u64> = found.matches.iter().map(|m| m.line_number).collect();
        assert_eq!((lines, found.limit_reached), (vec![1, 2], true));
        let found = search(dir.path(), &m, None, 100, &cancel);
        assert_eq!((found.matches.len(), found.limit_reached), (3, false));
    }
}
