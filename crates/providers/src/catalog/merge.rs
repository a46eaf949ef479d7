//! Merging `models.providers` into the catalog (pi-mono §3.9, widened to every setting): an
//! entry named like an existing provider overrides its settings for all its models and upserts
//! models by id; any other entry defines a new provider.

use clawloop_core::model::InputKind;
use clawloop_core::{Api, Model, ModelCost, ToolChoice};
use serde_json::{Map, Value};

use super::builtin::builtin_provider;
use super::check::{check_model, check_provider};
use super::config::{ModelConfig, ModelsConfig, ProviderConfig};
use super::error::CatalogError;
use super::registry::ModelCatalog;

/// pi's defaults for a configured model that does not say.
const DEFAULT_CONTEXT_WINDOW: u64 = 128_000;
const DEFAULT_MAX_TOKENS: u64 = 16_384;

impl ModelCatalog {
    /// Applies `config` on top of what the catalog holds. On error the catalog is unchanged.
    ///
    /// For each `models.providers.<id>`:
    /// * `api`, `baseUrl`, `headers` (merged) and `compat` (merged) apply to every model the
    ///   provider already has; `apiKey` is kept for [`api_key_spec`](Self::api_key_spec);
    /// * each entry of `models` updates the model with that id (only the keys it sets) or adds
    ///   one, taking `api` and `baseUrl` from the model entry, else the provider entry, else
    ///   the built-in provider, and pi's defaults for the rest (`contextWindow` 128000,
    ///   `maxTokens` 16384, no reasoning, text input, zero cost);
    /// * `contextTokens` goes to the model's `extra` as `contextTokens`.
    ///
    /// Errors name the provider, the model and the key: a new model without an `api` or a
    /// `baseUrl`, an unknown `api`, an empty or duplicate model id, a zero `contextWindow`,
    /// `maxTokens` or `contextTokens`, a `compat` that is not a table, or an entry for a
    /// provider that is neither built in nor defines models.
    pub fn merge(&mut self, config: &ModelsConfig) -> Result<(), CatalogError> {
        let mut next = self.clone();
        next.merge_in_place(config)?;
        *self = next;
        Ok(())
    }

    /// [`merge`](Self::merge) without its copy: on error the catalog is left half merged,
    /// which only a catalog about to be dropped may be.
    pub(super) fn merge_in_place(&mut self, config: &ModelsConfig) -> Result<(), CatalogError> {
        for (provider, entry) in &config.providers {
            self.merge_provider(provider, entry)?;
        }
        Ok(())
    }

    fn merge_provider(
        &mut self,
        provider: &str,
        config: &ProviderConfig,
    ) -> Result<(), CatalogError> {
        let err =
            |model: Option<&str>, message: String| CatalogError::config(provider, model, message);
        if provider.trim().is_empty() {
            return Err(err(None, "the provider id is empty".to_owned()));
        }
        if !self.providers.contains_key(provider) && config.models.is_empty() {
            return Err(err(
                None,
                format!(
                    "not a known provider and defines no models; known providers: {}",
                    self.providers().collect::<Vec<_>>().join(", ")
                ),
            ));
        }
        check_provider(config).map_err(|(key, m)| err(None, format!("{key}: {m}")))?;

        let entry = self.providers.entry(provider.to_owned()).or_default();
        if let Some(key) = &config.api_key {
            entry.api_key = Some(key.clone());
        }
        for model in entry.models.values_mut() {
            apply_provider_settings(model, config);
        }
        let mut seen = std::collections::HashSet::new();
        for model_config in &config.models {
            let id = model_config.id.trim();
            if id.is_empty() {
                return Err(err(None, "a model entry has an empty id".to_owned()));
            }
            if !seen.insert(id) {
                return Err(err(Some(id), "this model id appears twice".to_owned()));
            }
            let model = match entry.models.remove(id) {
                Some(mut existing) => {
                    apply_model_config(&mut existing, model_config, provider)?;
                    existing
                }
                None => new_model(provider, id, config, model_config)?,
            };
            entry.models.insert(id.to_owned(), model);
        }
        Ok(())
    }
}

/// `over`'s flags on top of `base`'s.
fn merge_compat(base: Option<Value>, over: Option<&Value>) -> Option<Value> {
    match (base, over) {
        (base, None) => base,
        (Some(Value::Object(mut base)), Some(Value::Object(over))) => {
            for (k, v) in over {
                base.insert(k.clone(), v.clone());
            }
            Some(Value::Object(base))
        }
        (_, Some(over)) => Some(over.clone()),
    }
}

fn apply_provider_settings(model: &mut Model, config: &ProviderConfig) {
    if let Some(api) = &config.api {
        model.api = api.clone();
    }
    if let Some(url) = &config.base_url {
        model.base_url.clone_from(url);
    }
    model
        .headers
        .extend(config.headers.iter().map(|(k, v)| (k.clone(), v.clone())));
    model.compat = merge_compat(model.compat.take(), config.compat.as_ref());
}

fn validate_model(provider: &str, id: &str, config: &ModelConfig) -> Result<(), CatalogError> {
    check_model(config)
        .map_err(|(key, m)| CatalogError::config(provider, Some(id), format!("{key}: {m}")))
}

fn apply_model_config(
    model: &mut Model,
    config: &ModelConfig,
    provider: &str,
) -> Result<(), CatalogError> {
    validate_model(provider, &model.id, config)?;
    if let Some(name) = &config.name {
        model.name.clone_from(name);
    }
    if let Some(api) = &config.api {
        model.api = api.clone();
    }
    if let Some(url) = &config.base_url {
        model.base_url.clone_from(url);
    }
    if let Some(window) = config.context_window {
        model.context_window = window;
    }
    if let Some(max) = config.max_tokens {
        model.max_tokens = max;
    }
    if let Some(reasoning) = config.reasoning {
        model.reasoning = reasoning;
    }
    if let Some(input) = &config.input {
        model.input.clone_from(input);
    }
    if let Some(cost) = config.cost {
        model.cost = cost;
    }
    model
        .headers
        .extend(config.headers.iter().map(|(k, v)| (k.clone(), v.clone())));
    model.compat = merge_compat(model.compat.take(), config.compat.as_ref());
    if let Some(choice) = &config.tool_choice {
        model.extra.insert(
            ToolChoice::MODEL_KEY.to_owned(),
            serde_json::to_value(choice).unwrap_or(Value::Null),
        );
    }
    if let Some(tokens) = config.context_tokens {
        model
            .extra
            .insert("contextTokens".to_owned(), Value::from(tokens));
    }
    Ok(())
}

fn new_model(
    provider: &str,
    id: &str,
    provider_config: &ProviderConfig,
    config: &ModelConfig,
) -> Result<Model, CatalogError> {
    validate_model(provider, id, config)?;
    let builtin = builtin_provider(provider);
    let err = |message: &str| CatalogError::config(provider, Some(id), message);
    let api = config
        .api
        .clone()
        .or_else(|| provider_config.api.clone())
        .or_else(|| builtin.map(|b| Api::parse(b.api)))
        .ok_or_else(|| err("no \"api\" specified; set it at provider or model level"))?;
    let base_url = config
        .base_url
        .clone()
        .or_else(|| provider_config.base_url.clone())
        .or_else(|| builtin.map(|b| b.base_url.to_owned()))
        .ok_or_else(|| err("\"baseUrl\" is required when defining custom models; set it at provider or model level"))?;
    let mut model = Model {
        id: id.to_owned(),
        name: id.to_owned(),
        api,
        provider: provider.to_owned(),
        base_url,
        reasoning: false,
        input: vec![InputKind::Text],
        cost: ModelCost::default(),
        context_window: DEFAULT_CONTEXT_WINDOW,
        max_tokens: DEFAULT_MAX_TOKENS,
        headers: provider_config.headers.clone(),
        compat: merge_compat(
            builtin.and_then(|b| b.compat_value()),
            provider_config.compat.as_ref(),
        ),
        extra: Map::new(),
    };
    // The provider-level api and baseUrl are already in; the rest comes from the model entry.
    apply_model_config(&mut model, config, provider)?;
    Ok(model)
}
