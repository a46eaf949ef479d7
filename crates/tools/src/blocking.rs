//! File work off the async runtime, ended by cancellation and by the context's time limit.
//!
//! The file tools read, search and list on a blocking thread. The call returns
//! `Operation aborted` as soon as the executor's token fires, and a timeout error once
//! `ctx.limits.timeout` has passed; either way the job's own token is cancelled too, so the
//! thread stops at its next check instead of running on unobserved.

use std::time::Duration;

use clawloop_core::tool::{ToolContext, ToolError};
use tokio_util::sync::CancellationToken;

use crate::js_format;

/// Runs `job` on a blocking thread. The job gets a token to poll between steps (it fires on
/// cancellation, on timeout, and when the call is dropped); `tool` names the tool in the
/// error for a job that panicked.
pub(crate) async fn run_blocking<T, F>(
    tool: &str,
    ctx: &ToolContext,
    cancel: &CancellationToken,
    job: F,
) -> Result<T, ToolError>
where
    T: Send + 'static,
    F: FnOnce(&CancellationToken) -> Result<T, ToolError> + Send + 'static,
{
    if cancel.is_cancelled() {
        return Err(ToolError::Aborted);
    }
    let limit = ctx.limits.timeout;
    if limit.is_some_and(|limit| limit.is_zero()) {
        // No time at all: checked up front like the cancellation, so nothing starts.
        return Err(timed_out(Duration::ZERO));
    }
    let stop = cancel.child_token();
    // Dropping the call (the executor aborting its task) stops the job as well.
    let _stop_on_drop = stop.clone().drop_guard();
    let job_stop = stop.clone();
    let handle = tokio::task::spawn_blocking(move || job(&job_stop));
    let deadline = tokio::time::sleep(limit.unwrap_or(Duration::MAX));
    tokio::pin!(deadline);
    tokio::select! {
        biased;
        () = cancel.cancelled() => Err(ToolError::Aborted),
        () = &mut deadline, if limit.is_some() => Err(timed_out(limit.unwrap_or_default())),
        joined = handle => match joined {
            Ok(result) => result,
            Err(err) => Err(ToolError::Failed(format!("{tool} failed: {err}"))),
        },
    }
}

/// `Operation timed out after <s> seconds`, the seconds written as JS writes numbers.
fn timed_out(limit: Duration) -> ToolError {
    ToolError::Timeout(format!(
        "Operation timed out after {} seconds",
        js_format::number(limit.as_secs_f64())
    ))
}
