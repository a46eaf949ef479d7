//! How `find` matches its glob, following fd's `--glob` as (newer) pi drives it.
//!
//! * A pattern without `/` is matched against the entry's file name (`*.rs`, `Cargo.toml`).
//! * A pattern with `/` is matched against the path relative to the search directory, with
//!   `**/` put in front unless it already starts with it, so `src/**/*.rs` finds every `src`
//!   tree below the search directory (pi adds `--full-path` and the same `**/`; pi 0.58 matched
//!   such patterns against the file name only, so they never matched anything).
//! * A pattern starting with `/` is matched against the absolute path.
//! * `*` and `?` do not cross `/`; only `**` does.
//! * fd's smart case: a pattern without upper-case letters matches case-insensitively.

use std::path::Path;

use globset::{GlobBuilder, GlobMatcher};

/// What a pattern is matched against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    FileName,
    RelativePath,
    AbsolutePath,
}

/// A compiled `find` pattern.
#[derive(Debug, Clone)]
pub(crate) struct FindGlob {
    matcher: GlobMatcher,
    target: Target,
}

impl FindGlob {
    /// Compiles `pattern`; the error is globset's text (`error parsing glob '[': …`).
    pub(crate) fn new(pattern: &str) -> Result<Self, String> {
        let (text, target) = if pattern.starts_with('/') {
            (pattern.to_owned(), Target::AbsolutePath)
        } else if pattern.contains('/') {
            let text = if pattern.starts_with("**/") {
                pattern.to_owned()
            } else {
                format!("**/{pattern}")
            };
            (text, Target::RelativePath)
        } else {
            (pattern.to_owned(), Target::FileName)
        };
        let smart_case_insensitive = !pattern.chars().any(char::is_uppercase);
        let glob = GlobBuilder::new(&text)
            .literal_separator(true)
            .case_insensitive(smart_case_insensitive)
            .build()
            .map_err(|err| err.to_string())?;
        Ok(FindGlob {
            matcher: glob.compile_matcher(),
            target,
        })
    }

    /// Whether the entry at `absolute`, which is `relative` below the search directory,
    /// matches.
    pub(crate) fn is_match(&self, absolute: &Path, relative: &str) -> bool {
        match self.target {
            Target::FileName => absolute
                .file_name()
                .is_some_and(|name| self.matcher.is_match(name)),
            Target::RelativePath => self.matcher.is_match(relative),
            Target::AbsolutePath => self.matcher.is_match(absolute),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, relative: &str) -> bool {
        let absolute = Path::new("/ws").join(relative);
        FindGlob::new(pattern)
            .unwrap()
            .is_match(&absolute, relative)
    }

    #[test]
    fn names_paths_and_case_follow_fd() {
        assert!(matches("*.rs", "a/b/c.rs"));
        assert!(matches("**/*.rs", "c.rs"));
        assert!(matches("**/*.rs", "a/b/c.rs"));
        assert!(!matches("*.rs", "a/b/c.rsx"));
        assert!(matches("src/*.rs", "crates/x/src/lib.rs"));
        assert!(matches("src/*.rs", "src/lib.rs"));
        assert!(!matches("src/*.rs", "src/a/lib.rs"));
        assert!(matches("src/**/*.rs", "src/a/lib.rs"));
        assert!(matches("/ws/a/*.txt", "a/x.txt"));
        assert!(!matches("/other/*.txt", "x.txt"));
        // Smart case.
        assert!(matches("*.md", "README.MD"));
        assert!(!matches("*.MD", "readme.md"));
        assert!(FindGlob::new("[").is_err());
    }
}
