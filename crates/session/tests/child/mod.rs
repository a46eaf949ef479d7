//! Real child processes for the lock, crash and concurrency tests: the test binary re-invokes
//! itself, running only one `#[test]` that acts as the child when [`ROLE_ENV`] is set (and
//! does nothing in a normal run).

#![allow(dead_code, reason = "each test file uses a different subset")]
// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdout, Command, Stdio};

/// The environment variable naming the role a re-invoked test binary plays.
pub const ROLE_ENV: &str = "CLAWLOOP_SESSION_TEST_CHILD";

/// The role this process was started for, if it is a child.
pub fn role() -> Option<String> {
    std::env::var(ROLE_ENV).ok()
}

/// Starts this test binary as a child running only the test `entry` with `role`, its stdout
/// piped, its stdin piped (children that hold something wait for it to close).
pub fn spawn(entry: &str, role: &str, envs: &[(&str, String)]) -> Child {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([entry, "--exact", "--nocapture", "--test-threads=1", "-q"])
        .env(ROLE_ENV, role)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd.spawn().unwrap()
}

/// Writes one protocol line to stdout and flushes it, so the parent sees it at once.
/// Direct writes: libtest only captures the `print!` macros.
pub fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    out.write_all(format!("{line}\n").as_bytes()).unwrap();
    out.flush().unwrap();
}

/// Reads the child's stdout line by line, keeping only complete protocol lines (a line cut
/// by a kill has no `\n` and is dropped; libtest's own output is skipped).
pub struct Lines {
    reader: BufReader<ChildStdout>,
}

impl Lines {
    pub fn new(child: &mut Child) -> Self {
        Lines {
            reader: BufReader::new(child.stdout.take().unwrap()),
        }
    }

    /// The next complete line starting with `prefix` (the prefix stripped); `None` at EOF.
    pub fn next_with(&mut self, prefix: &str) -> Option<String> {
        let mut buf = Vec::new();
        loop {
            buf.clear();
            if self.reader.read_until(b'\n', &mut buf).unwrap() == 0 {
                return None;
            }
            if buf.last() != Some(&b'\n') {
                return None;
            }
            let line = String::from_utf8_lossy(&buf[..buf.len() - 1]).into_owned();
            if let Some(rest) = line.strip_prefix(prefix) {
                return Some(rest.to_owned());
            }
        }
    }

    /// Every remaining complete line starting with `prefix`, to EOF.
    pub fn rest_with(&mut self, prefix: &str) -> Vec<String> {
        std::iter::from_fn(|| self.next_with(prefix)).collect()
    }
}

/// Blocks until the parent closes our stdin (or dies): how a holding child waits.
pub fn wait_for_stdin_close() {
    let mut sink = Vec::new();
    let _ = std::io::Read::read_to_end(&mut std::io::stdin(), &mut sink);
}
