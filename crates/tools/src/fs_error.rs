//! File-system error texts in Node's words.
//!
//! pi's file tools let Node's `fs` errors through as the tool result (`ENOENT: no such file or
//! directory, access '/ws/a.txt'`), and models have learned to read them; so the same texts are
//! rebuilt here from an [`io::Error`] and the operation that failed.

use std::io;
use std::path::Path;

use clawloop_core::ToolError;

/// Node's `<CODE>: <description>, <syscall> '<path>'` for a failed operation on `path`.
pub(crate) fn node_message(err: &io::Error, syscall: &str, path: &Path) -> String {
    format!(
        "{}, {syscall} '{}'",
        node_code_text(err),
        path.to_string_lossy()
    )
}

/// Node's `<CODE>: <description>, <syscall>` for errors Node reports without a path (a read or
/// write on an already opened file, e.g. `EISDIR: illegal operation on a directory, read`).
pub(crate) fn node_message_no_path(err: &io::Error, syscall: &str) -> String {
    format!("{}, {syscall}", node_code_text(err))
}

/// The [`ToolError`] carrying [`node_message`]'s text and the underlying error.
pub(crate) fn node_error(err: io::Error, syscall: &str, path: &Path) -> ToolError {
    ToolError::Io {
        message: node_message(&err, syscall, path),
        source: err,
    }
}

/// `<CODE>: <libuv description>`; errors without a known code keep Rust's own text.
fn node_code_text(err: &io::Error) -> String {
    use io::ErrorKind as K;
    // libuv's descriptions (`uv_strerror`), which Node puts in its messages.
    let known = match err.kind() {
        K::NotFound => Some(("ENOENT", "no such file or directory")),
        K::PermissionDenied => Some(("EACCES", "permission denied")),
        K::IsADirectory => Some(("EISDIR", "illegal operation on a directory")),
        K::NotADirectory => Some(("ENOTDIR", "not a directory")),
        K::AlreadyExists => Some(("EEXIST", "file already exists")),
        K::ReadOnlyFilesystem => Some(("EROFS", "read-only file system")),
        K::StorageFull => Some(("ENOSPC", "no space left on device")),
        K::InvalidFilename => Some(("ENAMETOOLONG", "name too long")),
        K::ResourceBusy => Some(("EBUSY", "resource busy or locked")),
        K::ExecutableFileBusy => Some(("ETXTBSY", "text file is busy")),
        K::DirectoryNotEmpty => Some(("ENOTEMPTY", "directory not empty")),
        _ => None,
    };
    match known {
        Some((code, text)) => format!("{code}: {text}"),
        None => err.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn messages_read_like_node() {
        let missing = io::Error::from(io::ErrorKind::NotFound);
        assert_eq!(
            node_message(&missing, "access", Path::new("/ws/a.txt")),
            "ENOENT: no such file or directory, access '/ws/a.txt'"
        );
        let dir = io::Error::from(io::ErrorKind::IsADirectory);
        assert_eq!(
            node_message_no_path(&dir, "read"),
            "EISDIR: illegal operation on a directory, read"
        );
        let other = io::Error::other("strange");
        assert_eq!(
            node_message(&other, "open", Path::new("/x")),
            "strange, open '/x'"
        );
    }
}
