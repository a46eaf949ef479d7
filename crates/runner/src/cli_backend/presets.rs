//! The built-in backends (reference §22): Claude Code and the Codex CLI. A user table under
//! `[cliBackends.claude-cli]` (or `claude`) / `[cliBackends.codex-cli]` (or `codex`) is laid
//! over them, so a user only writes what differs (often just `command`).

use serde_json::json;

use super::settings::{
    CliBackendSettings, CliImageMode, CliInputMode, CliOutputFormat, CliSessionMode, JsonlDialect,
    SystemPromptMode, SystemPromptWhen,
};

/// Canonical ids of the built-in backends.
pub const PRESET_IDS: [&str; 2] = [CLAUDE_CLI, CODEX_CLI];

/// Claude Code (`claude -p`).
pub const CLAUDE_CLI: &str = "claude-cli";

/// The Codex CLI (`codex exec`).
pub const CODEX_CLI: &str = "codex-cli";

/// Model used with `claude-cli` when none is chosen.
pub const CLAUDE_CLI_DEFAULT_MODEL: &str = "opus";

/// Model used with `codex-cli` when none is chosen.
pub const CODEX_CLI_DEFAULT_MODEL: &str = "gpt-5.4";

/// Environment variables that would steer Claude Code to another provider, endpoint or token
/// source than its own login.
const CLAUDE_CLI_CLEAR_ENV: [&str; 22] = [
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_API_KEY_OLD",
    "ANTHROPIC_API_TOKEN",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_CUSTOM_HEADERS",
    "ANTHROPIC_OAUTH_TOKEN",
    "ANTHROPIC_UNIX_SOCKET",
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_CODE_API_KEY_FILE_DESCRIPTOR",
    "CLAUDE_CODE_ENTRYPOINT",
    "CLAUDE_CODE_OAUTH_REFRESH_TOKEN",
    "CLAUDE_CODE_OAUTH_SCOPES",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN_FILE_DESCRIPTOR",
    "CLAUDE_CODE_PLUGIN_CACHE_DIR",
    "CLAUDE_CODE_PLUGIN_SEED_DIR",
    "CLAUDE_CODE_REMOTE",
    "CLAUDE_CODE_USE_COWORK_PLUGINS",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_FOUNDRY",
    "CLAUDE_CODE_USE_VERTEX",
];

/// clawloop/Anthropic model ids → the names `claude --model` takes.
const CLAUDE_CLI_MODEL_ALIASES: [(&str, &str); 16] = [
    ("opus", "opus"),
    ("sonnet", "sonnet"),
    ("haiku", "haiku"),
    ("opus-4.6", "opus"),
    ("opus-4.5", "opus"),
    ("sonnet-4.6", "sonnet"),
    ("sonnet-4.5", "sonnet"),
    ("claude-opus-4-6", "opus"),
    ("claude-opus-4-5", "opus"),
    ("claude-opus-4-1", "opus"),
    ("claude-opus-4", "opus"),
    ("claude-sonnet-4-6", "sonnet"),
    ("claude-sonnet-4-5", "sonnet"),
    ("claude-sonnet-4", "sonnet"),
    ("claude-haiku-4-5", "haiku"),
    ("claude-3-5-haiku", "haiku"),
];

const CLAUDE_ARGS: [&str; 9] = [
    "-p",
    "--output-format",
    "stream-json",
    "--include-partial-messages",
    "--verbose",
    "--setting-sources",
    "user",
    "--permission-mode",
    "bypassPermissions",
];

/// The canonical preset id for `id` (already normalized), accepting the short names.
pub fn preset_id(id: &str) -> Option<&'static str> {
    match id {
        "claude-cli" | "claude" => Some(CLAUDE_CLI),
        "codex-cli" | "codex" => Some(CODEX_CLI),
        _ => None,
    }
}

/// The preset of backend `id` (already normalized), if it has one.
pub fn preset_settings(id: &str) -> Option<CliBackendSettings> {
    match preset_id(id)? {
        CLAUDE_CLI => Some(claude()),
        _ => Some(codex()),
    }
}

fn strings(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

fn claude() -> CliBackendSettings {
    let mut resume_args = strings(&CLAUDE_ARGS);
    resume_args.extend(strings(&["--resume", "{sessionId}"]));
    CliBackendSettings {
        command: Some(json!("claude")),
        args: Some(strings(&CLAUDE_ARGS)),
        resume_args: Some(resume_args),
        output: Some(CliOutputFormat::Jsonl),
        jsonl_dialect: Some(JsonlDialect::ClaudeStreamJson),
        input: Some(CliInputMode::Stdin),
        model_arg: Some("--model".into()),
        model_aliases: Some(
            CLAUDE_CLI_MODEL_ALIASES
                .iter()
                .map(|(from, to)| ((*from).to_owned(), (*to).to_owned()))
                .collect(),
        ),
        session_arg: Some("--session-id".into()),
        session_mode: Some(CliSessionMode::Always),
        system_prompt_arg: Some("--append-system-prompt".into()),
        system_prompt_mode: Some(SystemPromptMode::Append),
        system_prompt_when: Some(SystemPromptWhen::First),
        clear_env: Some(strings(&CLAUDE_CLI_CLEAR_ENV)),
        serialize: Some(true),
        ..CliBackendSettings::default()
    }
}

fn codex() -> CliBackendSettings {
    CliBackendSettings {
        command: Some(json!("codex")),
        args: Some(strings(&[
            "exec",
            "--json",
            "--color",
            "never",
            "--sandbox",
            "workspace-write",
            "--skip-git-repo-check",
        ])),
        resume_args: Some(strings(&[
            "exec",
            "resume",
            "{sessionId}",
            "--dangerously-bypass-approvals-and-sandbox",
        ])),
        output: Some(CliOutputFormat::Jsonl),
        resume_output: Some(CliOutputFormat::Text),
        input: Some(CliInputMode::Arg),
        model_arg: Some("--model".into()),
        session_id_fields: Some(strings(&["thread_id"])),
        session_mode: Some(CliSessionMode::Existing),
        system_prompt_file_config_arg: Some("-c".into()),
        system_prompt_file_config_key: Some("model_instructions_file".into()),
        system_prompt_when: Some(SystemPromptWhen::First),
        image_arg: Some("--image".into()),
        image_mode: Some(CliImageMode::Repeat),
        serialize: Some(true),
        ..CliBackendSettings::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli_backend::CliBackendConfig;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn a_user_table_is_laid_over_the_claude_preset() {
        let config = CliBackendConfig::resolve(
            "Claude",
            Some(&json!({"command": "/opt/claude", "env": {"X": "1"}})),
        )
        .unwrap();
        assert_eq!(config.id, "claude");
        assert_eq!(config.command, "/opt/claude");
        assert_eq!(config.args, strings(&CLAUDE_ARGS));
        assert_eq!(
            config.resume_args.last().map(String::as_str),
            Some("{sessionId}")
        );
        assert_eq!(config.output, CliOutputFormat::Jsonl);
        assert_eq!(config.input, CliInputMode::Stdin);
        assert!(config.uses_claude_dialect());
        assert_eq!(config.normalize_model("claude-opus-4-6"), "opus");
        assert!(config.clear_env.iter().any(|v| v == "ANTHROPIC_API_KEY"));
        assert_eq!(config.env.get("X").map(String::as_str), Some("1"));
    }

    #[test]
    fn the_codex_preset_resumes_as_text() {
        let config = CliBackendConfig::resolve("codex-cli", None).unwrap();
        assert_eq!(
            (
                config.command.as_str(),
                config.output,
                config.resume_output,
                config.session_mode,
                config.session_id_fields.clone(),
                config.system_prompt_file_config_key.as_deref(),
            ),
            (
                "codex",
                CliOutputFormat::Jsonl,
                CliOutputFormat::Text,
                CliSessionMode::Existing,
                vec!["thread_id".to_owned()],
                Some("model_instructions_file"),
            )
        );
        assert!(!config.uses_claude_dialect());
    }

    #[test]
    fn all_backends_include_presets_and_configured_ones() {
        let config = crate::config::Config::from_value(json!({
            "cliBackends": {
                "codex": {"command": "/usr/local/bin/codex"},
                "my-cli": {"command": ["my", "--json"]}
            }
        }))
        .unwrap();
        let all = CliBackendConfig::all_from_config(&config).unwrap();
        assert_eq!(
            all.keys().cloned().collect::<Vec<_>>(),
            vec!["claude-cli", "codex-cli", "my-cli"]
        );
        assert_eq!(all["codex-cli"].command, "/usr/local/bin/codex");
        assert_eq!(all["my-cli"].args, vec!["--json".to_owned()]);
    }
}
