//! Registry, policy, client (hosted) tools and the `message` tool.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used)]

use std::sync::{Arc, Mutex};

use clawloop_core::agent_event::AgentEvent;
use clawloop_core::message::ToolCall;
use clawloop_core::tool::{BoxFuture, Tool, ToolContext, ToolResult};
use clawloop_tools::builtins::{ALL_TOOLS, CODING_TOOLS, READ_ONLY_TOOLS, builtin_tools};
use clawloop_tools::client_tools::{
    ClientToolDefinition, PendingToolCall, PendingToolCalls, client_tools,
};
use clawloop_tools::execute::{EventSink, ToolExecutor};
use clawloop_tools::message_tool::{MessageAction, MessageSink, MessageTool, OutgoingMessage};
use clawloop_tools::policy::ToolPolicy;
use clawloop_tools::registry::{CallError, RegistryError, ToolRegistry};
use clawloop_tools::schema::Dialect;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn builtins() -> ToolRegistry {
    ToolRegistry::from_tools(builtin_tools(None)).unwrap()
}

fn no_events() -> EventSink {
    Arc::new(|_event: AgentEvent| {})
}

#[test]
fn registration_refuses_duplicates_and_bad_names() {
    let mut registry = builtins();
    let again = builtin_tools(None).remove(0);
    assert_eq!(
        registry.register(again.clone()),
        Err(RegistryError::Duplicate("read".into()))
    );
    assert_eq!(
        RegistryError::Duplicate("read".into()).to_string(),
        "A tool named read is already registered"
    );
    registry.upsert(again).unwrap();
    assert_eq!(registry.names(), ALL_TOOLS.to_vec());
    let pending = PendingToolCalls::new();
    let bad = client_tools(
        [ClientToolDefinition::new(
            "has space",
            "x",
            json!({"type": "object"}),
        )],
        &pending,
    );
    assert_eq!(
        registry.register(bad[0].clone()),
        Err(RegistryError::InvalidName("has space".into()))
    );
}

#[test]
fn policy_filters_keep_registration_order() {
    let registry = builtins();
    let read_only = registry.filtered(&ToolPolicy::allow_only(READ_ONLY_TOOLS));
    assert_eq!(read_only.names(), vec!["read", "grep", "find", "ls"]);
    let coding = registry.filtered(&ToolPolicy::allow_only(CODING_TOOLS));
    assert_eq!(coding.names(), vec!["read", "write", "edit", "bash"]);
    let no_shell = registry.filtered(&ToolPolicy::allow_all().deny(["BASH", "w*"]));
    assert_eq!(no_shell.names(), vec!["read", "edit", "grep", "find", "ls"]);
    assert!(
        registry
            .filtered(&ToolPolicy::allow_only(["none"]))
            .is_empty()
    );
}

#[tokio::test]
async fn a_denied_tool_is_not_found() {
    let registry = builtins().filtered(&ToolPolicy::allow_all().deny(["bash"]));
    let exec = ToolExecutor::new(registry);
    let outcome = exec
        .execute(
            &[ToolCall::new("c1", "bash", json!({"command": "echo hi"}))],
            &ToolContext::new("/"),
            &CancellationToken::new(),
            &no_events(),
        )
        .await;
    assert_eq!(outcome.results[0].text_content(), "Tool bash not found");
    assert!(outcome.results[0].is_error);
}

#[test]
fn validate_call_finds_and_coerces() {
    let registry = builtins();
    let err = registry.validate_call("nope", &json!({})).err().unwrap();
    assert_eq!(err.to_string(), "Tool nope not found");
    let (tool, args) = registry
        .validate_call("read", &json!({"path": "a.txt", "offset": "2"}))
        .unwrap();
    assert_eq!(tool.name(), "read");
    assert_eq!(args, json!({"path": "a.txt", "offset": 2}));
    let Err(CallError::Invalid(invalid)) = registry.validate_call("read", &json!({})) else {
        panic!("expected a validation error");
    };
    assert_eq!(
        invalid.to_string(),
        "Validation failed for tool \"read\":\n  - path: must have required property 'path'\n\nReceived arguments:\n{}"
    );
}

#[test]
fn definitions_follow_the_dialect() {
    let registry = builtins();
    let plain = registry.definitions(Dialect::Plain);
    assert_eq!(plain.len(), 7);
    assert_eq!(plain[0].name, "read");
    assert_eq!(&plain[0].parameters, registry.tools()[0].parameters());
    let strict = registry.definitions(Dialect::OpenAiStrict);
    assert_eq!(strict[0].parameters["additionalProperties"], json!(false));
    assert_eq!(
        Dialect::for_api(&clawloop_core::model::Api::GoogleGenerativeAi),
        Dialect::Gemini
    );
    assert_eq!(
        Dialect::for_api(&clawloop_core::model::Api::AnthropicMessages),
        Dialect::Plain
    );
}

#[tokio::test]
async fn client_tool_calls_are_recorded_as_pending() {
    let pending = PendingToolCalls::new();
    let definition: ClientToolDefinition = serde_json::from_value(json!({
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather for a city.",
            "parameters": {
                "$schema": "http://json-schema.org/draft-07/schema#",
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                "required": ["city"]
            }
        }
    }))
    .unwrap();
    let mut registry = builtins();
    for tool in client_tools([definition], &pending) {
        registry.register(tool).unwrap();
    }
    let weather = registry.get("get_weather").unwrap();
    assert_eq!(weather.description(), "Weather for a city.");
    assert!(weather.parameters().get("$schema").is_none());

    let exec = ToolExecutor::new(registry);
    let outcome = exec
        .execute(
            &[ToolCall::new(
                "call_1",
                "get_weather",
                json!({"city": "Oslo", "days": "3"}),
            )],
            &ToolContext::new("/"),
            &CancellationToken::new(),
            &no_events(),
        )
        .await;
    let payload = json!({
        "status": "pending",
        "tool": "get_weather",
        "message": "Tool execution delegated to client"
    });
    assert_eq!(
        outcome.results[0].text_content(),
        serde_json::to_string_pretty(&payload).unwrap()
    );
    assert_eq!(outcome.results[0].details, Some(payload));
    assert!(!outcome.results[0].is_error);

    let calls = pending.take();
    assert_eq!(calls.len(), 1);
    let id = calls[0].id.clone();
    assert_eq!(id.len(), 9);
    assert!(id.chars().all(|c| c.is_ascii_hexdigit()));
    assert_eq!(
        calls[0],
        PendingToolCall {
            id: id.clone(),
            name: "get_weather".into(),
            arguments: r#"{"city":"Oslo","days":3}"#.into(),
            tool_call_id: "call_1".into(),
        }
    );
    // The `pendingToolCalls` wire shape.
    assert_eq!(
        serde_json::to_value(&calls).unwrap(),
        json!([{"id": id, "name": "get_weather", "arguments": "{\"city\":\"Oslo\",\"days\":3}"}])
    );
    assert!(pending.is_empty());
}

#[test]
fn a_client_tool_without_parameters_takes_an_empty_object() {
    let pending = PendingToolCalls::new();
    let definition: ClientToolDefinition =
        serde_json::from_value(json!({"function": {"name": "ping"}})).unwrap();
    let tools = client_tools([definition], &pending);
    assert_eq!(
        tools[0].parameters(),
        &json!({"type": "object", "properties": {}})
    );
    assert_eq!(tools[0].description(), "");
}

/// Records what it is asked to send; fails for the target `nowhere`.
#[derive(Default)]
struct RecordingSink {
    sent: Mutex<Vec<OutgoingMessage>>,
}

impl MessageSink for RecordingSink {
    fn send<'a>(
        &'a self,
        message: OutgoingMessage,
        _cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<Option<String>, String>> {
        Box::pin(async move {
            if message.target.as_deref() == Some("nowhere") {
                return Err("unknown target nowhere".into());
            }
            self.sent.lock().unwrap().push(message);
            Ok(Some("m-1".into()))
        })
    }
}

async fn send(tool: &MessageTool, args: Value) -> Result<ToolResult, String> {
    tool.execute(
        "c1",
        args,
        &ToolContext::new("/"),
        CancellationToken::new(),
        Arc::new(|_| {}),
    )
    .await
    .map_err(|e| e.to_string())
}

#[tokio::test]
async fn message_tool_sends_through_the_sink() {
    let sink = Arc::new(RecordingSink::default());
    let tool = MessageTool::new(sink.clone());
    let result = send(&tool, json!({"action": "send", "message": "hello"}))
        .await
        .unwrap();
    let payload = json!({"ok": true, "action": "send", "messageId": "m-1"});
    assert_eq!(
        result,
        ToolResult {
            content: vec![clawloop_core::message::ContentBlock::text(
                serde_json::to_string_pretty(&payload).unwrap()
            )],
            details: Some(payload),
            is_error: false,
        }
    );
    send(
        &tool,
        json!({"action": "thread-reply", "content": "via alias", "target": "#general"}),
    )
    .await
    .unwrap();
    assert_eq!(
        *sink.sent.lock().unwrap(),
        vec![
            OutgoingMessage {
                tool_call_id: "c1".into(),
                action: MessageAction::Send,
                text: "hello".into(),
                target: None,
            },
            OutgoingMessage {
                tool_call_id: "c1".into(),
                action: MessageAction::ThreadReply,
                text: "via alias".into(),
                target: Some("#general".into()),
            },
        ]
    );
}

#[tokio::test]
async fn message_tool_errors() {
    let tool = MessageTool::new(Arc::new(RecordingSink::default()));
    assert_eq!(
        send(&tool, json!({"action": "send"})).await,
        Err("message is required (or content)".into())
    );
    assert_eq!(
        send(&tool, json!({"action": "send", "message": "  "})).await,
        Err("message is required (or content)".into())
    );
    assert_eq!(
        send(
            &tool,
            json!({"action": "send", "message": "x", "target": "nowhere"})
        )
        .await,
        Err("Message not sent: unknown target nowhere".into())
    );
    let cancelled = CancellationToken::new();
    cancelled.cancel();
    let err = tool
        .execute(
            "c1",
            json!({"action": "send", "message": "x"}),
            &ToolContext::new("/"),
            cancelled,
            Arc::new(|_| {}),
        )
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "Operation aborted");
    // A wrong action is caught by validation before the tool runs.
    let registry = ToolRegistry::from_tools([Arc::new(tool) as Arc<dyn Tool>]).unwrap();
    let err = registry
        .validate_call("message", &json!({"action": "shout", "message": "x"}))
        .err()
        .unwrap();
    assert_eq!(
        err.to_string(),
        "Validation failed for tool \"message\":\n  - action: must be equal to one of the allowed values\n\nReceived arguments:\n{\n  \"action\": \"shout\",\n  \"message\": \"x\"\n}"
    );
}
