//! What a run does after an attempt whose provider is a CLI backend (reference §21 step 1,
//! §22 `runPreparedCliAgent`). None of the embedded chains apply — the CLI compacts, retries
//! and rotates its own credentials — so a failed call is a `FailoverError` for the model
//! fallback to act on, as OpenClaw's CLI runner throws one: the reason its text classifies to,
//! `timeout` for the CLI's timeouts, else `unknown`. One failure is retried first: a CLI that
//! says its session expired gets one more call without resuming it.

use std::time::Duration;

use clawloop_core::classify::{classify_failover_reason, is_timeout_error_message};
use clawloop_core::{FailoverReason, StopReason};

use crate::attempt::AttemptResult;
use crate::cli_backend::{cli_timed_out_text, is_cli_timeout_text};

/// The next step after a CLI attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CliVerdict {
    /// The CLI answered: the run completes with its reply.
    Answered,
    /// The caller (or the CLI's own cancellation) stopped the call.
    Aborted,
    /// The CLI's session expired: call once more, starting a new CLI session.
    RetryWithoutSession,
    /// The call failed: hand the failure to the model fallback.
    Failover {
        /// The failure's text.
        message: String,
        /// Its reason.
        reason: FailoverReason,
    },
}

/// The verdict on `attempt`. `external_abort`: the caller cancelled the run; `timeout`: the
/// run's time limit (named in the text of an attempt the run timer stopped); `retried`: the
/// session-expired retry was already made.
pub fn cli_attempt_verdict(
    attempt: &AttemptResult,
    provider: &str,
    external_abort: bool,
    timeout: Option<Duration>,
    retried: bool,
) -> CliVerdict {
    if external_abort {
        return CliVerdict::Aborted;
    }
    let last = attempt.last_assistant.as_ref();
    if attempt.timed_out {
        let message = last
            .and_then(|a| a.error_message.clone())
            .filter(|m| is_cli_timeout_text(m))
            .unwrap_or_else(|| run_timeout_text(timeout));
        return CliVerdict::Failover {
            message,
            reason: FailoverReason::Timeout,
        };
    }
    let message = match (&attempt.prompt_error, last) {
        (Some(error), _) => error.message.clone(),
        (None, Some(last)) if last.stop_reason == StopReason::Aborted => {
            return CliVerdict::Aborted;
        }
        (None, Some(last)) if last.stop_reason == StopReason::Error => last
            .error_message
            .clone()
            .filter(|m| !m.trim().is_empty())
            .unwrap_or_else(|| "CLI failed.".to_owned()),
        (None, _) => return CliVerdict::Answered,
    };
    let reason = if is_cli_timeout_text(&message) {
        FailoverReason::Timeout
    } else {
        classify_failover_reason(&message, Some(provider)).unwrap_or_else(|| {
            if is_timeout_error_message(&message) {
                FailoverReason::Timeout
            } else {
                FailoverReason::Unknown
            }
        })
    };
    if reason == FailoverReason::SessionExpired && !retried {
        return CliVerdict::RetryWithoutSession;
    }
    CliVerdict::Failover { message, reason }
}

/// OpenClaw's text for a CLI run past its overall limit (the run timer only fires when the run
/// has one).
fn run_timeout_text(timeout: Option<Duration>) -> String {
    cli_timed_out_text(timeout.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attempt::{PromptError, PromptErrorSource};
    use clawloop_core::AssistantMessage;
    use pretty_assertions::assert_eq;

    fn replied(stop: StopReason, error: Option<&str>) -> AttemptResult {
        let mut last = AssistantMessage::empty("cli", "my-cli", "m", 1);
        last.stop_reason = stop;
        last.error_message = error.map(str::to_owned);
        AttemptResult {
            last_assistant: Some(last),
            ..AttemptResult::default()
        }
    }

    fn failover(message: &str, reason: FailoverReason) -> CliVerdict {
        CliVerdict::Failover {
            message: message.to_owned(),
            reason,
        }
    }

    #[test]
    fn verdicts() {
        let verdict = |attempt: &AttemptResult, retried: bool| {
            cli_attempt_verdict(attempt, "my-cli", false, None, retried)
        };
        assert_eq!(
            verdict(&replied(StopReason::Stop, None), false),
            CliVerdict::Answered
        );
        assert_eq!(
            verdict(
                &replied(StopReason::Aborted, Some("CLI run aborted")),
                false
            ),
            CliVerdict::Aborted
        );
        assert_eq!(
            verdict(
                &replied(StopReason::Error, Some("boom (CLI exited with code 1)")),
                false
            ),
            failover("boom (CLI exited with code 1)", FailoverReason::Unknown)
        );
        let watchdog = "CLI produced no output for 180s and was terminated.";
        assert_eq!(
            verdict(&replied(StopReason::Error, Some(watchdog)), false),
            failover(watchdog, FailoverReason::Timeout)
        );
        assert_eq!(
            verdict(&replied(StopReason::Error, Some("")), false),
            failover("CLI failed.", FailoverReason::Unknown)
        );
        let expired = replied(
            StopReason::Error,
            Some("Error: session not found (CLI exited with code 1)"),
        );
        assert_eq!(verdict(&expired, false), CliVerdict::RetryWithoutSession);
        assert_eq!(
            verdict(&expired, true),
            failover(
                "Error: session not found (CLI exited with code 1)",
                FailoverReason::SessionExpired
            )
        );
        let prompt_error = AttemptResult {
            prompt_error: Some(PromptError {
                message: "429 rate limit exceeded".to_owned(),
                source: PromptErrorSource::Prompt,
            }),
            ..AttemptResult::default()
        };
        assert_eq!(
            verdict(&prompt_error, false),
            failover("429 rate limit exceeded", FailoverReason::RateLimit)
        );
        assert_eq!(
            cli_attempt_verdict(
                &replied(StopReason::Stop, None),
                "my-cli",
                true,
                None,
                false
            ),
            CliVerdict::Aborted
        );
        let timed_out = AttemptResult {
            timed_out: true,
            ..replied(StopReason::Aborted, Some("CLI run aborted"))
        };
        assert_eq!(
            cli_attempt_verdict(
                &timed_out,
                "my-cli",
                false,
                Some(Duration::from_secs(30)),
                false
            ),
            failover(
                "CLI exceeded timeout (30s) and was terminated.",
                FailoverReason::Timeout
            )
        );
    }
}
