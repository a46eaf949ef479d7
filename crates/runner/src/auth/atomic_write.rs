//! Crash-safe file replacement for the auth files: a reader sees the old content or the new
//! one, never a mix, and a crash leaves one of the two.
//!
//! The content goes to a fresh temporary file in the same directory (created 0600, so the
//! secrets are never readable by others, not even briefly), is flushed to disk, and is renamed
//! over the target; the directory is then flushed so the rename itself survives a crash.

use std::fs::DirBuilder;
use std::io;
use std::path::Path;

use clawloop_core::auth_store::AuthStoreError;
use clawloop_session::replace_file_atomically;

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

/// Replaces `path` with `bytes` atomically; the new file has mode 0600. The missing
/// directories are created first (0700); the replacement is the session crate's.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), AuthStoreError> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    ensure_dir(dir)?;
    replace_file_atomically(path, bytes, 0o600).map_err(|e| io_error("replace", path, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

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
