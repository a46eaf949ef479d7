//! One attempt end to end over real HTTP on 127.0.0.1 (the providers crate's scripted server),
//! for each of the five wire APIs: text only, tool rounds with real effects in a temp workspace,
//! aborts while streaming and inside `bash`, threshold compaction, overflow → compact → retry;
//! after each, the reopened transcript rebuilds the conversation the attempt ended with.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::Arc;

use clawloop_core::agent_event::AgentEvent;
use clawloop_core::clock::SystemClock;
use clawloop_core::hooks::NoHooks;
use clawloop_core::message::AgentMessage;
use clawloop_core::model::{Api, Model};
use clawloop_core::provider::LlmStream;
use clawloop_core::{StopReason, ThinkLevel};
use clawloop_providers::{
    AnthropicMessages, GoogleGenerativeAi, HttpTransport, Ollama, OpenAiCompletions,
    OpenAiResponses, TransportConfig,
};
use clawloop_runner::agent::MessageQueues;
use clawloop_runner::attempt::{AttemptResult, AttemptSpec, SharedReplySink, run_attempt};
use clawloop_runner::config::Config;
use clawloop_runner::prompt::{PromptMode, PromptProfile};
use clawloop_runner::run::RunRequest;
use clawloop_runner::turn::TurnIo;
use clawloop_session::{SessionOptions, Transcript};
use clawloop_subscribe::CollectingSink;
use clawloop_testkit::{ProviderScriptServer, ScriptedExchange};
use clawloop_tools::builtins::builtin_tools;
use clawloop_tools::execute::EventSink;
use parking_lot::Mutex;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// Provider id, API, model id and the base-URL suffix each client expects.
const APIS: [(&str, Api, &str, &str); 5] = [
    ("acme", Api::OpenaiCompletions, "m-chat", "/v1"),
    ("resp", Api::OpenaiResponses, "m-resp", "/v1"),
    ("bolt", Api::AnthropicMessages, "claude-x", ""),
    ("gem", Api::GoogleGenerativeAi, "gemini-x", "/v1beta"),
    ("ol", Api::Ollama, "qwen-x", ""),
];

fn client(api: &Api) -> Arc<dyn LlmStream> {
    let t = HttpTransport::new(TransportConfig::default()).unwrap();
    match api {
        Api::OpenaiCompletions => Arc::new(OpenAiCompletions::new(t)),
        Api::OpenaiResponses => Arc::new(OpenAiResponses::new(t)),
        Api::AnthropicMessages => Arc::new(AnthropicMessages::new(t)),
        Api::GoogleGenerativeAi => Arc::new(GoogleGenerativeAi::new(t)),
        Api::Ollama => Arc::new(Ollama::new(t)),
        Api::Other(name) => panic!("no client for {name}"),
    }
}

/// The run an attempt borrows, and what the attempt varies.
type AttemptParams = (RunRequest, AttemptSpec);

struct Harness {
    server: ProviderScriptServer,
    _dir: tempfile::TempDir,
    workspace: PathBuf,
    session_file: PathBuf,
}

impl Harness {
    async fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let workspace = dir.path().join("work");
        let session_file = dir.path().join("sessions").join("s1.jsonl");
        std::fs::create_dir_all(session_file.parent().unwrap()).unwrap();
        Harness {
            server: ProviderScriptServer::start().await.unwrap(),
            _dir: dir,
            workspace,
            session_file,
        }
    }

    fn model(
        &self,
        (provider, api, id, suffix): &(&str, Api, &str, &str),
        context_window: u64,
    ) -> Model {
        serde_json::from_value(json!({
            "id": id, "api": api.as_str(), "provider": provider,
            "baseUrl": format!("{}{suffix}", self.server.provider_url(provider)),
            "contextWindow": context_window, "maxTokens": 4096
        }))
        .unwrap()
    }

    fn params(&self, model: Model, prompt: &str, config: Value) -> AttemptParams {
        let run = RunRequest {
            run_id: "run-1".to_owned(),
            agent_id: "main".to_owned(),
            session_key: Some("test".to_owned()),
            session_id: "00000000-0000-4000-8000-000000000001".to_owned(),
            session_file: self.session_file.clone(),
            workspace_dir: self.workspace.clone(),
            home_dir: None,
            prompt: prompt.to_owned(),
            images: Vec::new(),
            client_tools: Vec::new(),
            extra_system_prompt: None,
            prompt_mode: PromptMode::Full,
            prompt_profile: PromptProfile::Gateway,
            system_prompt: None,
            max_tool_rounds: None,
            provider: model.provider.clone(),
            model: model.id.clone(),
            thinking: ThinkLevel::Off,
            locked_profile: None,
            fallback_configured: false,
            allow_transient_cooldown_probe: false,
            config: Arc::new(Config::from_value(config).unwrap()),
            tools: builtin_tools(None),
            sandbox: None,
            approval: None,
            timeout: None,
            hooks: Arc::new(NoHooks),
            clock: Arc::new(SystemClock),
            timezone: "UTC".to_owned(),
            auth: None,
            provider_factory: Arc::new(|model: &Model| Ok(client(&model.api))),
            env: Arc::new(|_: &str| None),
            cli_queue: clawloop_runner::cli_backend::RunQueue::default(),
        };
        let spec = AttemptSpec {
            provider: client(&model.api),
            model,
            api_key: Some("sk-test".to_owned()),
            thinking: ThinkLevel::Off,
        };
        (run, spec)
    }

    async fn run(&self, params: AttemptParams, replies: Vec<Value>, io: TurnIo) -> AttemptResult {
        let script = replies
            .into_iter()
            .map(|r| serde_json::from_value::<ScriptedExchange>(r).unwrap())
            .collect();
        self.server.begin_turn(script);
        let result = run_attempt(&params.0, &params.1, io).await;
        let report = self.server.end_turn();
        assert_eq!(
            report.problems(),
            Vec::<String>::new(),
            "scripted turn; last assistant {:?}, prompt error {:?}",
            result
                .last_assistant
                .as_ref()
                .map(|a| (&a.error_message, a.stop_reason)),
            result.prompt_error
        );
        result
    }

    /// The context a fresh reader rebuilds from the file.
    fn reopened(&self) -> Vec<(String, String)> {
        let t = Transcript::open(&self.session_file, SessionOptions::default()).unwrap();
        summary(&t.build_context().messages)
    }

    fn entry_types(&self) -> Vec<String> {
        let t = Transcript::open(&self.session_file, SessionOptions::default()).unwrap();
        t.entries()
            .iter()
            .map(|e| match e.as_message() {
                Some(m) => format!("message:{}", m.role()),
                None => e.type_name().to_owned(),
            })
            .collect()
    }
}

fn io() -> (TurnIo, Arc<Mutex<CollectingSink>>) {
    let collected = Arc::new(Mutex::new(CollectingSink::default()));
    let sink = Arc::clone(&collected);
    let replies = SharedReplySink::new(Forward(sink));
    (
        TurnIo {
            cancel: CancellationToken::new(),
            events: None,
            replies,
            queues: MessageQueues::new(),
        },
        collected,
    )
}

/// Forwards to a shared collecting sink the test reads afterwards.
struct Forward(Arc<Mutex<CollectingSink>>);

impl clawloop_subscribe::SubscriptionSink for Forward {
    fn on_block_reply(&mut self, reply: clawloop_subscribe::BlockReply) {
        self.0.lock().on_block_reply(reply);
    }
}

fn summary(messages: &[AgentMessage]) -> Vec<(String, String)> {
    messages
        .iter()
        .map(|m| (m.role().to_owned(), m.text()))
        .collect()
}

fn s(role: &str, text: &str) -> (String, String) {
    (role.to_owned(), text.to_owned())
}

fn text(t: &str) -> Value {
    json!({"reply": {"text": t, "usage": {"input": 50, "output": 5}}})
}

#[tokio::test]
async fn a_text_reply_on_every_api_is_answered_and_persisted() {
    for api in &APIS {
        let h = Harness::new().await;
        let (io, collected) = io();
        let params = h.params(h.model(api, 128_000), "Say hello.", json!({}));
        let result = h.run(params, vec![text("Hello there.")], io).await;
        assert_eq!(result.prompt_error, None, "{}", api.1);
        assert_eq!(
            result.subscription.assistant_texts,
            ["Hello there."],
            "{}",
            api.1
        );
        assert_eq!(
            result.last_assistant.as_ref().map(|a| a.stop_reason),
            Some(StopReason::Stop)
        );
        assert_eq!(collected.lock().block_reply_texts(), ["Hello there."]);
        assert_eq!(
            h.entry_types(),
            [
                "model_change",
                "thinking_level_change",
                "message:user",
                "message:assistant"
            ],
            "{}",
            api.1
        );
        assert_eq!(h.reopened(), summary(&result.messages_snapshot));
        assert_eq!(
            h.reopened(),
            [s("user", "Say hello."), s("assistant", "Hello there.")]
        );
    }
}

#[tokio::test]
async fn tool_rounds_on_every_api_change_the_workspace() {
    for api in &APIS {
        let h = Harness::new().await;
        let (io, _) = io();
        let params = h.params(h.model(api, 128_000), "Write and read a note.", json!({}));
        let replies = vec![
            json!({"reply": {"toolCalls": [{"id": "call_w", "name": "write", "arguments": {"path": "notes.txt", "content": "first line\n"}}]}}),
            json!({"reply": {"toolCalls": [{"id": "call_r", "name": "read", "arguments": {"path": "notes.txt"}}, {"id": "call_l", "name": "ls", "arguments": {}}]}}),
            text("The note says: first line."),
        ];
        let result = h.run(params, replies, io).await;
        assert_eq!(
            std::fs::read_to_string(h.workspace.join("notes.txt")).unwrap(),
            "first line\n",
            "{}",
            api.1
        );
        assert_eq!(result.subscription.tool_metas.len(), 3, "{}", api.1);
        let roles: Vec<String> = result
            .messages_snapshot
            .iter()
            .map(|m| m.role().to_owned())
            .collect();
        assert_eq!(
            roles,
            [
                "user",
                "assistant",
                "toolResult",
                "assistant",
                "toolResult",
                "toolResult",
                "assistant"
            ],
            "{}",
            api.1
        );
        let read_result = result.messages_snapshot.iter().find_map(|m| match m {
            AgentMessage::ToolResult(r) if r.tool_name == "read" => Some(r.text_content()),
            _ => None,
        });
        assert_eq!(read_result.as_deref(), Some("first line\n"), "{}", api.1);
        assert_eq!(
            h.reopened(),
            summary(&result.messages_snapshot),
            "{}",
            api.1
        );
    }
}

#[tokio::test]
async fn abort_while_streaming_keeps_the_partial_reply_and_a_valid_file() {
    let h = Harness::new().await;
    let (mut io, _) = io();
    let cancel = io.cancel.clone();
    io.events = Some(Arc::new(move |event: AgentEvent| {
        if matches!(event, AgentEvent::MessageUpdate { .. }) {
            cancel.cancel();
        }
    }) as EventSink);
    let params = h.params(h.model(&APIS[0], 128_000), "Tell a long story.", json!({}));
    let replies = vec![
        json!({"reply": {"textChunks": ["Once upon", " a time", " there was"], "stallMs": 30000, "stallAfterChunks": 1}}),
    ];
    let result = h.run(params, replies, io).await;
    assert!(result.aborted);
    let last = result.last_assistant.clone().unwrap();
    assert_eq!(last.stop_reason, StopReason::Aborted);
    assert!(last.text().starts_with("Once upon"), "{}", last.text());
    assert_eq!(h.reopened(), summary(&result.messages_snapshot));
}

#[tokio::test]
async fn abort_inside_bash_kills_the_command_and_ends_the_attempt() {
    let h = Harness::new().await;
    let (mut io, _) = io();
    let cancel = io.cancel.clone();
    io.events = Some(Arc::new(move |event: AgentEvent| {
        if matches!(event, AgentEvent::ToolExecutionStart { .. }) {
            cancel.cancel();
        }
    }) as EventSink);
    let params = h.params(h.model(&APIS[0], 128_000), "Wait a while.", json!({}));
    let replies = vec![
        json!({"reply": {"toolCalls": [{"id": "call_b", "name": "bash", "arguments": {"command": "sleep 30; echo late > late.txt"}}]}}),
    ];
    let started = std::time::Instant::now();
    let result = h.run(params, replies, io).await;
    assert!(result.aborted);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(25),
        "the command was killed"
    );
    assert!(!h.workspace.join("late.txt").exists());
    let roles: Vec<String> = result
        .messages_snapshot
        .iter()
        .map(|m| m.role().to_owned())
        .collect();
    assert_eq!(roles, ["user", "assistant", "toolResult", "assistant"]);
    assert_eq!(
        result.last_assistant.map(|a| a.stop_reason),
        Some(StopReason::Aborted)
    );
    assert_eq!(h.reopened(), summary(&result.messages_snapshot));
}

#[tokio::test]
async fn passing_the_threshold_compacts_with_a_summary_request() {
    for api in &APIS {
        let h = Harness::new().await;
        let (io, _) = io();
        // Window 40 000, reserve 16 384: 30 000 context tokens is past the threshold.
        let params = h.params(
            h.model(api, 40_000),
            "Remember blue-green.",
            json!({"agents": {"defaults": {"compaction": {"keepRecentTokens": 1}}}}),
        );
        let replies = vec![
            json!({"reply": {"text": "Noted.", "usage": {"input": 29000, "output": 1000}}}),
            json!({"expectRequest": {"systemContains": ["context summarization assistant"]}, "reply": {"text": "## Goal\nRemember blue-green."}}),
        ];
        let result = h.run(params, replies, io).await;
        assert_eq!(result.compaction_count, 1, "{}", api.1);
        let types = h.entry_types();
        assert_eq!(
            types.last().map(String::as_str),
            Some("compaction"),
            "{}",
            api.1
        );
        assert_eq!(
            h.reopened(),
            summary(&result.messages_snapshot),
            "{}",
            api.1
        );
        assert_eq!(h.reopened()[0].0, "compactionSummary");
    }
}

/// Writes an earlier exchange so a compaction has something to summarize.
fn seed_history(h: &Harness, model: &Model) {
    let mut t = Transcript::open(&h.session_file, SessionOptions::default()).unwrap();
    t.append_message(clawloop_core::message::UserMessage::text(
        "We deploy billing on Friday with a blue-green rollout.",
        1,
    ))
    .unwrap();
    let mut a = clawloop_core::message::AssistantMessage::for_model(model, 2);
    a.content.push(clawloop_core::message::ContentBlock::text(
        "Understood: Friday, blue-green.",
    ));
    t.append_message(a).unwrap();
}

#[tokio::test]
async fn an_overflow_compacts_and_the_retry_answers() {
    for api in &APIS {
        let h = Harness::new().await;
        let (io, collected) = io();
        let model = h.model(api, 128_000);
        seed_history(&h, &model);
        let config = json!({"agents": {"defaults": {"compaction": {"keepRecentTokens": 10}}}});
        let params = h.params(model, "Write the deployment checklist.", config);
        let replies = vec![
            json!({"reply": {"status": 400, "body": {"error": {"type": "invalid_request_error", "message": "prompt is too long: 210000 tokens > 200000 maximum"}}}}),
            json!({"expectRequest": {"systemContains": ["context summarization assistant"], "bodyContains": ["blue-green"]}, "reply": {"text": "## Goal\nDeploy billing Friday, blue-green."}}),
            text("Checklist: Friday, blue-green."),
        ];
        let result = h.run(params, replies, io).await;
        assert_eq!(result.compaction_count, 1, "{}", api.1);
        assert_eq!(
            result.last_assistant.as_ref().map(|a| a.text()),
            Some("Checklist: Friday, blue-green.".to_owned()),
            "{}",
            api.1
        );
        assert_eq!(
            collected.lock().block_reply_texts(),
            ["Checklist: Friday, blue-green."],
            "{}",
            api.1
        );
        // pi keeps the failed reply in the file and on the branch (every provider drops failed
        // replies when it builds a request); the in-memory conversation dropped it for the retry.
        let reopened = h.reopened();
        let mut expected = summary(&result.messages_snapshot);
        expected.insert(expected.len() - 1, s("assistant", ""));
        assert_eq!(reopened, expected, "{}", api.1);
        // keepRecentTokens 10 cuts inside the earlier turn, so this is pi's split-turn summary.
        assert_eq!(reopened[0].0, "compactionSummary", "{}", api.1);
        assert!(
            reopened[0].1.ends_with(
                "**Turn Context (split turn):**\n\n## Goal\nDeploy billing Friday, blue-green."
            ),
            "{}",
            reopened[0].1
        );
        assert_eq!(
            reopened.last(),
            Some(&s("assistant", "Checklist: Friday, blue-green.")),
            "{}",
            api.1
        );
    }
}

#[tokio::test]
async fn a_tool_call_left_by_a_killed_run_is_answered_in_the_file() {
    let h = Harness::new().await;
    // A previous run wrote the call and was killed before its result.
    {
        let mut t = Transcript::open(&h.session_file, SessionOptions::default()).unwrap();
        t.append_message(clawloop_core::message::UserMessage::text("run it", 1))
            .unwrap();
        let mut a = clawloop_core::message::AssistantMessage::empty(
            "openai-completions",
            "acme",
            "m-chat",
            2,
        );
        a.content
            .push(clawloop_core::message::ContentBlock::ToolCall(
                clawloop_core::message::ToolCall::new(
                    "call_dead",
                    "bash",
                    json!({"command": "make"}),
                ),
            ));
        a.stop_reason = StopReason::ToolUse;
        t.append_message(a).unwrap();
    }
    let (io, _) = io();
    let params = h.params(h.model(&APIS[0], 128_000), "What happened?", json!({}));
    let replies = vec![json!({
        "expectRequest": {"roles": ["user", "assistant", "tool", "user"]},
        "reply": {"text": "The build was interrupted."}
    })];
    h.run(params, replies, io).await;
    let t = Transcript::open(&h.session_file, SessionOptions::default()).unwrap();
    let repaired = t
        .build_context()
        .messages
        .into_iter()
        .find_map(|m| match m {
            AgentMessage::ToolResult(r) => Some((r.tool_call_id, r.is_error)),
            _ => None,
        });
    assert_eq!(repaired, Some(("call_dead".to_owned(), true)));
}
