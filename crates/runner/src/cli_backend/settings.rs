//! `[cliBackends.<id>]` as written: every key optional, so a user table can be laid over a
//! preset key by key (OpenClaw's `mergeBackendConfig`) before defaults are filled in.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::config::ConfigError;

/// How the CLI's stdout is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CliOutputFormat {
    /// One JSON object (or JSON objects mixed with log lines); OpenClaw's default.
    #[default]
    Json,
    /// One JSON object per line (Claude's `stream-json`, `codex exec --json`).
    Jsonl,
    /// Plain text: the trimmed stdout is the answer.
    Text,
}

/// How the prompt reaches the CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CliInputMode {
    /// As the last argument (or in place of a `{prompt}` argument).
    #[default]
    Arg,
    /// On stdin, which is then closed.
    Stdin,
}

/// When a CLI session id is passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CliSessionMode {
    /// Always: the known id, or a fresh UUID for a new session.
    #[default]
    Always,
    /// Only an id the CLI reported before.
    Existing,
    /// Never.
    None,
}

/// When the system prompt is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SystemPromptWhen {
    /// Only when a new CLI session starts (the CLI keeps it afterwards).
    #[default]
    First,
    /// On every call.
    Always,
    /// Never.
    Never,
}

/// Whether the CLI appends the system prompt to its own or replaces it (informational: the
/// flag named in the config decides what the CLI does).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SystemPromptMode {
    /// Appended to the CLI's own prompt.
    #[default]
    Append,
    /// Replaces the CLI's own prompt.
    Replace,
}

/// How several image paths are passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CliImageMode {
    /// `--image a --image b`.
    #[default]
    Repeat,
    /// `--image a,b`.
    List,
}

/// A provider-specific JSONL event dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum JsonlDialect {
    /// Claude Code's `stream-json`: a `{"type":"result"}` line ends the answer, text deltas come
    /// as `stream_event` / `content_block_delta` / `text_delta`, results may be wrapped.
    ClaudeStreamJson,
    /// Gemini's stream JSON, read with the generic JSONL rules.
    GeminiStreamJson,
}

/// One no-output watchdog profile as written (`reliability.watchdog.fresh|resume`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WatchdogProfileSettings {
    /// A fixed no-output timeout in ms (at least 1000 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_output_timeout_ms: Option<f64>,
    /// Fraction of the overall timeout used when no fixed timeout is set (0.05–0.95).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_output_timeout_ratio: Option<f64>,
    /// Lower bound of the computed timeout, in ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_ms: Option<f64>,
    /// Upper bound of the computed timeout, in ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_ms: Option<f64>,
}

impl WatchdogProfileSettings {
    fn merged_over(self, base: WatchdogProfileSettings) -> WatchdogProfileSettings {
        WatchdogProfileSettings {
            no_output_timeout_ms: self.no_output_timeout_ms.or(base.no_output_timeout_ms),
            no_output_timeout_ratio: self
                .no_output_timeout_ratio
                .or(base.no_output_timeout_ratio),
            min_ms: self.min_ms.or(base.min_ms),
            max_ms: self.max_ms.or(base.max_ms),
        }
    }
}

/// `reliability.watchdog` as written.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WatchdogSettings {
    /// Runs that start a new CLI session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fresh: Option<WatchdogProfileSettings>,
    /// Runs that resume a CLI session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume: Option<WatchdogProfileSettings>,
}

/// `reliability` as written.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReliabilitySettings {
    /// The no-output watchdog.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watchdog: Option<WatchdogSettings>,
}

/// `[cliBackends.<id>]` as written (OpenClaw's `CliBackendConfig` keys). Every key is optional
/// so presets and user tables can be merged; [`super::CliBackendConfig`] is the resolved form.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CliBackendSettings {
    /// The program, or `[program, args…]` (SPEC §2's form). Kept as written and checked when
    /// resolved, so the error can say which shapes are accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Value>,
    /// Arguments of every fresh invocation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
    /// Arguments of a resumed invocation (`{sessionId}` is replaced); replaces `args`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume_args: Option<Vec<String>>,
    /// Output format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<CliOutputFormat>,
    /// Output format of a resumed invocation (default: `output`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume_output: Option<CliOutputFormat>,
    /// JSONL dialect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jsonl_dialect: Option<JsonlDialect>,
    /// Prompt input mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<CliInputMode>,
    /// In `arg` mode, a longer prompt goes to stdin instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_prompt_arg_chars: Option<usize>,
    /// Extra environment variables.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<BTreeMap<String, String>>,
    /// Environment variables removed before launch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clear_env: Option<Vec<String>>,
    /// Flag that passes the model id (e.g. `--model`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_arg: Option<String>,
    /// clawloop model id → CLI model id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_aliases: Option<BTreeMap<String, String>>,
    /// Flag that passes the session id of a fresh invocation (e.g. `--session-id`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_arg: Option<String>,
    /// Arguments that pass the session id (`{sessionId}` is replaced); win over `sessionArg`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_args: Option<Vec<String>>,
    /// When a session id is passed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_mode: Option<CliSessionMode>,
    /// Output fields holding the CLI's session id, in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id_fields: Option<Vec<String>>,
    /// Flag that passes the system prompt text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt_arg: Option<String>,
    /// Flag that passes the path of a file holding the system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt_file_arg: Option<String>,
    /// Config-override flag for the system prompt file (default `-c`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt_file_config_arg: Option<String>,
    /// Config key for the system prompt file (`-c <key>="<path>"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt_file_config_key: Option<String>,
    /// Append vs replace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt_mode: Option<SystemPromptMode>,
    /// When the system prompt is sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt_when: Option<SystemPromptWhen>,
    /// Flag that passes an image path (`@` = paths go into the prompt as `@path`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_arg: Option<String>,
    /// How several images are passed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_mode: Option<CliImageMode>,
    /// Run one call of this backend at a time (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serialize: Option<bool>,
    /// Shorthand for a fixed no-output timeout of fresh and resumed runs, in ms (clawloop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_output_timeout_ms: Option<f64>,
    /// Watchdog tuning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reliability: Option<ReliabilitySettings>,
    /// Keys this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl CliBackendSettings {
    /// Reads `[cliBackends.<id>]`; errors name the key under `cliBackends.<id>`.
    pub fn from_value(id: &str, value: &Value) -> Result<CliBackendSettings, ConfigError> {
        serde_path_to_error::deserialize(value).map_err(|err| {
            let inner = err.path().to_string();
            let path = if inner == "." || inner.is_empty() {
                format!("cliBackends.{id}")
            } else {
                format!("cliBackends.{id}.{inner}")
            };
            ConfigError {
                path,
                message: err.inner().to_string(),
            }
        })
    }

    /// `self` laid over `base`: a key set here wins; `env` and `modelAliases` merge key by
    /// key, `clearEnv` is the union, watchdog profiles merge field by field.
    pub fn merged_over(self, base: CliBackendSettings) -> CliBackendSettings {
        let mut extra = base.extra;
        extra.extend(self.extra);
        CliBackendSettings {
            command: self.command.or(base.command),
            args: self.args.or(base.args),
            resume_args: self.resume_args.or(base.resume_args),
            output: self.output.or(base.output),
            resume_output: self.resume_output.or(base.resume_output),
            jsonl_dialect: self.jsonl_dialect.or(base.jsonl_dialect),
            input: self.input.or(base.input),
            max_prompt_arg_chars: self.max_prompt_arg_chars.or(base.max_prompt_arg_chars),
            env: merge_maps(base.env, self.env),
            clear_env: union(base.clear_env, self.clear_env),
            model_arg: self.model_arg.or(base.model_arg),
            model_aliases: merge_maps(base.model_aliases, self.model_aliases),
            session_arg: self.session_arg.or(base.session_arg),
            session_args: self.session_args.or(base.session_args),
            session_mode: self.session_mode.or(base.session_mode),
            session_id_fields: self.session_id_fields.or(base.session_id_fields),
            system_prompt_arg: self.system_prompt_arg.or(base.system_prompt_arg),
            system_prompt_file_arg: self.system_prompt_file_arg.or(base.system_prompt_file_arg),
            system_prompt_file_config_arg: self
                .system_prompt_file_config_arg
                .or(base.system_prompt_file_config_arg),
            system_prompt_file_config_key: self
                .system_prompt_file_config_key
                .or(base.system_prompt_file_config_key),
            system_prompt_mode: self.system_prompt_mode.or(base.system_prompt_mode),
            system_prompt_when: self.system_prompt_when.or(base.system_prompt_when),
            image_arg: self.image_arg.or(base.image_arg),
            image_mode: self.image_mode.or(base.image_mode),
            serialize: self.serialize.or(base.serialize),
            no_output_timeout_ms: self.no_output_timeout_ms.or(base.no_output_timeout_ms),
            reliability: merge_reliability(base.reliability, self.reliability),
            extra,
        }
    }
}

fn merge_maps(
    base: Option<BTreeMap<String, String>>,
    over: Option<BTreeMap<String, String>>,
) -> Option<BTreeMap<String, String>> {
    match (base, over) {
        (Some(mut base), Some(over)) => {
            base.extend(over);
            Some(base)
        }
        (base, over) => over.or(base),
    }
}

fn union(base: Option<Vec<String>>, over: Option<Vec<String>>) -> Option<Vec<String>> {
    match (base, over) {
        (Some(mut base), Some(over)) => {
            for name in over {
                if !base.contains(&name) {
                    base.push(name);
                }
            }
            Some(base)
        }
        (base, over) => over.or(base),
    }
}

fn merge_reliability(
    base: Option<ReliabilitySettings>,
    over: Option<ReliabilitySettings>,
) -> Option<ReliabilitySettings> {
    let (base, over) = match (base, over) {
        (None, None) => return None,
        (base, over) => (base.unwrap_or_default(), over.unwrap_or_default()),
    };
    let base_watchdog = base.watchdog.unwrap_or_default();
    let over_watchdog = over.watchdog.unwrap_or_default();
    let profile =
        |base: Option<WatchdogProfileSettings>, over: Option<WatchdogProfileSettings>| match (
            base, over,
        ) {
            (Some(base), Some(over)) => Some(over.merged_over(base)),
            (base, over) => over.or(base),
        };
    Some(ReliabilitySettings {
        watchdog: Some(WatchdogSettings {
            fresh: profile(base_watchdog.fresh, over_watchdog.fresh),
            resume: profile(base_watchdog.resume, over_watchdog.resume),
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn a_bad_key_is_named_with_its_backend() {
        let err = CliBackendSettings::from_value("my-cli", &json!({"output": "xml"}))
            .err()
            .map(|e| e.path);
        assert_eq!(err.as_deref(), Some("cliBackends.my-cli.output"));
        let err = CliBackendSettings::from_value(
            "x",
            &json!({"reliability": {"watchdog": {"fresh": {"minMs": "soon"}}}}),
        )
        .err()
        .map(|e| e.path);
        assert_eq!(
            err.as_deref(),
            Some("cliBackends.x.reliability.watchdog.fresh.minMs")
        );
    }

    #[test]
    fn user_keys_win_and_maps_merge() {
        let preset = CliBackendSettings::from_value(
            "p",
            &json!({
                "command": "claude", "args": ["-p"], "env": {"A": "1", "B": "2"},
                "clearEnv": ["X"], "modelAliases": {"opus": "opus"},
                "reliability": {"watchdog": {"fresh": {"minMs": 5, "maxMs": 9}}}
            }),
        )
        .unwrap();
        let user = CliBackendSettings::from_value(
            "p",
            &json!({
                "args": ["--json"], "env": {"B": "3"}, "clearEnv": ["Y", "X"],
                "reliability": {"watchdog": {"fresh": {"maxMs": 7}}}, "future": true
            }),
        )
        .unwrap();
        let merged = user.merged_over(preset);
        assert_eq!(merged.command, Some(json!("claude")));
        assert_eq!(merged.args, Some(vec!["--json".to_owned()]));
        assert_eq!(
            merged.env,
            Some(BTreeMap::from([
                ("A".to_owned(), "1".to_owned()),
                ("B".to_owned(), "3".to_owned())
            ]))
        );
        assert_eq!(merged.clear_env, Some(vec!["X".to_owned(), "Y".to_owned()]));
        assert_eq!(
            merged
                .reliability
                .and_then(|r| r.watchdog)
                .and_then(|w| w.fresh),
            Some(WatchdogProfileSettings {
                min_ms: Some(5.0),
                max_ms: Some(7.0),
                ..WatchdogProfileSettings::default()
            })
        );
        assert_eq!(merged.extra.get("future"), Some(&json!(true)));
    }
}
