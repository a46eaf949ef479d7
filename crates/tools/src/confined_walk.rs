//! The directory walk `find` and `grep` share, entering every directory through a descriptor
//! so that no link leads it out of the workspace, not even one swapped in while it runs.
//!
//! A walk by name (`opendir("a/b")`) follows whatever `a` and `b` are when it gets there: a
//! directory swapped for a symlink to `/etc` between being listed and being entered makes it
//! list `/etc`. Here the search directory is opened inside the workspace
//! ([`crate::confined`]), and every directory below it with
//! `openat(parent, name, O_DIRECTORY | O_NOFOLLOW)` relative to its parent's descriptor: a
//! swap can make a directory disappear from the walk, never put an outside name in it.
//! `grep` opens each file the same way ([`Entry::open_file`]).
//!
//! What is walked is what rg and fd, as pi calls them, walk:
//!
//! * hidden files are included (pi passes `--hidden`);
//! * `.ignore`, `.gitignore`, `info/exclude` and git's global excludes file are respected, in
//!   and above the search directory, inside a git repository or not (see [`ignore_rules`]);
//! * `.git` is skipped: with `--hidden`, rg and fd would list git's own object store, which
//!   is never what a model looking at the project wants;
//! * symlinks are listed, never followed (rg's and fd's default);
//! * entries come depth first, each directory's sorted by name (bytes), a directory before
//!   its contents: the same tree always gives the same output (rg and fd walk in parallel and
//!   print in whatever order their threads finish).
//!
//! At most [`MAX_OPEN_DIRS`] descriptors of directories being walked stay open; a deeper
//! walk closes the outer ones and, coming back up, opens them again the same way (name by
//! name with `O_NOFOLLOW` from a descriptor still open), so depth costs no descriptors.

pub(crate) mod ignore_rules;

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use ignore::overrides::Override;
use rustix::fs::{AtFlags, Dir, Mode, OFlags};
use tokio_util::sync::CancellationToken;

use crate::confined::Confinement;
use crate::file_kind::FileKind;
use ignore_rules::{Chain, Present, Rules};

/// Descriptors of directories below the search directory kept open at once (walkdir, which
/// rg's walker uses, keeps 10 handles).
const MAX_OPEN_DIRS: usize = 32;

/// How many entries of one directory are read between two looks at the cancellation.
const CANCEL_CHECK_EVERY: usize = 4096;

/// Flags for entering a directory: a symlink (or anything but a directory) is refused.
const ENTER_DIR: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

/// Flags for opening a file to read: a symlink is refused, a FIFO swapped in cannot block.
const OPEN_FILE: OFlags = OFlags::RDONLY
    .union(OFlags::NOFOLLOW)
    .union(OFlags::NONBLOCK)
    .union(OFlags::NOCTTY)
    .union(OFlags::CLOEXEC);

/// One entry below the search directory.
#[derive(Debug)]
pub(crate) struct Entry {
    /// The search directory's path joined with the names walked.
    pub(crate) path: PathBuf,
    /// Its type, as listed (a symlink is not followed).
    pub(crate) kind: FileKind,
    /// The descriptor of the directory listing it.
    parent: Option<Rc<OwnedFd>>,
}

impl Entry {
    /// Whether it was listed as a directory.
    pub(crate) fn is_dir(&self) -> bool {
        self.kind == FileKind::Directory
    }

    /// The entry opened for reading beneath its directory's descriptor, if it is (still) a
    /// regular file: one swapped for a link or a special file meanwhile gives `None`.
    pub(crate) fn open_file(&self) -> Option<File> {
        let dir = self.parent.as_ref()?;
        let name = self.path.file_name()?;
        let fd = rustix::fs::openat(dir.as_fd(), name, OPEN_FILE, Mode::empty()).ok()?;
        let stat = rustix::fs::fstat(&fd).ok()?;
        (FileKind::of(&stat) == FileKind::Regular).then(|| File::from(fd))
    }
}

/// A directory being walked.
struct Frame {
    path: PathBuf,
    /// Its name in the directory above (to open it again).
    name: OsString,
    /// Its descriptor; `None` while closed to save descriptors, or when it could not be
    /// opened again.
    fd: Option<Rc<OwnedFd>>,
    /// What is left of its listing.
    entries: std::vec::IntoIter<(OsString, FileKind)>,
    /// The ignore rules its entries are matched against.
    rules: Option<Rc<Chain>>,
}

/// An iterator over the entries below a search directory, by the rules of the module.
pub(crate) struct ConfinedWalk<'a> {
    rules: Rules<'a>,
    stack: Vec<Frame>,
    /// The directory last yielded, entered before the next entry is read.
    pending: Option<OsString>,
    /// Frames below the search directory holding a descriptor.
    open_dirs: usize,
    cancel: &'a CancellationToken,
}

impl<'a> ConfinedWalk<'a> {
    /// A walk of the directory `root`, already opened (inside the confinement) as `dir`;
    /// `overrides` are rg's `--glob` filters. The walk ends early when `cancel` fires.
    pub(crate) fn new(
        root: &Path,
        dir: OwnedFd,
        overrides: Option<Override>,
        confinement: &'a Confinement,
        cancel: &'a CancellationToken,
    ) -> Self {
        let mut walk = ConfinedWalk {
            rules: Rules::new(root, overrides, confinement),
            stack: Vec::new(),
            pending: None,
            open_dirs: 0,
            cancel,
        };
        walk.push(root.to_owned(), OsString::new(), dir);
        walk
    }

    /// Lists the directory `fd` and walks it next.
    fn push(&mut self, path: PathBuf, name: OsString, fd: OwnedFd) {
        let (entries, present) = list(fd.as_fd(), self.cancel);
        let parent_rules = self.stack.last().and_then(|frame| frame.rules.as_ref());
        let rules = self.rules.child(parent_rules, &path, fd.as_fd(), present);
        if !self.stack.is_empty() {
            self.open_dirs += 1;
        }
        self.stack.push(Frame {
            path,
            name,
            fd: Some(Rc::new(fd)),
            entries: entries.into_iter(),
            rules,
        });
        self.close_outer_dirs();
    }

    /// Enters the directory `name` of the current one, if it still is a directory there.
    fn enter(&mut self, name: OsString) {
        let Some(parent) = self.stack.last() else {
            return;
        };
        let Some(parent_fd) = &parent.fd else {
            return;
        };
        // Swapped for a link, removed, or unreadable since it was listed: not walked.
        if let Ok(fd) = rustix::fs::openat(parent_fd.as_fd(), &name, ENTER_DIR, Mode::empty()) {
            let path = parent.path.join(&name);
            self.push(path, name, fd);
        }
    }

    /// Leaves the current directory.
    fn pop(&mut self) {
        if let Some(frame) = self.stack.pop()
            && frame.fd.is_some()
            && !self.stack.is_empty()
        {
            self.open_dirs -= 1;
        }
        if self.stack.last().is_some_and(|frame| frame.fd.is_none()) {
            self.reopen();
        }
    }

    /// Closes the outermost descriptors beyond [`MAX_OPEN_DIRS`] (never the search
    /// directory's, nor the current directory's).
    fn close_outer_dirs(&mut self) {
        let mut frames = self.stack.iter_mut().skip(1);
        while self.open_dirs > MAX_OPEN_DIRS {
            let Some(frame) = frames.find(|frame| frame.fd.is_some()) else {
                break;
            };
            frame.fd = None;
            self.open_dirs -= 1;
        }
    }

    /// Opens the current directory again (and the closed ones between it and the nearest
    /// open one), name by name from that open descriptor.
    fn reopen(&mut self) {
        let Some(from) = self.stack.iter().rposition(|frame| frame.fd.is_some()) else {
            return;
        };
        let mut parent = self.stack.get(from).and_then(|frame| frame.fd.clone());
        for frame in self.stack.iter_mut().skip(from + 1) {
            let Some(dir) = parent else {
                break;
            };
            let opened = rustix::fs::openat(dir.as_fd(), &frame.name, ENTER_DIR, Mode::empty());
            parent = opened.ok().map(Rc::new);
            if parent.is_some() {
                self.open_dirs += 1;
            }
            frame.fd.clone_from(&parent);
        }
        self.close_outer_dirs();
    }
}

impl Iterator for ConfinedWalk<'_> {
    type Item = Entry;

    fn next(&mut self) -> Option<Entry> {
        if let Some(name) = self.pending.take() {
            self.enter(name);
        }
        loop {
            if self.cancel.is_cancelled() {
                return None;
            }
            let frame = self.stack.last_mut()?;
            let Some((name, kind)) = frame.entries.next() else {
                self.pop();
                continue;
            };
            if name == ".git" {
                continue;
            }
            let path = frame.path.join(&name);
            let is_dir = kind == FileKind::Directory;
            if self.rules.is_ignored(frame.rules.as_ref(), &path, is_dir) {
                continue;
            }
            let parent = frame.fd.clone();
            if is_dir {
                self.pending = Some(name);
            }
            return Some(Entry { path, kind, parent });
        }
    }
}

/// The entries of the directory `dir` (without `.` and `..`) sorted by name, with their
/// types, and which ignore files are among them. An entry whose type cannot be had is left
/// out, as is the rest of a directory that fails to read.
fn list(dir: BorrowedFd<'_>, cancel: &CancellationToken) -> (Vec<(OsString, FileKind)>, Present) {
    let mut entries = Vec::new();
    let mut present = Present::default();
    let Ok(mut reader) = Dir::read_from(dir) else {
        return (entries, present);
    };
    while let Some(Ok(item)) = reader.read() {
        let bytes = item.file_name().to_bytes();
        if bytes == b"." || bytes == b".." {
            continue;
        }
        let name = OsStr::from_bytes(bytes).to_owned();
        let kind = match FileKind::from_type(item.file_type()) {
            // The file system did not say (`DT_UNKNOWN`): ask without following a link.
            FileKind::Unknown => {
                match rustix::fs::statat(dir, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW) {
                    Ok(stat) => FileKind::of(&stat),
                    Err(_) => continue,
                }
            }
            kind => kind,
        };
        present.note(&name);
        entries.push((name, kind));
        if entries.len().is_multiple_of(CANCEL_CHECK_EVERY) && cancel.is_cancelled() {
            break;
        }
    }
    entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    (entries, present)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::confined::Purpose;
    use clawloop_core::tool::ToolContext;
    use pretty_assertions::assert_eq;

    use ignore::overrides::OverrideBuilder;
    use proptest::prelude::*;

    fn shown(path: &Path, root: &Path, is_dir: bool) -> String {
        let relative = path.strip_prefix(root).unwrap().to_string_lossy();
        if is_dir {
            format!("{relative}/")
        } else {
            relative.into_owned()
        }
    }

    /// The walk of `root` inside the workspace `ws`, as relative paths (directories with `/`).
    fn walk_in(ws: &Path, root: &Path, overrides: Option<Override>) -> Vec<String> {
        let ctx = ToolContext::new(ws);
        let confinement = Confinement::new(&ctx);
        let dir = confinement.open(root, Purpose::Directory).unwrap();
        let cancel = CancellationToken::new();
        ConfinedWalk::new(
            root,
            OwnedFd::from(dir.file),
            overrides,
            &confinement,
            &cancel,
        )
        .map(|e| shown(&e.path, root, e.is_dir()))
        .collect()
    }

    fn walk(root: &Path) -> Vec<String> {
        walk_in(root, root, None)
    }

    /// What the `ignore` crate's walker, configured as `find` and `grep` configured it before
    /// the confined walk, lists.
    fn reference(root: &Path, overrides: Option<Override>) -> Vec<String> {
        let mut builder = ignore::WalkBuilder::new(root);
        builder
            .hidden(false)
            .parents(true)
            .ignore(true)
            .git_ignore(true)
            .git_global(true)
            .git_exclude(true)
            .require_git(false)
            .follow_links(false)
            .current_dir(root)
            .sort_by_file_name(|a, b| a.cmp(b))
            .filter_entry(|entry| entry.depth() == 0 || entry.file_name() != ".git");
        if let Some(overrides) = overrides {
            builder.overrides(overrides);
        }
        builder
            .build()
            .filter_map(Result::ok)
            .filter(|e| e.depth() > 0)
            .map(|e| shown(e.path(), root, e.file_type().is_some_and(|t| t.is_dir())))
            .collect()
    }

    const NAMES: [&str; 6] = ["a", "b", ".h", "x.txt", "y.log", "Z.TXT"];
    const RULES: [&str; 14] = [
        "*.log",
        "!y.log",
        "a/",
        "/b",
        "b/x.txt",
        "**/x.txt",
        "!x.txt",
        ".h",
        "Z*",
        "a/**/y.log",
        "#x.txt",
        "[",
        "\\!x",
        "*",
    ];
    const GLOBS: [&str; 6] = ["*.txt", "!*.log", "a/**", "!a", "*.TXT", "**/b/*"];

    /// Paths (indices into [`NAMES`]) and ignore files: (directory index, kind, rule indices).
    type Tree = (Vec<Vec<usize>>, Vec<(usize, usize, Vec<usize>)>);

    fn tree_strategy() -> impl Strategy<Value = Tree> {
        let paths = prop::collection::vec(prop::collection::vec(0..NAMES.len(), 1..4), 1..14);
        let rules = prop::collection::vec(
            (
                0..16usize,
                0..3usize,
                prop::collection::vec(0..RULES.len(), 0..6),
            ),
            0..8,
        );
        (paths, rules)
    }

    proptest::proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// On any tree of files, directories and ignore files (in and above the search
        /// directory, `.gitignore`, `.ignore` and `.git/info/exclude`), with or without rg's
        /// globs, the walk lists exactly what the `ignore` crate's walker listed, in order.
        #[test]
        fn the_walk_lists_what_the_ignore_walker_listed(
            (paths, rules) in tree_strategy(),
            globs in prop::collection::vec(0..GLOBS.len(), 0..3),
            below in proptest::bool::ANY,
        ) {
            let dir = tempfile::tempdir().unwrap();
            let ws = dir.path().canonicalize().unwrap();
            let mut dirs = vec![ws.clone()];
            for path in &paths {
                // Every component but the last is a directory; the last is a file unless a
                // directory of that name exists already.
                let mut at = ws.clone();
                for (i, &name) in path.iter().enumerate() {
                    at.push(NAMES[name]);
                    if i + 1 < path.len() {
                        if at.is_file() {
                            break;
                        }
                        std::fs::create_dir_all(&at).unwrap();
                        dirs.push(at.clone());
                    } else if !at.exists() {
                        std::fs::write(&at, "").unwrap();
                    }
                }
            }
            for (which, kind, lines) in &rules {
                let dir = &dirs[which % dirs.len()];
                let text: String = lines.iter().map(|&l| format!("{}\n", RULES[l])).collect();
                let file = match kind {
                    0 => dir.join(".gitignore"),
                    1 => dir.join(".ignore"),
                    _ => {
                        std::fs::create_dir_all(dir.join(".git/info")).unwrap();
                        dir.join(".git/info/exclude")
                    }
                };
                std::fs::write(file, text).unwrap();
            }
            let root = if below {
                dirs.iter().find(|d| **d != ws).cloned().unwrap_or_else(|| ws.clone())
            } else {
                ws.clone()
            };
            let overrides = (!globs.is_empty()).then(|| {
                let mut builder = OverrideBuilder::new(&root);
                for &g in &globs {
                    builder.add(GLOBS[g]).unwrap();
                }
                builder.build().unwrap()
            });
            prop_assert_eq!(
                walk_in(&ws, &root, overrides.clone()),
                reference(&root, overrides)
            );
        }
    }

    #[test]
    fn symlinks_and_a_worktree_git_file_are_walked_like_the_ignore_walker() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let (ws, repo) = (base.join("ws"), base.join("repo"));
        std::fs::create_dir_all(ws.join("sub/deep")).unwrap();
        std::fs::create_dir_all(repo.join(".git/worktrees/w")).unwrap();
        std::fs::create_dir_all(repo.join(".git/info")).unwrap();
        std::fs::write(repo.join(".git/info/exclude"), "excluded*\n").unwrap();
        std::fs::write(repo.join(".git/worktrees/w/commondir"), "../..\n").unwrap();
        std::fs::write(
            ws.join(".git"),
            format!("gitdir: {}\n", repo.join(".git/worktrees/w").display()),
        )
        .unwrap();
        std::fs::write(base.join(".gitignore"), "above*\n").unwrap();
        for file in [
            "excluded.txt",
            "above.txt",
            "kept.txt",
            "sub/deep/excluded2",
            "sub/k",
        ] {
            std::fs::write(ws.join(file), "").unwrap();
        }
        std::fs::write(ws.join("sub/.gitignore"), "!excluded2\n").unwrap();
        std::os::unix::fs::symlink(ws.join("sub"), ws.join("link")).unwrap();
        std::os::unix::fs::symlink("ignored-target", ws.join(".ignore")).unwrap();
        let walked = walk_in(&ws, &ws, None);
        assert_eq!(walked, reference(&ws, None));
        assert_eq!(
            walked,
            [
                ".ignore",
                "kept.txt",
                "link",
                "sub/",
                "sub/.gitignore",
                "sub/deep/",
                "sub/deep/excluded2",
                "sub/k"
            ]
        );
        let walked = walk_in(&ws, &ws.join("sub"), None);
        assert_eq!(walked, reference(&ws.join("sub"), None));
    }

    #[test]
    fn hidden_files_count_and_ignored_ones_and_git_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join(".gitignore"), "ignored.txt\n").unwrap();
        std::fs::write(root.join("ignored.txt"), "").unwrap();
        std::fs::write(root.join(".hidden"), "").unwrap();
        std::fs::create_dir(root.join(".git")).unwrap();
        std::fs::write(root.join(".git").join("HEAD"), "").unwrap();
        std::fs::create_dir(root.join("b")).unwrap();
        std::fs::write(root.join("b").join("a.txt"), "").unwrap();
        assert_eq!(walk(root), [".gitignore", ".hidden", "b/", "b/a.txt"]);
    }

    /// Deeper than the descriptors kept open: the outer directories are opened again on the
    /// way back, and every entry is still listed once, in order.
    #[test]
    fn a_walk_deeper_than_the_open_descriptors_lists_everything() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let depth = MAX_OPEN_DIRS * 3;
        let mut expected = Vec::new();
        let mut path = PathBuf::new();
        for _ in 0..depth {
            path.push("d");
            std::fs::create_dir(root.join(&path)).unwrap();
            expected.push(format!("{}/", path.display()));
            // After the nested directory, a file: listed on the way back up.
            std::fs::write(root.join(&path).join("z.txt"), "").unwrap();
        }
        let mut files: Vec<String> = (1..=depth)
            .map(|n| format!("{}/z.txt", vec!["d"; n].join("/")))
            .collect();
        files.reverse();
        expected.extend(files);
        assert_eq!(walk(root), expected);
    }
}
