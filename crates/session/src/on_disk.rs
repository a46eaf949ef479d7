//! What a session file is believed to hold, and the checks every write makes against the file
//! itself before it cuts, overwrites or extends it.
//!
//! The write lock keeps well-behaved writers apart, but it is advisory: a writer that opened
//! the file before another one wrote to it (a stale [`crate::Transcript::open`]), a process
//! that ignores the lock, or a user who deletes or replaces the file can all change it behind
//! a transcript's back. The length alone cannot tell: a torn tail of `L` bytes cut by another
//! writer and replaced by its entry of exactly `L` bytes leaves the length as it was. So a
//! writer remembers the file's *identity* (device and inode) and its *last bytes* — everything
//! a cut would remove, and a window before that — and compares both with the file itself
//! before its first write through a new handle; later appends through that handle check the
//! identity (the file still at the path, not deleted) and the length their own writes left.
//! A whole-file rewrite compares the whole content, which costs no more than the rewrite.
//!
//! A mismatch is [`SessionError::ChangedOnDisk`]: nothing is written, nothing is cut, and the
//! error says what was found.

use std::fs::{File, Metadata, OpenOptions};
use std::io::{ErrorKind, Read, Seek, SeekFrom};
use std::path::Path;

use crate::error::SessionError;

/// How many bytes before the part a cut would remove are compared, too: enough to hold the
/// last entry or two of a session, so another writer's lines are told apart from ours even
/// when they happen to leave the length unchanged.
const TAIL_WINDOW: u64 = 64 * 1024;

/// A file's identity: the same for every path and handle of one file, different for a file
/// put in its place. `None` where std offers no stable id (outside Unix); the length and
/// content checks still apply there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileId {
    dev: u64,
    ino: u64,
}

impl FileId {
    /// The identity of the file `meta` describes.
    #[cfg(unix)]
    pub(crate) fn of(meta: &Metadata) -> Option<FileId> {
        use std::os::unix::fs::MetadataExt;
        Some(FileId {
            dev: meta.dev(),
            ino: meta.ino(),
        })
    }

    /// Outside Unix std has no stable file id.
    #[cfg(not(unix))]
    pub(crate) fn of(_meta: &Metadata) -> Option<FileId> {
        None
    }
}

/// Whether the file `meta` describes has no name left (it was deleted while open).
#[cfg(unix)]
fn is_unlinked(meta: &Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    meta.nlink() == 0
}

/// Outside Unix an open file cannot lose its name unless it was opened for sharing deletes,
/// which this crate never does; the path check still sees a replacement.
#[cfg(not(unix))]
fn is_unlinked(_meta: &Metadata) -> bool {
    false
}

/// A file's content as read, and the identity of the file it was read from.
pub(crate) struct ReadFile {
    /// The whole content.
    pub bytes: Vec<u8>,
    /// The file it came from.
    pub id: Option<FileId>,
}

/// A file opened for reading, and its identity.
pub(crate) struct OpenFile {
    /// The handle, positioned at the start.
    pub file: File,
    /// The file's identity.
    pub id: Option<FileId>,
    /// Its length when opened: a hint only, a writer may be appending.
    pub len_hint: u64,
}

/// Opens `path` for reading; `None` when it does not exist.
pub(crate) fn open_file(path: &Path) -> Result<Option<OpenFile>, SessionError> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(SessionError::io(path, "read", e)),
    };
    let meta = file
        .metadata()
        .map_err(|e| SessionError::io(path, "stat", e))?;
    Ok(Some(OpenFile {
        file,
        id: FileId::of(&meta),
        len_hint: meta.len(),
    }))
}

/// Reads `path` through one handle, so the identity is that of the bytes read; `None` when
/// it does not exist.
pub(crate) fn read_file(path: &Path) -> Result<Option<ReadFile>, SessionError> {
    let Some(OpenFile {
        mut file,
        id,
        len_hint,
    }) = open_file(path)?
    else {
        return Ok(None);
    };
    let mut bytes = Vec::with_capacity(usize::try_from(len_hint).unwrap_or(0));
    file.read_to_end(&mut bytes)
        .map_err(|e| SessionError::io(path, "read", e))?;
    Ok(Some(ReadFile { bytes, id }))
}

/// Fills `buf` from `file` at `offset`, without moving any cursor: several readers may share
/// the handle.
#[cfg(unix)]
pub(crate) fn read_at(file: &File, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.read_exact_at(buf, offset)
}

/// Fills `buf` from `file` at `offset` (Windows' positional read moves the cursor, which no
/// reader of a shared handle relies on).
#[cfg(windows)]
pub(crate) fn read_at(file: &File, mut offset: u64, mut buf: &mut [u8]) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, offset) {
            Ok(0) => return Err(ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                let rest = buf;
                buf = &mut rest[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Fills `buf` from `file` at `offset` through the shared cursor: targets without positional
/// reads (WASI) run one thread.
#[cfg(not(any(unix, windows)))]
pub(crate) fn read_at(mut file: &File, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
    file.seek(SeekFrom::Start(offset))?;
    file.read_exact(buf)
}

/// Where the remembered tail of a `len`-byte file starts when everything from `cut_from` on may
/// be cut off: that part and a window before it.
fn tail_start(len: u64, cut_from: u64) -> u64 {
    cut_from.min(len).saturating_sub(TAIL_WINDOW)
}

/// What a writer believes a session file holds: its identity, its length and its last bytes.
#[derive(Debug, Clone)]
pub(crate) struct Seen {
    id: Option<FileId>,
    len: u64,
    /// Where `tail` starts in the file.
    tail_start: u64,
    /// The file's bytes from `tail_start` to `len`.
    tail: Vec<u8>,
}

impl Seen {
    /// The file `id` holding `bytes`, of which everything from `cut_from` on may be cut off:
    /// those bytes are all remembered, and a window before them.
    pub(crate) fn new(id: Option<FileId>, bytes: &[u8], cut_from: u64) -> Seen {
        let len = bytes.len() as u64;
        let tail_start = tail_start(len, cut_from);
        Seen {
            id,
            len,
            tail_start,
            tail: bytes
                .get(usize::try_from(tail_start).unwrap_or(usize::MAX)..)
                .unwrap_or_default()
                .to_vec(),
        }
    }

    /// [`Seen::new`] for a file read as a stream: its first `len` bytes were read through
    /// `file`, and the remembered tail is read back from it.
    pub(crate) fn read(
        id: Option<FileId>,
        file: &File,
        len: u64,
        cut_from: u64,
    ) -> std::io::Result<Seen> {
        let tail_start = tail_start(len, cut_from);
        let mut tail = vec![0; usize::try_from(len - tail_start).unwrap_or(0)];
        read_at(file, tail_start, &mut tail)?;
        Ok(Seen {
            id,
            len,
            tail_start,
            tail,
        })
    }

    /// The file's length when it was read or written.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// The identity of the file read or written.
    pub(crate) fn id(&self) -> Option<FileId> {
        self.id
    }

    /// Checks that `file`, just opened at `path` with read access, is the file seen and still
    /// holds what was seen at its end.
    pub(crate) fn verify(&self, mut file: &File, path: &Path) -> Result<(), SessionError> {
        let meta = file
            .metadata()
            .map_err(|e| SessionError::io(path, "stat", e))?;
        if self.id.is_some() && FileId::of(&meta) != self.id {
            return Err(changed(
                path,
                "another file was put in its place".to_owned(),
            ));
        }
        let actual = meta.len();
        if actual != self.len {
            return Err(changed(
                path,
                format!("{} bytes when read, {actual} now", self.len),
            ));
        }
        let mut now = vec![0; self.tail.len()];
        file.seek(SeekFrom::Start(self.tail_start))
            .and_then(|_| file.read_exact(&mut now))
            .map_err(|e| SessionError::io(path, "read back", e))?;
        if now != self.tail {
            return Err(changed(
                path,
                format!(
                    "its last {} bytes are not the ones read, though its length is the same",
                    self.tail.len()
                ),
            ));
        }
        Ok(())
    }

    /// Checks that `bytes`, just read from the file `id` at `path`, are the file seen: same
    /// file, same length, same last bytes.
    pub(crate) fn check_content(
        &self,
        id: Option<FileId>,
        bytes: &[u8],
        path: &Path,
    ) -> Result<(), SessionError> {
        if self.id.is_some() && id != self.id {
            return Err(changed(
                path,
                "another file was put in its place".to_owned(),
            ));
        }
        let actual = bytes.len() as u64;
        if actual != self.len {
            return Err(changed(
                path,
                format!("{} bytes when read, {actual} now", self.len),
            ));
        }
        let tail = bytes
            .get(usize::try_from(self.tail_start).unwrap_or(usize::MAX)..)
            .unwrap_or_default();
        if tail != self.tail.as_slice() {
            return Err(changed(
                path,
                format!(
                    "its last {} bytes are not the ones read, though its length is the same",
                    self.tail.len()
                ),
            ));
        }
        Ok(())
    }
}

/// Opens `path` to append to the file `seen` describes, after checking that it still is that
/// file with that content.
pub(crate) fn open_seen(path: &Path, seen: &Seen) -> Result<File, SessionError> {
    let file = OpenOptions::new()
        .read(true)
        .append(true)
        .open(path)
        .map_err(|e| match e.kind() {
            ErrorKind::NotFound => changed(path, "it was deleted or moved away".to_owned()),
            _ => SessionError::io(path, "open for append", e),
        })?;
    seen.verify(&file, path)?;
    Ok(file)
}

/// Checks that `path` still names `file`, the handle this writer appends through (not
/// deleted, moved away or replaced), and — when `len` is given — that it holds exactly the
/// `len` bytes this writer's own writes left.
pub(crate) fn check_handle(
    file: &File,
    id: Option<FileId>,
    path: &Path,
    len: Option<u64>,
) -> Result<(), SessionError> {
    let meta = file
        .metadata()
        .map_err(|e| SessionError::io(path, "stat", e))?;
    match std::fs::metadata(path) {
        Ok(at_path) => {
            if id.is_some() && FileId::of(&at_path) != id {
                return Err(changed(
                    path,
                    "another file was put in its place".to_owned(),
                ));
            }
        }
        Err(e) if e.kind() == ErrorKind::NotFound => {
            let what = if is_unlinked(&meta) {
                "it was deleted"
            } else {
                "it was moved away"
            };
            return Err(changed(path, what.to_owned()));
        }
        Err(e) => return Err(SessionError::io(path, "stat", e)),
    }
    if let Some(len) = len
        && meta.len() != len
    {
        return Err(changed(
            path,
            format!(
                "{len} bytes after this session's last write, {} now: another writer changed it",
                meta.len()
            ),
        ));
    }
    Ok(())
}

/// Checks that `path` is still the file `id` and holds exactly `expected`, before the whole
/// file is replaced by a rewrite.
pub(crate) fn verify_whole(
    path: &Path,
    id: Option<FileId>,
    expected: &[u8],
) -> Result<(), SessionError> {
    let Some(now) = read_file(path)? else {
        return Err(changed(path, "it was deleted".to_owned()));
    };
    if id.is_some() && now.id != id {
        return Err(changed(
            path,
            "another file was put in its place".to_owned(),
        ));
    }
    if now.bytes.len() != expected.len() {
        return Err(changed(
            path,
            format!(
                "{} bytes when read, {} now",
                expected.len(),
                now.bytes.len()
            ),
        ));
    }
    if now.bytes != expected {
        return Err(changed(
            path,
            "its content is not the one read, though its length is the same".to_owned(),
        ));
    }
    Ok(())
}

/// Takes back the bytes a failed append of `ours` left after `len`, but only if every byte
/// after `len` is one of ours: anything else was written by someone else and stays.
///
/// Returns whether the file ends at `len` again.
pub(crate) fn take_back(mut file: &File, len: u64, ours: &[u8]) -> std::io::Result<bool> {
    let actual = file.metadata()?.len();
    if actual == len {
        return Ok(true);
    }
    let Some(extra) = actual
        .checked_sub(len)
        .and_then(|n| usize::try_from(n).ok())
        .filter(|&n| n <= ours.len())
    else {
        return Ok(false);
    };
    let mut found = vec![0; extra];
    file.seek(SeekFrom::Start(len))?;
    file.read_exact(&mut found)?;
    if found != ours[..extra] {
        return Ok(false);
    }
    file.set_len(len)?;
    Ok(true)
}

fn changed(path: &Path, what: String) -> SessionError {
    SessionError::ChangedOnDisk {
        path: path.to_owned(),
        what,
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn file_with(dir: &Path, content: &[u8]) -> (std::path::PathBuf, File) {
        let path = dir.join("f");
        std::fs::write(&path, content).unwrap();
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .open(&path)
            .unwrap();
        (path, file)
    }

    #[test]
    fn take_back_cuts_only_a_prefix_of_our_own_line() {
        let dir = tempfile::tempdir().unwrap();
        // Half of our line made it: taken back.
        let (path, file) = file_with(dir.path(), b"kept\nour li");
        assert!(take_back(&file, 5, b"our line\n").unwrap());
        assert_eq!(std::fs::read(&path).unwrap(), b"kept\n");
        // Bytes that are not ours (another writer's, in between): left alone.
        let (path, mut file) = file_with(dir.path(), b"kept\n");
        file.write_all(b"their line\n").unwrap();
        assert!(!take_back(&file, 5, b"our line\n").unwrap());
        assert_eq!(std::fs::read(&path).unwrap(), b"kept\ntheir line\n");
        // More bytes than our line could have left: not ours either.
        let (path, file) = file_with(dir.path(), b"kept\nour line\nmore\n");
        assert!(!take_back(&file, 5, b"our line\n").unwrap());
        assert_eq!(std::fs::read(&path).unwrap(), b"kept\nour line\nmore\n");
        // Nothing written: nothing to do.
        let (_, file) = file_with(dir.path(), b"kept\n");
        assert!(take_back(&file, 5, b"our line\n").unwrap());
    }

    #[test]
    fn a_rewrite_checks_every_byte_and_the_identity() {
        let dir = tempfile::tempdir().unwrap();
        let (path, _) = file_with(dir.path(), b"line one\nline two\n");
        let read = read_file(&path).unwrap().unwrap();
        verify_whole(&path, read.id, &read.bytes).unwrap();
        let what = |r: Result<(), SessionError>| match r {
            Err(SessionError::ChangedOnDisk { what, .. }) => what,
            other => panic!("{other:?}"),
        };
        // One byte in the middle, same length.
        std::fs::write(&path, b"line One\nline two\n").unwrap();
        assert_eq!(
            what(verify_whole(&path, read.id, &read.bytes)),
            "its content is not the one read, though its length is the same"
        );
        // The same bytes in another file.
        let other = dir.path().join("g");
        std::fs::write(&other, &read.bytes).unwrap();
        std::fs::rename(&other, &path).unwrap();
        assert_eq!(
            what(verify_whole(&path, read.id, &read.bytes)),
            "another file was put in its place"
        );
        std::fs::remove_file(&path).unwrap();
        assert_eq!(
            what(verify_whole(&path, read.id, &read.bytes)),
            "it was deleted"
        );
    }

    #[test]
    fn the_tail_covers_everything_a_cut_removes_and_a_window_before_it() {
        let bytes: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let seen = Seen::new(None, &bytes, 150_000);
        assert_eq!(seen.tail_start, 150_000 - TAIL_WINDOW);
        assert_eq!(seen.tail, bytes[(150_000 - TAIL_WINDOW) as usize..]);
        let small = Seen::new(None, b"abc", 3);
        assert_eq!((small.tail_start, small.tail.as_slice()), (0, &b"abc"[..]));
    }
}
