//! What to do with a candidate whose provider has every auth profile resting
//! (`resolveCooldownDecision`, reference §14).

use clawloop_core::FailoverReason;

use super::probe_slot::is_transient_cooldown_reason;

/// How close to the soonest cooldown expiry a probe of the primary may start: a window that
/// ends within two minutes is worth testing early.
pub const PROBE_MARGIN_MS: f64 = 120_000.0;

/// What is known when every profile of a candidate's provider rests.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CooldownInput<'a> {
    /// The candidate's provider (named in the skip texts).
    pub provider: &'a str,
    /// The candidate is the first of the chain.
    pub is_primary: bool,
    /// The candidate is the model the run asked for.
    pub requested_model: bool,
    /// The chain has more than one candidate.
    pub has_fallback_candidates: bool,
    /// Why the profiles rest (`resolveProfilesUnavailableReason`); `None` reads as `unknown`.
    pub unavailable_reason: Option<FailoverReason>,
    /// When the first of the profiles is usable again for this model, in ms since the epoch.
    pub soonest_expiry_ms: Option<f64>,
    /// The per-(agent dir, provider) probe throttle is open ([`super::ProbeThrottle::is_open`]).
    pub throttle_open: bool,
    /// The time of the decision, in ms since the epoch.
    pub now_ms: f64,
}

/// The outcome of [`resolve_cooldown_decision`].
#[derive(Debug, Clone, PartialEq)]
pub enum CooldownDecision {
    /// Do not run the candidate; record `error` as its attempt.
    Skip {
        /// The inferred reason, recorded with the attempt.
        reason: FailoverReason,
        /// The attempt's text, e.g. `Provider acme is in cooldown (all profiles unavailable)`.
        error: String,
    },
    /// Run the candidate despite the cooldown.
    Attempt {
        /// The inferred reason.
        reason: FailoverReason,
        /// Record a probe for the throttle before running.
        mark_probe: bool,
    },
}

/// "A probe is due": only the primary of a chain with fallbacks probes, at most once per
/// throttle interval, and only when no expiry is known or the soonest one is at most
/// [`PROBE_MARGIN_MS`] away (or past).
pub fn should_probe_primary(input: &CooldownInput<'_>) -> bool {
    if !input.is_primary || !input.has_fallback_candidates || !input.throttle_open {
        return false;
    }
    match input.soonest_expiry_ms.filter(|t| t.is_finite()) {
        None => true,
        Some(soonest) => input.now_ms >= soonest - PROBE_MARGIN_MS,
    }
}

/// Skip, attempt, or probe a candidate whose provider has every profile resting
/// (reference §14):
///
/// * `auth` / `auth_permanent`: skip, `Provider <p> has <reason> issue (skipping all models)`;
/// * `billing`: attempt (marking a probe) only as the primary when a probe is due or, for a
///   single-candidate chain, when the throttle is open; otherwise the same skip text;
/// * anything else: attempt as the primary when it is not the requested model or a probe is
///   due, and as a later candidate when the reason is transient; otherwise skip with
///   `Provider <p> is in cooldown (all profiles unavailable)`. A probe is marked only for the
///   primary's due probe.
pub fn resolve_cooldown_decision(input: &CooldownInput<'_>) -> CooldownDecision {
    let probe_due = should_probe_primary(input);
    let reason = input.unavailable_reason.unwrap_or(FailoverReason::Unknown);
    let provider = input.provider;
    let issue_skip = || CooldownDecision::Skip {
        reason,
        error: format!("Provider {provider} has {reason} issue (skipping all models)"),
    };
    let cooldown_skip = || CooldownDecision::Skip {
        reason,
        error: format!("Provider {provider} is in cooldown (all profiles unavailable)"),
    };
    match reason {
        FailoverReason::Auth | FailoverReason::AuthPermanent => issue_skip(),
        FailoverReason::Billing => {
            let single_provider_probe =
                input.is_primary && !input.has_fallback_candidates && input.throttle_open;
            if input.is_primary && (probe_due || single_provider_probe) {
                CooldownDecision::Attempt {
                    reason,
                    mark_probe: true,
                }
            } else {
                issue_skip()
            }
        }
        FailoverReason::RateLimit
        | FailoverReason::Overloaded
        | FailoverReason::Timeout
        | FailoverReason::Unknown
        | FailoverReason::Format
        | FailoverReason::ModelNotFound
        | FailoverReason::SessionExpired => {
            let attempt = if input.is_primary {
                !input.requested_model || probe_due
            } else {
                is_transient_cooldown_reason(reason)
            };
            if attempt {
                CooldownDecision::Attempt {
                    reason,
                    mark_probe: input.is_primary && probe_due,
                }
            } else {
                cooldown_skip()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use FailoverReason as R;
    use pretty_assertions::assert_eq;

    const NOW: f64 = 1_700_000_000_000.0;

    fn input(reason: Option<R>) -> CooldownInput<'static> {
        CooldownInput {
            provider: "acme",
            is_primary: true,
            requested_model: true,
            has_fallback_candidates: true,
            unavailable_reason: reason,
            soonest_expiry_ms: None,
            throttle_open: true,
            now_ms: NOW,
        }
    }

    fn attempt(reason: R, mark_probe: bool) -> CooldownDecision {
        CooldownDecision::Attempt { reason, mark_probe }
    }

    fn issue(reason: R) -> CooldownDecision {
        CooldownDecision::Skip {
            reason,
            error: format!("Provider acme has {reason} issue (skipping all models)"),
        }
    }

    fn cooldown(reason: R) -> CooldownDecision {
        CooldownDecision::Skip {
            reason,
            error: "Provider acme is in cooldown (all profiles unavailable)".to_owned(),
        }
    }

    #[test]
    fn probe_due_table() {
        let base = input(Some(R::RateLimit));
        let cases: Vec<(&str, CooldownInput<'_>, bool)> = vec![
            ("primary, fallbacks, open throttle, no expiry", base, true),
            (
                "not primary",
                CooldownInput {
                    is_primary: false,
                    ..base
                },
                false,
            ),
            (
                "no fallbacks",
                CooldownInput {
                    has_fallback_candidates: false,
                    ..base
                },
                false,
            ),
            (
                "throttle closed",
                CooldownInput {
                    throttle_open: false,
                    ..base
                },
                false,
            ),
            (
                "expiry far away",
                CooldownInput {
                    soonest_expiry_ms: Some(NOW + PROBE_MARGIN_MS + 1.0),
                    ..base
                },
                false,
            ),
            (
                "expiry exactly at the margin",
                CooldownInput {
                    soonest_expiry_ms: Some(NOW + PROBE_MARGIN_MS),
                    ..base
                },
                true,
            ),
            (
                "expiry passed",
                CooldownInput {
                    soonest_expiry_ms: Some(NOW - 1.0),
                    ..base
                },
                true,
            ),
            (
                "a non-finite expiry counts as unknown",
                CooldownInput {
                    soonest_expiry_ms: Some(f64::INFINITY),
                    ..base
                },
                true,
            ),
        ];
        for (name, case, want) in cases {
            assert_eq!(should_probe_primary(&case), want, "{name}");
        }
    }

    #[test]
    fn decision_table() {
        let far = Some(NOW + 10.0 * PROBE_MARGIN_MS);
        let cases: Vec<(&str, CooldownInput<'_>, CooldownDecision)> = vec![
            // auth and auth_permanent: always skipped, even with a probe due.
            ("auth primary", input(Some(R::Auth)), issue(R::Auth)),
            (
                "auth_permanent later",
                CooldownInput {
                    is_primary: false,
                    ..input(Some(R::AuthPermanent))
                },
                issue(R::AuthPermanent),
            ),
            // billing.
            (
                "billing primary, probe due",
                input(Some(R::Billing)),
                attempt(R::Billing, true),
            ),
            (
                "billing primary, single candidate, throttle open (expiry far away)",
                CooldownInput {
                    has_fallback_candidates: false,
                    soonest_expiry_ms: far,
                    ..input(Some(R::Billing))
                },
                attempt(R::Billing, true),
            ),
            (
                "billing primary, single candidate, throttle closed",
                CooldownInput {
                    has_fallback_candidates: false,
                    throttle_open: false,
                    ..input(Some(R::Billing))
                },
                issue(R::Billing),
            ),
            (
                "billing primary with fallbacks, expiry far away",
                CooldownInput {
                    soonest_expiry_ms: far,
                    ..input(Some(R::Billing))
                },
                issue(R::Billing),
            ),
            (
                "billing later candidate",
                CooldownInput {
                    is_primary: false,
                    ..input(Some(R::Billing))
                },
                issue(R::Billing),
            ),
            // Primary, requested model: only a due probe runs it.
            (
                "rate_limit primary, probe due",
                input(Some(R::RateLimit)),
                attempt(R::RateLimit, true),
            ),
            (
                "rate_limit primary, throttle closed",
                CooldownInput {
                    throttle_open: false,
                    ..input(Some(R::RateLimit))
                },
                cooldown(R::RateLimit),
            ),
            (
                "rate_limit primary, expiry far away",
                CooldownInput {
                    soonest_expiry_ms: far,
                    ..input(Some(R::RateLimit))
                },
                cooldown(R::RateLimit),
            ),
            (
                "no reason reads as unknown",
                CooldownInput {
                    throttle_open: false,
                    ..input(None)
                },
                cooldown(R::Unknown),
            ),
            (
                "format primary, probe due",
                input(Some(R::Format)),
                attempt(R::Format, true),
            ),
            // Primary that is not the requested model: attempted, probe marked only when due.
            (
                "primary not requested, no probe due",
                CooldownInput {
                    requested_model: false,
                    throttle_open: false,
                    ..input(Some(R::ModelNotFound))
                },
                attempt(R::ModelNotFound, false),
            ),
            (
                "primary not requested, probe due",
                CooldownInput {
                    requested_model: false,
                    ..input(Some(R::Overloaded))
                },
                attempt(R::Overloaded, true),
            ),
            // Later candidates: transient reasons get the probe slot, never a throttle mark.
            (
                "later rate_limit",
                CooldownInput {
                    is_primary: false,
                    requested_model: false,
                    ..input(Some(R::RateLimit))
                },
                attempt(R::RateLimit, false),
            ),
            (
                "later overloaded",
                CooldownInput {
                    is_primary: false,
                    requested_model: false,
                    ..input(Some(R::Overloaded))
                },
                attempt(R::Overloaded, false),
            ),
            (
                "later timeout",
                CooldownInput {
                    is_primary: false,
                    requested_model: false,
                    ..input(Some(R::Timeout))
                },
                attempt(R::Timeout, false),
            ),
            (
                "later unknown",
                CooldownInput {
                    is_primary: false,
                    requested_model: false,
                    ..input(None)
                },
                attempt(R::Unknown, false),
            ),
            (
                "later format",
                CooldownInput {
                    is_primary: false,
                    requested_model: false,
                    ..input(Some(R::Format))
                },
                cooldown(R::Format),
            ),
            (
                "later model_not_found",
                CooldownInput {
                    is_primary: false,
                    ..input(Some(R::ModelNotFound))
                },
                cooldown(R::ModelNotFound),
            ),
            (
                "later session_expired",
                CooldownInput {
                    is_primary: false,
                    ..input(Some(R::SessionExpired))
                },
                cooldown(R::SessionExpired),
            ),
        ];
        for (name, case, want) in cases {
            assert_eq!(resolve_cooldown_decision(&case), want, "{name}");
        }
    }

    #[test]
    fn skip_texts_name_the_provider() {
        let case = CooldownInput {
            provider: "bolt",
            throttle_open: false,
            ..input(Some(R::RateLimit))
        };
        assert_eq!(
            resolve_cooldown_decision(&case),
            CooldownDecision::Skip {
                reason: R::RateLimit,
                error: "Provider bolt is in cooldown (all profiles unavailable)".to_owned(),
            }
        );
        let case = CooldownInput {
            provider: "bolt",
            ..input(Some(R::AuthPermanent))
        };
        assert_eq!(
            resolve_cooldown_decision(&case),
            CooldownDecision::Skip {
                reason: R::AuthPermanent,
                error: "Provider bolt has auth_permanent issue (skipping all models)".to_owned(),
            }
        );
    }
}
