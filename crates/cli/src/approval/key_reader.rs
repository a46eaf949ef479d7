//! One key press from the terminal, for the y/N prompt: the terminal goes to non-canonical
//! mode with echo and signals off (so Ctrl-C arrives as a byte and the terminal is always
//! restored), and a thread of its own waits for the key so the runtime keeps handling
//! signals meanwhile. Dropping the [`KeyPress`] (an aborted turn) restores the terminal and
//! tells the thread to stop within one poll period, so it never eats a later line.

use std::os::fd::AsFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rustix::termios::{self, LocalModes, OptionalActions, SpecialCodeIndex, Termios};
use tokio::sync::oneshot;

/// How often the reading thread looks whether it was abandoned.
const POLL_PERIOD: Duration = Duration::from_millis(100);

/// A key press being waited for.
pub struct KeyPress {
    saved: Termios,
    abandoned: Arc<AtomicBool>,
    key: oneshot::Receiver<Option<u8>>,
}

impl KeyPress {
    /// Starts waiting for a key on stdin (a terminal).
    pub fn start() -> std::io::Result<KeyPress> {
        let stdin = std::io::stdin();
        let saved = termios::tcgetattr(stdin.as_fd())?;
        let mut raw = saved.clone();
        raw.local_modes
            .remove(LocalModes::ICANON | LocalModes::ECHO | LocalModes::ISIG);
        raw.special_codes[SpecialCodeIndex::VMIN] = 1;
        raw.special_codes[SpecialCodeIndex::VTIME] = 0;
        termios::tcsetattr(stdin.as_fd(), OptionalActions::Flush, &raw)?;
        let abandoned = Arc::new(AtomicBool::new(false));
        let (send, key) = oneshot::channel();
        let flag = Arc::clone(&abandoned);
        let spawned = std::thread::Builder::new()
            .name("approval-key".into())
            .spawn(move || {
                let _ = send.send(read_key(&flag));
            });
        let press = KeyPress {
            saved,
            abandoned,
            key,
        };
        // Dropping `press` restores the terminal when the thread cannot start.
        spawned?;
        Ok(press)
    }

    /// The key, `None` at the end of input or when it cannot be read.
    pub async fn key(&mut self) -> Option<u8> {
        (&mut self.key).await.ok().flatten()
    }
}

impl Drop for KeyPress {
    fn drop(&mut self) {
        self.abandoned.store(true, Ordering::Relaxed);
        let _ = termios::tcsetattr(std::io::stdin().as_fd(), OptionalActions::Now, &self.saved);
    }
}

/// Waits for one byte on stdin until `abandoned` is set.
fn read_key(abandoned: &AtomicBool) -> Option<u8> {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    let stdin = std::io::stdin();
    let timeout = Timespec {
        tv_sec: 0,
        tv_nsec: i64::from(POLL_PERIOD.subsec_nanos()),
    };
    while !abandoned.load(Ordering::Relaxed) {
        let mut fds = [PollFd::new(&stdin, PollFlags::IN)];
        match poll(&mut fds, Some(&timeout)) {
            Ok(0) => continue,
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => continue,
            Err(_) => return None,
        }
        let mut byte = [0u8; 1];
        return match rustix::io::read(&stdin, &mut byte) {
            Ok(1) => Some(byte[0]),
            _ => None,
        };
    }
    None
}
