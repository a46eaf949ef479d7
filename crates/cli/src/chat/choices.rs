//! What `/model` with no argument shows: the current model and a short list to choose from —
//! the models of the providers the user configured or has a key for, not the whole catalog.

use std::collections::BTreeSet;

use clawloop_providers::catalog::{BUILTIN_MODELS, ModelCatalog, parse_model_ref};
use clawloop_runner::config::Config;
use clawloop_runner::turn::TurnEnv;

use crate::models::keyed_providers;

/// Models shown per provider; `clawloop models list` has the rest.
const PER_PROVIDER: usize = 6;

/// What `/model` shows for the chat's `current` model, over the catalog of `env`'s config and
/// the credentials of its agent.
pub fn model_listing(env: &TurnEnv, current: &str) -> String {
    match ModelCatalog::from_config(&env.config.models) {
        Ok(catalog) => {
            let keyed = keyed_providers(&catalog, &env.config, &env.agent_dir);
            model_choices(&env.config, &catalog, &keyed, current)
        }
        Err(err) => format!("model: {current}\n(models.providers: {err})"),
    }
}

/// The listing's text, without a trailing newline. `keyed` are the providers with a
/// credential; `current` is the `provider/model` of the next turn.
pub fn model_choices(
    config: &Config,
    catalog: &ModelCatalog,
    keyed: &[String],
    current: &str,
) -> String {
    let current_provider = parse_model_ref(current).map(|(provider, _)| provider);
    let shown: BTreeSet<&str> = catalog
        .providers()
        .filter(|provider| {
            config.models.providers.contains_key(*provider)
                || keyed.iter().any(|k| k == provider)
                || current_provider == Some(*provider)
        })
        .collect();
    let width = shown.iter().map(|p| p.chars().count()).max().unwrap_or(0);
    let mut lines = vec![format!("model: {current}")];
    for provider in shown {
        let ids = ordered_ids(config, catalog, provider);
        let cells: Vec<String> = ids
            .iter()
            .take(PER_PROVIDER)
            .map(|id| {
                if format!("{provider}/{id}") == current {
                    format!("{id} (current)")
                } else {
                    id.clone()
                }
            })
            .collect();
        let mut line = format!("  {provider:<width$}  {}", cells.join(", "));
        if ids.len() > PER_PROVIDER {
            line.push_str(&format!(" (+{} more)", ids.len() - PER_PROVIDER));
        }
        lines.push(line);
    }
    if lines.len() == 1 {
        lines.push(
            "  no provider is configured or has a key: `clawloop auth add <provider>`".to_owned(),
        );
    }
    lines.push("switch with /model provider/model; every model: clawloop models list".to_owned());
    lines.join("\n")
}

/// A provider's model ids, the most likely first: the config's in its order, then the
/// built-in table's (newest first), then anything else the catalog holds.
fn ordered_ids(config: &Config, catalog: &ModelCatalog, provider: &str) -> Vec<String> {
    let configured = config
        .models
        .providers
        .get(provider)
        .into_iter()
        .flat_map(|entry| entry.models.iter().map(|m| m.id.trim().to_owned()));
    let builtin = BUILTIN_MODELS
        .iter()
        .filter(|m| m.provider == provider)
        .map(|m| m.id.to_owned());
    let rest = catalog.models(provider).map(|m| m.id.clone());
    let mut ids: Vec<String> = Vec::new();
    for id in configured.chain(builtin).chain(rest) {
        if !id.is_empty() && !ids.contains(&id) && catalog.get(provider, &id).is_ok() {
            ids.push(id);
        }
    }
    ids
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn the_choices_are_the_configured_and_keyed_providers_models() -> Result<(), String> {
        let config = Config::from_value(json!({"models": {"providers": {"acme": {
            "api": "openai-completions", "baseUrl": "http://127.0.0.1:9/v1",
            "models": [{"id": "m2"}, {"id": "m1"}]
        }}}}))
        .map_err(|e| e.to_string())?;
        let catalog = ModelCatalog::from_config(&config.models).map_err(|e| e.to_string())?;
        let text = model_choices(&config, &catalog, &["deepseek".to_owned()], "acme/m1");
        assert_eq!(
            text,
            "model: acme/m1\n  acme      m2, m1 (current)\n  deepseek  deepseek-chat, deepseek-reasoner\nswitch with /model provider/model; every model: clawloop models list"
        );
        let openai = model_choices(&config, &catalog, &[], "openai/gpt-5");
        let line = openai
            .lines()
            .find(|l| l.starts_with("  openai"))
            .unwrap_or_default();
        assert!(line.ends_with(", gpt-5 (current) (+8 more)"), "{openai}");
        Ok(())
    }
}
