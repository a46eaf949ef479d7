//! [`AuthProfileManager`]: the auth decisions over a store, a config and a clock — what the
//! run loop calls.
//!
//! Updates go through [`AuthStore::update_state`], so they start from the state on disk and
//! never lose another writer's change (an update that turns out to change nothing takes no
//! lock). The methods **block** (a file store waits for its lock and does disk I/O):
//! async callers wrap them in [`AuthProfileManager::blocking`], which runs them on tokio's
//! blocking pool instead of a runtime worker.

use std::sync::Arc;

use clawloop_core::FailoverReason;
use clawloop_core::auth_store::{AuthSnapshot, AuthStore, AuthStoreError};
use clawloop_core::clock::Clock;

use super::config::AuthConfig;
use super::cooldown::{is_profile_in_cooldown, soonest_cooldown_expiry};
use super::eligibility::{EligibilityReason, resolve_profile_eligibility};
use super::mark;
use super::order::resolve_profile_order;
use super::unavailable::profiles_unavailable_reason;

/// Auth profiles of one agent: store, `[auth]` config and clock.
#[derive(Clone)]
pub struct AuthProfileManager {
    store: Arc<dyn AuthStore>,
    config: Arc<AuthConfig>,
    clock: Arc<dyn Clock>,
}

impl std::fmt::Debug for AuthProfileManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthProfileManager")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl AuthProfileManager {
    /// A manager over `store`, deciding with `config` at the times `clock` reads.
    pub fn new(store: Arc<dyn AuthStore>, config: Arc<AuthConfig>, clock: Arc<dyn Clock>) -> Self {
        AuthProfileManager {
            store,
            config,
            clock,
        }
    }

    /// The store.
    pub fn store(&self) -> &Arc<dyn AuthStore> {
        &self.store
    }

    /// The `[auth]` config.
    pub fn config(&self) -> &AuthConfig {
        &self.config
    }

    fn now_ms(&self) -> f64 {
        // Epoch milliseconds stay far below 2^53, so the conversion is exact.
        #[allow(clippy::cast_precision_loss)]
        let now = self.clock.now_ms() as f64;
        now
    }

    /// Runs blocking manager calls on tokio's blocking pool:
    /// `manager.blocking(|m| m.mark_used("openai:a")).await`.
    pub async fn blocking<T, F>(&self, call: F) -> Result<T, AuthStoreError>
    where
        T: Send + 'static,
        F: FnOnce(&AuthProfileManager) -> Result<T, AuthStoreError> + Send + 'static,
    {
        let manager = self.clone();
        tokio::task::spawn_blocking(move || call(&manager))
            .await
            .map_err(|e| AuthStoreError::Other(format!("auth store task failed: {e}")))?
    }

    /// Both files as they are now.
    pub fn snapshot(&self) -> Result<AuthSnapshot, AuthStoreError> {
        self.store.load()
    }

    /// The profiles to try for `provider`, best first (reference §13.3). Windows that have
    /// ended are cleared (and the counters restarted) in the store first.
    pub fn order(
        &self,
        provider: &str,
        preferred: Option<&str>,
        for_model: Option<&str>,
    ) -> Result<Vec<String>, AuthStoreError> {
        let now = self.now_ms();
        let snapshot = self
            .store
            .update_state(&mut |_, state| mark::clear_expired_cooldowns(state, now))?;
        Ok(resolve_profile_order(
            &self.config,
            &snapshot.profiles,
            &snapshot.state,
            provider,
            preferred,
            now,
            for_model,
        ))
    }

    /// Whether `profile_id` can serve `provider` now.
    pub fn eligibility(
        &self,
        provider: &str,
        profile_id: &str,
    ) -> Result<EligibilityReason, AuthStoreError> {
        let snapshot = self.store.load()?;
        Ok(resolve_profile_eligibility(
            &self.config,
            &snapshot.profiles,
            provider,
            profile_id,
            self.now_ms(),
        ))
    }

    /// Runs one state change under the store's lock; true when it changed something.
    fn change(
        &self,
        mut apply: impl FnMut(
            &clawloop_core::auth_store::AuthProfiles,
            &mut clawloop_core::auth_store::AuthState,
            f64,
        ) -> bool,
    ) -> Result<bool, AuthStoreError> {
        let now = self.now_ms();
        let mut changed = false;
        self.store.update_state(&mut |profiles, state| {
            changed = apply(profiles, state, now);
            changed
        })?;
        Ok(changed)
    }

    /// Records a failure (`markAuthProfileFailure`); `model` scopes a rate-limit cooldown.
    /// Callers do not record timeouts: they never cool a profile down (reference §5.2).
    pub fn mark_failure(
        &self,
        profile_id: &str,
        reason: FailoverReason,
        model: Option<&str>,
    ) -> Result<bool, AuthStoreError> {
        self.change(|profiles, state, now| {
            mark::mark_failure(
                &self.config,
                profiles,
                state,
                profile_id,
                reason,
                model,
                now,
            )
        })
    }

    /// `markAuthProfileCooldown`: a failure with reason `unknown`.
    pub fn mark_cooldown(&self, profile_id: &str) -> Result<bool, AuthStoreError> {
        self.change(|profiles, state, now| {
            mark::mark_cooldown(&self.config, profiles, state, profile_id, now)
        })
    }

    /// Records a successful use (`markAuthProfileUsed`).
    pub fn mark_used(&self, profile_id: &str) -> Result<bool, AuthStoreError> {
        self.change(|profiles, state, now| mark::mark_used(profiles, state, profile_id, now))
    }

    /// Records `profile_id` as `provider`'s last good profile (`markAuthProfileGood`).
    pub fn mark_good(&self, provider: &str, profile_id: &str) -> Result<bool, AuthStoreError> {
        self.change(|profiles, state, _| mark::mark_good(profiles, state, provider, profile_id))
    }

    /// Resets one profile's counters and windows (`clearAuthProfileCooldown`).
    pub fn clear_cooldown(&self, profile_id: &str) -> Result<bool, AuthStoreError> {
        self.change(|_, state, _| mark::clear_cooldown(state, profile_id))
    }

    /// Clears every window that has ended (`clearExpiredCooldowns`).
    pub fn clear_expired(&self) -> Result<bool, AuthStoreError> {
        self.change(|_, state, now| mark::clear_expired_cooldowns(state, now))
    }

    /// Whether the profile is resting now; with `for_model`, the model-scoped check.
    pub fn is_in_cooldown(
        &self,
        profile_id: &str,
        for_model: Option<&str>,
    ) -> Result<bool, AuthStoreError> {
        let snapshot = self.store.load()?;
        Ok(is_profile_in_cooldown(
            &snapshot.profiles,
            &snapshot.state,
            profile_id,
            self.now_ms(),
            for_model,
        ))
    }

    /// Why none of `profile_ids` is usable now (`resolveProfilesUnavailableReason`).
    pub fn unavailable_reason(
        &self,
        profile_ids: &[String],
    ) -> Result<Option<FailoverReason>, AuthStoreError> {
        let snapshot = self.store.load()?;
        Ok(profiles_unavailable_reason(
            &snapshot.state,
            profile_ids,
            self.now_ms(),
        ))
    }

    /// When the first of `profile_ids` is usable again (`getSoonestCooldownExpiry`), in ms
    /// since the epoch; it may be in the past.
    pub fn soonest_cooldown_expiry(
        &self,
        profile_ids: &[String],
        for_model: Option<&str>,
    ) -> Result<Option<f64>, AuthStoreError> {
        let snapshot = self.store.load()?;
        Ok(soonest_cooldown_expiry(
            &snapshot.state,
            profile_ids,
            self.now_ms(),
            for_model,
        ))
    }
}
