//! `read`'s line window, streamed: the lines before `offset` are counted and dropped, the
//! window is decoded into a [`HeadCollector`] (which keeps only what fits the output limits),
//! and the lines after it are counted, all over one fixed buffer. Memory stays bounded by the
//! output limits whatever the file's size; a sparse file's holes (zeros, no newlines) are
//! skipped with `SEEK_DATA` where the bytes are not shown.
//!
//! The numbers are those of pi's `content.split("\n")` on the lossily decoded file: a newline
//! is never part of an invalid sequence, so lines can be counted on the raw bytes.

use std::fs::File;
use std::io::{self, Read};

use clawloop_core::tool::ToolError;
use memchr::memchr_iter;
use tokio_util::sync::CancellationToken;

use crate::fs_error::node_message_no_path;
use crate::read::lossy::LossyDecoder;
use crate::truncate::{HeadCollector, TruncationOptions, TruncationResult};

/// Bytes read at a time.
const CHUNK: usize = 64 * 1024;

/// Which lines to show: `start` is 0-based; `count` lines at most (all when `None`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineRange {
    /// The first line shown, 0-based.
    pub(crate) start: usize,
    /// How many lines at most.
    pub(crate) count: Option<usize>,
}

/// What streaming the file found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Window {
    /// Lines in the file (`split("\n")` counts them: newlines plus one).
    pub(crate) total_lines: usize,
    /// The window's text cut by `truncate_head`; meaningless when `start >= total_lines`.
    pub(crate) truncation: TruncationResult,
    /// UTF-8 bytes of the window's first line.
    pub(crate) first_line_bytes: usize,
}

/// Where the stream is.
enum Phase {
    /// Before the window: this many newlines still to pass.
    Before(usize),
    /// In the window: this many newlines may still be inside it (`None`: up to the end).
    Inside(Option<usize>),
    /// After the window: only newlines are counted.
    After,
}

/// Streams `file`, whose first bytes `head` were already read, for `range`.
pub(crate) fn read_window(
    file: &mut File,
    head: &[u8],
    range: LineRange,
    options: TruncationOptions,
    cancel: &CancellationToken,
) -> Result<Window, ToolError> {
    let mut stream = Stream {
        phase: match range.count {
            Some(0) => Phase::After,
            _ if range.start > 0 => Phase::Before(range.start),
            Some(count) => Phase::Inside(Some(count - 1)),
            None => Phase::Inside(None),
        },
        range,
        newlines: 0,
        collector: Some(HeadCollector::new(options)),
        decoder: LossyDecoder::default(),
        done: None,
    };
    stream.feed(head);
    let mut buf = vec![0u8; CHUNK];
    let mut holes = Holes::new(head.len() as u64);
    loop {
        if cancel.is_cancelled() {
            return Err(ToolError::Aborted);
        }
        if stream.skips_zeros() {
            match holes.skip(file) {
                Some(Hole::Until(bytes)) => stream.zeros(bytes),
                Some(Hole::ToEnd(bytes)) => {
                    stream.zeros(bytes);
                    break;
                }
                None => {}
            }
        }
        let read = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(read) => read,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => {
                return Err(ToolError::Io {
                    message: node_message_no_path(&err, "read"),
                    source: err,
                });
            }
        };
        holes.advance(read);
        stream.feed(&buf[..read]);
    }
    Ok(stream.finish())
}

/// The streaming state.
struct Stream {
    phase: Phase,
    range: LineRange,
    /// Newlines seen in the whole file.
    newlines: usize,
    /// The window's collector, until the window ends.
    collector: Option<HeadCollector>,
    decoder: LossyDecoder,
    /// The window's result once it ended.
    done: Option<(TruncationResult, usize)>,
}

impl Stream {
    fn feed(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            match self.phase {
                Phase::Before(left) => {
                    let mut passed = 0;
                    let mut rest = &bytes[bytes.len()..];
                    for at in memchr_iter(b'\n', bytes) {
                        passed += 1;
                        if passed == left {
                            rest = &bytes[at + 1..];
                            break;
                        }
                    }
                    self.newlines += passed;
                    if passed == left {
                        self.phase = match self.range.count {
                            Some(count) => Phase::Inside(Some(count - 1)),
                            None => Phase::Inside(None),
                        };
                    } else {
                        self.phase = Phase::Before(left - passed);
                    }
                    bytes = rest;
                }
                Phase::Inside(left) => {
                    let end = match left {
                        Some(left) => memchr_iter(b'\n', bytes).nth(left),
                        None => None,
                    };
                    let inside = end.map_or(bytes, |at| &bytes[..at]);
                    let Some(collector) = self.collector.as_mut() else {
                        return;
                    };
                    let before = collector.newlines();
                    let mut sink = |text: &str| collector.push(text);
                    self.decoder.feed(inside, &mut sink);
                    let passed = collector.newlines() - before;
                    self.newlines += passed;
                    match end {
                        Some(at) => {
                            self.end_window();
                            // The newline that ends the window's last line.
                            self.newlines += 1;
                            self.phase = Phase::After;
                            bytes = &bytes[at + 1..];
                        }
                        None => {
                            self.phase = Phase::Inside(left.map(|left| left - passed));
                            bytes = &[];
                        }
                    }
                }
                Phase::After => {
                    self.newlines += memchr_iter(b'\n', bytes).count();
                    bytes = &[];
                }
            }
        }
    }

    /// Whether a run of zero bytes would change nothing but counts here (so a hole may be
    /// skipped instead of read).
    fn skips_zeros(&self) -> bool {
        match self.phase {
            Phase::Before(_) | Phase::After => true,
            Phase::Inside(_) => {
                !self.decoder.is_holding()
                    && self
                        .collector
                        .as_ref()
                        .is_some_and(|collector| !collector.wants_text())
            }
        }
    }

    /// Accounts for `bytes` zero bytes (a NUL is one valid character, never a newline).
    fn zeros(&mut self, bytes: u64) {
        if let (Phase::Inside(_), Some(collector)) = (&self.phase, self.collector.as_mut()) {
            collector.push_uncollected(usize::try_from(bytes).unwrap_or(usize::MAX));
        }
    }

    fn end_window(&mut self) {
        if let Some(mut collector) = self.collector.take() {
            let mut sink = |text: &str| collector.push(text);
            self.decoder.finish(&mut sink);
            self.done = Some(collector.finish());
        }
    }

    fn finish(mut self) -> Window {
        self.end_window();
        let (truncation, first_line_bytes) = self
            .done
            .unwrap_or_else(|| HeadCollector::new(TruncationOptions::default()).finish());
        Window {
            total_lines: self.newlines + 1,
            truncation,
            first_line_bytes,
        }
    }
}

/// A hole found at the read position.
enum Hole {
    /// This many zero bytes, then data.
    Until(u64),
    /// This many zero bytes up to the end of the file.
    ToEnd(u64),
}

/// Finds the holes of a sparse file ahead of the read position.
struct Holes {
    /// The read position.
    position: u64,
    /// `SEEK_DATA` works here.
    supported: bool,
}

impl Holes {
    /// Holes past `position`, where the file is read from.
    fn new(position: u64) -> Self {
        Holes {
            position,
            supported: cfg!(any(
                target_os = "linux",
                target_os = "android",
                target_os = "freebsd",
                target_os = "macos",
                target_os = "illumos",
                target_os = "solaris"
            )),
        }
    }

    fn advance(&mut self, read: usize) {
        self.position += read as u64;
    }

    /// Moves the file position past a hole starting at the read position, if there is one.
    fn skip(&mut self, file: &File) -> Option<Hole> {
        if !self.supported {
            return None;
        }
        self.skip_supported(file)
    }

    #[cfg(any(
        target_os = "linux",
        target_os = "android",
        target_os = "freebsd",
        target_os = "macos",
        target_os = "illumos",
        target_os = "solaris"
    ))]
    fn skip_supported(&mut self, file: &File) -> Option<Hole> {
        use rustix::fs::SeekFrom;
        use rustix::io::Errno;
        match rustix::fs::seek(file, SeekFrom::Data(self.position)) {
            Ok(data) if data > self.position => {
                let hole = data - self.position;
                self.position = data;
                Some(Hole::Until(hole))
            }
            Ok(_) => None,
            // No data at or after the position: the rest is one hole.
            Err(Errno::NXIO) => {
                let size = rustix::fs::fstat(file).ok()?.st_size;
                let size = u64::try_from(size).ok()?;
                let hole = size.saturating_sub(self.position);
                self.position = size;
                rustix::fs::seek(file, SeekFrom::Start(size)).ok()?;
                Some(Hole::ToEnd(hole))
            }
            // Not supported by this file system: read everything.
            Err(_) => {
                self.supported = false;
                rustix::fs::seek(file, SeekFrom::Start(self.position)).ok()?;
                None
            }
        }
    }

    #[cfg(not(any(
        target_os = "linux",
        target_os = "android",
        target_os = "freebsd",
        target_os = "macos",
        target_os = "illumos",
        target_os = "solaris"
    )))]
    fn skip_supported(&mut self, _file: &File) -> Option<Hole> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::truncate::truncate_head;
    use pretty_assertions::assert_eq;
    use std::io::Write;

    /// pi's way: decode all, split, slice, join, truncate.
    fn reference(bytes: &[u8], range: LineRange, options: TruncationOptions) -> Window {
        let text = String::from_utf8_lossy(bytes);
        let lines: Vec<&str> = text.split('\n').collect();
        let start = range.start.min(lines.len());
        let end = range.count.map_or(lines.len(), |count| {
            start.saturating_add(count).min(lines.len())
        });
        let selected = lines[start..end.max(start)].join("\n");
        Window {
            total_lines: lines.len(),
            truncation: truncate_head(&selected, options),
            first_line_bytes: selected.split('\n').next().map_or(0, str::len),
        }
    }

    fn streamed(bytes: &[u8], head: usize, range: LineRange, options: TruncationOptions) -> Window {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(bytes).unwrap();
        use std::io::Seek;
        file.seek(io::SeekFrom::Start(head as u64)).unwrap();
        read_window(
            &mut file,
            &bytes[..head],
            range,
            options,
            &CancellationToken::new(),
        )
        .unwrap()
    }

    #[test]
    fn every_window_matches_split_slice_and_truncate() {
        let inputs: [&[u8]; 7] = [
            b"",
            b"\n",
            b"a\nb\nc",
            b"one\ntwo\nthree\n",
            b"caf\xe9\n\xf0\x9f\x98\x80x\n\n\xe2\x82",
            b"\n\nlong line here\n\n",
            b"x\0\0\0\ny",
        ];
        for bytes in inputs {
            for start in 0..6 {
                for count in [None, Some(0), Some(1), Some(2), Some(10)] {
                    for (max_lines, max_bytes) in [(2000, 51_200), (1, 100), (3, 5), (0, 0)] {
                        let range = LineRange { start, count };
                        let options = TruncationOptions {
                            max_lines,
                            max_bytes,
                        };
                        let expected = reference(bytes, range, options);
                        for head in 0..=bytes.len().min(3) {
                            let got = streamed(bytes, head, range, options);
                            assert_eq!(got.total_lines, expected.total_lines);
                            if start < expected.total_lines {
                                assert_eq!(got, expected, "{bytes:?} {range:?} {options:?}");
                            }
                        }
                    }
                }
            }
        }
    }
}
