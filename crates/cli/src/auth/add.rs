//! `clawloop auth add <provider>`: stores an API-key profile. The key comes from stdin (hidden
//! on a terminal), stays in an environment variable the profile names (`--key-env`), or is
//! printed by a command run at each use (`--command`); it is never taken from the command line.

use clap::Args;
use clawloop_core::auth_store::{ApiKeyCredential, AuthStore, Credential};
use clawloop_runner::auth::mark::clear_cooldown;
use clawloop_runner::auth::order::resolve_profile_order;
use clawloop_runner::auth::{COMMAND_REF_PROVIDER, provider_key};
use serde_json::json;

use super::context::now_ms;
use super::key_input::read_key;
use super::{AuthContext, Failure, say};
use crate::render::sanitize::for_stderr;

/// Arguments of `clawloop auth add`.
#[derive(Debug, Args)]
pub struct AddArgs {
    /// The provider: a built-in one (openai, anthropic, …) or a `models.providers` id.
    provider: String,
    /// The profile id (default `<provider>:default`, or the next free `<provider>:<n>`).
    #[arg(long, value_name = "PROFILE_ID")]
    id: Option<String>,
    /// Keep the key in this environment variable; the profile stores only its name.
    #[arg(long, value_name = "NAME", conflicts_with = "key_stdin")]
    key_env: Option<String>,
    /// Read the key from stdin (the default): hidden on a terminal, or piped.
    #[arg(long)]
    key_stdin: bool,
    /// Run this shell command for the key at each use (`sh -c`, its trimmed output, 10 s),
    /// e.g. `pass show openai`; the profile stores the command, not the key.
    #[arg(long, value_name = "CMD", conflicts_with_all = ["key_env", "key_stdin"])]
    command: Option<String>,
    /// Replace a profile that has the same id.
    #[arg(long)]
    force: bool,
}

/// Runs `clawloop auth add`.
pub fn run(args: &AddArgs) -> Result<(), Failure> {
    check_name("provider", &args.provider, &[':', '/'])?;
    if let Some(id) = &args.id {
        check_name("profile id", id, &[])?;
    }
    if let Some(name) = &args.key_env
        && !is_env_name(name)
    {
        return Err(Failure::usage(format!(
            "--key-env `{name}` is not an environment variable name (letters, digits and `_`, not starting with a digit)"
        )));
    }
    let context = AuthContext::load()?;
    let existing = context.store.load()?.profiles;
    let id = match &args.id {
        Some(id) => id.clone(),
        None if args.force => format!("{}:default", args.provider),
        None => free_id(&args.provider, |id| existing.get(id).is_some()),
    };
    if existing.get(&id).is_some() && !args.force {
        return Err(taken(&id));
    }
    // Read before taking the lock: typing a key must not hold other writers up.
    let credential = match (&args.key_env, &args.command) {
        (Some(name), _) => ApiKeyCredential {
            provider: args.provider.clone(),
            key_ref: Some(json!({"source": "env", "id": name})),
            ..ApiKeyCredential::default()
        },
        (None, Some(command)) if command.trim().is_empty() => {
            return Err(Failure::usage(
                "--command is empty: give the command that prints the key",
            ));
        }
        (None, Some(command)) => ApiKeyCredential {
            provider: args.provider.clone(),
            key_ref: Some(
                json!({"source": "exec", "provider": COMMAND_REF_PROVIDER, "id": command.trim()}),
            ),
            ..ApiKeyCredential::default()
        },
        (None, None) => ApiKeyCredential {
            provider: args.provider.clone(),
            key: Some(read_key(&args.provider)?),
            ..ApiKeyCredential::default()
        },
    };
    let mut clash = false;
    let profiles = context.store.update_profiles(&mut |profiles| {
        clash = profiles.get(&id).is_some() && !args.force;
        if clash {
            return false;
        }
        profiles
            .profiles
            .insert(id.clone(), Credential::ApiKey(credential.clone()));
        true
    })?;
    if clash {
        return Err(taken(&id));
    }
    // A new key starts with a clean slate; a stored order for the provider gets the new id.
    let provider = args.provider.clone();
    let snapshot = context.store.update_state(&mut |_, state| {
        let mut changed = clear_cooldown(state, &id);
        let key = provider_key(&provider);
        if let Some(order) = state.order.as_mut()
            && let Some((_, ids)) = order.iter_mut().find(|(p, _)| provider_key(p) == key)
            && !ids.contains(&id)
        {
            ids.push(id.clone());
            changed = true;
        }
        changed
    })?;
    let source = match (&args.key_env, &args.command) {
        (Some(name), _) => format!("key from env {name}"),
        (None, Some(_)) => "key from a command run at each use".to_owned(),
        (None, None) => format!("key stored in {}", context.store.profiles_path().display()),
    };
    say(&format!(
        "added auth profile {id} ({}, api_key, {source})",
        args.provider
    ));
    if let Some(name) = &args.key_env
        && std::env::var(name).map_or(true, |v| v.trim().is_empty())
    {
        let note = format!("{name} is not set in this environment; runs need it set");
        eprintln!("clawloop: note: {}", for_stderr(&note));
    }
    let order = resolve_profile_order(
        &context.config.auth,
        &profiles,
        &snapshot.state,
        &args.provider,
        None,
        now_ms(),
        None,
    );
    if !order.contains(&id) {
        let note = format!(
            "runs will not use {id}: the [auth] order or profiles in config.toml for {} do not list it",
            args.provider
        );
        eprintln!("clawloop: note: {}", for_stderr(&note));
    }
    Ok(())
}

fn taken(id: &str) -> Failure {
    Failure::usage(format!(
        "auth profile {id} already exists: pass --force to replace it, or choose another --id"
    ))
}

/// `<provider>:default`, else the first free `<provider>:<n>` from 2 on.
fn free_id(provider: &str, exists: impl Fn(&str) -> bool) -> String {
    let default = format!("{provider}:default");
    if !exists(&default) {
        return default;
    }
    (2_u64..)
        .map(|n| format!("{provider}:{n}"))
        .find(|id| !exists(id))
        .unwrap_or(default)
}

fn check_name(what: &str, value: &str, forbidden: &[char]) -> Result<(), Failure> {
    if value.trim().is_empty()
        || value.chars().any(|c| c.is_whitespace() || c.is_control())
        || value.contains(forbidden)
    {
        let extra: String = forbidden.iter().map(|c| format!(" or `{c}`")).collect();
        return Err(Failure::usage(format!(
            "{what} `{value}` is not valid: it must be non-empty without spaces{extra}"
        )));
    }
    Ok(())
}

fn is_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn default_id_then_next_free_number() {
        assert_eq!(free_id("openai", |_| false), "openai:default");
        let taken = ["openai:default", "openai:2"];
        assert_eq!(free_id("openai", |id| taken.contains(&id)), "openai:3");
    }

    #[test]
    fn names_are_checked() {
        assert!(is_env_name("OPENAI_API_KEY") && is_env_name("_x1"));
        assert!(!is_env_name("1X") && !is_env_name("A-B") && !is_env_name(""));
        assert_eq!(
            check_name("provider", "open ai", &[':']).map_err(|e| e.code),
            Err(2)
        );
        assert_eq!(
            check_name("provider", "a:b", &[':']).map_err(|e| e.code),
            Err(2)
        );
        assert_eq!(check_name("provider", "openai", &[':']), Ok(()));
    }
}
