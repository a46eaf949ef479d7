//! `TurnEnv::builder` through the public API: the SPEC §2 layout over a real home, its
//! defaults, every override reaching the turn, and the errors that name what was wrong.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::sync::Arc;

use clawloop_core::clock::ManualClock;
use clawloop_core::tool::{BoxFuture, Tool, ToolContext, ToolError, ToolResult, ToolUpdate};
use clawloop_runner::config::Config;
use clawloop_runner::turn::{
    AgentRunLoopResult, TurnEnv, TurnEnvError, TurnIo, TurnRequest, run_agent_turn_with_fallback,
};
use clawloop_session::SessionStore;
use clawloop_testkit::{ProviderScriptServer, ScriptedExchange};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const NOW: u64 = 1_700_000_000_000;

struct Stamp {
    schema: Value,
}

impl Tool for Stamp {
    fn name(&self) -> &str {
        "stamp"
    }
    fn label(&self) -> &str {
        "Stamp"
    }
    fn description(&self) -> &str {
        "Stamps a text."
    }
    fn parameters(&self) -> &Value {
        &self.schema
    }
    fn execute<'a>(
        &'a self,
        _id: &'a str,
        args: Value,
        _ctx: &'a ToolContext,
        _cancel: CancellationToken,
        _on_update: ToolUpdate,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
        Box::pin(async move { Ok(ToolResult::text(format!("stamped {}", args["text"]))) })
    }
}

fn stamp() -> Arc<dyn Tool> {
    Arc::new(Stamp {
        schema: json!({"type": "object", "properties": {"text": {"type": "string"}}}),
    })
}

fn exchange(value: Value) -> ScriptedExchange {
    serde_json::from_value(value).unwrap()
}

/// A config with provider `acme` at the server; `api_key` is the provider's configured key.
fn config(server: &ProviderScriptServer, api_key: Option<&str>) -> Config {
    let mut acme = json!({
        "api": "openai-completions",
        "baseUrl": format!("{}/v1", server.provider_url("acme")),
        "models": [{"id": "m1", "contextWindow": 128000, "maxTokens": 4096}],
    });
    if let Some(key) = api_key {
        acme["apiKey"] = json!(key);
    }
    Config::from_value(json!({
        "agents": {"defaults": {"model": {"primary": "acme/m1"}}},
        "models": {"providers": {"acme": acme}},
    }))
    .unwrap()
}

fn reply_text(result: &AgentRunLoopResult) -> String {
    match result {
        AgentRunLoopResult::Success(success) => success.run_result.reply_text(),
        AgentRunLoopResult::Final { payload, .. } => panic!("the turn failed: {payload:?}"),
    }
}

fn names(env: &TurnEnv) -> Vec<String> {
    env.tools.iter().map(|t| t.name().to_owned()).collect()
}

#[tokio::test]
async fn defaults_follow_the_spec_layout_and_a_turn_uses_it() {
    let server = ProviderScriptServer::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let workspace = dir.path().join("work/space");
    let env = TurnEnv::builder(&home, &workspace)
        .config(config(&server, None))
        .clock(Arc::new(ManualClock::new(NOW)))
        .build()
        .unwrap();

    assert_eq!(
        (
            env.agent_id.as_str(),
            env.agent_dir.as_path(),
            env.home_dir.as_deref(),
            env.workspace_dir.as_path(),
            env.timezone.as_str(),
        ),
        (
            "main",
            home.join("agents/main/agent").as_path(),
            Some(home.as_path()),
            workspace.as_path(),
            "UTC",
        )
    );
    assert_eq!(
        names(&env),
        vec!["read", "write", "edit", "bash", "grep", "find", "ls"]
    );
    assert!(workspace.is_dir(), "the workspace is created");

    // The auth profile in the agent dir is the key the turn sends.
    std::fs::write(
        env.agent_dir.join("auth-profiles.json"),
        json!({"version": 1, "profiles": {
            "acme:main": {"type": "api_key", "provider": "acme", "key": "sk-from-profile"}}})
        .to_string(),
    )
    .unwrap();
    server.begin_turn(vec![exchange(json!({
        "expectRequest": {"apiKey": "sk-from-profile", "toolNamesInclude": ["read", "ls"]},
        "reply": {"text": "Hi."}
    }))]);
    let request = TurnRequest {
        session_key: "chat:1".to_owned(),
        prompt: "Hello".to_owned(),
        ..TurnRequest::default()
    };
    let result = run_agent_turn_with_fallback(&env, request, TurnIo::default()).await;
    assert_eq!(reply_text(&result), "Hi.");
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());

    let store = SessionStore::new(home.join("agents/main/sessions"));
    let record = store.find_by_key("chat:1").unwrap().unwrap();
    let transcript = record.transcript_path(&home.join("agents/main/sessions"));
    assert!(transcript.is_file(), "{}", transcript.display());
    assert_eq!(record.updated_at, NOW);
    let state: Value = serde_json::from_str(
        &std::fs::read_to_string(env.agent_dir.join("auth-state.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(state["usageStats"]["acme:main"]["lastUsed"], json!(NOW));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&env.agent_dir)
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o700, "the agent dir stays private");
    }
}

#[tokio::test]
async fn overrides_reach_the_turn() {
    let server = ProviderScriptServer::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let env = TurnEnv::builder(&home, dir.path().join("ws"))
        .config(config(&server, Some("ACME_TEST_KEY")))
        .agent_id("ops")
        .tools(Vec::new())
        .tool(stamp())
        .env_lookup(Arc::new(|name: &str| {
            (name == "ACME_TEST_KEY").then(|| "sk-from-env".to_owned())
        }))
        .timezone("Europe/Paris")
        .clock(Arc::new(ManualClock::new(NOW)))
        .build()
        .unwrap();
    assert_eq!(names(&env), vec!["stamp"]);
    assert_eq!(env.agent_dir, home.join("agents/ops/agent"));
    assert_eq!(env.timezone, "Europe/Paris");

    server.begin_turn(vec![
        exchange(json!({
            "expectRequest": {"apiKey": "sk-from-env", "toolNames": ["stamp"],
                              "systemContains": ["Europe/Paris"]},
            "reply": {"toolCalls": [{"name": "stamp", "arguments": {"text": "ok"}}]}
        })),
        exchange(json!({
            "expectRequest": {"bodyContains": ["stamped \\\"ok\\\""]},
            "reply": {"text": "Stamped."}
        })),
    ]);
    let request = TurnRequest {
        session_key: "ops:1".to_owned(),
        prompt: "Stamp ok".to_owned(),
        ..TurnRequest::default()
    };
    let result = run_agent_turn_with_fallback(&env, request, TurnIo::default()).await;
    assert_eq!(reply_text(&result), "Stamped.");
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    let store = SessionStore::new(home.join("agents/ops/sessions"));
    assert!(store.find_by_key("ops:1").unwrap().is_some());
}

fn build_error(home: &Path, workspace: &Path, agent_id: &str) -> String {
    match TurnEnv::builder(home, workspace).agent_id(agent_id).build() {
        Ok(env) => panic!("built {env:?}"),
        Err(err) => {
            let text = err.to_string();
            match err {
                TurnEnvError::AgentId(_) | TurnEnvError::CreateDir { .. } => text,
                TurnEnvError::Transport(e) => panic!("unexpected transport error {e}"),
            }
        }
    }
}

#[test]
fn errors_name_what_was_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    assert_eq!(
        build_error(&home, &dir.path().join("ws"), "../escape"),
        "cannot build the turn environment: invalid agent id \"../escape\": only ASCII \
         letters, digits, '.', '_' and '-' are allowed"
    );
    assert!(!home.exists(), "nothing is created for a bad agent id");

    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let workspace = file.join("ws");
    let text = build_error(&home, &workspace, "main");
    assert!(
        text.starts_with(&format!(
            "cannot create the workspace {}: ",
            workspace.display()
        )),
        "{text}"
    );
}
