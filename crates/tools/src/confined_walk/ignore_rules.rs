//! Which entries a walk skips: rg's `--glob` overrides, then `.ignore`, `.gitignore`,
//! `$GIT_DIR/info/exclude` and git's global excludes file, with the precedence the `ignore`
//! crate's walker gives them as `find` and `grep` configured it (`hidden(false)`,
//! `parents(true)`, `require_git(false)`): only its matchers (`Gitignore`, `Override`) are used
//! here, over files read through the walk's own descriptors.
//!
//! * An override that matches decides alone (a whitelisted file is searched even if ignored);
//!   with whitelist globs, a file matching none is skipped.
//! * Otherwise, for each kind of file (`.ignore` before `.gitignore` before `info/exclude`
//!   before the global file), the nearest directory whose file says something about the path
//!   decides; the first kind that decides wins.
//! * Ignore files of the directories above the search directory count too, matched against
//!   the search directory's real path, as rg and fd do.
//!
//! Ignore files of walked directories are opened beneath the directory's descriptor with
//! `O_NOFOLLOW`; one that is a symlink is followed only inside the workspace
//! ([`Confinement::open`]). Files outside the workspace — the ignore files of the directories
//! above it, a worktree's git directory, the global excludes file — are read by path, as rg
//! reads them: they only decide which inside names are hidden, and never add one.

use std::ffi::OsStr;
use std::fs::File;
use std::io::Read;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::overrides::Override;
use rustix::fs::{Mode, OFlags};

use crate::confined::{Confinement, Purpose};
use crate::file_kind::FileKind;
use crate::workspace::normalize_lexically;

/// Flags for an ignore file (or a directory on the way to one): never a link, never blocking
/// on a FIFO swapped in.
const RULES_FILE: OFlags = OFlags::RDONLY
    .union(OFlags::NOFOLLOW)
    .union(OFlags::NONBLOCK)
    .union(OFlags::NOCTTY)
    .union(OFlags::CLOEXEC);

/// The ignore files of one directory.
#[derive(Debug, Clone)]
pub(crate) struct DirRules {
    ignore: Gitignore,
    git_ignore: Gitignore,
    git_exclude: Gitignore,
}

impl DirRules {
    fn is_empty(&self) -> bool {
        self.ignore.is_empty() && self.git_ignore.is_empty() && self.git_exclude.is_empty()
    }
}

/// The rules of a walked directory and of those above it, nearest first. Directories without
/// ignore files share their parent's chain.
#[derive(Debug)]
pub(crate) struct Chain {
    rules: DirRules,
    parent: Option<Rc<Chain>>,
}

/// Which ignore files a directory's listing holds, so that absent ones are not looked up.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Present {
    /// `.ignore`.
    pub(crate) ignore: bool,
    /// `.gitignore`.
    pub(crate) git_ignore: bool,
    /// `.git` (a directory, or a file naming a worktree's git directory).
    pub(crate) git: bool,
}

impl Present {
    /// Notes `name`, one entry of the listing.
    pub(crate) fn note(&mut self, name: &OsStr) {
        match name.as_encoded_bytes() {
            b".ignore" => self.ignore = true,
            b".gitignore" => self.git_ignore = true,
            b".git" => self.git = true,
            _ => {}
        }
    }
}

/// The rules that hold for the whole walk.
#[derive(Debug)]
pub(crate) struct Rules<'a> {
    confinement: &'a Confinement,
    /// The search directory as the walk names it.
    root: PathBuf,
    /// rg's `--glob` filters.
    overrides: Option<Override>,
    /// Git's global excludes file, relative to the search directory.
    global: Gitignore,
    /// The search directory's real path, and the rules of the directories above it, nearest
    /// first (only those with ignore files).
    above: Option<(PathBuf, Vec<DirRules>)>,
}

impl<'a> Rules<'a> {
    /// The rules for a walk of `root`: its overrides, the global excludes file, and the
    /// ignore files above it.
    pub(crate) fn new(
        root: &Path,
        overrides: Option<Override>,
        confinement: &'a Confinement,
    ) -> Self {
        let (global, _) = GitignoreBuilder::new(root).build_global();
        let mut rules = Rules {
            confinement,
            root: root.to_owned(),
            overrides: overrides.filter(|o| !o.is_empty()),
            global,
            above: None,
        };
        // rg takes the real path; when it cannot be had, the directories above do not count.
        if let Ok(real) = std::fs::canonicalize(root) {
            let above: Vec<DirRules> = real
                .ancestors()
                .skip(1)
                .map(|dir| rules.dir_rules_by_path(dir))
                .filter(|r| !r.is_empty())
                .collect();
            if !above.is_empty() {
                rules.above = Some((real, above));
            }
        }
        rules
    }

    /// The chain for a walked directory `dir` (descriptor `fd`) below `parent`'s.
    pub(crate) fn child(
        &self,
        parent: Option<&Rc<Chain>>,
        dir: &Path,
        fd: BorrowedFd<'_>,
        present: Present,
    ) -> Option<Rc<Chain>> {
        let beneath = |name: &str| {
            let content = read_beneath(fd, name).or_else(|| self.read_inside(&dir.join(name)));
            build(dir, &dir.join(name), content)
        };
        let rules = DirRules {
            ignore: if present.ignore {
                beneath(".ignore")
            } else {
                Gitignore::empty()
            },
            git_ignore: if present.git_ignore {
                beneath(".gitignore")
            } else {
                Gitignore::empty()
            },
            git_exclude: if present.git {
                self.git_exclude(dir, Some(fd))
            } else {
                Gitignore::empty()
            },
        };
        if rules.is_empty() {
            return parent.cloned();
        }
        Some(Rc::new(Chain {
            rules,
            parent: parent.cloned(),
        }))
    }

    /// Whether the entry at `path` (in a directory whose chain is `chain`) is skipped.
    pub(crate) fn is_ignored(&self, chain: Option<&Rc<Chain>>, path: &Path, is_dir: bool) -> bool {
        if let Some(overrides) = &self.overrides {
            let decided = overrides.matched(path, is_dir);
            if !decided.is_none() {
                return decided.is_ignore();
            }
        }
        let mut found = Found::new();
        let mut level = chain;
        while let Some(chain) = level {
            found.take(&chain.rules, path, is_dir);
            level = chain.parent.as_ref();
        }
        if let Some((real, above)) = &self.above {
            let relative = path.strip_prefix(&self.root).unwrap_or(path);
            let path = real.join(relative);
            for rules in above {
                found.take(rules, &path, is_dir);
            }
        }
        found
            .ignore
            .or(found.git_ignore)
            .or(found.git_exclude)
            .or(self.global.matched(path, is_dir).map(|_| ()))
            .is_ignore()
    }

    /// The ignore files of a directory above the search directory, read by path.
    fn dir_rules_by_path(&self, dir: &Path) -> DirRules {
        let by_path = |name: &str| {
            let path = dir.join(name);
            build(dir, &path, self.read_by_path(&path))
        };
        DirRules {
            ignore: by_path(".ignore"),
            git_ignore: by_path(".gitignore"),
            git_exclude: self.git_exclude(dir, None),
        }
    }

    /// `info/exclude` of the git directory of `dir` (`dir/.git`, or the common directory of
    /// the worktree a `.git` file names), beneath `fd` when it is `dir/.git/info/exclude`.
    fn git_exclude(&self, dir: &Path, fd: Option<BorrowedFd<'_>>) -> Gitignore {
        let dot_git = dir.join(".git");
        let beneath = || fd.and_then(|fd| read_beneath(fd, ".git/info/exclude"));
        let content = match self.git_file(&dot_git, fd) {
            // A `.git` file: `gitdir: <path>`, whose `commondir` holds the shared directory.
            Some(text) => worktree_common_dir(&text, dir, |p| self.read_by_path(p))
                .and_then(|common| self.read_by_path(&common.join("info/exclude"))),
            None => beneath().or_else(|| self.read_by_path(&dot_git.join("info/exclude"))),
        };
        build(dir, &dot_git.join("info/exclude"), content)
    }

    /// The text of `dot_git` when it is a regular file (a worktree's or submodule's pointer).
    fn git_file(&self, dot_git: &Path, fd: Option<BorrowedFd<'_>>) -> Option<Vec<u8>> {
        match fd {
            Some(fd) => read_beneath(fd, ".git"),
            None => self.read_by_path(dot_git),
        }
    }

    /// A regular file at `path`: through the confinement when `path` is inside the workspace
    /// (so a link cannot lead out), by path otherwise.
    fn read_by_path(&self, path: &Path) -> Option<Vec<u8>> {
        // A worktree pointer's path may hold `..`.
        let normal = normalize_lexically(path);
        if self.confinement.contains(&normal) {
            return self.read_inside(&normal);
        }
        let fd =
            rustix::fs::open(path, RULES_FILE.difference(OFlags::NOFOLLOW), Mode::empty()).ok()?;
        read_regular(fd)
    }

    /// A regular file inside the workspace, its links followed inside only.
    fn read_inside(&self, path: &Path) -> Option<Vec<u8>> {
        let opened = self.confinement.open(path, Purpose::Read).ok()?;
        if opened.kind != FileKind::Regular {
            return None;
        }
        read_all(opened.file)
    }
}

/// The first match of each kind, nearest directory first.
struct Found {
    ignore: Match<()>,
    git_ignore: Match<()>,
    git_exclude: Match<()>,
}

impl Found {
    fn new() -> Self {
        Found {
            ignore: Match::None,
            git_ignore: Match::None,
            git_exclude: Match::None,
        }
    }

    fn take(&mut self, rules: &DirRules, path: &Path, is_dir: bool) {
        for (found, matcher) in [
            (&mut self.ignore, &rules.ignore),
            (&mut self.git_ignore, &rules.git_ignore),
            (&mut self.git_exclude, &rules.git_exclude),
        ] {
            if found.is_none() {
                *found = matcher.matched(path, is_dir).map(|_| ());
            }
        }
    }
}

/// The file `relative` (`/`-separated) beneath `dir`, every component opened with
/// `O_NOFOLLOW`; `None` when missing, not a regular file, or reached only through a link.
fn read_beneath(dir: BorrowedFd<'_>, relative: &str) -> Option<Vec<u8>> {
    let mut names = relative.split('/');
    let last = names.next_back()?;
    let mut held: Option<OwnedFd> = None;
    for name in names {
        let at = held.as_ref().map_or(dir, AsFd::as_fd);
        held =
            Some(rustix::fs::openat(at, name, RULES_FILE | OFlags::DIRECTORY, Mode::empty()).ok()?);
    }
    let at = held.as_ref().map_or(dir, AsFd::as_fd);
    read_regular(rustix::fs::openat(at, last, RULES_FILE, Mode::empty()).ok()?)
}

/// The content of `fd` when it is a regular file.
fn read_regular(fd: OwnedFd) -> Option<Vec<u8>> {
    let stat = rustix::fs::fstat(&fd).ok()?;
    if FileKind::of(&stat) != FileKind::Regular {
        return None;
    }
    read_all(File::from(fd))
}

fn read_all(mut file: File) -> Option<Vec<u8>> {
    let mut content = Vec::new();
    file.read_to_end(&mut content).ok()?;
    Some(content)
}

/// The common git directory of the worktree whose `.git` file (in `dir`) says `text`:
/// `gitdir: <path>` (relative to `dir`), whose `commondir` file names the shared directory
/// (relative to the git directory). `None` for a submodule (no `commondir`) or anything else.
fn worktree_common_dir(
    text: &[u8],
    dir: &Path,
    read: impl Fn(&Path) -> Option<Vec<u8>>,
) -> Option<PathBuf> {
    let git_dir = dir.join(first_line(text)?.strip_prefix("gitdir: ")?);
    let common = read(&git_dir.join("commondir"))?;
    Some(git_dir.join(first_line(&common)?))
}

/// The first line of `text`, without its line ending; `None` when empty or not UTF-8.
fn first_line(text: &[u8]) -> Option<&str> {
    let line = text.split(|b| *b == b'\n').next()?;
    let line = std::str::from_utf8(line).ok()?;
    let line = line.strip_suffix('\r').unwrap_or(line);
    (!line.is_empty()).then_some(line)
}

/// The matcher of one ignore file of `dir`, as `GitignoreBuilder::add` reads it: one glob per
/// line (a leading BOM dropped, `\r\n` taken as the line end), stopping at the first line that
/// is not UTF-8; a line that is not a valid glob is left out.
fn build(dir: &Path, path: &Path, content: Option<Vec<u8>>) -> Gitignore {
    let Some(content) = content else {
        return Gitignore::empty();
    };
    let mut builder = GitignoreBuilder::new(dir);
    let mut rest = content.as_slice();
    let mut first = true;
    while !rest.is_empty() {
        let (line, next) = match rest.iter().position(|b| *b == b'\n') {
            Some(end) => {
                let line = &rest[..end];
                (line.strip_suffix(b"\r").unwrap_or(line), &rest[end + 1..])
            }
            None => (rest, &[][..]),
        };
        rest = next;
        let Ok(line) = std::str::from_utf8(line) else {
            break;
        };
        let line = if first {
            line.trim_start_matches('\u{feff}')
        } else {
            line
        };
        first = false;
        let _ = builder.add_line(Some(path.to_owned()), line);
    }
    builder.build().unwrap_or_else(|_| Gitignore::empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignore_files_are_read_like_gitignore_builder_add() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(".gitignore");
        let content = b"\xef\xbb\xbfa.txt\r\n# c\n!b\n*.log\nc\xff\nd\n";
        std::fs::write(&file, content).unwrap();
        let mut reference = GitignoreBuilder::new(dir.path());
        let _ = reference.add(&file);
        let reference = reference.build().unwrap();
        let ours = build(dir.path(), &file, Some(content.to_vec()));
        assert_eq!(ours.len(), reference.len());
        for (name, is_dir) in [
            ("a.txt", false),
            ("b", true),
            ("x.log", false),
            ("d", false),
        ] {
            let path = dir.path().join(name);
            assert_eq!(
                format!("{:?}", ours.matched(&path, is_dir).map(|g| g.original())),
                format!(
                    "{:?}",
                    reference.matched(&path, is_dir).map(|g| g.original())
                ),
                "{name}"
            );
        }
    }

    #[test]
    fn a_worktree_pointer_leads_to_the_common_directory() {
        let files = |p: &Path| {
            (p == Path::new("/repo/.git/worktrees/w/commondir")).then(|| b"../..\n".to_vec())
        };
        assert_eq!(
            worktree_common_dir(b"gitdir: /repo/.git/worktrees/w\n", Path::new("/wt"), files),
            Some(PathBuf::from("/repo/.git/worktrees/w/../.."))
        );
        assert_eq!(
            worktree_common_dir(b"gitdir: ../.git/modules/m\n", Path::new("/repo/m"), files),
            None
        );
        assert_eq!(
            worktree_common_dir(b"nonsense", Path::new("/wt"), files),
            None
        );
    }
}
