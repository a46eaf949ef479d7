//! `clawloop run` sandboxes the bash tool by default (workspace-write): a write outside the
//! workspace is refused and the model reads the sandbox's line; `--sandbox off` runs the
//! command unconfined; a bad `--sandbox` value is a usage error.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use clawloop_testkit::{ProviderRequest, ProviderRuleServer, ScriptedReply, ScriptedToolCall};
use serde_json::json;

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// Runs the prompt's command once, then says what the tool result held.
fn rule(request: &ProviderRequest) -> ScriptedReply {
    let prompt = request.last_user_text().unwrap_or_default();
    let body = String::from_utf8_lossy(&request.request.body).into_owned();
    if !body.contains("\"role\":\"tool\"") {
        let command = prompt.trim_start_matches("run: ").to_owned();
        return ScriptedReply {
            tool_calls: Some(vec![ScriptedToolCall {
                name: "bash".to_owned(),
                arguments: Some(json!({ "command": command })),
                ..ScriptedToolCall::default()
            }]),
            ..ScriptedReply::default()
        };
    }
    let noted = body.contains("[clawloop sandbox: ");
    let mode = if body.contains("mode=[workspace-write]") {
        "workspace-write"
    } else if body.contains("mode=[]") {
        "none"
    } else {
        "unknown"
    };
    ScriptedReply {
        text: Some(format!("noted={noted} mode={mode}")),
        ..ScriptedReply::default()
    }
}

fn run(dir: &Path, server: &ProviderRuleServer, args: &[&str]) -> std::io::Result<Output> {
    run_keyed(dir, server, "sk-test", &[], args)
}

/// [`run`] with provider `acme`'s `apiKey` written as `api_key` and `env` set for clawloop.
fn run_keyed(
    dir: &Path,
    server: &ProviderRuleServer,
    api_key: &str,
    env: &[(&str, &str)],
    args: &[&str],
) -> std::io::Result<Output> {
    let home = dir.join("home");
    std::fs::create_dir_all(dir.join("workspace"))?;
    std::fs::create_dir_all(&home)?;
    std::fs::write(
        home.join("config.toml"),
        format!(
            "[agents.defaults.model]\nprimary = \"acme/m1\"\n\n[models.providers.acme]\n\
             api = \"openai-completions\"\nbaseUrl = \"{}/v1\"\napiKey = \"{api_key}\"\n\
             models = [{{ id = \"m1\", contextWindow = 128000, maxTokens = 4096 }}]\n",
            server.provider_url("acme")
        ),
    )?;
    Command::new(env!("CARGO_BIN_EXE_clawloop"))
        .arg("run")
        .arg("--workspace")
        .arg(dir.join("workspace"))
        .args(args)
        .env("CLAWLOOP_HOME", &home)
        .env("NO_COLOR", "1")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_default_sandbox_refuses_a_write_outside_and_tells_the_model() -> TestResult {
    let server = ProviderRuleServer::start(rule).await?;
    let dir = tempfile::tempdir()?;
    let marker = format!("/etc/clawloop-cli-sandbox-{}", std::process::id());
    let prompt = format!("run: echo mode=[$CLAWLOOP_SANDBOX]; touch {marker}");
    let dir_path = dir.path().to_owned();
    let out = tokio::task::spawn_blocking(move || run(&dir_path, &server, &[&prompt])).await??;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("noted=true mode=workspace-write"),
        "{stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!Path::new(&marker).exists());
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sandbox_off_runs_the_command_unconfined() -> TestResult {
    let server = ProviderRuleServer::start(rule).await?;
    let dir = tempfile::tempdir()?;
    let dir_path = dir.path().to_owned();
    let out = tokio::task::spawn_blocking(move || {
        run(
            &dir_path,
            &server,
            &["--sandbox", "off", "run: echo mode=[$CLAWLOOP_SANDBOX]"],
        )
    })
    .await??;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("noted=false mode=none"), "{stdout}");
    Ok(())
}

#[tokio::test]
async fn a_bad_sandbox_mode_is_a_usage_error() -> TestResult {
    let server = ProviderRuleServer::start(rule).await?;
    let dir = tempfile::tempdir()?;
    let out = run(dir.path(), &server, &["--sandbox", "strict", "hi"])?;
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .contains("unknown sandbox mode `strict` (expected off, read-only or workspace-write)"),
        "{stderr}"
    );
    Ok(())
}

/// Answers a `run: …` prompt with a bash call, then says whether the tool result showed the
/// key's value.
fn key_rule(request: &ProviderRequest) -> ScriptedReply {
    let body = String::from_utf8_lossy(&request.request.body).into_owned();
    if !body.contains("\"role\":\"tool\"") {
        return rule(request);
    }
    let verdict = if body.contains("cred=[]") {
        "hidden"
    } else if body.contains("cred=[sk-unguessable-7731]") {
        "leaked"
    } else {
        "unknown"
    };
    ScriptedReply {
        text: Some(format!("key {verdict}")),
        ..ScriptedReply::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_configured_key_variable_never_reaches_the_command_whatever_its_name() -> TestResult {
    let server = ProviderRuleServer::start(key_rule).await?;
    let dir = tempfile::tempdir()?;
    let dir_path = dir.path().to_owned();
    // No KEY, SECRET or TOKEN in the name: only the config says it holds a key.
    let out = tokio::task::spawn_blocking(move || {
        run_keyed(
            &dir_path,
            &server,
            "MY_LLM_CRED",
            &[("MY_LLM_CRED", "sk-unguessable-7731")],
            &["run: echo cred=[$MY_LLM_CRED]"],
        )
    })
    .await??;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("key hidden"), "{stdout}");
    Ok(())
}
