//! Replacing a whole file atomically: write a temporary sibling, then rename it over the target.
//!
//! Readers (and a crash at any moment) see either the old content or the new, never a mix.
//! Used for migrations, rewrites and for creating a session file with its first lines, so no
//! partial header can ever exist on disk. The content is staged first and put in place
//! separately, so a caller can check what the path holds at the last moment, and a new file
//! can be created without ever replacing one that appeared meanwhile.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::on_disk::FileId;

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename.
///
/// With `sync`, the data is fsynced before the rename and the directory after it, so the new
/// content survives a machine crash once this returns. The temporary file is removed on error.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8], sync: bool) -> io::Result<()> {
    stage(path, bytes, sync)?.replace()
}

/// Replaces `path` with `bytes` atomically and durably (the data and the rename are fsynced),
/// creating the new file with permission bits `mode` on Unix (ignored elsewhere): with `0o600`
/// a secret is never readable by others, not even for the instant before the rename. On error
/// the temporary file is removed and `path` keeps its old content. The directory must exist.
///
/// For files other crates keep next to the sessions (the runner's auth files), so every
/// crash-safe replacement shares one implementation.
pub fn replace_file_atomically(path: &Path, bytes: &[u8], mode: u32) -> io::Result<()> {
    stage_with_mode(path, bytes, true, Some(mode))?.replace()
}

/// Writes `bytes` to a temporary sibling of `path`, to be put in place by
/// [`Staged::replace`] or [`Staged::create`] once the caller has checked what is there now.
///
/// Checking after the (possibly long) write rather than before it leaves the shortest window
/// between the check and the rename.
pub(crate) fn stage(path: &Path, bytes: &[u8], sync: bool) -> io::Result<Staged> {
    stage_with_mode(path, bytes, sync, None)
}

/// [`stage`], the temporary file created with `mode` (Unix) instead of the umask default.
fn stage_with_mode(path: &Path, bytes: &[u8], sync: bool, mode: Option<u32>) -> io::Result<Staged> {
    let tmp = temp_path(path);
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    if let Some(mode) = mode {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(mode);
    }
    #[cfg(not(unix))]
    let _ = mode;
    let mut file = options.open(&tmp)?;
    // From here on dropping `staged` removes the temporary file.
    let mut staged = Staged {
        tmp,
        path: path.to_owned(),
        sync,
        id: None,
        placed: false,
    };
    file.write_all(bytes)?;
    if sync {
        file.sync_all()?;
    }
    staged.id = FileId::of(&file.metadata()?);
    Ok(staged)
}

/// A temporary file holding new content for a path, removed unless put in place.
#[derive(Debug)]
pub(crate) struct Staged {
    tmp: PathBuf,
    path: PathBuf,
    sync: bool,
    id: Option<FileId>,
    /// Put in place: the temporary name is gone (or about to be) and must not be removed.
    placed: bool,
}

impl Staged {
    /// The identity the file will have at its path (a rename or link keeps it).
    pub(crate) fn id(&self) -> Option<FileId> {
        self.id
    }

    /// Renames the new content over whatever the path names.
    pub(crate) fn replace(mut self) -> io::Result<()> {
        fs::rename(&self.tmp, &self.path)?;
        self.placed = true;
        self.sync_dir();
        Ok(())
    }

    /// Puts the new content at the path only if no file is there, atomically (a hard link
    /// never replaces an existing name). Returns `Ok(false)`, keeping the staged content for a
    /// [`Staged::replace`], when something is there. Where hard links are not supported it
    /// checks the path and renames, which leaves a short window.
    pub(crate) fn create(&mut self) -> io::Result<bool> {
        match fs::hard_link(&self.tmp, &self.path) {
            Ok(()) => {
                self.placed = true;
                // Best effort: the content is in place; a leftover name would only be litter.
                let _ = fs::remove_file(&self.tmp);
                self.sync_dir();
                Ok(true)
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            Err(_) if fs::symlink_metadata(&self.path).is_ok() => Ok(false),
            Err(_) => {
                fs::rename(&self.tmp, &self.path)?;
                self.placed = true;
                self.sync_dir();
                Ok(true)
            }
        }
    }

    /// Makes the new name durable.
    fn sync_dir(&self) {
        if self.sync {
            sync_dir(&self.path);
        }
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.placed {
            // Best effort: the error being returned matters more than a leftover temp file.
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// A sibling name no other writer uses: dot-prefixed, with pid and a counter.
fn temp_path(path: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let name = path
        .file_name()
        .map_or_else(|| "session".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.{}.{n}.tmp", std::process::id()))
}

/// Fsyncs the directory holding `path`, so a rename in it is durable.
///
/// Failures are ignored: some platforms and file systems cannot open or sync a directory,
/// and the rename itself has already succeeded.
fn sync_dir(path: &Path) {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_content_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        fs::write(&path, "old\n").unwrap();
        write_atomic(&path, b"new\n", true).unwrap();
        write_atomic(&path, b"newer\n", false).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "newer\n");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, [std::ffi::OsString::from("s.jsonl")]);
    }

    #[test]
    fn create_never_replaces_an_existing_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let mut staged = stage(&path, b"first\n", false).unwrap();
        assert!(staged.create().unwrap());
        drop(staged);
        assert_eq!(fs::read_to_string(&path).unwrap(), "first\n");
        let mut staged = stage(&path, b"second\n", false).unwrap();
        assert!(!staged.create().unwrap());
        drop(staged);
        assert_eq!(fs::read_to_string(&path).unwrap(), "first\n");
        // Neither left its temporary file behind.
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, [std::ffi::OsString::from("s.jsonl")]);
    }

    #[cfg(unix)]
    #[test]
    fn a_replaced_file_gets_the_mode_asked_for() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secret.json");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        replace_file_atomically(&path, b"new", 0o600).unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(
            (fs::read_to_string(&path).unwrap(), mode),
            ("new".into(), 0o600)
        );
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, [std::ffi::OsString::from("secret.json")]);
        assert!(replace_file_atomically(&dir.path().join("no/dir"), b"x", 0o600).is_err());
    }

    #[test]
    fn failure_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing-dir").join("s.jsonl");
        assert!(write_atomic(&path, b"x", true).is_err());
        assert!(!path.exists());
    }
}
