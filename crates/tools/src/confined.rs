//! Opening a model-named file so that no symlink leads out of the workspace, not even one
//! swapped in while the call runs.
//!
//! [`resolve_path`](crate::workspace::resolve_path) checks a path by name and gives the
//! model pi's texts; opening that name afterwards would follow whatever the links on the way
//! point to *then*. So the file is opened here by walking the path one component at a time
//! from a descriptor of the workspace root:
//!
//! * every directory is opened relative to the previous one with `O_NOFOLLOW`;
//! * a symlink met on the way is read with `readlinkat` and its target walked the same way
//!   (relative targets from the link's directory, absolute ones only when they name a place
//!   inside the workspace);
//! * `..` returns to the descriptor the walk came from, and refuses to go above the root;
//! * the last component is checked with `lstat` (special files are refused without being
//!   opened), opened with `O_NOFOLLOW | O_NONBLOCK` (a FIFO swapped in cannot block the open),
//!   and its descriptor checked again with `fstat`: what is read or written is what was checked.
//!
//! Linux's `openat2(RESOLVE_BENEATH)` does the walk in the kernel, but refuses every absolute
//! symlink, including those pointing inside the workspace that `resolve_path` accepts; the
//! component walk keeps those working and runs on every Unix.
//!
//! With `allow_outside_workspace` the walk starts at `/` and follows links anywhere, so the
//! file checks (special files, `O_NONBLOCK`) still apply.

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStringExt;
use std::path::{Component, Path, PathBuf};

use clawloop_core::tool::{ToolContext, ToolError};
use rustix::fs::{AtFlags, Mode, OFlags};
use rustix::io::Errno;

use crate::file_kind::{FileKind, not_regular_message};
use crate::workspace::{PathError, confinement_roots, normalize_lexically, real_path};

/// How many symlinks (and directory creations) one walk may go through (Linux's `MAXSYMLINKS`).
const MAX_HOPS: usize = 40;

/// Flags for a directory the walk passes through. `O_PATH` needs no read permission on it
/// (only search permission, as a lookup by name does).
#[cfg(any(target_os = "linux", target_os = "android"))]
const WALK_DIR: OFlags = OFlags::PATH
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);
#[cfg(not(any(target_os = "linux", target_os = "android")))]
const WALK_DIR: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

/// What the opened file is for; decides the open flags and which kinds are accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// Reading a regular file (a directory opens too; the caller words the error).
    Read,
    /// Reading and rewriting a regular file in place (`edit`).
    Edit,
    /// Creating or overwriting a regular file, creating missing parent directories.
    Write,
    /// Listing a directory.
    Directory,
}

impl Purpose {
    fn flags(self) -> OFlags {
        let access = match self {
            Purpose::Read => OFlags::RDONLY,
            Purpose::Edit => OFlags::RDWR,
            Purpose::Write => OFlags::WRONLY | OFlags::CREATE,
            Purpose::Directory => OFlags::RDONLY | OFlags::DIRECTORY,
        };
        access | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC
    }
}

/// An opened file and what it is.
#[derive(Debug)]
pub(crate) struct Opened {
    /// The open file (a directory for [`Purpose::Directory`], possibly for [`Purpose::Read`]).
    pub(crate) file: File,
    /// Its kind, from `fstat` on the descriptor.
    pub(crate) kind: FileKind,
}

/// Why a confined open failed.
#[derive(Debug)]
pub(crate) enum OpenError {
    /// A symlink met during the walk leads outside the workspace (to about `resolved`).
    Outside {
        /// Where the walk was led.
        resolved: PathBuf,
    },
    /// The walk went through too many symlinks.
    Loop,
    /// The path is a special file (FIFO, device, socket); it was not opened for reading or
    /// writing.
    Special(FileKind),
    /// [`Purpose::Directory`]: the path exists and is not a directory.
    NotDirectory,
    /// The name could not be looked up: something on the way or the file itself is missing,
    /// not a directory, or not searchable. `in_parent` when a directory on the way failed.
    Lookup {
        /// The error.
        err: io::Error,
        /// Whether it was a directory on the way rather than the last component.
        in_parent: bool,
    },
    /// [`Purpose::Write`]: a missing parent directory could not be created.
    Mkdir(io::Error),
    /// The last component exists but opening it failed.
    Open(io::Error),
}

impl OpenError {
    /// The error for the model: the workspace's texts for a link leading out or looping,
    /// [`not_regular_message`] for a special file, and `other` (the tool's own wording, e.g.
    /// Node's) for the rest. `raw` is the path as the model wrote it.
    pub(crate) fn into_tool_error(
        self,
        ctx: &ToolContext,
        raw: &str,
        other: impl FnOnce(io::Error) -> ToolError,
    ) -> ToolError {
        match self {
            OpenError::Outside { resolved } => PathError::SymlinkOutsideWorkspace {
                raw: raw.to_owned(),
                resolved,
                root: confinement_roots(ctx)
                    .map_or_else(|| ctx.workspace_root.clone(), |(root, _)| root),
            }
            .into(),
            OpenError::Loop => PathError::SymlinkLoop {
                raw: raw.to_owned(),
            }
            .into(),
            OpenError::Special(kind) => ToolError::Failed(not_regular_message(raw, kind)),
            OpenError::NotDirectory => other(io::Error::from(io::ErrorKind::NotADirectory)),
            OpenError::Lookup { err, .. } | OpenError::Mkdir(err) | OpenError::Open(err) => {
                other(err)
            }
        }
    }
}

/// A descriptor of the workspace root (or of `/` when paths may leave it) to open paths
/// beneath.
#[derive(Debug)]
pub(crate) struct Confinement {
    /// The root's descriptor, or why it could not be opened (a missing workspace makes every
    /// path "not found").
    root: Result<OwnedFd, Errno>,
    /// Spellings of the root that absolute paths and symlink targets may start with.
    prefixes: Vec<PathBuf>,
    /// The root's real path, for messages.
    real_root: PathBuf,
    /// Whether the walk is held beneath the root.
    confined: bool,
}

impl Confinement {
    /// The confinement of `ctx`: its workspace, or the whole file system when
    /// `allow_outside_workspace` is set.
    pub(crate) fn new(ctx: &ToolContext) -> Self {
        let roots = if ctx.limits.allow_outside_workspace {
            None
        } else {
            confinement_roots(ctx)
        };
        match roots {
            Some((lexical, real)) => Confinement {
                root: rustix::fs::open(&real, WALK_DIR, Mode::empty()),
                prefixes: vec![lexical, real.clone()],
                real_root: real,
                confined: true,
            },
            None => Confinement {
                root: rustix::fs::open("/", WALK_DIR, Mode::empty()),
                prefixes: vec![PathBuf::from("/")],
                real_root: PathBuf::from("/"),
                confined: false,
            },
        }
    }

    /// Opens `path` (absolute and lexically normalized, as `resolve_path` returns it) for
    /// `purpose`, never leaving the confinement whatever the links on the way point to.
    pub(crate) fn open(&self, path: &Path, purpose: Purpose) -> Result<Opened, OpenError> {
        let root = match &self.root {
            Ok(fd) => fd.as_fd(),
            Err(errno) => {
                return Err(OpenError::Lookup {
                    err: io::Error::from(*errno),
                    in_parent: true,
                });
            }
        };
        let relative = self.relative(path)?;
        Walk {
            confinement: self,
            root,
            stack: Vec::new(),
            names: Vec::new(),
            pending: components(&relative),
            hops: 0,
        }
        .run(purpose)
    }

    /// Whether `path` (absolute, lexically normalized) names a place inside the confinement,
    /// by either spelling of its root (always, when unconfined).
    pub(crate) fn contains(&self, path: &Path) -> bool {
        !self.confined || self.prefixes.iter().any(|prefix| path.starts_with(prefix))
    }

    /// `path` relative to the root. A path that names the root by neither spelling passed
    /// `resolve_path` because its links lead inside; its real path is then walked.
    fn relative(&self, path: &Path) -> Result<PathBuf, OpenError> {
        for prefix in &self.prefixes {
            if let Ok(relative) = path.strip_prefix(prefix) {
                return Ok(relative.to_owned());
            }
        }
        let real = real_path(path).map_err(|_| OpenError::Loop)?;
        match real.strip_prefix(&self.real_root) {
            Ok(relative) => Ok(relative.to_owned()),
            Err(_) => Err(OpenError::Outside { resolved: real }),
        }
    }

    /// The root-relative rest of an absolute symlink target, if it lies inside.
    fn inside(&self, target: &Path) -> Option<PathBuf> {
        self.prefixes
            .iter()
            .find_map(|prefix| target.strip_prefix(prefix).ok())
            .map(Path::to_owned)
    }
}

/// One walk: the directories entered so far (the root not included) and what is left.
struct Walk<'a> {
    confinement: &'a Confinement,
    root: BorrowedFd<'a>,
    /// Descriptors of the directories entered below the root, innermost last.
    stack: Vec<OwnedFd>,
    /// Their names, for messages.
    names: Vec<OsString>,
    /// Components still to walk.
    pending: VecDeque<OsString>,
    hops: usize,
}

/// What the last component turned out to be.
enum Last {
    Opened(Opened),
    Link(PathBuf),
}

impl Walk<'_> {
    fn run(mut self, purpose: Purpose) -> Result<Opened, OpenError> {
        if self.pending.is_empty() {
            self.pending.push_back(OsString::from("."));
        }
        while let Some(name) = self.pending.pop_front() {
            let last = self.pending.is_empty();
            if name == ".." {
                self.up()?;
                if last {
                    self.pending.push_back(OsString::from("."));
                }
                continue;
            }
            if name == "." && !last {
                continue;
            }
            if !last {
                self.enter(name, purpose)?;
                continue;
            }
            match self.open_last(&name, purpose)? {
                Last::Opened(opened) => return Ok(opened),
                Last::Link(target) => self.follow(&target)?,
            }
        }
        // The loop only ends by returning: the last component is always opened or followed,
        // and following queues the target's components.
        Err(OpenError::Loop)
    }

    fn dir(&self) -> BorrowedFd<'_> {
        self.stack.last().map_or(self.root, AsFd::as_fd)
    }

    /// `..`: back to the directory the walk came from; above the root only when unconfined
    /// (where `/..` is `/`).
    fn up(&mut self) -> Result<(), OpenError> {
        if self.stack.pop().is_some() {
            self.names.pop();
            return Ok(());
        }
        if self.confinement.confined {
            let mut resolved = self.confinement.real_root.join("..");
            resolved.extend(self.pending.iter());
            return Err(OpenError::Outside {
                resolved: normalize_lexically(&resolved),
            });
        }
        Ok(())
    }

    /// Enters the directory `name` (not the last component), following a symlink or, for a
    /// write, creating the directory.
    fn enter(&mut self, name: OsString, purpose: Purpose) -> Result<(), OpenError> {
        let err = match rustix::fs::openat(self.dir(), &name, WALK_DIR, Mode::empty()) {
            Ok(fd) => {
                self.stack.push(fd);
                self.names.push(name);
                return Ok(());
            }
            Err(err) => err,
        };
        if let Ok(target) = rustix::fs::readlinkat(self.dir(), &name, Vec::new()) {
            return self.follow(&PathBuf::from(OsString::from_vec(target.into_bytes())));
        }
        if err == Errno::NOENT && purpose == Purpose::Write {
            self.count_hop()?;
            match rustix::fs::mkdirat(self.dir(), &name, Mode::from_raw_mode(0o777)) {
                // Created (or raced into existence): look it up again like any directory.
                Ok(()) | Err(Errno::EXIST) => {
                    self.pending.push_front(name);
                    return Ok(());
                }
                Err(err) => return Err(OpenError::Mkdir(io::Error::from(err))),
            }
        }
        Err(OpenError::Lookup {
            err: io::Error::from(err),
            in_parent: true,
        })
    }

    /// Opens the last component, or returns the symlink it is.
    fn open_last(&self, name: &OsStr, purpose: Purpose) -> Result<Last, OpenError> {
        let dir = self.dir();
        let kind = match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => Some(FileKind::of(&stat)),
            Err(Errno::NOENT) if purpose == Purpose::Write => None,
            Err(err) => {
                return Err(OpenError::Lookup {
                    err: io::Error::from(err),
                    in_parent: false,
                });
            }
        };
        match kind {
            Some(FileKind::Symlink) => {
                if let Some(target) = read_link(dir, name) {
                    return Ok(Last::Link(target));
                }
            }
            Some(FileKind::Directory) | None => {}
            Some(_) if purpose == Purpose::Directory => return Err(OpenError::NotDirectory),
            Some(kind) if kind.is_special() => return Err(OpenError::Special(kind)),
            Some(_) => {}
        }
        let fd = match rustix::fs::openat(dir, name, purpose.flags(), Mode::from_raw_mode(0o666)) {
            Ok(fd) => fd,
            Err(err) => {
                // Swapped for a symlink since the `lstat` (`O_NOFOLLOW` refused it): follow it
                // like any other.
                if let Some(target) = read_link(dir, name) {
                    return Ok(Last::Link(target));
                }
                let now = rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
                    .map(|stat| FileKind::of(&stat))
                    .ok();
                return Err(match now.or(kind) {
                    Some(kind) if kind.is_special() => OpenError::Special(kind),
                    Some(FileKind::Directory) | None if err == Errno::NOTDIR => {
                        OpenError::NotDirectory
                    }
                    Some(_) => OpenError::Open(io::Error::from(err)),
                    None => OpenError::Lookup {
                        err: io::Error::from(err),
                        in_parent: false,
                    },
                });
            }
        };
        let stat = rustix::fs::fstat(&fd).map_err(|err| OpenError::Open(io::Error::from(err)))?;
        let kind = FileKind::of(&stat);
        // Checked again on the descriptor: a special file swapped in after the `lstat` is
        // refused before anything is read or written.
        if kind.is_special() {
            return Err(OpenError::Special(kind));
        }
        if purpose == Purpose::Directory && kind != FileKind::Directory {
            return Err(OpenError::NotDirectory);
        }
        Ok(Last::Opened(Opened {
            file: File::from(fd),
            kind,
        }))
    }

    /// Continues the walk at a symlink's target.
    fn follow(&mut self, target: &Path) -> Result<(), OpenError> {
        self.count_hop()?;
        if target.is_absolute() {
            let Some(inside) = self.confinement.inside(target) else {
                let mut resolved = target.to_owned();
                resolved.extend(self.pending.iter());
                return Err(OpenError::Outside {
                    resolved: normalize_lexically(&resolved),
                });
            };
            self.stack.clear();
            self.names.clear();
            prepend(&mut self.pending, &inside);
        } else {
            prepend(&mut self.pending, target);
        }
        if self.pending.is_empty() {
            self.pending.push_back(OsString::from("."));
        }
        Ok(())
    }

    fn count_hop(&mut self) -> Result<(), OpenError> {
        self.hops += 1;
        if self.hops > MAX_HOPS {
            return Err(OpenError::Loop);
        }
        Ok(())
    }
}

/// The target of the symlink `name` in `dir`; `None` when it is not (or no longer) one.
fn read_link(dir: BorrowedFd<'_>, name: &OsStr) -> Option<PathBuf> {
    rustix::fs::readlinkat(dir, name, Vec::new())
        .ok()
        .map(|target| PathBuf::from(OsString::from_vec(target.into_bytes())))
}

/// The names of `path` (`.` and `..` kept as names; a root or prefix dropped).
fn components(path: &Path) -> VecDeque<OsString> {
    path.components()
        .filter_map(|component| match component {
            Component::Normal(name) => Some(name.to_owned()),
            Component::ParentDir => Some(OsString::from("..")),
            Component::CurDir => Some(OsString::from(".")),
            Component::RootDir | Component::Prefix(_) => None,
        })
        .collect()
}

/// Queues `path`'s names in front of `pending`.
fn prepend(pending: &mut VecDeque<OsString>, path: &Path) {
    for name in components(path).into_iter().rev() {
        pending.push_front(name);
    }
}
