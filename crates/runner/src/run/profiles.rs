//! The auth profiles one run walks through (reference §4.1 item 8, §5.3): the candidates in
//! order, which one is in use, and rotation to the next usable one. Store reads and writes run
//! on the blocking pool.

use std::sync::Arc;

use clawloop_core::FailoverReason;
use clawloop_core::error_text::{
    auth_profile_not_configured_message, no_available_auth_profile_message,
};

use crate::auth::{AuthProfileManager, EligibilityReason, credential_secret};
use crate::run::request::EnvLookup;

/// Why no profile could be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoUsableProfile {
    /// The user-facing message.
    pub message: String,
    /// Why the profiles were unusable (`resolveProfilesUnavailableReason`, default `unknown`).
    pub reason: FailoverReason,
}

/// The run's profile candidates and the one in use.
#[derive(Clone)]
pub struct ProfileCursor {
    manager: Option<AuthProfileManager>,
    provider: String,
    model: String,
    candidates: Vec<String>,
    index: usize,
    locked: bool,
    env: EnvLookup,
}

impl std::fmt::Debug for ProfileCursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProfileCursor")
            .field("provider", &self.provider)
            .field("candidates", &self.candidates)
            .field("index", &self.index)
            .field("locked", &self.locked)
            .finish_non_exhaustive()
    }
}

/// The profile chosen and its secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActiveProfile {
    /// The profile id.
    pub id: String,
    /// Its key or token.
    pub secret: String,
}

impl ProfileCursor {
    /// The candidates for `provider`/`model`: the user's locked profile alone (refused when it is
    /// not configured for the provider), else the store's order. Without a store there are none
    /// (the key then comes from config or the environment).
    pub async fn resolve(
        manager: Option<AuthProfileManager>,
        provider: &str,
        model: &str,
        locked_profile: Option<&str>,
        env: EnvLookup,
    ) -> Result<Self, NoUsableProfile> {
        let mut cursor = ProfileCursor {
            manager: manager.clone(),
            provider: provider.to_owned(),
            model: model.to_owned(),
            candidates: Vec::new(),
            index: 0,
            locked: false,
            env,
        };
        let Some(manager) = manager else {
            return Ok(cursor);
        };
        if let Some(locked) = locked_profile {
            let (provider_owned, locked_owned) = (provider.to_owned(), locked.to_owned());
            let eligible = manager
                .blocking(move |m| m.eligibility(&provider_owned, &locked_owned))
                .await
                .map(|reason| reason == EligibilityReason::Ok)
                .unwrap_or(false);
            if !eligible {
                return Err(NoUsableProfile {
                    message: auth_profile_not_configured_message(locked, provider),
                    reason: FailoverReason::Auth,
                });
            }
            cursor.candidates = vec![locked.to_owned()];
            cursor.locked = true;
            return Ok(cursor);
        }
        let (provider_owned, model_owned) = (provider.to_owned(), model.to_owned());
        cursor.candidates = manager
            .blocking(move |m| m.order(&provider_owned, None, Some(&model_owned)))
            .await
            .unwrap_or_else(|err| {
                tracing::warn!(target: "clawloop::auth", "cannot read the auth profiles: {err}");
                Vec::new()
            });
        Ok(cursor)
    }

    /// How many candidates there are (for the iteration limit).
    pub fn len(&self) -> usize {
        self.candidates.len()
    }

    /// Whether the run has no profiles at all.
    pub fn is_empty(&self) -> bool {
        self.candidates.is_empty()
    }

    /// Whether the user locked the profile (no rotation).
    pub fn is_locked(&self) -> bool {
        self.locked
    }

    /// The profile manager, when profiles are in use.
    pub fn manager(&self) -> Option<&AuthProfileManager> {
        self.manager.as_ref()
    }

    /// The first usable candidate from the start (`initializeAuthProfile`): profiles resting for
    /// this model are skipped, unless `allow_probe` lets the first of an all-resting list be
    /// tried once. `Ok(None)` when there are no profiles (use the config/env key).
    pub async fn first(
        &mut self,
        allow_probe: bool,
    ) -> Result<Option<ActiveProfile>, NoUsableProfile> {
        if self.candidates.is_empty() {
            return Ok(None);
        }
        self.index = 0;
        if let Some(active) = self.next_usable(0).await {
            return Ok(Some(active));
        }
        let reason = self.unavailable_reason().await;
        let probe_reasons = matches!(
            reason,
            FailoverReason::RateLimit
                | FailoverReason::Overloaded
                | FailoverReason::Billing
                | FailoverReason::Unknown
                | FailoverReason::Timeout
        );
        if allow_probe && probe_reasons {
            for index in 0..self.candidates.len() {
                if let Some(secret) = self.secret(index).await {
                    self.index = index;
                    return Ok(Some(ActiveProfile {
                        id: self.candidates[index].clone(),
                        secret,
                    }));
                }
            }
        }
        Err(NoUsableProfile {
            message: no_available_auth_profile_message(&self.provider),
            reason,
        })
    }

    /// `advanceAuthProfile`: the next usable candidate after the current one; `None` when the
    /// profile is locked or none is left.
    pub async fn advance(&mut self) -> Option<ActiveProfile> {
        if self.locked {
            return None;
        }
        self.next_usable(self.index + 1).await
    }

    /// The profile in use.
    pub fn current(&self) -> Option<&str> {
        self.candidates.get(self.index).map(String::as_str)
    }

    async fn next_usable(&mut self, from: usize) -> Option<ActiveProfile> {
        for index in from..self.candidates.len() {
            if self.in_cooldown(index).await {
                continue;
            }
            if let Some(secret) = self.secret(index).await {
                self.index = index;
                return Some(ActiveProfile {
                    id: self.candidates[index].clone(),
                    secret,
                });
            }
        }
        None
    }

    async fn in_cooldown(&self, index: usize) -> bool {
        let (Some(manager), Some(id)) = (self.manager.clone(), self.candidates.get(index).cloned())
        else {
            return false;
        };
        let model = self.model.clone();
        manager
            .blocking(move |m| m.is_in_cooldown(&id, Some(&model)))
            .await
            .unwrap_or(false)
    }

    async fn secret(&self, index: usize) -> Option<String> {
        let (manager, id) = (self.manager.clone()?, self.candidates.get(index).cloned()?);
        let env = Arc::clone(&self.env);
        manager
            .blocking(move |m| {
                let snapshot = m.snapshot()?;
                Ok(snapshot.profiles.get(&id).and_then(|credential| {
                    credential_secret(&id, credential, &|name| env(name))
                        .map_err(|err| tracing::warn!(target: "clawloop::auth", "{err}"))
                        .ok()
                }))
            })
            .await
            .ok()
            .flatten()
    }

    async fn unavailable_reason(&self) -> FailoverReason {
        let Some(manager) = self.manager.clone() else {
            return FailoverReason::Unknown;
        };
        let ids = self.candidates.clone();
        manager
            .blocking(move |m| m.unavailable_reason(&ids))
            .await
            .ok()
            .flatten()
            .unwrap_or(FailoverReason::Unknown)
    }

    /// Records a failure of the current profile (timeouts never cool a profile down).
    pub async fn mark_failure(&self, reason: FailoverReason) {
        if reason == FailoverReason::Timeout {
            return;
        }
        let (Some(manager), Some(id)) = (self.manager.clone(), self.current().map(str::to_owned))
        else {
            return;
        };
        let model = self.model.clone();
        if let Err(err) = manager
            .blocking(move |m| m.mark_failure(&id, reason, Some(&model)))
            .await
        {
            tracing::warn!(target: "clawloop::auth", "cannot record the profile failure: {err}");
        }
    }

    /// `markAuthProfileGood` and `markAuthProfileUsed` for the current profile, after a success.
    pub async fn mark_success(&self) {
        let (Some(manager), Some(id)) = (self.manager.clone(), self.current().map(str::to_owned))
        else {
            return;
        };
        let provider = self.provider.clone();
        let result = manager
            .blocking(move |m| {
                m.mark_good(&provider, &id)?;
                m.mark_used(&id)
            })
            .await;
        if let Err(err) = result {
            tracing::warn!(target: "clawloop::auth", "cannot record the profile success: {err}");
        }
    }
}
