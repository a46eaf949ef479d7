//! A credential for the provider of the primary model and of each fallback: a usable auth
//! profile, else the configured `apiKey` or the provider's environment key, resolved as a run
//! resolves them. Only where the secret comes from is printed.

use std::path::Path;

use clawloop_core::auth_store::{AuthSnapshot, AuthStore};
use clawloop_providers::api_key::{ApiKeyResolver, ApiKeySource, ProcessEnv, is_keyless_provider};
use clawloop_providers::catalog::ModelCatalog;
use clawloop_runner::auth::order::resolve_profile_order;
use clawloop_runner::auth::{FileAuthStore, credential_secret};
use clawloop_runner::config::Config;
use clawloop_session::DEFAULT_AGENT_ID;

use super::report::{Report, Status};
use crate::auth::agent_dir;
use crate::model_choice::{ModelSource, check_in_catalog, effective_model};

/// Checks every configured model's provider once, primary first.
pub fn check(report: &mut Report, home: &Path, config: &Config) {
    let selection = &config.defaults().model;
    // Without a primary, runs still have a model: the one the CLI settles on, checked alike.
    let effective = effective_model(config);
    if effective.source != ModelSource::Primary {
        report.add(
            Status::Pass,
            format!(
                "no primary model configured (agents.defaults.model.primary): runs use {}, {}",
                effective.reference,
                effective.source.describe()
            ),
        );
    }
    let primary = effective.reference.as_str();
    let store = FileAuthStore::new(agent_dir(home, DEFAULT_AGENT_ID));
    let snapshot = match store.load() {
        Ok(snapshot) => snapshot,
        Err(err) => {
            report.add(Status::Fail, err.to_string());
            AuthSnapshot::default()
        }
    };
    let catalog = ModelCatalog::from_config(&config.models);
    let mut seen: Vec<String> = Vec::new();
    let models = std::iter::once(("primary", primary)).chain(
        selection
            .fallbacks
            .iter()
            .map(|f| ("fallbacks", f.as_str())),
    );
    for (key, model) in models {
        let Some((provider, _)) = model.split_once('/') else {
            report.add(
                Status::Fail,
                format!("model `{model}` is not written as provider/model"),
            );
            continue;
        };
        // A model the catalog does not hold fails every run that reaches it. A catalog that
        // does not build is the config's problem, reported as such elsewhere.
        if let Ok(catalog) = &catalog
            && let Err(why) = check_in_catalog(config, catalog, model)
        {
            report.add(Status::Fail, format!("agents.defaults.model.{key}: {why}"));
            continue;
        }
        if seen.iter().any(|p| p == provider) {
            continue;
        }
        seen.push(provider.to_owned());
        let (status, message) = provider_credential(config, &snapshot, provider);
        report.add(status, format!("{model}: {message}"));
    }
}

/// Whether `provider` has a credential, and from where.
fn provider_credential(
    config: &Config,
    snapshot: &AuthSnapshot,
    provider: &str,
) -> (Status, String) {
    if config.cli_backends.contains_key(provider) {
        return (Status::Pass, format!("runs the CLI backend {provider}"));
    }
    let env = |name: &str| std::env::var(name).ok();
    let ids = resolve_profile_order(
        &config.auth,
        &snapshot.profiles,
        &snapshot.state,
        provider,
        None,
        crate::auth::now_ms(),
        None,
    );
    let mut problems = Vec::new();
    for id in &ids {
        let Some(credential) = snapshot.profiles.get(id) else {
            continue;
        };
        match credential_secret(id, credential, &env) {
            Ok(_) => return (Status::Pass, format!("auth profile {id} has a secret")),
            Err(err) => problems.push(err.to_string()),
        }
    }
    let spec = config
        .models
        .providers
        .get(provider)
        .and_then(|p| p.api_key.as_deref());
    match ApiKeyResolver::new(&ProcessEnv).resolve(provider, spec) {
        Ok(Some(key)) => {
            let from = match key.source() {
                ApiKeySource::ConfiguredEnv(name) | ApiKeySource::ProviderEnv(name) => {
                    format!("the environment variable {name}")
                }
                ApiKeySource::Literal => "models.providers apiKey in config.toml".to_owned(),
                ApiKeySource::Command => "the models.providers apiKey command".to_owned(),
            };
            (
                Status::Pass,
                format!("provider {provider} has a key from {from}"),
            )
        }
        Ok(None) if is_keyless_provider(provider) => {
            (Status::Pass, format!("provider {provider} needs no key"))
        }
        Ok(None) => {
            let variable = clawloop_providers::api_key::provider_env_key(provider)
                .map(|v| format!(" or set {v}"))
                .unwrap_or_default();
            let why = if problems.is_empty() {
                String::new()
            } else {
                format!(" ({})", problems.join("; "))
            };
            (
                Status::Fail,
                format!(
                    "no credential for provider {provider}{why}: run `clawloop auth add {provider}`{variable}"
                ),
            )
        }
        Err(err) => (Status::Fail, err.to_string()),
    }
}
