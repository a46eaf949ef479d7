//! The tokio runtime a command runs on, and the one sentence when it cannot start.

use tokio::runtime::{Builder, Runtime};

/// How many threads drive the command's futures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// One thread: a single chain of awaits (a `run` turn, `logs --follow`).
    CurrentThread,
    /// Worker threads: work that runs beside the terminal (chat, compaction).
    MultiThread,
}

/// Starts a runtime with I/O and time enabled; the error is the user-facing sentence.
pub fn start(flavor: Flavor) -> Result<Runtime, String> {
    let mut builder = match flavor {
        Flavor::CurrentThread => Builder::new_current_thread(),
        Flavor::MultiThread => Builder::new_multi_thread(),
    };
    builder
        .enable_all()
        .build()
        .map_err(|err| format!("cannot start the async runtime: {err}"))
}
