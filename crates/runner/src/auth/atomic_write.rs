//! Crash-safe file replacement for the auth files: a reader sees the old content or the new
//! one, never a mix, and a crash leaves one of the two.
//!
//! The content goes to a fresh temporary file in the same directory (created 0600, so the
//! secrets are never readable by others, not even briefly), is flushed to disk, and is renamed
//! over the target; the directory is then flushed so the rename itself survives a crash.

use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use clawloop_core::auth_store::AuthStoreError;

fn io_error(action: &'static str, path: &Path, source: io::Error) -> AuthStoreError {
    AuthStoreError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// Creates `dir` and any missing parents, each with mode 0700, when it does not exist.
pub fn ensure_dir(dir: &Path) -> Result<(), AuthStoreError> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut builder = DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder
        .create(dir)
        .map_err(|e| io_error("create the directory", dir, e))
}

/// Replaces `path` with `bytes` atomically; the new file has mode 0600.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), AuthStoreError> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    ensure_dir(dir)?;
    let temp = temp_path(path);
    let result = write_new(&temp, bytes).and_then(|()| {
        fs::rename(&temp, path).map_err(|e| io_error("replace", path, e))?;
        sync_dir(dir);
        Ok(())
    });
    if result.is_err() {
        // Best effort: the temp file is ours and useless now; the target is untouched.
        let _ = fs::remove_file(&temp);
    }
    result
}

/// A name no other writer uses: the target's name, this process, a per-process counter.
fn temp_path(path: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.{}.{n}.tmp", std::process::id()))
}

fn write_new(temp: &Path, bytes: &[u8]) -> Result<(), AuthStoreError> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file: File = options
        .open(temp)
        .map_err(|e| io_error("create", temp, e))?;
    file.write_all(bytes)
        .map_err(|e| io_error("write", temp, e))?;
    file.sync_all().map_err(|e| io_error("flush", temp, e))
}

/// Flushes the directory entry of a rename. Not every platform can open a directory; there
/// the rename is as durable as the OS makes it, which is not worth failing a write over.
fn sync_dir(dir: &Path) {
    if let Ok(handle) = File::open(dir) {
        let _ = handle.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_content_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/f.json");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("f.json")]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&path), 0o600);
            assert_eq!(mode(&dir.path().join("a")), 0o700);
            assert_eq!(mode(&dir.path().join("a/b")), 0o700);
        }
    }
}
