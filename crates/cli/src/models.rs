//! `clawloop models list`: the models a run can use — the built-in catalog merged with
//! `models.providers` from the config — with their limits and whether a credential is there.
//! Keys are never printed, and a `!command` key is not run just to list.

use std::io::Write as _;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use clawloop_core::auth_store::AuthStore;
use clawloop_core::clock::{Clock, SystemClock};
use clawloop_core::context_window::{ContextWindowSources, resolve_context_window_info};
use clawloop_core::model::Model;
use clawloop_providers::api_key::{is_keyless_provider, provider_env_key};
use clawloop_providers::catalog::ModelCatalog;
use clawloop_runner::auth::FileAuthStore;
use clawloop_runner::auth::eligibility::resolve_profile_eligibility;
use clawloop_runner::auth::provider_key;
use clawloop_runner::config::Config;
use clawloop_session::DEFAULT_AGENT_ID;
use serde_json::json;

use crate::config::{home_dir, load_config};
use crate::failure::{Failure, finish};
use crate::model_choice::{ModelSource, effective_model};
use crate::render::sanitize::for_stdout;

/// Arguments of `clawloop models`.
#[derive(Debug, Args)]
pub struct ModelsArgs {
    #[command(subcommand)]
    command: ModelsCommand,
}

#[derive(Debug, Subcommand)]
enum ModelsCommand {
    /// List the built-in and configured models.
    List(ListArgs),
}

#[derive(Debug, Args)]
struct ListArgs {
    /// Print a JSON array instead of a table.
    #[arg(long)]
    json: bool,
    /// Only this provider's models.
    #[arg(long, value_name = "PROVIDER")]
    provider: Option<String>,
    /// The agent whose auth profiles count as credentials.
    #[arg(long, default_value = DEFAULT_AGENT_ID)]
    agent: String,
}

/// Whether a credential for a provider is at hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyState {
    /// An auth profile, the config's `apiKey` or the provider's environment variable.
    Yes,
    /// None of them.
    No,
    /// The provider needs none (Ollama).
    NotNeeded,
    /// The config's `apiKey` is a `!command`, not run to list.
    Command,
}

impl KeyState {
    fn as_str(self) -> &'static str {
        match self {
            KeyState::Yes => "yes",
            KeyState::No => "no",
            KeyState::NotNeeded => "not needed",
            KeyState::Command => "command",
        }
    }
}

/// One line of the listing.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    provider: String,
    model: String,
    api: String,
    context_window: u64,
    max_tokens: u64,
    reasoning: bool,
    key: KeyState,
    /// `primary`, `fallback N`, or empty.
    role: String,
}

/// Runs `clawloop models …`.
pub fn main(args: ModelsArgs) -> ExitCode {
    match args.command {
        ModelsCommand::List(list) => finish(run_list(&list)),
    }
}

fn run_list(args: &ListArgs) -> Result<(), Failure> {
    let home = home_dir().map_err(|err| Failure::usage(err.to_string()))?;
    let config = load_config(&home).map_err(|err| Failure::usage(err.to_string()))?;
    let catalog = ModelCatalog::from_config(&config.models).map_err(|err| {
        Failure::usage(format!(
            "{}: models.providers: {err}",
            home.join(crate::config::CONFIG_FILE).display()
        ))
    })?;
    if let Some(provider) = &args.provider
        && !catalog.providers().any(|p| p == provider)
    {
        let known: Vec<&str> = catalog.providers().collect();
        return Err(Failure::usage(format!(
            "--provider `{provider}`: no such provider; known: {}",
            known.join(", ")
        )));
    }
    let agent_dir = home.join("agents").join(&args.agent).join("agent");
    let keys = KeyCheck::new(&config, &agent_dir)?;
    let rows = rows(&catalog, &config, args.provider.as_deref(), &keys);
    let text = if args.json {
        json_text(&rows)
    } else {
        table(&rows)
    };
    // Provider and model names come from the config.
    let text = for_stdout(&text);
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    Ok(())
}

fn rows(
    catalog: &ModelCatalog,
    config: &Config,
    only: Option<&str>,
    keys: &KeyCheck<'_>,
) -> Vec<Row> {
    let selection = &config.defaults().model;
    let effective = effective_model(config);
    let role_of = |reference: &str| -> String {
        if reference == effective.reference {
            return match effective.source {
                ModelSource::Primary => "primary",
                // What a run that names no model uses, though nothing names it a primary.
                ModelSource::OnlyProvider | ModelSource::BuiltIn => "default",
            }
            .to_owned();
        }
        match selection.fallbacks.iter().position(|f| f == reference) {
            Some(i) => format!("fallback {}", i + 1),
            None => String::new(),
        }
    };
    let mut rows = Vec::new();
    for provider in catalog.providers() {
        if only.is_some_and(|only| only != provider) {
            continue;
        }
        let key = keys.state(provider, catalog.api_key_spec(provider));
        for model in catalog.models(provider) {
            rows.push(Row {
                provider: provider.to_owned(),
                model: model.id.clone(),
                api: model.api.to_string(),
                context_window: context_window(config, model),
                max_tokens: model.max_tokens,
                reasoning: model.reasoning,
                key,
                role: role_of(&format!("{provider}/{}", model.id)),
            });
        }
    }
    rows
}

/// The window a run gets, as the runner computes it: the model's (or the config's
/// `contextWindow`/`contextTokens` for it), capped by `agents.defaults.contextTokens`.
#[allow(
    clippy::cast_precision_loss,
    reason = "token counts are far below 2^53, where f64 is exact"
)]
fn context_window(config: &Config, model: &Model) -> u64 {
    let configured = config
        .models
        .providers
        .get(&model.provider)
        .and_then(|p| p.models.iter().find(|m| m.id == model.id));
    let info = resolve_context_window_info(&ContextWindowSources {
        model_context_window: Some(model.context_window as f64),
        config_context_window: configured.and_then(|m| m.context_window).map(|v| v as f64),
        config_context_tokens: configured.and_then(|m| m.context_tokens).map(|v| v as f64),
        agent_context_tokens: Some(config.defaults().context_tokens as f64),
        ..ContextWindowSources::default()
    });
    // As the runner applies it: a cap only ever lowers the model's window.
    if info.tokens > 0 && info.tokens < model.context_window {
        info.tokens
    } else {
        model.context_window
    }
}

/// The providers of `catalog` with a credential at hand (a `!command` key counts, unrun); an
/// unreadable auth store counts as no profiles.
pub fn keyed_providers(
    catalog: &ModelCatalog,
    config: &Config,
    agent_dir: &std::path::Path,
) -> Vec<String> {
    let keys = KeyCheck::lenient(config, agent_dir);
    catalog
        .providers()
        .filter(|provider| {
            matches!(
                keys.state(provider, catalog.api_key_spec(provider)),
                KeyState::Yes | KeyState::Command
            )
        })
        .map(str::to_owned)
        .collect()
}

/// Whether a turn of `provider` would find no credential at all (a keyless provider, a CLI
/// backend or a `!command` key never lacks one here).
pub fn lacks_key(config: &Config, agent_dir: &std::path::Path, provider: &str) -> bool {
    if matches!(
        clawloop_runner::cli_backend::cli_backend_for_provider(config, provider),
        Ok(Some(_))
    ) {
        return false;
    }
    let spec = config
        .models
        .providers
        .get(provider)
        .and_then(|p| p.api_key.as_deref());
    KeyCheck::lenient(config, agent_dir).state(provider, spec) == KeyState::No
}

/// Where credentials come from, in the runner's order: auth profiles, then the config's
/// `apiKey`, then the provider's environment variable.
struct KeyCheck<'a> {
    config: &'a Config,
    profiles: clawloop_core::auth_store::AuthProfiles,
    now_ms: f64,
}

impl<'a> KeyCheck<'a> {
    fn new(config: &'a Config, agent_dir: &std::path::Path) -> Result<Self, Failure> {
        let snapshot = FileAuthStore::new(agent_dir)
            .load()
            .map_err(|err| Failure::usage(err.to_string()))?;
        #[allow(
            clippy::cast_precision_loss,
            reason = "epoch milliseconds are far below 2^53"
        )]
        let now_ms = SystemClock.now_ms() as f64;
        Ok(KeyCheck {
            config,
            profiles: snapshot.profiles,
            now_ms,
        })
    }

    /// As [`KeyCheck::new`], with an unreadable auth store counting as no profiles.
    fn lenient(config: &'a Config, agent_dir: &std::path::Path) -> Self {
        KeyCheck::new(config, agent_dir).unwrap_or_else(|_| KeyCheck {
            config,
            profiles: clawloop_core::auth_store::AuthProfiles::default(),
            now_ms: 0.0,
        })
    }

    fn state(&self, provider: &str, spec: Option<&str>) -> KeyState {
        let key = provider_key(provider);
        let profile = self.profiles.profiles.keys().any(|id| {
            resolve_profile_eligibility(&self.config.auth, &self.profiles, &key, id, self.now_ms)
                .is_eligible()
        });
        if profile {
            return KeyState::Yes;
        }
        if let Some(spec) = spec.map(str::trim).filter(|s| !s.is_empty()) {
            if spec.starts_with('!') {
                return KeyState::Command;
            }
            // A value shaped like an environment variable's name names one (a literal key
            // never looks like `ACME_API_KEY`): unset, it gives no key.
            if !looks_like_env_name(spec) || env_set(spec) {
                return KeyState::Yes;
            }
        }
        if provider_env_key(provider).is_some_and(env_set) {
            return KeyState::Yes;
        }
        if is_keyless_provider(provider) {
            KeyState::NotNeeded
        } else {
            KeyState::No
        }
    }
}

fn env_set(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| !v.trim().is_empty())
}

fn looks_like_env_name(spec: &str) -> bool {
    spec.chars()
        .next()
        .is_some_and(|c| c.is_ascii_uppercase() || c == '_')
        && spec
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

fn json_text(rows: &[Row]) -> String {
    let values: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            json!({
                "provider": r.provider,
                "model": r.model,
                "api": r.api,
                "contextWindow": r.context_window,
                "maxTokens": r.max_tokens,
                "reasoning": r.reasoning,
                "key": r.key.as_str(),
                "role": (!r.role.is_empty()).then_some(&r.role),
            })
        })
        .collect();
    let mut text = serde_json::to_string_pretty(&values).unwrap_or_else(|_| "[]".to_owned());
    text.push('\n');
    text
}

fn table(rows: &[Row]) -> String {
    if rows.is_empty() {
        return "no models\n".to_owned();
    }
    let mut cells: Vec<[String; 7]> =
        vec![["MODEL", "API", "CONTEXT", "MAX OUT", "REASONING", "KEY", ""].map(str::to_owned)];
    cells.extend(rows.iter().map(|r| {
        [
            format!("{}/{}", r.provider, r.model),
            r.api.clone(),
            r.context_window.to_string(),
            r.max_tokens.to_string(),
            if r.reasoning { "yes" } else { "no" }.to_owned(),
            r.key.as_str().to_owned(),
            r.role.clone(),
        ]
    }));
    let mut widths = [0usize; 7];
    for row in &cells {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut text = String::new();
    for row in &cells {
        let mut line = String::new();
        for (i, (cell, width)) in row.iter().zip(widths).enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            line.push_str(cell);
            line.extend(std::iter::repeat_n(' ', width - cell.chars().count()));
        }
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn env_names_are_told_from_literal_keys() {
        assert!(looks_like_env_name("ACME_API_KEY"));
        assert!(looks_like_env_name("_K2"));
        assert!(!looks_like_env_name("sk-test"));
        assert!(!looks_like_env_name("Acme"));
        assert_eq!(KeyState::NotNeeded.as_str(), "not needed");
    }
}
