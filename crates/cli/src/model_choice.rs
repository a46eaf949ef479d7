//! Which model the CLI runs, and whether a model the user names exists. Pure functions of the
//! configuration, so `run`, `chat`, `compact`, `doctor`, `config init` and `models list` agree.
//!
//! * [`effective_model`]: the model of a turn that names none — the configured primary; else,
//!   when exactly one provider is configured under `models.providers`, its first model; else
//!   the built-in default (the runner's, so an embedder and the CLI agree on a fresh install).
//! * [`check_known`]: a model named on the command line or with `/model` must be one the
//!   catalog (built in and merged with the config) holds, or live under a CLI backend, which
//!   keeps its own model list. Anything else would only fail over to another model at run time.

use std::sync::Arc;

use clawloop_providers::catalog::{BUILTIN_MODELS, ModelCatalog, parse_model_ref};
use clawloop_runner::cli_backend::cli_backend_for_provider;
use clawloop_runner::config::Config;
use clawloop_runner::fallback::{DEFAULT_MODEL, DEFAULT_PROVIDER};
use clawloop_runner::turn::TurnEnv;

use crate::env_setup::check_model_ref;

/// How many of the closest known models an unknown model's error suggests.
const SUGGESTIONS: usize = 3;

/// Where the effective model comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelSource {
    /// `agents.defaults.model.primary`.
    Primary,
    /// The first model of the only provider under `models.providers`.
    OnlyProvider,
    /// Nothing configured: the built-in default.
    BuiltIn,
}

impl ModelSource {
    /// How `doctor` and `models list` say it.
    pub fn describe(self) -> &'static str {
        match self {
            ModelSource::Primary => "the configured primary",
            ModelSource::OnlyProvider => "the first model of the only configured provider",
            ModelSource::BuiltIn => "the built-in default",
        }
    }
}

/// The model a turn runs when it names none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EffectiveModel {
    /// `provider/model`.
    pub reference: String,
    /// Why this one.
    pub source: ModelSource,
}

/// The model of a turn that names none (see the module doc).
pub fn effective_model(config: &Config) -> EffectiveModel {
    let configured = config.defaults().model.primary.as_deref().and_then(|raw| {
        let raw = raw.trim();
        match parse_model_ref(raw) {
            Some((provider, model)) => Some(format!("{provider}/{model}")),
            // The runner reads a bare id as a model of the default provider.
            None if !raw.is_empty() && !raw.contains('/') => {
                Some(format!("{DEFAULT_PROVIDER}/{raw}"))
            }
            None => None,
        }
    });
    if let Some(reference) = configured {
        return EffectiveModel {
            reference,
            source: ModelSource::Primary,
        };
    }
    let mut providers = config.models.providers.iter();
    if let (Some((provider, entry)), None) = (providers.next(), providers.next()) {
        // The config's own order first: the user wrote the model they want most on top.
        let first = entry
            .models
            .iter()
            .map(|m| m.id.trim())
            .find(|id| !id.is_empty())
            .or_else(|| {
                BUILTIN_MODELS
                    .iter()
                    .find(|m| m.provider == provider)
                    .map(|m| m.id)
            });
        if let Some(model) = first {
            return EffectiveModel {
                reference: format!("{provider}/{model}"),
                source: ModelSource::OnlyProvider,
            };
        }
    }
    EffectiveModel {
        reference: format!("{DEFAULT_PROVIDER}/{DEFAULT_MODEL}"),
        source: ModelSource::BuiltIn,
    }
}

/// Checks the model named by `--model` (if any); without one, makes the runner's default the
/// CLI's: with no primary configured and one provider under `models.providers`, that
/// provider's first model becomes the primary of this process. Not with a named model: the
/// runner tries a configured primary after a failed model, and this one nobody configured.
/// A configured primary the catalog does not hold, and a `models.providers` table the catalog
/// cannot be built from, are configuration errors here, before any turn. The error is a usage
/// error's sentence.
pub fn settle(env: &mut TurnEnv, named: Option<&str>) -> Result<(), String> {
    if let Some(named) = named {
        return check_known(&env.config, named).map_err(|err| format!("--{err}"));
    }
    // The catalog's error names the `models.providers.<id>` key at fault.
    let catalog = ModelCatalog::from_config(&env.config.models).map_err(|err| err.to_string())?;
    let effective = effective_model(&env.config);
    match effective.source {
        // A misspelt primary would otherwise fail every turn at run time, or quietly leave
        // each one to a fallback.
        ModelSource::Primary => check_in_catalog(&env.config, &catalog, &effective.reference)
            .map_err(|err| format!("agents.defaults.model.primary: {err}"))?,
        ModelSource::OnlyProvider => {
            Arc::make_mut(&mut env.config).agents.defaults.model.primary =
                Some(effective.reference);
        }
        ModelSource::BuiltIn => {}
    }
    Ok(())
}

/// `Ok` when `reference` names a model a turn can run; else the sentence saying why not,
/// starting with `model `…`` so a caller can prefix the flag (`--model`, `/model`).
pub fn check_known(config: &Config, reference: &str) -> Result<(), String> {
    let catalog = ModelCatalog::from_config(&config.models)
        .map_err(|err| format!("model `{reference}`: models.providers: {err}"))?;
    check_in_catalog(config, &catalog, reference)
}

/// [`check_known`] against a catalog already built from `config`.
pub fn check_in_catalog(
    config: &Config,
    catalog: &ModelCatalog,
    reference: &str,
) -> Result<(), String> {
    if let Err(message) = check_model_ref(reference) {
        // A bare id: the providers that have it are what the user most likely meant.
        let every = catalog.providers().flat_map(|p| {
            catalog
                .models(p)
                .map(move |m| (format!("{p}/{}", m.id), m.id.clone()))
        });
        let owners: Vec<String> = every
            .filter(|(_, id)| id == reference.trim())
            .map(|(full, _)| full)
            .take(SUGGESTIONS)
            .collect();
        return Err(if owners.is_empty() {
            message
        } else {
            format!("{message}; known: {}", owners.join(", "))
        });
    }
    let Some((provider, model)) = parse_model_ref(reference) else {
        return Err(format!(
            "model `{reference}`: both the provider and the model id are needed, e.g. `openai/gpt-4o`"
        ));
    };
    if matches!(cli_backend_for_provider(config, provider), Ok(Some(_))) {
        return Ok(());
    }
    if catalog.get(provider, model).is_ok() {
        return Ok(());
    }
    let provider_known = catalog.providers().any(|p| p == provider);
    let (known, closest) = if provider_known {
        (
            format!("provider `{provider}` has no model `{model}`"),
            closest(model, catalog.models(provider).map(|m| m.id.clone()))
                .into_iter()
                .map(|id| format!("{provider}/{id}"))
                .collect(),
        )
    } else {
        let every = catalog
            .providers()
            .flat_map(|p| catalog.models(p).map(move |m| format!("{p}/{}", m.id)));
        (
            format!("no provider `{provider}` is built in or configured"),
            closest(reference, every),
        )
    };
    Err(if closest.is_empty() {
        format!("model `{reference}` is unknown: {known}")
    } else {
        format!(
            "model `{reference}` is unknown: {known}; the closest known: {}",
            closest.join(", ")
        )
    })
}

/// The `known` names most like `wanted`, best first: edit distance suits model ids, whose
/// near misses are a digit or a suffix (`gpt-5.5` for `gpt-5.4`).
fn closest(wanted: &str, known: impl Iterator<Item = String>) -> Vec<String> {
    let wanted = wanted.trim().to_lowercase();
    let mut scored: Vec<(f64, String)> = known
        .map(|name| {
            (
                strsim::normalized_damerau_levenshtein(&wanted, &name.to_lowercase()),
                name,
            )
        })
        .collect();
    // Ties keep the catalog's order (sorted by provider and id): stable output for tests.
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored
        .into_iter()
        .take(SUGGESTIONS)
        .map(|(_, name)| name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn config(value: serde_json::Value) -> Config {
        match Config::from_value(value) {
            Ok(config) => config,
            Err(err) => panic!("test config: {err}"),
        }
    }

    fn acme(models: &[&str]) -> serde_json::Value {
        let models: Vec<_> = models.iter().map(|id| json!({"id": id})).collect();
        json!({"api": "openai-completions", "baseUrl": "http://127.0.0.1:9/v1", "models": models})
    }

    #[test]
    fn the_effective_model_follows_the_table() {
        let cases = [
            (
                "nothing configured: the built-in default",
                json!({}),
                ("openai/gpt-5.4", ModelSource::BuiltIn),
            ),
            (
                "a primary wins over everything",
                json!({"agents": {"defaults": {"model": {"primary": "acme/m2"}}},
                       "models": {"providers": {"acme": acme(&["m1", "m2"])}}}),
                ("acme/m2", ModelSource::Primary),
            ),
            (
                "a bare primary is the default provider's",
                json!({"agents": {"defaults": {"model": {"primary": "gpt-5-mini"}}}}),
                ("openai/gpt-5-mini", ModelSource::Primary),
            ),
            (
                "one provider: its first model, in the config's order",
                json!({"models": {"providers": {"acme": acme(&["zeta", "alpha"])}}}),
                ("acme/zeta", ModelSource::OnlyProvider),
            ),
            (
                "one built-in provider with settings only: its first built-in model",
                json!({"models": {"providers": {"anthropic": {"baseUrl": "https://proxy.example"}}}}),
                ("anthropic/claude-opus-4-6", ModelSource::OnlyProvider),
            ),
            (
                "two providers: no guess, the built-in default",
                json!({"models": {"providers": {"acme": acme(&["m1"]), "bolt": acme(&["b1"])}}}),
                ("openai/gpt-5.4", ModelSource::BuiltIn),
            ),
            (
                "an unusable primary counts as none",
                json!({"agents": {"defaults": {"model": {"primary": "acme/"}}},
                       "models": {"providers": {"acme": acme(&["m1"])}}}),
                ("acme/m1", ModelSource::OnlyProvider),
            ),
        ];
        for (name, value, (reference, source)) in cases {
            let got = effective_model(&config(value));
            assert_eq!(
                (got.reference.as_str(), got.source),
                (reference, source),
                "{name}"
            );
        }
    }

    #[test]
    fn known_models_are_the_catalogs_and_cli_backends_take_any_id() {
        let config = config(json!({
            "models": {"providers": {"acme": acme(&["m1", "m2"])}},
            "cliBackends": {"my-cli": {"command": "my-cli"}},
        }));
        let cases: [(&str, Result<(), &str>); 9] = [
            ("openai/gpt-5.4", Ok(())),
            ("acme/m2", Ok(())),
            ("my-cli/anything-at-all", Ok(())),
            ("claude-cli/opus", Ok(())),
            (
                "acme/m3",
                Err(
                    "model `acme/m3` is unknown: provider `acme` has no model `m3`; the closest known: acme/m1, acme/m2",
                ),
            ),
            (
                "openai/gpt-5.5",
                Err(
                    "model `openai/gpt-5.5` is unknown: provider `openai` has no model `gpt-5.5`; the closest known: openai/gpt-5.1, openai/gpt-5.2, openai/gpt-5.4",
                ),
            ),
            (
                "foo/bar",
                Err(
                    "model `foo/bar` is unknown: no provider `foo` is built in or configured; the closest known: ",
                ),
            ),
            (
                "gpt-4o",
                Err(
                    "model `gpt-4o`: expected `provider/model`, e.g. `openai/gpt-4o`; known: openai/gpt-4o",
                ),
            ),
            (
                "m9",
                Err("model `m9`: expected `provider/model`, e.g. `openai/gpt-4o`"),
            ),
        ];
        for (reference, want) in cases {
            let got = check_known(&config, reference);
            match (want, got) {
                (Ok(()), got) => assert_eq!(got, Ok(()), "{reference}"),
                (Err(want), Err(got)) => assert!(got.starts_with(want), "{reference}: {got}"),
                (Err(want), Ok(())) => panic!("{reference} passed; wanted {want}"),
            }
        }
    }

    /// A provider the catalog does not list may not take any id: the runner looks every model
    /// up in the catalog, so an unlisted id would only fail over at run time.
    #[test]
    fn a_configured_provider_knows_only_its_listed_models() {
        let config = config(json!({"models": {"providers": {"lmstudio": acme(&["qwen3-coder"])}}}));
        assert_eq!(check_known(&config, "lmstudio/qwen3-coder"), Ok(()));
        assert!(check_known(&config, "lmstudio/other").is_err());
    }
}
