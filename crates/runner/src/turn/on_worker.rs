//! A turn runs as a task of the Tokio runtime, not on the thread that awaits it.
//!
//! A streamed reply is thousands of small events, each handed between the HTTP connection's
//! task (always a runtime task) and the loop that consumes the stream. When the consumer is
//! the future of `Runtime::block_on` — what a CLI `main` does — it runs on the caller's own
//! thread, outside the workers: every event then wakes a worker and the blocked thread in
//! turn (four context switches per event measured, 20-40 KB/s of one-byte deltas on a loaded
//! machine). As a task, the consumer and the connection hand events to each other on one
//! worker.

use std::future::Future;

use tokio::task::{JoinError, JoinHandle};

/// Aborts the task when the awaiting future is dropped, so dropping a turn still cancels it.
struct AbortOnDrop<T>(JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Runs `work` as a task of the current runtime and waits for it. A panic in `work` is
/// resumed here, as if it had run inline; `Err` only when the runtime shut down first.
pub(crate) async fn run_as_task<F>(work: F) -> Result<F::Output, JoinError>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let mut task = AbortOnDrop(tokio::spawn(work));
    match (&mut task.0).await {
        Ok(output) => Ok(output),
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(e) => Err(e),
    }
}
