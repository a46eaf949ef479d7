//! The turn's decisions (seed 001, reference §21, SPEC §8.6) as pure functions over plain
//! facts: what the turn does once the model-fallback chain came back ([`after_fallback`]) and
//! whether the key it ran on may be forgotten ([`key_fate`]). `turn/run.rs` carries them out.
//!
//! `after_fallback`'s table, first match wins:
//!
//! | came back                                          | step                           |
//! |----------------------------------------------------|--------------------------------|
//! | the caller aborted                                 | `Silent`                       |
//! | a run whose error is an overflow or a failed compaction, `resetOnOverflow` | `Reset(ContextLimit)` |
//! | a run whose error is a role-ordering one, `resetOnOverflow` | `Reset(RoleOrdering)`  |
//! | an error of a failed compaction (not billing), `resetOnOverflow` | `Reset(CompactionFailed)` |
//! | a role-ordering error, `resetOnOverflow`           | `Reset(RoleOrdering)`          |
//! | Gemini's "function call turn comes immediately after" | `Reset(HistoryCorrupted)`   |
//! | a transient HTTP error (a run's: with no reply)    | `RetryTransient`               |
//! | a run                                              | `Finish`                       |
//! | an error                                           | `Fail`                         |
//!
//! Each reset and the transient retry fire once per turn ([`TurnGuards`]); a spent guard
//! passes on to the next row.

use clawloop_core::classify::{
    is_billing_error_message, is_compaction_failure_error, is_function_call_order_error,
    is_role_ordering_error,
};
use clawloop_core::error_text::TURN_CONTEXT_LIMIT_RESET_TEXT;

use crate::payloads::RunErrorKind;
use crate::turn::guards::TurnGuards;
use crate::turn::run::{
    TURN_COMPACTION_RESET_TEXT, TURN_HISTORY_CORRUPTED_TEXT, TURN_ROLE_ORDERING_RESET_TEXT,
};

/// What the model-fallback chain came back with, as the turn reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FallbackFacts<'a> {
    /// A run finished; its answer may still be an error.
    Ran(RanFacts<'a>),
    /// The caller aborted the turn.
    Aborted,
    /// No candidate answered; the error's text.
    Failed(&'a str),
}

/// A finished run, as the turn reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct RanFacts<'a> {
    /// `meta.error.kind` of the run's result.
    pub error_kind: Option<RunErrorKind>,
    /// The run's reply text is blank.
    pub reply_blank: bool,
    /// The last assistant message stopped on an error.
    pub assistant_failed: bool,
    /// That error's message, when it has one.
    pub assistant_error: Option<&'a str>,
}

impl RanFacts<'_> {
    /// The run failed before any reply: blank, and an error in its result or its last message.
    fn failed_before_reply(&self) -> bool {
        self.reply_blank && (self.error_kind.is_some() || self.assistant_failed)
    }
}

/// Why the session is started over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reset {
    /// The context overflowed or its compaction failed inside the run.
    ContextLimit,
    /// The provider refused the history's role order.
    RoleOrdering,
    /// Every candidate failed on a failed compaction.
    CompactionFailed,
    /// Gemini refused the history's turn order.
    HistoryCorrupted,
}

impl Reset {
    /// What the user is told.
    pub(crate) fn text(self) -> &'static str {
        match self {
            Reset::ContextLimit => TURN_CONTEXT_LIMIT_RESET_TEXT,
            Reset::RoleOrdering => TURN_ROLE_ORDERING_RESET_TEXT,
            Reset::CompactionFailed => TURN_COMPACTION_RESET_TEXT,
            Reset::HistoryCorrupted => TURN_HISTORY_CORRUPTED_TEXT,
        }
    }
}

/// What the turn does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TurnStep<'a> {
    /// Start the session over and tell the user why.
    Reset(Reset),
    /// Wait, then run the whole turn once more; the transient error's text.
    RetryTransient(&'a str),
    /// The run's result is the answer; `failed_before_reply` when it holds an error and no reply.
    Finish {
        /// The run failed before any reply.
        failed_before_reply: bool,
    },
    /// Say nothing: the caller aborted.
    Silent,
    /// The error that escaped the chain is the answer.
    Fail,
}

/// The turn's step after the model-fallback chain (the module's table).
pub(crate) fn after_fallback<'a>(
    facts: &FallbackFacts<'a>,
    guards: TurnGuards,
    reset_on_overflow: bool,
) -> TurnStep<'a> {
    if let Some(reset) = reset_for(facts, reset_on_overflow)
        && !guards.did_reset_after_compaction_failure
    {
        return TurnStep::Reset(reset);
    }
    let transient = match facts {
        FallbackFacts::Aborted => return TurnStep::Silent,
        FallbackFacts::Ran(ran) => ran.reply_blank.then_some(ran.assistant_error).flatten(),
        FallbackFacts::Failed(message) => Some(*message),
    };
    if let Some(message) = transient
        && guards.transient_retry_left(message)
    {
        return TurnStep::RetryTransient(message);
    }
    match facts {
        FallbackFacts::Ran(ran) => TurnStep::Finish {
            failed_before_reply: ran.failed_before_reply(),
        },
        FallbackFacts::Aborted => TurnStep::Silent,
        FallbackFacts::Failed(_) => TurnStep::Fail,
    }
}

/// The reset `facts` call for, guards aside.
fn reset_for(facts: &FallbackFacts<'_>, reset_on_overflow: bool) -> Option<Reset> {
    match facts {
        FallbackFacts::Aborted => None,
        FallbackFacts::Ran(ran) => match ran.error_kind? {
            RunErrorKind::ContextOverflow | RunErrorKind::CompactionFailure
                if reset_on_overflow =>
            {
                Some(Reset::ContextLimit)
            }
            RunErrorKind::RoleOrdering if reset_on_overflow => Some(Reset::RoleOrdering),
            _ => None,
        },
        FallbackFacts::Failed(message) => {
            if reset_on_overflow
                && is_compaction_failure_error(message)
                && !is_billing_error_message(message)
            {
                Some(Reset::CompactionFailed)
            } else if reset_on_overflow && is_role_ordering_error(message) {
                Some(Reset::RoleOrdering)
            } else if is_function_call_order_error(message) {
                // Gemini's history is unusable whatever the setting: a reset is the only way on.
                Some(Reset::HistoryCorrupted)
            } else {
                None
            }
        }
    }
}

/// What happens to the session key after the turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyFate {
    /// The key and its transcript stay.
    Keep,
    /// The key goes if its transcript holds no answer (the session crate's
    /// `transcript_holds_no_answer`): a failed first turn leaves no empty session behind.
    ForgetIfUnanswered,
}

/// Whether the key may be forgotten: only one this turn created, and only when the turn
/// failed before any reply. A key bound before the turn is the user's session, always kept.
pub(crate) fn key_fate(created_here: bool, failed_before_reply: bool) -> KeyFate {
    if created_here && failed_before_reply {
        KeyFate::ForgetIfUnanswered
    } else {
        KeyFate::Keep
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    const OVERFLOW: &str = "400 prompt is too long: 210000 tokens > 200000 maximum";
    const COMPACTION: &str = "Context overflow: Summarization failed: 400 prompt is too long";
    const ROLE_ORDERING: &str = "400 roles must alternate between user and assistant";
    const GEMINI_ORDER: &str = "400 Please ensure that function call turn comes immediately after a user turn or after a function response turn.";
    const TRANSIENT: &str = "503 Service Unavailable";
    const PLAIN: &str = "401 invalid api key";

    fn ran(error_kind: Option<RunErrorKind>, assistant_error: Option<&str>) -> FallbackFacts<'_> {
        FallbackFacts::Ran(RanFacts {
            error_kind,
            reply_blank: true,
            assistant_failed: assistant_error.is_some(),
            assistant_error,
        })
    }

    fn replied(assistant_error: Option<&str>) -> FallbackFacts<'_> {
        FallbackFacts::Ran(RanFacts {
            reply_blank: false,
            assistant_failed: assistant_error.is_some(),
            assistant_error,
            ..RanFacts::default()
        })
    }

    const FRESH: TurnGuards = TurnGuards {
        did_reset_after_compaction_failure: false,
        did_retry_transient_http_error: false,
    };
    const RESET_SPENT: TurnGuards = TurnGuards {
        did_reset_after_compaction_failure: true,
        did_retry_transient_http_error: false,
    };
    const RETRY_SPENT: TurnGuards = TurnGuards {
        did_reset_after_compaction_failure: false,
        did_retry_transient_http_error: true,
    };

    #[test]
    fn the_classifiers_read_the_rows_texts_as_named() {
        use clawloop_core::classify::{is_context_overflow_error, is_transient_http_error};
        assert!(is_context_overflow_error(OVERFLOW));
        assert!(is_compaction_failure_error(COMPACTION) && !is_billing_error_message(COMPACTION));
        assert!(is_role_ordering_error(ROLE_ORDERING));
        assert!(
            !is_role_ordering_error(GEMINI_ORDER) && !is_compaction_failure_error(GEMINI_ORDER)
        );
        assert!(is_transient_http_error(TRANSIENT));
        assert!(!is_transient_http_error(PLAIN) && !is_transient_http_error(GEMINI_ORDER));
    }

    /// One row per line of the module's table, plus each guard and setting that passes a row on.
    #[test]
    fn after_fallback_follows_its_table() {
        use RunErrorKind as K;
        use TurnStep as S;
        let finish = |failed_before_reply| S::Finish {
            failed_before_reply,
        };
        let rows: Vec<(&str, FallbackFacts<'_>, TurnGuards, bool, TurnStep<'_>)> = vec![
            (
                "abort is silent",
                FallbackFacts::Aborted,
                FRESH,
                true,
                S::Silent,
            ),
            (
                "abort stays silent with every guard spent",
                FallbackFacts::Aborted,
                TurnGuards {
                    did_reset_after_compaction_failure: true,
                    did_retry_transient_http_error: true,
                },
                false,
                S::Silent,
            ),
            (
                "run overflow resets",
                ran(Some(K::ContextOverflow), Some(OVERFLOW)),
                FRESH,
                true,
                S::Reset(Reset::ContextLimit),
            ),
            (
                "run compaction failure resets",
                ran(Some(K::CompactionFailure), None),
                FRESH,
                true,
                S::Reset(Reset::ContextLimit),
            ),
            (
                "run overflow without resetOnOverflow finishes failed",
                ran(Some(K::ContextOverflow), Some(OVERFLOW)),
                FRESH,
                false,
                finish(true),
            ),
            (
                "run overflow after a reset finishes failed",
                ran(Some(K::ContextOverflow), Some(OVERFLOW)),
                RESET_SPENT,
                true,
                finish(true),
            ),
            (
                "run role ordering resets",
                ran(Some(K::RoleOrdering), Some(ROLE_ORDERING)),
                FRESH,
                true,
                S::Reset(Reset::RoleOrdering),
            ),
            (
                "run role ordering without resetOnOverflow finishes failed",
                ran(Some(K::RoleOrdering), Some(ROLE_ORDERING)),
                FRESH,
                false,
                finish(true),
            ),
            (
                "another run error kind finishes failed",
                ran(Some(K::RetryLimit), None),
                FRESH,
                true,
                finish(true),
            ),
            (
                "failed compaction resets",
                FallbackFacts::Failed(COMPACTION),
                FRESH,
                true,
                S::Reset(Reset::CompactionFailed),
            ),
            (
                "failed compaction without resetOnOverflow fails",
                FallbackFacts::Failed(COMPACTION),
                FRESH,
                false,
                S::Fail,
            ),
            (
                "role ordering error resets",
                FallbackFacts::Failed(ROLE_ORDERING),
                FRESH,
                true,
                S::Reset(Reset::RoleOrdering),
            ),
            (
                "role ordering error without resetOnOverflow fails",
                FallbackFacts::Failed(ROLE_ORDERING),
                FRESH,
                false,
                S::Fail,
            ),
            (
                "Gemini's order error resets whatever the setting",
                FallbackFacts::Failed(GEMINI_ORDER),
                FRESH,
                false,
                S::Reset(Reset::HistoryCorrupted),
            ),
            (
                "Gemini's order error after a reset fails",
                FallbackFacts::Failed(GEMINI_ORDER),
                RESET_SPENT,
                true,
                S::Fail,
            ),
            (
                "transient error retries",
                FallbackFacts::Failed(TRANSIENT),
                FRESH,
                true,
                S::RetryTransient(TRANSIENT),
            ),
            (
                "transient error with the retry spent fails",
                FallbackFacts::Failed(TRANSIENT),
                RETRY_SPENT,
                true,
                S::Fail,
            ),
            (
                "transient error after a reset still retries",
                FallbackFacts::Failed(TRANSIENT),
                RESET_SPENT,
                true,
                S::RetryTransient(TRANSIENT),
            ),
            (
                "a run's transient error with no reply retries",
                ran(None, Some(TRANSIENT)),
                FRESH,
                true,
                S::RetryTransient(TRANSIENT),
            ),
            (
                "a run's transient error with the retry spent finishes failed",
                ran(None, Some(TRANSIENT)),
                RETRY_SPENT,
                true,
                finish(true),
            ),
            (
                "a run's transient error after a reply finishes",
                replied(Some(TRANSIENT)),
                FRESH,
                true,
                finish(false),
            ),
            (
                "a run's other error with no reply finishes failed",
                ran(None, Some(PLAIN)),
                FRESH,
                true,
                finish(true),
            ),
            (
                "a run whose last message failed without text finishes failed",
                FallbackFacts::Ran(RanFacts {
                    reply_blank: true,
                    assistant_failed: true,
                    ..RanFacts::default()
                }),
                FRESH,
                true,
                finish(true),
            ),
            (
                "a blank run without an error finishes",
                ran(None, None),
                FRESH,
                true,
                finish(false),
            ),
            (
                "a reply finishes",
                replied(None),
                FRESH,
                true,
                finish(false),
            ),
            (
                "another error fails",
                FallbackFacts::Failed(PLAIN),
                FRESH,
                true,
                S::Fail,
            ),
        ];
        for (name, facts, guards, reset_on_overflow, expected) in rows {
            assert_eq!(
                after_fallback(&facts, guards, reset_on_overflow),
                expected,
                "{name}"
            );
        }
    }

    #[test]
    fn only_a_key_created_by_a_turn_that_failed_before_a_reply_may_go() {
        let rows = [
            (true, true, KeyFate::ForgetIfUnanswered),
            (true, false, KeyFate::Keep),
            (false, true, KeyFate::Keep),
            (false, false, KeyFate::Keep),
        ];
        for (created_here, failed_before_reply, expected) in rows {
            assert_eq!(
                key_fate(created_here, failed_before_reply),
                expected,
                "created here {created_here}, failed {failed_before_reply}"
            );
        }
    }
}
