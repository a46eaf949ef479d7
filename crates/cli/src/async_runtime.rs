//! The tokio runtime a command runs on, and the one sentence when it cannot start.
//!
//! Every command runs one session's work in order, so it runs on the runner's
//! [`single_session_runtime`]: one thread and one blocking-pool thread, which keeps a long
//! `chat` from spreading its allocations over more glibc arenas than it has work for.

use clawloop_runner::turn::single_session_runtime;
use tokio::runtime::Runtime;

/// Starts the runtime; the error is the user-facing sentence.
pub fn start() -> Result<Runtime, String> {
    single_session_runtime().map_err(|err| format!("cannot start the async runtime: {err}"))
}
