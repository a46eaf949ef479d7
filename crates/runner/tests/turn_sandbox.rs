//! `TurnEnvBuilder::sandbox`: the embedder's sandbox reaches every tool call of a turn, with
//! the clawloop home added to what the command may not touch and the providers' key
//! variables to what it may not see.

#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use clawloop_core::sandbox::{
    CommandOutcome, CommandSandbox, ConfinedCommand, SandboxCommand, SandboxError, SandboxMode,
    SandboxPolicy, ToolSandbox,
};
use clawloop_core::tool::{BoxFuture, Tool, ToolContext, ToolError, ToolResult, ToolUpdate};
use clawloop_runner::config::Config;
use clawloop_runner::turn::{
    AgentRunLoopResult, TurnEnv, TurnIo, TurnRequest, run_agent_turn_with_fallback,
};
use clawloop_testkit::{ProviderScriptServer, ScriptedExchange};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

#[derive(Debug)]
struct NeverConfines;

impl CommandSandbox for NeverConfines {
    fn confine(
        &self,
        _command: &SandboxCommand,
        _policy: &SandboxPolicy,
    ) -> Result<ConfinedCommand, SandboxError> {
        Err(SandboxError("sandbox: test double".into()))
    }
    fn denial_note(
        &self,
        _outcome: &CommandOutcome<'_>,
        _policy: &SandboxPolicy,
    ) -> Option<String> {
        None
    }
    fn describe(&self, _policy: &SandboxPolicy) -> Result<String, SandboxError> {
        Ok("test double".into())
    }
}

/// Records the sandbox policy each call's context carries.
struct Probe {
    schema: Value,
    seen: Arc<Mutex<Vec<Option<SandboxPolicy>>>>,
}

impl Tool for Probe {
    fn name(&self) -> &str {
        "probe"
    }
    fn label(&self) -> &str {
        "Probe"
    }
    fn description(&self) -> &str {
        "Looks at its context."
    }
    fn parameters(&self) -> &Value {
        &self.schema
    }
    fn execute<'a>(
        &'a self,
        _id: &'a str,
        _args: Value,
        ctx: &'a ToolContext,
        _cancel: CancellationToken,
        _on_update: ToolUpdate,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
        let policy = ctx.sandbox.as_ref().map(|s| s.policy.clone());
        self.seen.lock().unwrap().push(policy);
        Box::pin(async move { Ok(ToolResult::text("looked")) })
    }
}

fn exchange(value: Value) -> ScriptedExchange {
    serde_json::from_value(value).unwrap()
}

#[tokio::test]
async fn the_sandbox_reaches_every_tool_call_with_the_home_and_the_key_variables_protected() {
    let server = ProviderScriptServer::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let config = Config::from_value(json!({
        "agents": {"defaults": {"model": {"primary": "acme/m1"}}},
        "models": {"providers": {"acme": {
            "api": "openai-completions",
            "apiKey": "ACME_TEST_CRED",
            "baseUrl": format!("{}/v1", server.provider_url("acme")),
            "models": [{"id": "m1", "contextWindow": 128000, "maxTokens": 4096}],
        }}},
    }))
    .unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let probe = Arc::new(Probe {
        schema: json!({"type": "object", "properties": {}}),
        seen: Arc::clone(&seen),
    });
    let mut policy = SandboxPolicy::new(SandboxMode::ReadOnly);
    policy.network = false;
    let env = TurnEnv::builder(&home, dir.path().join("ws"))
        .config(config)
        .tools(vec![probe])
        .sandbox(ToolSandbox::new(Arc::new(NeverConfines), policy.clone()))
        .build()
        .unwrap();
    server.begin_turn(vec![
        exchange(json!({
            "expectRequest": {"toolNames": ["probe"]},
            "reply": {"toolCalls": [{"name": "probe", "arguments": {}}]}
        })),
        exchange(json!({"reply": {"text": "Done."}})),
    ]);
    let request = TurnRequest {
        session_key: "main:1".to_owned(),
        prompt: "Look".to_owned(),
        ..TurnRequest::default()
    };
    let result = run_agent_turn_with_fallback(&env, request, TurnIo::default()).await;
    match result {
        AgentRunLoopResult::Success(success) => {
            assert_eq!(success.run_result.reply_text(), "Done.")
        }
        AgentRunLoopResult::Final { payload, .. } => panic!("the turn failed: {payload:?}"),
    }
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    policy.protected = vec![PathBuf::from(&home)];
    // The configured key's variable, whatever its name, and the built-in providers' ones.
    policy.secret_env = [
        "ACME_TEST_CRED",
        "ANTHROPIC_API_KEY",
        "DEEPSEEK_API_KEY",
        "GEMINI_API_KEY",
        "GROQ_API_KEY",
        "MISTRAL_API_KEY",
        "OPENAI_API_KEY",
        "OPENROUTER_API_KEY",
        "XAI_API_KEY",
    ]
    .map(str::to_owned)
    .to_vec();
    assert_eq!(*seen.lock().unwrap(), vec![Some(policy)]);
}
