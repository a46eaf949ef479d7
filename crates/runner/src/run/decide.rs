//! The failover decision of one run-loop iteration (OpenClaw `resolveRunFailoverDecision`,
//! reference §5.1): what to do after a failed prompt, a failed reply, or the iteration limit.
//! A pure function over plain data; the run loop only carries the action out.

use clawloop_core::FailoverReason;

/// Where in the iteration the decision is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecisionStage {
    /// Sending the prompt failed (a thrown error before or around the model call).
    Prompt,
    /// The model's reply failed or the attempt timed out.
    Assistant,
    /// The loop hit `MAX_RUN_LOOP_ITERATIONS`.
    RetryLimit,
}

/// The facts the decision reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DecisionInput {
    /// The failure's reason, when it classified.
    pub reason: Option<FailoverReason>,
    /// The failure is a failover error (a classified reason or a failover-shaped message).
    pub failover_failure: bool,
    /// A fallback model is configured.
    pub fallback_configured: bool,
    /// The auth profile was already rotated for this failure (rotation failed or is locked).
    pub profile_rotated: bool,
    /// The caller aborted the run.
    pub external_abort: bool,
    /// The attempt was aborted.
    pub aborted: bool,
    /// The attempt timed out.
    pub timed_out: bool,
    /// The timeout fired while compacting.
    pub timed_out_during_compaction: bool,
}

/// What the run loop does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailoverDecision {
    /// Nothing to recover from: go on to the payloads.
    ContinueNormal,
    /// Try the next auth profile.
    RotateProfile,
    /// Give up on this model; the model-fallback layer tries the next one.
    FallbackModel(FailoverReason),
    /// Show the error to the user.
    SurfaceError,
    /// End the run with an error payload (iteration limit).
    ReturnErrorPayload,
}

/// Reasons that never move the run to another model at the iteration limit.
fn retry_limit_falls_back(reason: Option<FailoverReason>) -> Option<FailoverReason> {
    use FailoverReason as R;
    match reason? {
        R::Timeout | R::ModelNotFound | R::Format | R::SessionExpired => None,
        reason @ (R::Auth
        | R::AuthPermanent
        | R::Overloaded
        | R::RateLimit
        | R::Billing
        | R::Unknown) => Some(reason),
    }
}

/// `resolveRunFailoverDecision`.
pub fn resolve_run_failover_decision(
    stage: DecisionStage,
    input: &DecisionInput,
) -> FailoverDecision {
    use FailoverDecision as D;
    match stage {
        DecisionStage::RetryLimit => match retry_limit_falls_back(input.reason) {
            Some(reason) if input.fallback_configured => D::FallbackModel(reason),
            Some(_) | None => D::ReturnErrorPayload,
        },
        DecisionStage::Prompt => {
            let should_rotate =
                input.failover_failure && input.reason != Some(FailoverReason::Timeout);
            if input.external_abort {
                D::SurfaceError
            } else if !input.profile_rotated && should_rotate {
                D::RotateProfile
            } else if input.fallback_configured && input.failover_failure {
                D::FallbackModel(input.reason.unwrap_or(FailoverReason::Unknown))
            } else {
                D::SurfaceError
            }
        }
        DecisionStage::Assistant => {
            let should_rotate = (!input.aborted
                && (input.failover_failure || input.reason.is_some()))
                || (input.timed_out && !input.timed_out_during_compaction);
            if input.external_abort {
                D::SurfaceError
            } else if !input.profile_rotated && should_rotate {
                D::RotateProfile
            } else if should_rotate && input.fallback_configured {
                let reason = if input.timed_out {
                    FailoverReason::Timeout
                } else {
                    input.reason.unwrap_or(FailoverReason::Unknown)
                };
                D::FallbackModel(reason)
            } else if !should_rotate {
                D::ContinueNormal
            } else {
                D::SurfaceError
            }
        }
    }
}

/// `mergeRetryFailoverReason`: the reason a later retry-limit decision uses.
pub fn merge_retry_failover_reason(
    reason: Option<FailoverReason>,
    timed_out: bool,
    previous: Option<FailoverReason>,
) -> Option<FailoverReason> {
    reason
        .or(timed_out.then_some(FailoverReason::Timeout))
        .or(previous)
}

#[cfg(test)]
mod tests {
    use super::*;
    use FailoverDecision as D;
    use FailoverReason as R;
    use pretty_assertions::assert_eq;

    fn input() -> DecisionInput {
        DecisionInput::default()
    }

    /// One row per vector of reference §5.1, plus each branch.
    #[test]
    fn decisions_follow_the_reference_table() {
        let rows: Vec<(&str, DecisionStage, DecisionInput, FailoverDecision)> = vec![
            (
                "prompt rate limit rotates",
                DecisionStage::Prompt,
                DecisionInput {
                    reason: Some(R::RateLimit),
                    failover_failure: true,
                    ..input()
                },
                D::RotateProfile,
            ),
            (
                "prompt rate limit after rotation falls back",
                DecisionStage::Prompt,
                DecisionInput {
                    reason: Some(R::RateLimit),
                    failover_failure: true,
                    profile_rotated: true,
                    fallback_configured: true,
                    ..input()
                },
                D::FallbackModel(R::RateLimit),
            ),
            (
                "prompt timeout never rotates",
                DecisionStage::Prompt,
                DecisionInput {
                    reason: Some(R::Timeout),
                    failover_failure: true,
                    fallback_configured: true,
                    ..input()
                },
                D::FallbackModel(R::Timeout),
            ),
            (
                "prompt without fallback surfaces",
                DecisionStage::Prompt,
                DecisionInput {
                    reason: Some(R::Auth),
                    failover_failure: true,
                    profile_rotated: true,
                    ..input()
                },
                D::SurfaceError,
            ),
            (
                "prompt failover without reason falls back as unknown",
                DecisionStage::Prompt,
                DecisionInput {
                    failover_failure: true,
                    profile_rotated: true,
                    fallback_configured: true,
                    ..input()
                },
                D::FallbackModel(R::Unknown),
            ),
            (
                "prompt non-failover surfaces",
                DecisionStage::Prompt,
                DecisionInput {
                    fallback_configured: true,
                    ..input()
                },
                D::SurfaceError,
            ),
            (
                "prompt external abort",
                DecisionStage::Prompt,
                DecisionInput {
                    external_abort: true,
                    reason: Some(R::RateLimit),
                    failover_failure: true,
                    ..input()
                },
                D::SurfaceError,
            ),
            (
                "assistant classified 429 without error stop still rotates",
                DecisionStage::Assistant,
                DecisionInput {
                    reason: Some(R::RateLimit),
                    ..input()
                },
                D::RotateProfile,
            ),
            (
                "assistant null reason no timeout continues",
                DecisionStage::Assistant,
                input(),
                D::ContinueNormal,
            ),
            (
                "assistant timeout rotates",
                DecisionStage::Assistant,
                DecisionInput {
                    timed_out: true,
                    aborted: true,
                    ..input()
                },
                D::RotateProfile,
            ),
            (
                "assistant timeout after rotation falls back as timeout",
                DecisionStage::Assistant,
                DecisionInput {
                    timed_out: true,
                    aborted: true,
                    profile_rotated: true,
                    fallback_configured: true,
                    reason: Some(R::RateLimit),
                    ..input()
                },
                D::FallbackModel(R::Timeout),
            ),
            (
                "assistant timeout during compaction does not rotate",
                DecisionStage::Assistant,
                DecisionInput {
                    timed_out: true,
                    timed_out_during_compaction: true,
                    aborted: true,
                    ..input()
                },
                D::ContinueNormal,
            ),
            (
                "assistant aborted failure continues",
                DecisionStage::Assistant,
                DecisionInput {
                    aborted: true,
                    failover_failure: true,
                    reason: Some(R::Auth),
                    ..input()
                },
                D::ContinueNormal,
            ),
            (
                "assistant rotated without fallback surfaces",
                DecisionStage::Assistant,
                DecisionInput {
                    reason: Some(R::Auth),
                    failover_failure: true,
                    profile_rotated: true,
                    ..input()
                },
                D::SurfaceError,
            ),
            (
                "assistant external abort",
                DecisionStage::Assistant,
                DecisionInput {
                    external_abort: true,
                    reason: Some(R::Auth),
                    ..input()
                },
                D::SurfaceError,
            ),
            (
                "retry limit timeout returns payload",
                DecisionStage::RetryLimit,
                DecisionInput {
                    reason: Some(R::Timeout),
                    fallback_configured: true,
                    ..input()
                },
                D::ReturnErrorPayload,
            ),
            (
                "retry limit rate limit falls back",
                DecisionStage::RetryLimit,
                DecisionInput {
                    reason: Some(R::RateLimit),
                    fallback_configured: true,
                    ..input()
                },
                D::FallbackModel(R::RateLimit),
            ),
            (
                "retry limit without fallback returns payload",
                DecisionStage::RetryLimit,
                DecisionInput {
                    reason: Some(R::RateLimit),
                    ..input()
                },
                D::ReturnErrorPayload,
            ),
            (
                "retry limit null reason returns payload",
                DecisionStage::RetryLimit,
                DecisionInput {
                    fallback_configured: true,
                    ..input()
                },
                D::ReturnErrorPayload,
            ),
            (
                "retry limit format returns payload",
                DecisionStage::RetryLimit,
                DecisionInput {
                    reason: Some(R::Format),
                    fallback_configured: true,
                    ..input()
                },
                D::ReturnErrorPayload,
            ),
        ];
        for (name, stage, input, expected) in rows {
            assert_eq!(
                resolve_run_failover_decision(stage, &input),
                expected,
                "{name}"
            );
        }
    }

    #[test]
    fn the_retry_reason_prefers_the_new_reason_then_a_timeout_then_the_old_one() {
        assert_eq!(
            merge_retry_failover_reason(Some(R::Auth), true, Some(R::Billing)),
            Some(R::Auth)
        );
        assert_eq!(
            merge_retry_failover_reason(None, true, Some(R::Billing)),
            Some(R::Timeout)
        );
        assert_eq!(
            merge_retry_failover_reason(None, false, Some(R::Billing)),
            Some(R::Billing)
        );
        assert_eq!(merge_retry_failover_reason(None, false, None), None);
    }
}
