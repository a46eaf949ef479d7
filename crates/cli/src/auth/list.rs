//! `clawloop auth list [--json]`: every profile of the agent, per provider in the order a run
//! tries them, then the keys a run would take from config or the environment (SPEC §2) as
//! implicit profiles. Secrets are never read into the output, only where they come from.

use clap::Args;
use clawloop_core::auth_store::{AuthSnapshot, AuthStore, Credential, ProfileUsageStats};
use clawloop_providers::api_key::provider_env_keys;
use clawloop_runner::auth::cooldown::is_active_window;
use clawloop_runner::auth::eligibility::resolve_profile_eligibility;
use clawloop_runner::auth::order::resolve_profile_order;
use clawloop_runner::auth::{AuthConfig, provider_key};
use clawloop_runner::config::Config;
use serde::Serialize;

use super::context::now_ms;
use super::source::{SecretSource, configured_key_source, credential_source};
use super::{AuthContext, Failure, format_local_ms, say};
use crate::render::sanitize::for_stdout;

/// Arguments of `clawloop auth list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Print the profiles as one JSON array.
    #[arg(long)]
    json: bool,
}

/// One line of the listing.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProfileRow {
    /// The profile id; for an implicit profile, the provider.
    pub id: String,
    /// The provider as stored.
    pub provider: String,
    /// `api_key`, `token`, `oauth`, or `unrecognized`.
    pub mode: &'static str,
    /// Where the secret comes from.
    pub source: SecretSource,
    /// A key from config or the environment rather than a stored profile.
    pub implicit: bool,
    /// Whether the profile can be used now.
    pub state: ProfileState,
    /// Last successful use, ms since the epoch.
    pub last_used: Option<f64>,
    /// Consecutive failures recorded.
    pub error_count: u32,
}

/// Whether a profile can be used now.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum ProfileState {
    /// Usable.
    Ok,
    /// Resting after a failure until `until`.
    CoolingDown {
        /// End of the window, ms since the epoch.
        until: f64,
        /// The failure reason, as stored.
        reason: Option<String>,
        /// The model a rate-limit cooldown is scoped to.
        model: Option<String>,
    },
    /// Disabled (billing, permanent auth failure) until `until`.
    Disabled {
        /// End of the window, ms since the epoch.
        until: f64,
        /// The failure reason, as stored.
        reason: Option<String>,
    },
    /// Never usable as stored (`missing_credential`, `expired`, `mode_mismatch`, …).
    Unusable {
        /// The eligibility reason.
        reason: &'static str,
    },
}

impl std::fmt::Display for ProfileState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let why = |reason: &Option<String>| reason.clone().unwrap_or_else(|| "unknown".to_owned());
        match self {
            ProfileState::Ok => f.write_str("ok"),
            ProfileState::CoolingDown {
                until,
                reason,
                model,
            } => {
                write!(
                    f,
                    "cooling down until {} ({}",
                    format_local_ms(*until),
                    why(reason)
                )?;
                if let Some(model) = model {
                    write!(f, ", model {model}")?;
                }
                f.write_str(")")
            }
            ProfileState::Disabled { until, reason } => {
                write!(
                    f,
                    "disabled until {} ({})",
                    format_local_ms(*until),
                    why(reason)
                )
            }
            ProfileState::Unusable { reason } => write!(f, "unusable ({reason})"),
        }
    }
}

/// Runs `clawloop auth list`.
pub fn run(args: &ListArgs) -> Result<(), Failure> {
    let context = AuthContext::load()?;
    let snapshot = context.store.load()?;
    let env = |name: &str| std::env::var(name).ok();
    let rows = profile_rows(&context.config, &snapshot, now_ms(), &env);
    if args.json {
        let text = serde_json::to_string_pretty(&rows)
            .map_err(|err| Failure::failed(format!("cannot encode the profiles: {err}")))?;
        say(&text);
    } else if rows.is_empty() {
        say(
            "no auth profiles: add one with `clawloop auth add <provider>` or set a provider's key variable (e.g. OPENAI_API_KEY)",
        );
    } else {
        // Profile ids, providers and emails come from files.
        print!("{}", for_stdout(&render(&rows)));
    }
    Ok(())
}

/// The rows of the listing: per provider (providers in order of first mention: stored
/// profiles, then config `auth.profiles` and `auth.order`, then implicit keys), the profiles a
/// run would try in its order, then the provider's other profiles in file order, then its
/// implicit key.
pub fn profile_rows(
    config: &Config,
    snapshot: &AuthSnapshot,
    now: f64,
    env: &dyn Fn(&str) -> Option<String>,
) -> Vec<ProfileRow> {
    let mut providers: Vec<String> = Vec::new();
    let mut note = |provider: &str| {
        let key = provider_key(provider);
        if !providers.iter().any(|p| provider_key(p) == key) {
            providers.push(provider.to_owned());
        }
    };
    snapshot
        .profiles
        .profiles
        .values()
        .filter_map(Credential::provider)
        .for_each(&mut note);
    config
        .auth
        .profiles
        .values()
        .for_each(|p| note(&p.provider));
    config.auth.order.keys().for_each(|p| note(p));
    let implicit = implicit_rows(config, env);
    implicit.iter().for_each(|row| note(&row.provider));

    let mut rows = Vec::new();
    for provider in &providers {
        let key = provider_key(provider);
        let mut ids = resolve_profile_order(
            &config.auth,
            &snapshot.profiles,
            &snapshot.state,
            provider,
            None,
            now,
            None,
        );
        for (id, credential) in &snapshot.profiles.profiles {
            if credential
                .provider()
                .is_some_and(|p| provider_key(p) == key)
                && !ids.contains(id)
            {
                ids.push(id.clone());
            }
        }
        for id in ids {
            if let Some(credential) = snapshot.profiles.get(&id) {
                rows.push(stored_row(&config.auth, snapshot, &id, credential, now));
            }
        }
        rows.extend(
            implicit
                .iter()
                .filter(|row| provider_key(&row.provider) == key)
                .cloned(),
        );
    }
    // Entries of an unknown shape belong to no provider; they are still listed, last.
    for (id, credential) in &snapshot.profiles.profiles {
        if credential.provider().is_none() {
            rows.push(stored_row(&config.auth, snapshot, id, credential, now));
        }
    }
    rows
}

fn stored_row(
    auth: &AuthConfig,
    snapshot: &AuthSnapshot,
    id: &str,
    credential: &Credential,
    now: f64,
) -> ProfileRow {
    let provider = credential.provider().unwrap_or("?").to_owned();
    let stats = snapshot.state.stats(id);
    let eligibility = resolve_profile_eligibility(auth, &snapshot.profiles, &provider, id, now);
    let state = if eligibility.is_eligible() {
        stats.map_or(ProfileState::Ok, |stats| window_state(stats, now))
    } else {
        ProfileState::Unusable {
            reason: eligibility.as_str(),
        }
    };
    ProfileRow {
        id: id.to_owned(),
        mode: credential.kind().map_or("unrecognized", |k| k.as_str()),
        source: credential_source(credential),
        implicit: false,
        state,
        last_used: stats.and_then(|s| s.last_used),
        error_count: stats.and_then(|s| s.error_count).unwrap_or(0),
        provider,
    }
}

/// The window a profile rests in at `now`; the disabled lane wins when both are active.
fn window_state(stats: &ProfileUsageStats, now: f64) -> ProfileState {
    let reason = |r: Option<clawloop_core::FailoverReason>| r.map(|r| r.as_str().to_owned());
    match (stats.disabled_until, stats.cooldown_until) {
        (Some(until), _) if is_active_window(Some(until), now) => ProfileState::Disabled {
            until,
            reason: reason(stats.disabled_reason),
        },
        (_, Some(until)) if is_active_window(Some(until), now) => ProfileState::CoolingDown {
            until,
            reason: reason(stats.cooldown_reason),
            model: stats.cooldown_model.clone(),
        },
        _ => ProfileState::Ok,
    }
}

/// The keys a run takes when no profile serves the provider: a configured
/// `models.providers.<p>.apiKey`, else the provider's environment variable (SPEC §2).
fn implicit_rows(config: &Config, env: &dyn Fn(&str) -> Option<String>) -> Vec<ProfileRow> {
    let row = |provider: &str, source: SecretSource| ProfileRow {
        id: format!("{provider} ({source})"),
        provider: provider.to_owned(),
        mode: "api_key",
        source,
        implicit: true,
        state: ProfileState::Ok,
        last_used: None,
        error_count: 0,
    };
    let mut rows = Vec::new();
    for (provider, settings) in &config.models.providers {
        if let Some(spec) = settings.api_key.as_deref().filter(|s| !s.trim().is_empty()) {
            rows.push(row(provider, configured_key_source(spec, env)));
        }
    }
    for (provider, variable) in provider_env_keys() {
        let configured = config
            .models
            .providers
            .get(*provider)
            .and_then(|p| p.api_key.as_deref())
            .is_some_and(|s| !s.trim().is_empty());
        if !configured && env(variable).is_some_and(|v| !v.trim().is_empty()) {
            rows.push(row(
                provider,
                SecretSource::Env {
                    name: (*variable).to_owned(),
                },
            ));
        }
    }
    rows
}

/// One aligned line per row.
fn render(rows: &[ProfileRow]) -> String {
    let cells: Vec<[String; 4]> = rows
        .iter()
        .map(|row| {
            [
                row.id.clone(),
                row.provider.clone(),
                row.mode.to_owned(),
                row.source.to_string(),
            ]
        })
        .collect();
    let mut widths = [0_usize; 4];
    for line in &cells {
        for (width, cell) in widths.iter_mut().zip(line) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for (row, line) in rows.iter().zip(&cells) {
        for (width, cell) in widths.iter().zip(line) {
            out.push_str(&format!("{cell:<width$}  "));
        }
        let usage = if row.implicit {
            "last used -  errors -".to_owned()
        } else {
            let last = row
                .last_used
                .filter(|t| *t > 0.0)
                .map_or_else(|| "never".to_owned(), format_local_ms);
            format!("last used {last}  errors {}", row.error_count)
        };
        out.push_str(&format!("{}  {usage}\n", row.state));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn rows_follow_the_run_order_then_unusable_then_implicit()
    -> Result<(), Box<dyn std::error::Error>> {
        let config = Config::from_value(json!({
            "auth": {"order": {"acme": ["acme:b", "acme:a"]}},
            "models": {"providers": {"acme": {"apiKey": "!pass acme"}}}
        }))?;
        let now = 1_700_000_000_000.0;
        let snapshot = AuthSnapshot {
            profiles: serde_json::from_value(json!({"version": 1, "profiles": {
                "acme:a": {"type": "api_key", "provider": "acme", "key": "sk-a"},
                "acme:c": {"type": "api_key", "provider": "acme"},
                "acme:b": {"type": "api_key", "provider": "acme", "keyRef": "${B_KEY}"},
                "other:x": {"type": "token", "provider": "other", "token": "t"}
            }}))?,
            state: serde_json::from_value(json!({"version": 1, "usageStats": {
                "acme:b": {"cooldownUntil": now + 60_000.0, "cooldownReason": "rate_limit",
                    "errorCount": 2, "lastUsed": now - 5.0},
                "other:x": {"disabledUntil": now + 1.0, "disabledReason": "billing"}
            }}))?,
        };
        let env = |name: &str| (name == "OPENAI_API_KEY").then(|| "sk-env".to_owned());
        let rows = profile_rows(&config, &snapshot, now, &env);
        let summary: Vec<(String, String, String)> = rows
            .iter()
            .map(|r| {
                let state = match &r.state {
                    ProfileState::Ok => "ok".to_owned(),
                    ProfileState::CoolingDown { reason, .. } => format!("cooling {reason:?}"),
                    ProfileState::Disabled { reason, .. } => format!("disabled {reason:?}"),
                    ProfileState::Unusable { reason } => format!("unusable {reason}"),
                };
                (r.id.clone(), r.source.to_string(), state)
            })
            .collect();
        let row = |id: &str, source: &str, state: &str| {
            (id.to_owned(), source.to_owned(), state.to_owned())
        };
        assert_eq!(
            summary,
            vec![
                row("acme:a", "file", "ok"),
                row("acme:b", "env B_KEY", "cooling Some(\"rate_limit\")"),
                row("acme:c", "no secret", "unusable missing_credential"),
                row("acme (command)", "command", "ok"),
                row("other:x", "file", "disabled Some(\"billing\")"),
                row("openai (env OPENAI_API_KEY)", "env OPENAI_API_KEY", "ok"),
            ]
        );
        assert_eq!(
            (rows[1].error_count, rows[1].last_used),
            (2, Some(now - 5.0))
        );
        Ok(())
    }
}
