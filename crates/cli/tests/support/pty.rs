//! A child process on a pseudo-terminal (rustix opens it safely; std::process spawns the
//! child with the terminal as stdin, stdout and stderr).

use std::fs::File;
use std::io::{Read, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use rustix::fs::{Mode, OFlags};
use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
use rustix::termios::{Winsize, tcsetwinsize};

/// How long to wait for output before giving up: a hang guard, never an assertion on time.
const PATIENCE: Duration = Duration::from_secs(60);

/// A child on a terminal and what it wrote so far.
pub struct Pty {
    child: Child,
    writer: File,
    chunks: Receiver<Vec<u8>>,
    /// Everything the child wrote so far.
    pub seen: Vec<u8>,
    /// Where the next `expect` starts looking.
    cursor: usize,
}

impl Pty {
    /// Spawns `command` with a 24×80 terminal as its stdin, stdout and stderr.
    pub fn spawn(command: &mut Command) -> std::io::Result<Pty> {
        let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC)?;
        grantpt(&master)?;
        unlockpt(&master)?;
        let name = ptsname(&master, Vec::new())?;
        let slave = rustix::fs::open(
            name.as_c_str(),
            OFlags::RDWR | OFlags::NOCTTY | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        tcsetwinsize(
            &master,
            Winsize {
                ws_row: 24,
                ws_col: 80,
                ws_xpixel: 0,
                ws_ypixel: 0,
            },
        )?;
        command
            .stdin(Stdio::from(slave.try_clone()?))
            .stdout(Stdio::from(slave.try_clone()?))
            .stderr(Stdio::from(slave));
        let child = command.spawn()?;
        // The command keeps copies of the terminal's slave side; without dropping them the
        // reader would never see the end of the output.
        command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let mut reader = File::from(master.try_clone()?);
        let (send, chunks) = channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            // Linux reports EIO once every slave descriptor is closed: the end of output.
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 || send.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        Ok(Pty {
            child,
            writer: File::from(master),
            chunks,
            seen: Vec::new(),
            cursor: 0,
        })
    }

    /// Types `text`.
    pub fn send(&mut self, text: &str) -> std::io::Result<()> {
        self.writer.write_all(text.as_bytes())?;
        self.writer.flush()
    }

    /// Waits until `needle` appears after what the last `expect` matched.
    pub fn expect(&mut self, needle: &str) -> Result<(), String> {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let text = String::from_utf8_lossy(&self.seen[self.cursor..]).into_owned();
            if let Some(at) = text.find(needle) {
                // Byte offsets agree while the lossy conversion changes nothing before `at`.
                self.cursor += text[..at + needle.len()].len();
                return Ok(());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.chunks.recv_timeout(left) {
                Ok(chunk) => self.seen.extend(chunk),
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!("no {needle:?} in {:?}", self.text()));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(format!(
                        "the output ended without {needle:?}: {:?}",
                        self.text()
                    ));
                }
            }
        }
    }

    /// Waits for the child to exit and for the rest of its output.
    pub fn finish(&mut self) -> std::io::Result<(ExitStatus, String)> {
        let status = self.child.wait()?;
        while let Ok(chunk) = self.chunks.recv_timeout(PATIENCE) {
            self.seen.extend(chunk);
        }
        Ok((status, String::from_utf8_lossy(&self.seen).into_owned()))
    }

    /// The child's process id (to signal it as a terminal's Ctrl-C would).
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// The terminal's modes as the child left them (the master side reads the slave's).
    pub fn termios(&self) -> std::io::Result<rustix::termios::Termios> {
        Ok(rustix::termios::tcgetattr(&self.writer)?)
    }

    /// What the child wrote so far.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.seen).into_owned()
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        // A failed test must not leave the child running.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
