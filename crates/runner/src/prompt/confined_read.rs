//! Reading a small text file that must stay inside a root directory, without ever blocking on a
//! FIFO or following a link out of the root. The context-file and skill loaders share it.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

use rustix::fs::{Mode, OFlags};

/// A file read in full.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ConfinedFile {
    /// The file's path with every link resolved.
    pub canonical: PathBuf,
    /// Its text; invalid UTF-8 becomes U+FFFD, as Node's `readFile(…, "utf-8")` does.
    pub text: String,
}

/// Why a file was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NotRead {
    /// Nothing at the path (a dangling link counts as nothing).
    Missing,
    /// Something is there but may not be read; the text says what and why.
    Refused(String),
    /// Reading failed; the text names the operation and the OS error.
    Failed(String),
}

/// Reads `path` when it resolves to a regular file of at most `max_bytes` inside
/// `canonical_root` (itself already canonical). `None` as the root skips the containment check.
///
/// The file is opened `O_NONBLOCK` (opening a FIFO with no writer would otherwise wait forever)
/// and `O_NOFOLLOW` on its resolved path (a link swapped in after the check fails instead of being
/// followed); the type and size checks run on the opened handle, so they hold for what is read.
pub(crate) fn read_confined(
    path: &Path,
    canonical_root: Option<&Path>,
    max_bytes: u64,
) -> Result<ConfinedFile, NotRead> {
    match std::fs::symlink_metadata(path) {
        Ok(_) => {}
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Err(NotRead::Missing),
        Err(err) => {
            return Err(NotRead::Failed(format!(
                "cannot stat {}: {err}",
                path.display()
            )));
        }
    }
    let canonical = match std::fs::canonicalize(path) {
        Ok(canonical) => canonical,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Err(NotRead::Missing),
        Err(err) => {
            return Err(NotRead::Failed(format!(
                "cannot resolve {}: {err}",
                path.display()
            )));
        }
    };
    if let Some(root) = canonical_root
        && !canonical.starts_with(root)
    {
        return Err(NotRead::Refused(format!(
            "{} resolves to {}, outside {}",
            path.display(),
            canonical.display(),
            root.display()
        )));
    }
    let flags =
        OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NOCTTY;
    let fd = rustix::fs::open(&canonical, flags, Mode::empty()).map_err(|err| {
        NotRead::Failed(format!(
            "cannot open {}: {}",
            path.display(),
            io::Error::from(err)
        ))
    })?;
    let mut file = File::from(fd);
    let meta = file
        .metadata()
        .map_err(|err| NotRead::Failed(format!("cannot stat {}: {err}", path.display())))?;
    if !meta.is_file() {
        return Err(NotRead::Refused(format!(
            "{} is {}, not a regular file",
            path.display(),
            describe_kind(&meta.file_type())
        )));
    }
    let too_big = || {
        NotRead::Refused(format!(
            "{} is larger than the {max_bytes}-byte limit",
            path.display()
        ))
    };
    if meta.len() > max_bytes {
        return Err(too_big());
    }
    let mut bytes = Vec::new();
    // One byte past the limit tells a file that grew since the stat from one that fits.
    file.by_ref()
        .take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|err| NotRead::Failed(format!("cannot read {}: {err}", path.display())))?;
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > max_bytes {
        return Err(too_big());
    }
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(err) => String::from_utf8_lossy(err.as_bytes()).into_owned(),
    };
    Ok(ConfinedFile { canonical, text })
}

fn describe_kind(kind: &std::fs::FileType) -> &'static str {
    if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else {
        "a special file"
    }
}
