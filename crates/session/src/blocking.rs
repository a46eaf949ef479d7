//! Running blocking file work from async code: on the runtime's blocking pool, never on one of
//! its worker threads, where a slow disk or a lock wait would stall every other task.

use std::path::Path;

use crate::error::SessionError;

/// Runs `work` on the blocking pool of the current Tokio runtime and returns its result.
///
/// A panic in `work` is resumed in the caller, as if it had run inline. A task the runtime
/// dropped unrun (it is shutting down) is an I/O error on `path`.
///
/// Must be called from within a Tokio runtime.
pub(crate) async fn run_blocking<T, F>(path: &Path, work: F) -> Result<T, SessionError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, SessionError> + Send + 'static,
{
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => result,
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(_) => Err(SessionError::io(
            path,
            "run on the blocking pool",
            std::io::Error::other("the async runtime shut down before the task ran"),
        )),
    }
}
