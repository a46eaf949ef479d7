//! The auth facts the fallback chain reads from the store: for one candidate, whether its
//! provider has a usable profile and why not; for the summary, the soonest expiry of all.

use clawloop_core::FailoverReason;
use clawloop_core::auth_store::AuthStoreError;

use super::candidates::ModelCandidate;
use crate::auth::AuthProfileManager;
use crate::auth::cooldown::{
    CooldownEnd, is_profile_in_cooldown, soonest_cooldown_end, soonest_cooldown_expiry,
};
use crate::auth::order::resolve_profile_order;
use crate::auth::unavailable::profiles_unavailable_reason;

/// The cooldown state of one candidate's provider, for the candidate's model.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderCooldown {
    /// The provider's profiles in order (empty: the provider has none, so no cooldown applies).
    pub profile_ids: Vec<String>,
    /// At least one profile is usable for the model.
    pub any_available: bool,
    /// Why none is usable (`resolveProfilesUnavailableReason`).
    pub unavailable_reason: Option<FailoverReason>,
    /// When the first one is usable again for the model, in ms since the epoch.
    pub soonest_expiry_ms: Option<f64>,
    /// The resting profile usable again first, and when (what the user is told).
    pub soonest_end: Option<CooldownEnd>,
}

impl ProviderCooldown {
    /// Every profile of the provider rests: the cooldown decision applies.
    pub fn all_resting(&self) -> bool {
        !self.profile_ids.is_empty() && !self.any_available
    }
}

/// Reads `candidate`'s provider state at `now_ms`: the profile order (which also clears ended
/// windows in the store), then one snapshot for the rest. Blocks on the store.
pub fn read_provider_cooldown(
    auth: &AuthProfileManager,
    candidate: &ModelCandidate,
    now_ms: f64,
) -> Result<ProviderCooldown, AuthStoreError> {
    let model = Some(candidate.model.as_str());
    let profile_ids = auth.order(&candidate.provider, None, model)?;
    if profile_ids.is_empty() {
        return Ok(ProviderCooldown {
            profile_ids,
            any_available: false,
            unavailable_reason: None,
            soonest_expiry_ms: None,
            soonest_end: None,
        });
    }
    let snapshot = auth.snapshot()?;
    let any_available = profile_ids
        .iter()
        .any(|id| !is_profile_in_cooldown(&snapshot.profiles, &snapshot.state, id, now_ms, model));
    Ok(ProviderCooldown {
        unavailable_reason: profiles_unavailable_reason(&snapshot.state, &profile_ids, now_ms),
        soonest_expiry_ms: soonest_cooldown_expiry(&snapshot.state, &profile_ids, now_ms, model),
        soonest_end: soonest_cooldown_end(&snapshot.state, &profile_ids, now_ms, model),
        profile_ids,
        any_available,
    })
}

/// The soonest time any candidate's profile is usable again for that candidate's model, re-read
/// from the store in one read-only snapshot (the summary's `soonest_cooldown_expiry`; it may lie
/// in the past). Blocks on the store.
pub fn read_soonest_expiry(
    auth: &AuthProfileManager,
    candidates: &[ModelCandidate],
    now_ms: f64,
) -> Result<Option<f64>, AuthStoreError> {
    let snapshot = auth.snapshot()?;
    Ok(candidates
        .iter()
        .filter_map(|candidate| {
            let model = Some(candidate.model.as_str());
            let ids = resolve_profile_order(
                auth.config(),
                &snapshot.profiles,
                &snapshot.state,
                &candidate.provider,
                None,
                now_ms,
                model,
            );
            soonest_cooldown_expiry(&snapshot.state, &ids, now_ms, model)
        })
        .filter(|t| t.is_finite())
        .reduce(f64::min))
}
