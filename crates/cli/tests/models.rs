//! `clawloop models list` as a child process: the built-in catalog and the config's models,
//! their capped context windows, and whether a key is at hand (never the key itself).

use std::path::Path;
use std::process::{Command, Output, Stdio};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

type TestResult = Result<(), Box<dyn std::error::Error>>;

const CONFIG: &str = r#"[agents.defaults]
contextTokens = 100000

[agents.defaults.model]
primary = "acme/big"
fallbacks = ["openai/gpt-4o"]

[models.providers.acme]
api = "openai-completions"
baseUrl = "http://127.0.0.1:9/v1"
apiKey = "CLAWLOOP_TEST_ACME_KEY"
models = [
  { id = "big", contextWindow = 300000, maxTokens = 8192, reasoning = true },
  { id = "small", contextWindow = 32000, maxTokens = 2048 },
]
"#;

/// Runs `clawloop models list <args>` over a home with [`CONFIG`], with only the given
/// environment keys set.
fn models(home: &Path, args: &[&str], env: &[(&str, &str)]) -> std::io::Result<Output> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_clawloop"));
    command
        .args(["models", "list"])
        .args(args)
        .env_clear()
        .env("CLAWLOOP_HOME", home)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null());
    for (name, value) in env {
        command.env(name, value);
    }
    command.output()
}

fn home_with_config() -> std::io::Result<tempfile::TempDir> {
    let dir = tempfile::tempdir()?;
    std::fs::write(dir.path().join("config.toml"), CONFIG)?;
    Ok(dir)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn acme_rows(out: &Output) -> Result<Vec<Value>, Box<dyn std::error::Error>> {
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout)?;
    Ok(rows
        .into_iter()
        .filter(|row| row["provider"] == json!("acme"))
        .collect())
}

#[test]
fn a_configured_model_lists_with_its_capped_window_and_key_state() -> TestResult {
    let home = home_with_config()?;
    let without = acme_rows(&models(home.path(), &["--json"], &[])?)?;
    assert_eq!(
        without,
        vec![
            json!({"provider": "acme", "model": "big", "api": "openai-completions",
                   "contextWindow": 100000, "maxTokens": 8192, "reasoning": true,
                   "key": "no", "role": "primary"}),
            json!({"provider": "acme", "model": "small", "api": "openai-completions",
                   "contextWindow": 32000, "maxTokens": 2048, "reasoning": false,
                   "key": "no", "role": null}),
        ]
    );
    let with = acme_rows(&models(
        home.path(),
        &["--json"],
        &[("CLAWLOOP_TEST_ACME_KEY", "sk-secret-value")],
    )?)?;
    let keys: Vec<&Value> = with.iter().map(|row| &row["key"]).collect();
    assert_eq!(keys, [&json!("yes"), &json!("yes")]);

    // The table: one row per model, the key state, the role, never the key.
    let out = models(
        home.path(),
        &["--provider", "acme"],
        &[("CLAWLOOP_TEST_ACME_KEY", "sk-secret-value")],
    )?;
    let table = text(&out.stdout);
    assert!(!table.contains("sk-secret-value"));
    let rows: Vec<Vec<&str>> = table
        .lines()
        .map(|line| {
            line.split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect()
        })
        .collect();
    assert_eq!(
        rows,
        vec![
            vec!["MODEL", "API", "CONTEXT", "MAX OUT", "REASONING", "KEY"],
            vec![
                "acme/big",
                "openai-completions",
                "100000",
                "8192",
                "yes",
                "yes",
                "primary"
            ],
            vec![
                "acme/small",
                "openai-completions",
                "32000",
                "2048",
                "no",
                "yes"
            ],
        ]
    );
    Ok(())
}

#[test]
fn builtin_models_take_their_key_from_the_provider_env_var() -> TestResult {
    let home = home_with_config()?;
    let out = models(
        home.path(),
        &["--json", "--provider", "openai"],
        &[("OPENAI_API_KEY", "sk-openai")],
    )?;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout)?;
    assert!(!rows.is_empty());
    assert!(
        rows.iter()
            .all(|row| row["provider"] == json!("openai") && row["key"] == json!("yes"))
    );
    let fallback: Vec<&Value> = rows
        .iter()
        .filter(|row| row["role"] == json!("fallback 1"))
        .collect();
    assert_eq!(fallback.len(), 1);
    assert_eq!(fallback[0]["model"], json!("gpt-4o"));
    // Windows are capped by agents.defaults.contextTokens.
    assert!(
        rows.iter()
            .all(|row| row["contextWindow"].as_u64() <= Some(100_000))
    );

    let unset = models(home.path(), &["--json", "--provider", "openai"], &[])?;
    let rows: Vec<Value> = serde_json::from_slice(&unset.stdout)?;
    assert!(rows.iter().all(|row| row["key"] == json!("no")));
    Ok(())
}

#[test]
fn an_unknown_provider_is_a_usage_error_naming_it() -> TestResult {
    let home = home_with_config()?;
    let out = models(home.path(), &["--provider", "nope"], &[])?;
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("clawloop: --provider `nope`: no such provider; known: "),
        "{stderr}"
    );
    assert!(stderr.contains("acme"), "{stderr}");
    Ok(())
}

#[test]
fn an_auth_profile_counts_as_a_key() -> TestResult {
    let home = home_with_config()?;
    let agent_dir = home.path().join("agents").join("main").join("agent");
    std::fs::create_dir_all(&agent_dir)?;
    std::fs::write(
        agent_dir.join("auth-profiles.json"),
        serde_json::to_string(&json!({
            "version": 1,
            "profiles": {"mistral:work": {"type": "api_key", "provider": "mistral", "key": "secret-profile-key"}}
        }))?,
    )?;
    let out = models(home.path(), &["--json", "--provider", "mistral"], &[])?;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert!(!text(&out.stdout).contains("secret-profile-key"));
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout)?;
    assert!(!rows.is_empty());
    assert!(
        rows.iter().all(|row| row["key"] == json!("yes")),
        "{rows:?}"
    );
    // Another agent has no such profile.
    let other = models(
        home.path(),
        &["--json", "--provider", "mistral", "--agent", "ops"],
        &[],
    )?;
    let rows: Vec<Value> = serde_json::from_slice(&other.stdout)?;
    assert!(rows.iter().all(|row| row["key"] == json!("no")), "{rows:?}");
    Ok(())
}
