//! The transient cooldown probe of one fallback run (reference §14): a provider whose profiles
//! all rest for a reason that clears on its own gets at most one probe per run.

use std::collections::HashSet;

use clawloop_core::FailoverReason;

/// Whether a resting reason clears on its own (`rate_limit`, `overloaded`, `unknown`,
/// `timeout`), so a later model of the same provider may be probed despite the cooldown — once
/// per provider and run.
pub fn is_transient_cooldown_reason(reason: FailoverReason) -> bool {
    match reason {
        FailoverReason::RateLimit
        | FailoverReason::Overloaded
        | FailoverReason::Unknown
        | FailoverReason::Timeout => true,
        FailoverReason::Auth
        | FailoverReason::AuthPermanent
        | FailoverReason::Billing
        | FailoverReason::Format
        | FailoverReason::ModelNotFound
        | FailoverReason::SessionExpired => false,
    }
}

/// Whether a candidate attempted during a cooldown for this reason runs with
/// `allow_transient_cooldown_probe` (the run loop then tries a resting profile instead of
/// failing over at once): the transient reasons and `billing`.
pub fn allows_cooldown_probe(reason: FailoverReason) -> bool {
    match reason {
        FailoverReason::Billing => true,
        FailoverReason::RateLimit
        | FailoverReason::Overloaded
        | FailoverReason::Unknown
        | FailoverReason::Timeout
        | FailoverReason::Auth
        | FailoverReason::AuthPermanent
        | FailoverReason::Format
        | FailoverReason::ModelNotFound
        | FailoverReason::SessionExpired => is_transient_cooldown_reason(reason),
    }
}

/// Whether a probe that failed for this reason leaves the provider's probe slot unused: the
/// failure says nothing about the cooldown (this model is missing or malformed, or the
/// credentials are wrong), so a sibling model still deserves its probe.
pub fn preserves_transient_probe_slot(reason: FailoverReason) -> bool {
    match reason {
        FailoverReason::ModelNotFound
        | FailoverReason::Format
        | FailoverReason::Auth
        | FailoverReason::AuthPermanent
        | FailoverReason::SessionExpired => true,
        FailoverReason::RateLimit
        | FailoverReason::Overloaded
        | FailoverReason::Unknown
        | FailoverReason::Timeout
        | FailoverReason::Billing => false,
    }
}

/// The providers whose transient cooldown probe this run has spent.
#[derive(Debug, Clone, Default)]
pub struct ProbeSlots {
    used: HashSet<String>,
}

impl ProbeSlots {
    /// No probe spent yet.
    pub fn new() -> Self {
        ProbeSlots::default()
    }

    /// Whether `provider` has spent its probe.
    pub fn is_used(&self, provider: &str) -> bool {
        self.used.contains(provider)
    }

    /// A probe of `provider` failed with `reason` (`None`: the error has no failover reason);
    /// the slot is spent unless the reason preserves it.
    pub fn record_failure(&mut self, provider: &str, reason: Option<FailoverReason>) {
        if !reason.is_some_and(preserves_transient_probe_slot) {
            self.used.insert(provider.to_owned());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn reason_table() {
        // (reason, transient slot, run option, failure preserves the slot)
        let table: Vec<(FailoverReason, bool, bool, bool)> = FailoverReason::ALL
            .into_iter()
            .map(|r| {
                (
                    r,
                    is_transient_cooldown_reason(r),
                    allows_cooldown_probe(r),
                    preserves_transient_probe_slot(r),
                )
            })
            .collect();
        use FailoverReason as R;
        assert_eq!(
            table,
            vec![
                (R::Auth, false, false, true),
                (R::AuthPermanent, false, false, true),
                (R::Format, false, false, true),
                (R::Overloaded, true, true, false),
                (R::RateLimit, true, true, false),
                (R::Billing, false, true, false),
                (R::Timeout, true, true, false),
                (R::ModelNotFound, false, false, true),
                (R::SessionExpired, false, false, true),
                (R::Unknown, true, true, false),
            ]
        );
    }

    #[test]
    fn slots_are_spent_per_provider_unless_preserved() {
        let mut slots = ProbeSlots::new();
        slots.record_failure("acme", Some(FailoverReason::ModelNotFound));
        assert!(!slots.is_used("acme"));
        slots.record_failure("acme", Some(FailoverReason::RateLimit));
        assert!(slots.is_used("acme"));
        assert!(!slots.is_used("bolt"));
        slots.record_failure("bolt", None);
        assert!(slots.is_used("bolt"));
    }
}
