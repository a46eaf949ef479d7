//! Finding the matching lines: the confined walk, ripgrep's regex engine and searcher,
//! stopping at the match limit (pi counts rg's `match` events, one per matching line).
//!
//! Every file is opened beneath its directory's descriptor (see [`crate::confined_walk`]), or
//! inside the workspace when it is the searched path itself (see [`crate::confined`]), and
//! searched once through that descriptor, with the context lines coming from the same pass.

use std::fs::File;
use std::os::fd::OwnedFd;
use std::path::Path;

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, SearcherBuilder};
use ignore::overrides::{Override, OverrideBuilder};
use tokio_util::sync::CancellationToken;

use crate::confined::{Confinement, Opened};
use crate::confined_walk::ConfinedWalk;
use crate::file_kind::FileKind;
use crate::grep::blocks::{FileBlocks, Found};
use crate::grep::format::Output;

/// What to search and how much of it to show.
pub(crate) struct Search<'a> {
    /// The searched path (a directory or a file), absolute.
    pub(crate) root: &'a Path,
    /// The pattern.
    pub(crate) matcher: &'a RegexMatcher,
    /// Lines shown before and after each match.
    pub(crate) context: u64,
    /// Matching lines taken at most.
    pub(crate) limit: u64,
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

/// The searched path, opened.
#[derive(Debug)]
pub(crate) enum Searched {
    /// A directory: its files are searched (shown relative to it).
    Dir(OwnedFd),
    /// A regular file: it alone is searched (shown by its name).
    File(File),
    /// Nothing to search (a special file, or a path that could not be opened).
    Nothing,
}

impl Searched {
    /// What the opened searched path gives.
    pub(crate) fn of(opened: Option<Opened>) -> Self {
        match opened {
            Some(Opened {
                file,
                kind: FileKind::Directory,
            }) => Searched::Dir(OwnedFd::from(file)),
            Some(Opened {
                file,
                kind: FileKind::Regular,
            }) => Searched::File(file),
            _ => Searched::Nothing,
        }
    }
}

/// Searches every file under the root (or the root itself when it is a file) until the limit
/// of matching lines was taken or `cancel` fires, writing pi's blocks to `output`. Unreadable
/// files, special files, files swapped for a link meanwhile, and binary files (a NUL byte) are
/// skipped, as rg skips what it cannot search.
pub(crate) fn search(
    search: &Search<'_>,
    searched: Searched,
    overrides: Option<Override>,
    confinement: &Confinement,
    output: &mut Output,
    cancel: &CancellationToken,
) -> Found {
    let context = usize::try_from(search.context).unwrap_or(usize::MAX);
    let mut searcher = SearcherBuilder::new()
        .binary_detection(BinaryDetection::quit(b'\x00'))
        .line_number(true)
        .before_context(context)
        .after_context(context)
        .build();
    let mut found = Found::default();
    let mut search_file = |file: &File, shown: &str, found: &mut Found| {
        let mut blocks =
            FileBlocks::new(shown, search.context, search.limit, found, output, cancel);
        // A file that cannot be read is skipped, as rg goes on past it.
        let _ = searcher.search_file(search.matcher, file, &mut blocks);
        blocks.close();
    };
    let dir = match searched {
        Searched::Dir(dir) => dir,
        Searched::File(file) => {
            search_file(
                &file,
                &display_path(search.root, search.root, false),
                &mut found,
            );
            return found;
        }
        Searched::Nothing => return found,
    };
    for entry in ConfinedWalk::new(search.root, dir, overrides, confinement, cancel) {
        if found.limit_reached {
            break;
        }
        if entry.kind != FileKind::Regular {
            continue;
        }
        let Some(file) = entry.open_file() else {
            continue;
        };
        let shown = display_path(&entry.path, search.root, true);
        search_file(&file, &shown, &mut found);
    }
    found
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

    fn run(root: &Path, limit: u64, context: u64) -> (Found, String) {
        let m = matcher(&pattern("x")).unwrap();
        let ctx = clawloop_core::tool::ToolContext::new(root);
        let mut output = Output::new(51_200);
        let search_args = Search {
            root,
            matcher: &m,
            context,
            limit,
        };
        let cancel = CancellationToken::new();
        let confinement = Confinement::new(&ctx);
        let opened = confinement.open(root, crate::confined::Purpose::Read).ok();
        let found = search(
            &search_args,
            Searched::of(opened),
            None,
            &confinement,
            &mut output,
            &cancel,
        );
        (found, output.finish().0.content)
    }

    #[test]
    fn search_stops_at_the_limit_and_skips_binary_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "x\nx\nx\n").unwrap();
        std::fs::write(dir.path().join("b.bin"), b"x\0x\n").unwrap();
        assert_eq!(
            run(dir.path(), 2, 0),
            (
                Found {
                    matches: 2,
                    limit_reached: true
                },
                "a.txt:1: x\na.txt:2: x".to_owned()
            )
        );
        let (found, _) = run(dir.path(), 100, 0);
        assert_eq!(
            found,
            Found {
                matches: 3,
                limit_reached: false
            }
        );
    }

    #[test]
    fn blocks_repeat_shared_lines_and_end_with_pis_empty_last_line() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/f.txt"), "a\r\nx1\nx2\nb\n").unwrap();
        let (_, text) = run(dir.path(), 100, 2);
        assert_eq!(
            text,
            "sub/f.txt-1- a\nsub/f.txt:2: x1\nsub/f.txt-3- x2\nsub/f.txt-4- b\n\
             sub/f.txt-1- a\nsub/f.txt-2- x1\nsub/f.txt:3: x2\nsub/f.txt-4- b\nsub/f.txt-5- "
        );
        // The limit-th match still gets its after-context.
        let (found, text) = run(dir.path(), 1, 1);
        assert_eq!(found.limit_reached, true);
        assert_eq!(text, "sub/f.txt-1- a\nsub/f.txt:2: x1\nsub/f.txt-3- x2");
    }
}
