//! The session the runner itself writes for the interop check: several turns through
//! [`run_attempt`] against models served by the providers crate's scripted server on
//! 127.0.0.1, with real tools in a scratch workspace and one threshold compaction.
//!
//! What this case adds over [`scenario`](super::scenario): that file is written entry by
//! entry through the session crate; this one is written the way a run writes it (the agent
//! session's persistence, the attempt's model and level entries, auto compaction), so pi's
//! `SessionManager` must rebuild from it the very conversation the runner ended each turn with.
//!
//! The turns, one attempt each on the same file, on three wire APIs so model changes (and a
//! thinking-level change) are recorded between them:
//!
//! 1. text (OpenAI Responses), with reasoning in the reply;
//! 2. tools (Anthropic Messages, a 40 000-token window): `write` creates a note in the
//!    workspace, then `read` and `bash` look at it, then the answer;
//! 3. threshold (the same model): the reply reports 30 000 context tokens, past
//!    `contextWindow - reserveTokens`, so the runner asks for a summary (scripted) and writes a
//!    `compaction` entry that keeps this turn;
//! 4. after the compaction (Google Generative AI, thinking `low`): a text turn whose context
//!    starts with the summary.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use clawloop_core::ThinkLevel;
use clawloop_core::clock::{Clock as _, SystemClock};
use clawloop_core::hooks::NoHooks;
use clawloop_core::message::AgentMessage;
use clawloop_core::model::{Api, Model};
use clawloop_core::provider::LlmStream;
use clawloop_providers::{
    AnthropicMessages, GoogleGenerativeAi, HttpTransport, Ollama, OpenAiCompletions,
    OpenAiResponses, TransportConfig,
};
use clawloop_runner::agent::MessageQueues;
use clawloop_runner::attempt::{
    AttemptResult, AttemptSpec, SharedReplySink, prepare_history, run_attempt,
};
use clawloop_runner::config::Config;
use clawloop_runner::prompt::PromptMode;
use clawloop_runner::run::RunRequest;
use clawloop_runner::turn::TurnIo;
use clawloop_session::{SessionOptions, Transcript};
use clawloop_testkit::{ProviderScriptServer, ScriptedExchange};
use clawloop_tools::builtins::builtin_tools;

use super::compare::{self, Observed};

/// The session file's name in the case's directory.
pub const SESSION_FILE: &str = "runner-written.jsonl";

/// The session id every attempt of the case is given (the header id of the new file).
pub const SESSION_ID: &str = "6f1c0b2e-4a7d-4e58-9a43-0c5d2f7e8b11";

/// The session key every attempt of the case is given.
pub const SESSION_KEY: &str = "interop";

/// The note turn 2 writes into the workspace and reads back.
pub const NOTE: &str = "notes.txt";

/// What the note holds after turn 2.
pub const NOTE_TEXT: &str = "blue-green rollout on Friday\n";

/// The summary the scripted model answers the compaction request with.
pub const SUMMARY: &str = "## Goal\nShip billing on Friday with a blue-green rollout.";

/// The session the runner wrote and what each turn ended with.
#[derive(Debug, Clone)]
pub struct RunnerSession {
    /// The session file.
    pub path: PathBuf,
    /// The workspace the tools worked in.
    pub workspace: PathBuf,
    /// The tools every attempt offered, by name (the replay pipeline keeps calls to these).
    pub tool_names: Vec<String>,
    /// The turns, in order.
    pub turns: Vec<TurnEnd>,
}

/// How one turn (one attempt) ended.
#[derive(Debug, Clone)]
pub struct TurnEnd {
    /// What the turn exercises (`text`, `tools`, `threshold`, `after compaction`).
    pub name: &'static str,
    /// The file's leaf once the attempt had released it: the context at this entry is the
    /// one the turn ended with.
    pub leaf_id: String,
    /// The conversation the attempt ended with (`AttemptResult::messages_snapshot`).
    pub messages: Vec<AgentMessage>,
    /// Compactions the attempt made.
    pub compactions: u32,
    /// The model the attempt ran on (its transcript policy shaped the replayed history).
    pub model: Model,
    /// When the attempt started (the replay pipeline's clock).
    pub started_ms: u64,
}

/// The window of the tools and threshold turns' model. With the default reserve (16 384), the
/// 30 000 context tokens the threshold turn's reply reports are past its 23 616-token threshold.
const THRESHOLD_WINDOW: u64 = 40_000;

/// One scripted turn: the model it runs on, the prompt and the replies the server gives.
struct Turn {
    name: &'static str,
    provider: &'static str,
    api: Api,
    model_id: &'static str,
    /// The API's usual base path under the provider's root on the scripted server.
    base_suffix: &'static str,
    context_window: u64,
    reasoning: bool,
    thinking: ThinkLevel,
    config: Value,
    prompt: &'static str,
    replies: Vec<Value>,
    /// Compactions the attempt must make: the case is void without its compaction.
    compactions: u32,
}

fn turns() -> Vec<Turn> {
    vec![
        Turn {
            name: "text",
            provider: "resp",
            api: Api::OpenaiResponses,
            model_id: "m-resp",
            base_suffix: "/v1",
            context_window: 128_000,
            reasoning: false,
            thinking: ThinkLevel::Off,
            config: json!({}),
            prompt: "We ship billing on Friday. Say hello — «ünïcødé» 🦀",
            replies: vec![json!({"reply": {
                "thinking": "A greeting; nothing to run.",
                "text": "Hello! Friday it is.",
                "usage": {"input": 1200, "output": 12}
            }})],
            compactions: 0,
        },
        Turn {
            name: "tools",
            provider: "bolt",
            api: Api::AnthropicMessages,
            model_id: "claude-x",
            base_suffix: "",
            context_window: THRESHOLD_WINDOW,
            reasoning: false,
            thinking: ThinkLevel::Off,
            config: json!({}),
            prompt: "Write the plan to notes.txt, then read it back and count its bytes.",
            replies: vec![
                json!({"reply": {"toolCalls": [
                    {"id": "call_w", "name": "write", "arguments": {"path": NOTE, "content": NOTE_TEXT}}
                ], "usage": {"input": 1300, "output": 30}}}),
                json!({"reply": {"toolCalls": [
                    {"id": "call_r", "name": "read", "arguments": {"path": NOTE}},
                    {"id": "call_b", "name": "bash", "arguments": {"command": "wc -c < notes.txt"}}
                ], "usage": {"input": 1400, "output": 40}}}),
                json!({"reply": {
                    "text": "notes.txt says: blue-green rollout on Friday (29 bytes).",
                    "usage": {"input": 1500, "output": 20}
                }}),
            ],
            compactions: 0,
        },
        Turn {
            name: "threshold",
            // The model of the turn before: no model change between the turns, so the cut
            // (kept: this turn, 27 estimated tokens) lands on this turn's user message and
            // the compaction makes one summary request, not a split turn's two concurrent
            // ones (a cut that moves back over a `model_change` is a split turn, as in pi).
            provider: "bolt",
            api: Api::AnthropicMessages,
            model_id: "claude-x",
            base_suffix: "",
            context_window: THRESHOLD_WINDOW,
            reasoning: false,
            thinking: ThinkLevel::Off,
            config: json!({"agents": {"defaults": {"compaction": {"keepRecentTokens": 20}}}}),
            prompt: "Remember: the rollback plan is to flip the router back to blue.",
            replies: vec![
                json!({"reply": {"text": "Noted: rollback flips the router to blue.", "usage": {"input": 29000, "output": 1000}}}),
                json!({
                    "expectRequest": {"systemContains": ["context summarization assistant"]},
                    "reply": {"text": SUMMARY, "usage": {"input": 900, "output": 60}}
                }),
            ],
            compactions: 1,
        },
        Turn {
            name: "after compaction",
            provider: "gem",
            api: Api::GoogleGenerativeAi,
            model_id: "gemini-x",
            base_suffix: "/v1beta",
            context_window: 128_000,
            reasoning: true,
            thinking: ThinkLevel::Low,
            config: json!({}),
            prompt: "What is the rollback plan?",
            replies: vec![json!({
                "expectRequest": {"bodyContains": ["Ship billing on Friday"]},
                "reply": {
                    "thinking": "The summary and the last turn say it.",
                    "text": "Flip the router back to blue.",
                    "usage": {"input": 700, "output": 15}
                }
            })],
            compactions: 0,
        },
    ]
}

/// Runs the case's turns through the runner into a new session file in `dir` (the workspace
/// is `dir/work`). Fails naming the turn when the server was not asked what the script
/// expects or an attempt reports a failure.
pub fn write_session(dir: &Path) -> Result<RunnerSession, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start a tokio runtime: {e}"))?;
    runtime.block_on(write_session_async(dir))
}

async fn write_session_async(dir: &Path) -> Result<RunnerSession, String> {
    let server = ProviderScriptServer::start()
        .await
        .map_err(|e| format!("cannot start the scripted provider server: {e}"))?;
    let mut session = RunnerSession {
        path: dir.join(SESSION_FILE),
        workspace: dir.join("work"),
        tool_names: builtin_tools(None)
            .iter()
            .map(|t| t.name().to_owned())
            .collect(),
        turns: Vec::new(),
    };
    for turn in turns() {
        let end = run_turn(&server, &session, turn).await?;
        session.turns.push(end);
    }
    // The tools really ran: what the file records them doing happened.
    let note = session.workspace.join(NOTE);
    match std::fs::read_to_string(&note) {
        Ok(text) if text == NOTE_TEXT => Ok(session),
        Ok(text) => Err(format!(
            "runner turn `tools`: {} holds {text:?}, not {NOTE_TEXT:?}",
            note.display()
        )),
        Err(e) => Err(format!(
            "runner turn `tools`: cannot read {}: {e}",
            note.display()
        )),
    }
}

async fn run_turn(
    server: &ProviderScriptServer,
    session: &RunnerSession,
    turn: Turn,
) -> Result<TurnEnd, String> {
    let (name, expected_compactions) = (turn.name, turn.compactions);
    let fail = |what: String| format!("runner turn `{name}`: {what}");
    let model: Model = serde_json::from_value(json!({
        "id": turn.model_id,
        "api": turn.api.as_str(),
        "provider": turn.provider,
        "baseUrl": format!("{}{}", server.provider_url(turn.provider), turn.base_suffix),
        "reasoning": turn.reasoning,
        "contextWindow": turn.context_window,
        "maxTokens": 4096
    }))
    .map_err(|e| fail(format!("bad model: {e}")))?;
    let config = Config::from_value(turn.config).map_err(|e| fail(format!("bad config: {e}")))?;
    let script = turn
        .replies
        .into_iter()
        .map(serde_json::from_value::<ScriptedExchange>)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| fail(format!("bad script: {e}")))?;
    let run = RunRequest {
        run_id: format!("interop-{name}"),
        agent_id: "main".to_owned(),
        session_key: Some(SESSION_KEY.to_owned()),
        session_id: SESSION_ID.to_owned(),
        session_file: session.path.clone(),
        workspace_dir: session.workspace.clone(),
        home_dir: None,
        prompt: turn.prompt.to_owned(),
        images: Vec::new(),
        client_tools: Vec::new(),
        extra_system_prompt: None,
        prompt_mode: PromptMode::Full,
        prompt_profile: clawloop_runner::prompt::PromptProfile::Gateway,
        system_prompt: None,
        max_tool_rounds: None,
        provider: model.provider.clone(),
        model: model.id.clone(),
        thinking: turn.thinking,
        locked_profile: None,
        fallback_configured: false,
        allow_transient_cooldown_probe: false,
        config: Arc::new(config),
        tools: builtin_tools(None),
        sandbox: None,
        approval: None,
        timeout: None,
        hooks: Arc::new(NoHooks),
        clock: Arc::new(SystemClock),
        timezone: "UTC".to_owned(),
        auth: None,
        provider_factory: Arc::new(|model: &Model| client(&model.api)),
        env: Arc::new(|_: &str| None),
        cli_queue: clawloop_runner::cli_backend::RunQueue::default(),
    };
    let spec = AttemptSpec {
        provider: client(&model.api).map_err(fail)?,
        model: model.clone(),
        api_key: Some("sk-interop".to_owned()),
        thinking: turn.thinking,
    };
    let io = TurnIo {
        cancel: CancellationToken::new(),
        events: None,
        replies: SharedReplySink::discard(),
        queues: MessageQueues::new(),
    };
    server.begin_turn(script);
    let started_ms = SystemClock.now_ms();
    let result = run_attempt(&run, &spec, io).await;
    let problems = server.end_turn().problems();
    if !problems.is_empty() {
        return Err(fail(format!(
            "the scripted server saw {}; {}",
            problems.join("; "),
            outcome(&result)
        )));
    }
    if result.prompt_error.is_some() || result.aborted || result.timed_out {
        return Err(fail(outcome(&result)));
    }
    if result.compaction_count != expected_compactions {
        return Err(fail(format!(
            "{} compactions, not {expected_compactions}",
            result.compaction_count
        )));
    }
    let transcript = Transcript::open(&session.path, SessionOptions::default())
        .map_err(|e| fail(format!("cannot reopen {}: {e}", session.path.display())))?;
    let leaf_id = transcript
        .leaf_id()
        .map(str::to_owned)
        .ok_or_else(|| fail("the session file has no entry".to_owned()))?;
    Ok(TurnEnd {
        name,
        leaf_id,
        messages: result.messages_snapshot,
        compactions: result.compaction_count,
        model,
        started_ms,
    })
}

/// What an attempt reported, for a failure message.
fn outcome(result: &AttemptResult) -> String {
    format!(
        "prompt error {:?}, aborted {}, timed out {}, last assistant {:?}",
        result.prompt_error.as_ref().map(|e| &e.message),
        result.aborted,
        result.timed_out,
        result
            .last_assistant
            .as_ref()
            .map(|a| (a.stop_reason, a.error_message.as_deref())),
    )
}

fn client(api: &Api) -> Result<Arc<dyn LlmStream>, String> {
    let transport = HttpTransport::new(TransportConfig::default())
        .map_err(|e| format!("cannot build the HTTP transport: {e}"))?;
    Ok(match api {
        Api::OpenaiCompletions => Arc::new(OpenAiCompletions::new(transport)),
        Api::OpenaiResponses => Arc::new(OpenAiResponses::new(transport)),
        Api::AnthropicMessages => Arc::new(AnthropicMessages::new(transport)),
        Api::GoogleGenerativeAi => Arc::new(GoogleGenerativeAi::new(transport)),
        Api::Ollama => Arc::new(Ollama::new(transport)),
        Api::Other(other) => return Err(format!("no client for the API `{other}`")),
    })
}

/// Where a reader's contexts differ from what the runner ended each turn with. `reader` names
/// the reader whose contexts `seen` holds.
///
/// What a turn ends with is not the file's context verbatim: an attempt replays the history
/// before its prompt through the replay pipeline of its model's transcript policy (another
/// provider's reasoning dropped, usage from before a compaction zeroed, …), which changes the
/// conversation in memory and never the file. So for each turn, from the reader's contexts at
/// the previous turn's last entry (`before`) and at this turn's (`after`):
///
/// * a turn that compacted ends with `after` itself (pi rebuilds the conversation from the
///   file after a compaction);
/// * any other turn ends with the replay of `before` followed by the messages it added, which
///   are `after` past `before` (and `after` must start with `before`).
///
/// Messages are compared as JSON with nothing normalized.
pub(super) fn turn_differences(
    session: &RunnerSession,
    reader: &str,
    seen: &Observed,
) -> Vec<String> {
    let mut found = Vec::new();
    let mut before: Vec<Value> = Vec::new();
    for turn in &session.turns {
        let prefix = format!("turn `{}` (leaf {}): ", turn.name, turn.leaf_id);
        let Some((_, context)) = seen.contexts_at.iter().find(|(id, _)| *id == turn.leaf_id) else {
            found.push(format!("{prefix}{reader} has no such entry"));
            continue;
        };
        let after = context
            .get("messages")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        match expected_end(session, turn, &before, &after) {
            Ok(expected) => {
                let ended_with = match serde_json::to_value(&turn.messages) {
                    Ok(Value::Array(list)) => list,
                    Ok(other) => vec![other],
                    Err(e) => {
                        found.push(format!(
                            "{prefix}cannot serialize the runner's messages: {e}"
                        ));
                        continue;
                    }
                };
                found.extend(compare::message_differences(
                    &prefix,
                    ("the runner", reader),
                    &ended_with,
                    &expected,
                ));
            }
            Err(e) => found.push(format!("{prefix}{reader}: {e}")),
        }
        before = after;
    }
    found
}

/// What `turn` should have ended with, from a reader's contexts before and after it (see
/// [`turn_differences`]).
fn expected_end(
    session: &RunnerSession,
    turn: &TurnEnd,
    before: &[Value],
    after: &[Value],
) -> Result<Vec<Value>, String> {
    if turn.compactions > 0 {
        return Ok(after.to_vec());
    }
    if after.len() < before.len() || after[..before.len()] != *before {
        return Err(format!(
            "the context after the turn does not extend the one before it ({} then {} messages)",
            before.len(),
            after.len()
        ));
    }
    let history: Vec<AgentMessage> = serde_json::from_value(Value::Array(before.to_vec()))
        .map_err(|e| format!("clawloop cannot read the context before the turn: {e}"))?;
    let replayed = prepare_history(
        &history,
        &turn.model,
        &session.tool_names,
        Some(SESSION_KEY),
        turn.started_ms,
    );
    let mut expected = match serde_json::to_value(&replayed) {
        Ok(Value::Array(list)) => list,
        Ok(other) => vec![other],
        Err(e) => return Err(format!("cannot serialize the replayed history: {e}")),
    };
    expected.extend_from_slice(&after[before.len()..]);
    Ok(expected)
}

/// Where clawloop's own reader, opening the file afresh, disagrees with what the runner ended
/// each turn with (see [`turn_differences`]), plus lines it skipped or could not write back
/// byte for byte. Empty when the writer side is right; needs no `node`.
pub fn own_reader_differences(session: &RunnerSession) -> Result<Vec<String>, String> {
    let mut transcript = Transcript::open(&session.path, SessionOptions::default())
        .map_err(|e| format!("clawloop cannot open {}: {e}", session.path.display()))?;
    let seen = Observed::from_transcript(&mut transcript)?;
    let mut found = super::no_skipped_lines(&transcript);
    found.extend(turn_differences(session, "clawloop", &seen));
    let bytes = std::fs::read(&session.path)
        .map_err(|e| format!("cannot read {}: {e}", session.path.display()))?;
    found.extend(super::rewrite_differences(&bytes));
    Ok(found)
}
