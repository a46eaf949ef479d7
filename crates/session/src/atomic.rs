//! Replacing a whole file atomically: write a temporary sibling, then rename it over the target.
//!
//! Readers (and a crash at any moment) see either the old content or the new, never a mix.
//! Used for migrations and for creating a session file with its first lines, so no partial
//! header can ever exist on disk.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename.
///
/// With `sync`, the data is fsynced before the rename and the directory after it, so the new
/// content survives a machine crash once this returns. The temporary file is removed on error.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8], sync: bool) -> io::Result<()> {
    let tmp = temp_path(path);
    let result = write_then_rename(&tmp, path, bytes, sync);
    if result.is_err() {
        // Best effort: the error being returned matters more than a leftover temp file.
        let _ = fs::remove_file(&tmp);
    }
    result
}

fn write_then_rename(tmp: &Path, path: &Path, bytes: &[u8], sync: bool) -> io::Result<()> {
    let mut file = OpenOptions::new().write(true).create_new(true).open(tmp)?;
    file.write_all(bytes)?;
    if sync {
        file.sync_all()?;
    }
    drop(file);
    fs::rename(tmp, path)?;
    if sync {
        sync_dir(path);
    }
    Ok(())
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
    fn failure_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing-dir").join("s.jsonl");
        assert!(write_atomic(&path, b"x", true).is_err());
        assert!(!path.exists());
    }
}
