//! What a path names, as `lstat`/`fstat` tell it, and the refusal text for files the file tools
//! do not read or write.
//!
//! Only regular files (and directories, for listing) are opened for their contents: a FIFO
//! blocks until a writer appears, a character device such as `/dev/zero` never ends, and a
//! socket cannot be opened at all; the model gets a clear error instead.

use rustix::fs::{FileType, Stat};

/// The type of a file system entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileKind {
    /// A regular file.
    Regular,
    /// A directory.
    Directory,
    /// A symbolic link (seen only without following it).
    Symlink,
    /// A named pipe.
    Fifo,
    /// A Unix domain socket.
    Socket,
    /// A character device.
    CharDevice,
    /// A block device.
    BlockDevice,
    /// Something the platform reports that none of the above is.
    Unknown,
}

impl FileKind {
    /// The kind recorded in a `stat` result.
    pub(crate) fn of(stat: &Stat) -> Self {
        Self::from_type(FileType::from_raw_mode(stat.st_mode))
    }

    /// The kind of a file type (`Unknown` when a directory listing did not say).
    pub(crate) fn from_type(file_type: FileType) -> Self {
        match file_type {
            FileType::RegularFile => FileKind::Regular,
            FileType::Directory => FileKind::Directory,
            FileType::Symlink => FileKind::Symlink,
            FileType::Fifo => FileKind::Fifo,
            FileType::Socket => FileKind::Socket,
            FileType::CharacterDevice => FileKind::CharDevice,
            FileType::BlockDevice => FileKind::BlockDevice,
            _ => FileKind::Unknown,
        }
    }

    /// Whether reading or writing it could block, never end, or act on a device.
    pub(crate) fn is_special(self) -> bool {
        !matches!(
            self,
            FileKind::Regular | FileKind::Directory | FileKind::Symlink
        )
    }

    /// The kind in words, with its article (`a FIFO (named pipe)`).
    pub(crate) fn describe(self) -> &'static str {
        match self {
            FileKind::Regular => "a regular file",
            FileKind::Directory => "a directory",
            FileKind::Symlink => "a symbolic link",
            FileKind::Fifo => "a FIFO (named pipe)",
            FileKind::Socket => "a socket",
            FileKind::CharDevice => "a character device",
            FileKind::BlockDevice => "a block device",
            FileKind::Unknown => "not a regular file",
        }
    }
}

/// The refusal text for a special file: `Not a regular file: <path> is a FIFO (named pipe)`.
pub(crate) fn not_regular_message(path: &str, kind: FileKind) -> String {
    format!("Not a regular file: {path} is {}", kind.describe())
}
