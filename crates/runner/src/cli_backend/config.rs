//! The resolved backend: a user table merged over its preset, defaults filled in, checked.

use std::collections::BTreeMap;

use serde_json::Value;

use super::presets::{PRESET_IDS, preset_id, preset_settings};
use super::settings::{
    CliBackendSettings, CliImageMode, CliInputMode, CliOutputFormat, CliSessionMode, JsonlDialect,
    SystemPromptMode, SystemPromptWhen, WatchdogProfileSettings,
};
use super::watchdog::{CliWatchdog, WatchdogProfile};
use crate::config::{Config, ConfigError};

/// Session id fields read from the output when the backend names none.
pub const DEFAULT_SESSION_ID_FIELDS: [&str; 4] = [
    "session_id",
    "sessionId",
    "conversation_id",
    "conversationId",
];

/// An external agent CLI run as a provider, ready to use (every default applied).
#[derive(Debug, Clone, PartialEq)]
pub struct CliBackendConfig {
    /// Backend id (`claude-cli`, `codex-cli`, a configured id), lowercase.
    pub id: String,
    /// The program (a name on `PATH` or a path).
    pub command: String,
    /// Arguments of a fresh invocation.
    pub args: Vec<String>,
    /// Arguments of a resumed invocation; empty = the backend cannot resume.
    pub resume_args: Vec<String>,
    /// Output format of a fresh invocation.
    pub output: CliOutputFormat,
    /// Output format of a resumed invocation.
    pub resume_output: CliOutputFormat,
    /// JSONL dialect, if any.
    pub jsonl_dialect: Option<JsonlDialect>,
    /// How the prompt is passed.
    pub input: CliInputMode,
    /// In `arg` mode, prompts longer than this (in chars) go to stdin.
    pub max_prompt_arg_chars: Option<usize>,
    /// Extra environment variables.
    pub env: BTreeMap<String, String>,
    /// Environment variables removed before launch.
    pub clear_env: Vec<String>,
    /// Flag that passes the model id.
    pub model_arg: Option<String>,
    /// clawloop model id → CLI model id.
    pub model_aliases: BTreeMap<String, String>,
    /// Flag that passes the session id of a fresh invocation.
    pub session_arg: Option<String>,
    /// Arguments passing the session id of a fresh invocation (win over `session_arg`).
    pub session_args: Vec<String>,
    /// When a session id is passed.
    pub session_mode: CliSessionMode,
    /// Output fields holding the CLI's session id, in order.
    pub session_id_fields: Vec<String>,
    /// Flag that passes the system prompt text.
    pub system_prompt_arg: Option<String>,
    /// Flag that passes a system prompt file.
    pub system_prompt_file_arg: Option<String>,
    /// Config-override flag for the system prompt file.
    pub system_prompt_file_config_arg: Option<String>,
    /// Config key for the system prompt file.
    pub system_prompt_file_config_key: Option<String>,
    /// Append vs replace (informational).
    pub system_prompt_mode: SystemPromptMode,
    /// When the system prompt is sent.
    pub system_prompt_when: SystemPromptWhen,
    /// Flag that passes image paths (`@` = into the prompt as `@path`).
    pub image_arg: Option<String>,
    /// How several images are passed.
    pub image_mode: CliImageMode,
    /// One call of this backend at a time.
    pub serialize: bool,
    /// No-output watchdog profiles.
    pub watchdog: CliWatchdog,
}

impl CliBackendConfig {
    /// Resolves `[cliBackends.<id>]`: `value` (the user table, if any) laid over the preset of
    /// `id` (`claude-cli`/`claude`, `codex-cli`/`codex`), then checked. A backend without a
    /// preset needs at least `command`.
    pub fn resolve(id: &str, value: Option<&Value>) -> Result<CliBackendConfig, ConfigError> {
        let id = normalize_backend_id(id);
        let user = match value {
            Some(value) => Some(CliBackendSettings::from_value(&id, value)?),
            None => None,
        };
        let settings = match (user, preset_settings(&id)) {
            (Some(user), Some(preset)) => user.merged_over(preset),
            (Some(user), None) => user,
            (None, Some(preset)) => preset,
            (None, None) => {
                return Err(ConfigError {
                    path: format!("cliBackends.{id}"),
                    message: "no such CLI backend: configure `command` (built-in presets: \
                              claude-cli, codex-cli)"
                        .into(),
                });
            }
        };
        CliBackendConfig::from_settings(&id, settings)
    }

    /// Resolves merged `settings` for backend `id`.
    pub fn from_settings(
        id: &str,
        settings: CliBackendSettings,
    ) -> Result<CliBackendConfig, ConfigError> {
        let key = |name: &str| format!("cliBackends.{id}.{name}");
        let (command, command_args) = split_command(settings.command.as_ref(), &key("command"))?;
        // `command = [program, args…]` carries its own arguments: the preset's would double
        // them, so they apply only when neither the command nor `args` says otherwise.
        let args = match (settings.args, command_args.is_empty()) {
            (Some(args), _) => command_args.into_iter().chain(args).collect(),
            (None, false) => command_args,
            (None, true) => Vec::new(),
        };
        let output = settings.output.unwrap_or_default();
        let watchdog_settings = settings.reliability.and_then(|r| r.watchdog);
        let shorthand = settings
            .no_output_timeout_ms
            .map(|ms| WatchdogProfileSettings {
                no_output_timeout_ms: Some(ms),
                ..WatchdogProfileSettings::default()
            });
        let profile = |own: Option<WatchdogProfileSettings>,
                       defaults: WatchdogProfile,
                       name: &str|
         -> Result<WatchdogProfile, ConfigError> {
            let merged = match (own, shorthand.clone()) {
                (Some(own), Some(short)) => Some(WatchdogProfileSettings {
                    no_output_timeout_ms: own.no_output_timeout_ms.or(short.no_output_timeout_ms),
                    ..own
                }),
                (own, short) => own.or(short),
            };
            if let Some(ms) = settings.no_output_timeout_ms
                && !(ms.is_finite() && ms >= 0.0)
            {
                return Err(ConfigError {
                    path: key("noOutputTimeoutMs"),
                    message: "must be a number of milliseconds, 0 or more".into(),
                });
            }
            WatchdogProfile::resolve(
                merged.as_ref(),
                defaults,
                &key(&format!("reliability.watchdog.{name}")),
            )
        };
        let (fresh, resume) = match watchdog_settings {
            Some(w) => (w.fresh, w.resume),
            None => (None, None),
        };
        let watchdog = CliWatchdog {
            fresh: profile(fresh, WatchdogProfile::FRESH, "fresh")?,
            resume: profile(resume, WatchdogProfile::RESUME, "resume")?,
        };
        Ok(CliBackendConfig {
            id: id.to_owned(),
            command,
            args,
            resume_args: settings.resume_args.unwrap_or_default(),
            output,
            resume_output: settings.resume_output.unwrap_or(output),
            jsonl_dialect: settings.jsonl_dialect,
            input: settings.input.unwrap_or_default(),
            max_prompt_arg_chars: settings.max_prompt_arg_chars.filter(|n| *n > 0),
            env: settings.env.unwrap_or_default(),
            clear_env: settings.clear_env.unwrap_or_default(),
            model_arg: non_empty(settings.model_arg),
            model_aliases: settings.model_aliases.unwrap_or_default(),
            session_arg: non_empty(settings.session_arg),
            session_args: settings.session_args.unwrap_or_default(),
            session_mode: settings.session_mode.unwrap_or_default(),
            session_id_fields: settings.session_id_fields.unwrap_or_else(|| {
                DEFAULT_SESSION_ID_FIELDS
                    .iter()
                    .map(|s| (*s).to_owned())
                    .collect()
            }),
            system_prompt_arg: non_empty(settings.system_prompt_arg),
            system_prompt_file_arg: non_empty(settings.system_prompt_file_arg),
            system_prompt_file_config_arg: non_empty(settings.system_prompt_file_config_arg),
            system_prompt_file_config_key: non_empty(settings.system_prompt_file_config_key),
            system_prompt_mode: settings.system_prompt_mode.unwrap_or_default(),
            system_prompt_when: settings.system_prompt_when.unwrap_or_default(),
            image_arg: non_empty(settings.image_arg),
            image_mode: settings.image_mode.unwrap_or_default(),
            serialize: settings.serialize.unwrap_or(true),
            watchdog,
        })
    }

    /// Every backend of `config`: the presets, each with its user table merged in, plus every
    /// configured id. The first bad table is an error naming its key.
    pub fn all_from_config(
        config: &Config,
    ) -> Result<BTreeMap<String, CliBackendConfig>, ConfigError> {
        let mut out = BTreeMap::new();
        let mut preset_tables: BTreeMap<&'static str, &Value> = BTreeMap::new();
        for (key, value) in &config.cli_backends {
            let id = normalize_backend_id(key);
            match preset_id(&id) {
                Some(preset) => {
                    preset_tables.insert(preset, value);
                }
                None => {
                    out.insert(id.clone(), CliBackendConfig::resolve(&id, Some(value))?);
                }
            }
        }
        for id in PRESET_IDS {
            let table = preset_tables.get(id).copied();
            out.insert(id.to_owned(), CliBackendConfig::resolve(id, table)?);
        }
        Ok(out)
    }

    /// The CLI's name for `model_id` (`modelAliases`, exact then lowercase).
    pub fn normalize_model(&self, model_id: &str) -> String {
        let trimmed = model_id.trim();
        if trimmed.is_empty() {
            return String::new();
        }
        self.model_aliases
            .get(trimmed)
            .or_else(|| self.model_aliases.get(&trimmed.to_lowercase()))
            .cloned()
            .unwrap_or_else(|| trimmed.to_owned())
    }

    /// Whether the output follows Claude's stream-json rules (dialect set, or the backend is
    /// `claude-cli`).
    pub fn uses_claude_dialect(&self) -> bool {
        self.jsonl_dialect == Some(JsonlDialect::ClaudeStreamJson) || self.id == "claude-cli"
    }

    /// Whether a system prompt can be delivered at all.
    pub fn accepts_system_prompt(&self) -> bool {
        self.system_prompt_arg.is_some()
            || self.system_prompt_file_arg.is_some()
            || self.system_prompt_file_config_key.is_some()
    }
}

/// Backend ids compare trimmed and lowercase.
pub fn normalize_backend_id(id: &str) -> String {
    id.trim().to_lowercase()
}

fn non_empty(value: Option<String>) -> Option<String> {
    value.filter(|v| !v.trim().is_empty())
}

/// `command` as a program name or `[program, args…]`.
fn split_command(value: Option<&Value>, path: &str) -> Result<(String, Vec<String>), ConfigError> {
    let bad = |message: &str| ConfigError {
        path: path.to_owned(),
        message: message.to_owned(),
    };
    match value {
        None => Err(bad("is required: a program name or [program, args…]")),
        Some(Value::String(program)) if !program.trim().is_empty() => {
            Ok((program.clone(), Vec::new()))
        }
        Some(Value::Array(items)) => {
            let mut words = Vec::with_capacity(items.len());
            for item in items {
                match item {
                    Value::String(word) => words.push(word.clone()),
                    _ => return Err(bad("every element of [program, args…] must be a string")),
                }
            }
            match words.split_first() {
                Some((program, rest)) if !program.trim().is_empty() => {
                    Ok((program.clone(), rest.to_vec()))
                }
                _ => Err(bad("must name a program: [program, args…] is empty")),
            }
        }
        Some(_) => Err(bad("must be a program name or [program, args…]")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn a_command_array_carries_its_arguments() {
        let config = CliBackendConfig::resolve(
            "my-cli",
            Some(&json!({"command": ["tool", "-p", "--json"], "output": "jsonl"})),
        )
        .unwrap();
        assert_eq!(
            (config.command.as_str(), config.args.clone(), config.output),
            (
                "tool",
                vec!["-p".to_owned(), "--json".to_owned()],
                CliOutputFormat::Jsonl
            )
        );
        assert_eq!(config.resume_output, CliOutputFormat::Jsonl);
        assert!(config.serialize);
        assert_eq!(config.session_id_fields.len(), 4);
    }

    #[test]
    fn bad_commands_are_named() {
        for (value, message) in [
            (json!({}), "is required: a program name or [program, args…]"),
            (
                json!({"command": []}),
                "must name a program: [program, args…] is empty",
            ),
            (
                json!({"command": ["a", 1]}),
                "every element of [program, args…] must be a string",
            ),
            (
                json!({"command": 3}),
                "must be a program name or [program, args…]",
            ),
        ] {
            let err = CliBackendConfig::resolve("x", Some(&value)).err();
            assert_eq!(
                err,
                Some(ConfigError {
                    path: "cliBackends.x.command".into(),
                    message: message.into()
                })
            );
        }
        assert_eq!(
            CliBackendConfig::resolve("nope", None)
                .err()
                .map(|e| e.path),
            Some("cliBackends.nope".to_owned())
        );
    }

    #[test]
    fn the_shorthand_timeout_applies_to_both_profiles() {
        let config = CliBackendConfig::resolve(
            "x",
            Some(&json!({"command": "x", "noOutputTimeoutMs": 2500})),
        )
        .unwrap();
        assert_eq!(config.watchdog.fresh.no_output_timeout_ms, Some(2500));
        assert_eq!(config.watchdog.resume.no_output_timeout_ms, Some(2500));
        assert_eq!(
            CliBackendConfig::resolve("x", Some(&json!({"command": "x", "noOutputTimeoutMs": -1})))
                .err()
                .map(|e| e.path),
            Some("cliBackends.x.noOutputTimeoutMs".to_owned())
        );
    }

    #[test]
    fn model_aliases_match_exact_then_lowercase() {
        let config = CliBackendConfig::resolve(
            "x",
            Some(&json!({"command": "x", "modelAliases": {"big": "opus"}})),
        )
        .unwrap();
        assert_eq!(config.normalize_model(" BIG "), "opus");
        assert_eq!(config.normalize_model("other"), "other");
    }
}
