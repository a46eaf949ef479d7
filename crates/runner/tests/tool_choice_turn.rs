//! A model's configured `toolChoice` (`models.providers.<id>.models[].toolChoice`) through a
//! whole turn over HTTP: sent on the call that answers the user's prompt, never on the calls
//! after a tool result (a forced choice there would leave the model no way to answer).

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use clawloop_core::clock::ManualClock;
use clawloop_core::tool::{BoxFuture, Tool, ToolContext, ToolError, ToolResult, ToolUpdate};
use clawloop_runner::config::Config;
use clawloop_runner::turn::{
    AgentRunLoopResult, TurnEnv, TurnIo, TurnRequest, run_agent_turn_with_fallback,
};
use clawloop_testkit::{ProviderScriptServer, ScriptedExchange};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

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

fn config(server: &ProviderScriptServer, tool_choice: Option<Value>) -> Result<Config, String> {
    let mut model = json!({"id": "m1", "contextWindow": 128000, "maxTokens": 4096});
    if let Some(choice) = tool_choice {
        model["toolChoice"] = choice;
    }
    Config::from_value(json!({
        "agents": {"defaults": {"model": {"primary": "acme/m1"}}},
        "models": {"providers": {"acme": {
            "api": "openai-completions",
            "apiKey": "sk-test",
            "baseUrl": format!("{}/v1", server.provider_url("acme")),
            "models": [model],
        }}},
    }))
    .map_err(|err| err.to_string())
}

fn exchange(value: Value) -> ScriptedExchange {
    serde_json::from_value(value).unwrap()
}

/// Runs one turn of `prompt`: a `stamp` call, then a text answer. Returns each request's
/// `tool_choice` (`null` when absent).
async fn turn(server: &ProviderScriptServer, env: &TurnEnv, prompt: &str) -> Vec<Value> {
    let before = server.requests().len();
    server.begin_turn(vec![
        exchange(json!({"reply": {"toolCalls": [{"name": "stamp", "arguments": {"text": "ok"}}]}})),
        exchange(json!({"reply": {"text": "Stamped."}})),
    ]);
    let request = TurnRequest {
        session_key: "chat:1".to_owned(),
        prompt: prompt.to_owned(),
        ..TurnRequest::default()
    };
    match run_agent_turn_with_fallback(env, request, TurnIo::default()).await {
        AgentRunLoopResult::Success(success) => {
            assert_eq!(success.run_result.reply_text(), "Stamped.");
        }
        AgentRunLoopResult::Final { payload, .. } => panic!("the turn failed: {payload:?}"),
    }
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    server.requests()[before..]
        .iter()
        .map(|r| r.json.as_ref().unwrap()["tool_choice"].clone())
        .collect()
}

fn env(server: &ProviderScriptServer, dir: &std::path::Path, choice: Option<Value>) -> TurnEnv {
    TurnEnv::builder(dir.join("home"), dir.join("ws"))
        .config(config(server, choice).unwrap())
        .tools(Vec::new())
        .tool(Arc::new(Stamp {
            schema: json!({"type": "object", "properties": {"text": {"type": "string"}}}),
        }))
        .clock(Arc::new(ManualClock::new(1_700_000_000_000)))
        .build()
        .unwrap()
}

#[tokio::test]
async fn required_is_sent_on_the_call_after_each_prompt_only() {
    let server = ProviderScriptServer::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let env = env(&server, dir.path(), Some(json!("required")));
    assert_eq!(
        turn(&server, &env, "Stamp ok").await,
        vec![json!("required"), Value::Null]
    );
    // The next prompt of the same session is again a user prompt: the choice applies again.
    assert_eq!(
        turn(&server, &env, "Again").await,
        vec![json!("required"), Value::Null]
    );
}

#[tokio::test]
async fn a_named_tool_is_sent_in_the_api_shape_and_none_configured_sends_nothing() {
    let server = ProviderScriptServer::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let named = env(&server, dir.path(), Some(json!({"name": "stamp"})));
    assert_eq!(
        turn(&server, &named, "Stamp ok").await,
        vec![
            json!({"type": "function", "function": {"name": "stamp"}}),
            Value::Null
        ]
    );
    let other = tempfile::tempdir().unwrap();
    let plain = env(&server, other.path(), None);
    assert_eq!(
        turn(&server, &plain, "Stamp ok").await,
        vec![Value::Null, Value::Null]
    );
}

#[tokio::test]
async fn an_invalid_tool_choice_is_a_config_error_naming_the_key() {
    let server = ProviderScriptServer::start().await.unwrap();
    let err = config(&server, Some(json!("always"))).unwrap_err();
    assert!(
        err.contains("models.providers.acme.models[0].toolChoice")
            && err.contains("unknown tool choice \"always\""),
        "{err}"
    );
}
