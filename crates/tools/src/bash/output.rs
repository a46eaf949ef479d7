//! The output a command has written so far: a rolling tail in memory and, once it grows past
//! the byte limit, the log in a temp file (pi's `pi-bash-<16 hex>.log`), complete up to a size
//! cap (pi has none, so a flooding command could fill the disk).

use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::hash::{BuildHasher, RandomState};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// How many names to try before giving up on creating a temp file (each is 64 random bits, so
/// a second try already means something other than a collision is wrong).
const TEMP_FILE_ATTEMPTS: usize = 4;

/// pi's rolling buffer: the newest chunks up to twice the byte limit (enough for a tail
/// truncation to see whole lines), and the full log on disk once the total passes the limit.
#[derive(Debug)]
pub(crate) struct OutputLog {
    chunks: VecDeque<Vec<u8>>,
    chunks_bytes: usize,
    total_bytes: usize,
    /// Newlines in the whole output, so line numbers in notices count from its real start
    /// even after the rolling buffer dropped the head.
    newlines: usize,
    /// UTF-8 bytes of the last (unterminated) line of the whole output.
    last_line_bytes: usize,
    /// The byte limit: past it the full log goes to a file.
    max_bytes: usize,
    /// The most bytes the file may hold; the rest of the output is counted, not written.
    max_file_bytes: usize,
    /// Bytes written to the file so far.
    file_bytes: usize,
    /// Bytes of output the cap kept out of the file.
    dropped_bytes: usize,
    /// Where the temp file is created.
    temp_dir: PathBuf,
    file: Option<(PathBuf, BufWriter<File>)>,
    /// Why the full log could not be kept, if it could not.
    file_error: Option<String>,
}

impl OutputLog {
    /// An empty log spilling to `temp_dir` once more than `max_bytes` arrived, with at most
    /// `max_file_bytes` of the output in the file.
    pub(crate) fn new(max_bytes: usize, max_file_bytes: usize, temp_dir: PathBuf) -> Self {
        OutputLog {
            chunks: VecDeque::new(),
            chunks_bytes: 0,
            total_bytes: 0,
            newlines: 0,
            last_line_bytes: 0,
            max_bytes,
            max_file_bytes,
            file_bytes: 0,
            dropped_bytes: 0,
            temp_dir,
            file: None,
            file_error: None,
        }
    }

    /// Appends what the command wrote.
    pub(crate) fn push(&mut self, data: &[u8]) {
        self.total_bytes = self.total_bytes.saturating_add(data.len());
        let newlines = data.iter().filter(|&&b| b == b'\n').count();
        self.newlines = self.newlines.saturating_add(newlines);
        match data.iter().rposition(|&b| b == b'\n') {
            Some(at) => self.last_line_bytes = data.len() - at - 1,
            None => self.last_line_bytes = self.last_line_bytes.saturating_add(data.len()),
        }
        if self.total_bytes > self.max_bytes {
            // Everything before this chunk is still buffered (at most `max_bytes` of it), so
            // the file starts complete.
            self.persist();
        }
        self.write_to_file(data);
        self.chunks.push_back(data.to_vec());
        self.chunks_bytes += data.len();
        let keep = self.max_bytes.saturating_mul(2);
        while self.chunks_bytes > keep && self.chunks.len() > 1 {
            if let Some(old) = self.chunks.pop_front() {
                self.chunks_bytes -= old.len();
            }
        }
    }

    /// The buffered tail as text (invalid UTF-8, e.g. a character cut by the rolling window,
    /// becomes U+FFFD as Node's `toString("utf-8")` does).
    pub(crate) fn text(&self) -> String {
        let mut bytes = Vec::with_capacity(self.chunks_bytes);
        for chunk in &self.chunks {
            bytes.extend_from_slice(chunk);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// Bytes written in all.
    pub(crate) fn total_bytes(&self) -> usize {
        self.total_bytes
    }

    /// Lines of the whole output as `split("\n")` counts them.
    pub(crate) fn total_lines(&self) -> usize {
        self.newlines.saturating_add(1)
    }

    /// UTF-8 bytes of the whole output's last line.
    pub(crate) fn last_line_bytes(&self) -> usize {
        self.last_line_bytes
    }

    /// The cap on the file's size.
    pub(crate) fn max_file_bytes(&self) -> usize {
        self.max_file_bytes
    }

    /// Bytes of output that did not go into the file because of the cap (0 while none did,
    /// and when there is no file).
    pub(crate) fn dropped_bytes(&self) -> usize {
        self.dropped_bytes
    }

    /// Makes sure the full log is on disk. Only meaningful while nothing has left the rolling
    /// buffer, which holds as long as the total is within twice the limit; past the limit the
    /// file already exists.
    pub(crate) fn persist(&mut self) {
        if self.file.is_some() || self.file_error.is_some() {
            return;
        }
        match create_temp_file(&self.temp_dir) {
            Ok((path, file)) => {
                self.file = Some((path, BufWriter::new(file)));
                let buffered = std::mem::take(&mut self.chunks);
                for chunk in &buffered {
                    self.write_to_file(chunk);
                }
                self.chunks = buffered;
            }
            Err(err) => {
                self.file_error = Some(format!(
                    "cannot create a file in {}: {err}",
                    self.temp_dir.display()
                ))
            }
        }
    }

    /// Flushes the file so a reader of `full_output_path` sees everything.
    pub(crate) fn flush(&mut self) {
        if let Some((path, writer)) = &mut self.file
            && let Err(err) = writer.flush()
        {
            let path = path.clone();
            self.fail(&path, &err);
        }
    }

    /// Where the full log is, for the notices and `details.fullOutputPath`.
    pub(crate) fn full_output_path(&self) -> Option<&Path> {
        self.file.as_ref().map(|(path, _)| path.as_path())
    }

    /// What to show instead of a path when the log could not be written.
    pub(crate) fn full_output_label(&self) -> String {
        match (self.full_output_path(), &self.file_error) {
            (Some(path), _) => path.display().to_string(),
            (None, Some(err)) => format!("unavailable ({err})"),
            (None, None) => "unavailable".to_owned(),
        }
    }

    /// Appends to the file what fits under the cap and counts the rest as dropped. The rest is
    /// still read from the pipe (by the caller), so the command never blocks on a full pipe.
    fn write_to_file(&mut self, data: &[u8]) {
        let Some((path, writer)) = &mut self.file else {
            return;
        };
        let room = self.max_file_bytes.saturating_sub(self.file_bytes);
        let (kept, dropped) = data.split_at(data.len().min(room));
        self.dropped_bytes = self.dropped_bytes.saturating_add(dropped.len());
        if kept.is_empty() {
            return;
        }
        match writer.write_all(kept) {
            Ok(()) => self.file_bytes += kept.len(),
            Err(err) => {
                let path = path.clone();
                self.fail(&path, &err);
            }
        }
    }

    /// Drops the file after a write failed: a partial log presented as the full output would
    /// mislead the model.
    fn fail(&mut self, path: &Path, err: &io::Error) {
        self.file = None;
        self.file_error = Some(format!("writing {} failed: {err}", path.display()));
    }
}

/// Creates `pi-bash-<16 hex>.log` in `dir` without overwriting anything.
fn create_temp_file(dir: &Path) -> io::Result<(PathBuf, File)> {
    let mut last_err = io::Error::other("no attempt made");
    for attempt in 0..TEMP_FILE_ATTEMPTS {
        let path = dir.join(format!("pi-bash-{:016x}.log", random_u64(attempt)));
        match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(file) => return Ok((path, file)),
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => last_err = err,
            Err(err) => return Err(err),
        }
    }
    Err(last_err)
}

/// 64 unpredictable bits from std's randomly keyed hasher: enough for a unique file name
/// without a random-number crate.
fn random_u64(salt: usize) -> u64 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    RandomState::new().hash_one((nanos, salt, std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn small_output_stays_in_memory() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = OutputLog::new(10, usize::MAX, dir.path().to_owned());
        log.push(b"hello");
        assert_eq!(log.text(), "hello");
        assert_eq!(log.full_output_path(), None);
    }

    #[test]
    fn large_output_spills_the_whole_log_and_keeps_a_tail() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = OutputLog::new(4, usize::MAX, dir.path().to_owned());
        for chunk in [b"ab".as_slice(), b"cd", b"ef", b"gh", b"ij", b"kl"] {
            log.push(chunk);
        }
        log.flush();
        let path = log.full_output_path().unwrap().to_owned();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with("pi-bash-") && name.ends_with(".log") && name.len() == 28);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "abcdefghijkl");
        // The rolling buffer keeps at most twice the limit.
        assert_eq!(log.text(), "efghijkl");
        assert_eq!((log.total_bytes(), log.total_lines()), (12, 1));
    }

    #[test]
    fn lines_and_the_last_line_are_counted_over_everything() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = OutputLog::new(100, usize::MAX, dir.path().to_owned());
        log.push(b"a\nbb\ncc");
        log.push(b"c");
        assert_eq!((log.total_lines(), log.last_line_bytes()), (3, 3));
        log.push(b"\n");
        assert_eq!((log.total_lines(), log.last_line_bytes()), (4, 0));
    }

    #[test]
    fn persist_writes_what_is_buffered() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = OutputLog::new(100, usize::MAX, dir.path().to_owned());
        log.push(b"a\nb");
        log.persist();
        log.push(b"\nc");
        log.flush();
        let path = log.full_output_path().unwrap();
        assert_eq!(std::fs::read_to_string(path).unwrap(), "a\nb\nc");
    }

    #[test]
    fn an_unwritable_temp_dir_is_reported_not_fatal() {
        let mut log = OutputLog::new(1, usize::MAX, PathBuf::from("/nonexistent/clawloop-temp"));
        log.push(b"abc");
        assert_eq!(log.full_output_path(), None);
        assert!(
            log.full_output_label()
                .starts_with("unavailable (cannot create a file in /nonexistent/clawloop-temp")
        );
        assert_eq!(log.text(), "abc");
    }

    #[test]
    fn the_file_stops_at_its_cap_and_counts_what_it_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = OutputLog::new(4, 7, dir.path().to_owned());
        for chunk in [b"abc".as_slice(), b"def", b"ghi", b"jkl"] {
            log.push(chunk);
        }
        log.flush();
        let path = log.full_output_path().unwrap();
        assert_eq!(std::fs::read_to_string(path).unwrap(), "abcdefg");
        assert_eq!((log.dropped_bytes(), log.total_bytes()), (5, 12));
        // The tail in memory still has the newest output (whole chunks within twice the limit).
        assert_eq!(log.text(), "ghijkl");
    }

    #[test]
    fn a_cap_below_the_buffered_output_cuts_the_first_write() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = OutputLog::new(100, 2, dir.path().to_owned());
        log.push(b"abcd");
        log.persist();
        log.flush();
        let path = log.full_output_path().unwrap();
        assert_eq!(std::fs::read_to_string(path).unwrap(), "ab");
        assert_eq!(log.dropped_bytes(), 2);
    }
}
