//! The model catalog: built-in models merged with the config, looked up by `provider/model`.

use std::collections::BTreeMap;

use clawloop_core::Model;

use super::builtin::BUILTIN_MODELS;
use super::config::ModelsConfig;
use super::error::CatalogError;
use super::model_ref::parse_model_ref;

/// What the catalog holds for one provider.
#[derive(Clone, Default, PartialEq)]
pub(super) struct ProviderEntry {
    /// The configured `apiKey` value, unresolved.
    pub(super) api_key: Option<String>,
    /// Models by id.
    pub(super) models: BTreeMap<String, Model>,
}

/// The configured key is a secret (or names where one is): `Debug` says only whether it is set.
impl std::fmt::Debug for ProviderEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderEntry")
            .field(
                "api_key",
                &clawloop_core::redacted_debug::secret(&self.api_key),
            )
            .field("models", &self.models)
            .finish()
    }
}

/// Every model clawloop can call: the built-in table, overridden and extended by
/// `models.providers` from the config.
///
/// ```
/// use clawloop_providers::catalog::{ModelCatalog, ModelsConfig};
///
/// let config: ModelsConfig = serde_json::from_value(serde_json::json!({
///     "providers": {
///         "anthropic": {"baseUrl": "https://proxy.example/anthropic"},
///         "lmstudio": {
///             "api": "openai-completions",
///             "baseUrl": "http://127.0.0.1:1234/v1",
///             "models": [{"id": "qwen3-coder", "contextWindow": 65536}]
///         }
///     }
/// }))
/// .unwrap();
/// let catalog = ModelCatalog::from_config(&config).unwrap();
/// let sonnet = catalog.resolve("anthropic/claude-sonnet-4-5").unwrap();
/// assert_eq!(sonnet.base_url, "https://proxy.example/anthropic");
/// assert_eq!(catalog.resolve("lmstudio/qwen3-coder").unwrap().context_window, 65536);
/// assert!(catalog.resolve("openai/gpt-9").is_err());
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelCatalog {
    pub(super) providers: BTreeMap<String, ProviderEntry>,
}

impl ModelCatalog {
    /// The built-in models only.
    pub fn builtin() -> Self {
        let mut catalog = ModelCatalog::default();
        for builtin in BUILTIN_MODELS {
            catalog
                .providers
                .entry(builtin.provider.to_owned())
                .or_default()
                .models
                .insert(builtin.id.to_owned(), builtin.to_model());
        }
        catalog
    }

    /// The built-in models merged with `config` (see [`merge`](Self::merge)).
    pub fn from_config(config: &ModelsConfig) -> Result<Self, CatalogError> {
        let mut catalog = ModelCatalog::builtin();
        // Every turn builds one: a failed merge drops it, so it needs no copy to fall back to.
        catalog.merge_in_place(config)?;
        Ok(catalog)
    }

    /// The model `model` of `provider`.
    pub fn get(&self, provider: &str, model: &str) -> Result<&Model, CatalogError> {
        let Some(entry) = self.providers.get(provider) else {
            return Err(CatalogError::UnknownProvider {
                provider: provider.to_owned(),
                model: model.to_owned(),
                known_providers: self.provider_ids(),
            });
        };
        entry
            .models
            .get(model)
            .ok_or_else(|| CatalogError::UnknownModel {
                provider: provider.to_owned(),
                model: model.to_owned(),
                known_models: entry.models.keys().cloned().collect(),
                known_providers: self.provider_ids(),
            })
    }

    /// The model named by a `provider/model` reference. A bare model id is an error that
    /// suggests the providers having a model of that id.
    pub fn resolve(&self, reference: &str) -> Result<&Model, CatalogError> {
        match parse_model_ref(reference) {
            Some((provider, model)) => self.get(provider, model),
            None => Err(CatalogError::InvalidReference {
                reference: reference.to_owned(),
                suggestions: self
                    .providers
                    .iter()
                    .filter(|(_, entry)| entry.models.contains_key(reference.trim()))
                    .map(|(provider, _)| format!("{provider}/{}", reference.trim()))
                    .collect(),
            }),
        }
    }

    /// Provider ids, sorted.
    pub fn providers(&self) -> impl Iterator<Item = &str> {
        self.providers.keys().map(String::as_str)
    }

    /// The models of `provider`, sorted by id (none for an unknown provider).
    pub fn models(&self, provider: &str) -> impl Iterator<Item = &Model> {
        self.providers
            .get(provider)
            .into_iter()
            .flat_map(|entry| entry.models.values())
    }

    /// The configured `apiKey` of `provider`, unresolved (resolve it with
    /// [`crate::api_key::ApiKeyResolver`]).
    pub fn api_key_spec(&self, provider: &str) -> Option<&str> {
        self.providers.get(provider)?.api_key.as_deref()
    }

    fn provider_ids(&self) -> Vec<String> {
        self.providers.keys().cloned().collect()
    }
}
