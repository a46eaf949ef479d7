//! A request to switch a running session's model (reference §3:
//! `requestEmbeddedRunModelSwitch` / `consumeEmbeddedRunModelSwitch`).

/// Who chose the auth profile of a model switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthProfileIdSource {
    /// Picked by the runner's profile order.
    Auto,
    /// Pinned by the user.
    User,
}

/// The model a session should switch to at its next chance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelSwitchRequest {
    /// Provider id.
    pub provider: String,
    /// Model id.
    pub model: String,
    /// The auth profile to use, if one was named.
    pub auth_profile_id: Option<String>,
    /// Who named it; only kept together with a profile id.
    pub auth_profile_id_source: Option<AuthProfileIdSource>,
}

impl ModelSwitchRequest {
    /// A request for `provider`/`model` with no profile.
    pub fn new(provider: impl Into<String>, model: impl Into<String>) -> Self {
        ModelSwitchRequest {
            provider: provider.into(),
            model: model.into(),
            auth_profile_id: None,
            auth_profile_id_source: None,
        }
    }

    /// The request as stored: provider, model and profile id trimmed, an empty profile id
    /// dropped together with its source. `None` when provider or model is empty.
    pub(super) fn normalized(self) -> Option<Self> {
        let provider = self.provider.trim();
        let model = self.model.trim();
        if provider.is_empty() || model.is_empty() {
            return None;
        }
        let auth_profile_id = self
            .auth_profile_id
            .as_deref()
            .map(str::trim)
            .filter(|id| !id.is_empty())
            .map(str::to_owned);
        let auth_profile_id_source = auth_profile_id.as_ref().and(self.auth_profile_id_source);
        Some(ModelSwitchRequest {
            provider: provider.to_owned(),
            model: model.to_owned(),
            auth_profile_id,
            auth_profile_id_source,
        })
    }
}
