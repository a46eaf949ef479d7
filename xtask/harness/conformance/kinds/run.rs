//! `run` runner: whole turns through the runner's outermost entry point,
//! `run_agent_turn_with_fallback`, against the providers crate's scripted server (FORMAT.md
//! `run`).
//!
//! Each case gets a scratch home (agent dir with the case's auth files, sessions dir with the
//! case's transcript bound to the key `scenario`) and workspace, a manual clock, and a config
//! whose every provider points at the server. Every built-in wait runs at 0 ms unless the case
//! sets it. Each turn is scripted, run, and reported as plain facts — the result, the request
//! count, the agent event types, the block replies, what the session file gained and rebuilds
//! to, the workspace files and the auth state — which are compared with the turn's expect.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use clawloop_core::ThinkLevel;
use clawloop_core::agent_event::AgentEvent;
use clawloop_core::clock::{Clock, ManualClock};
use clawloop_runner::agent::MessageQueues;
use clawloop_runner::attempt::SharedReplySink;
use clawloop_runner::config::Config;
use clawloop_runner::turn::{
    AgentRunLoopResult, TurnEnv, TurnIo, TurnRequest, run_agent_turn_with_fallback,
};
use clawloop_session::{SessionOptions, SessionRecord, SessionStore, Transcript};
use clawloop_subscribe::{BlockReply, SubscriptionSink};
use clawloop_testkit::{ProviderScriptServer, ScriptedExchange};
use clawloop_tools::client_tools::ClientToolDefinition;
use clawloop_tools::execute::EventSink;
use parking_lot::Mutex;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::wrong_spec;
use crate::conformance::compare::compare_at;
use crate::conformance::kind::Kind;
use crate::conformance::scenario::run::RunInput;
use crate::conformance::scenario::{Case, Spec};
use crate::conformance::shorthand::expand_text;
use crate::conformance::summary::summarize_all;

/// The session key every turn runs under.
const SESSION_KEY: &str = "scenario";
/// The manual clock's start when the case gives none.
const DEFAULT_START_MS: u64 = 1_700_000_000_000;

/// Runs a `run` case.
pub fn run(case: &Case) -> Result<(), String> {
    let Spec::Run(input) = &case.spec else {
        return Err(wrong_spec(case, Kind::Run));
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start a tokio runtime: {e}"))?;
    runtime.block_on(run_case(input))
}

/// What one case runs in.
struct Scene {
    server: ProviderScriptServer,
    _scratch: tempfile::TempDir,
    workspace: PathBuf,
    sessions_dir: PathBuf,
    agent_dir: PathBuf,
    clock: ManualClock,
    env: TurnEnv,
}

async fn run_case(input: &RunInput) -> Result<(), String> {
    let scene = Scene::new(input).await?;
    let turns = input
        .raw
        .get("turns")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for (i, raw_turn) in turns.iter().enumerate() {
        let at = format!("input.turns[{i}]");
        run_turn(&scene, raw_turn, &at).await?;
    }
    Ok(())
}

impl Scene {
    async fn new(input: &RunInput) -> Result<Scene, String> {
        let server = ProviderScriptServer::start()
            .await
            .map_err(|e| format!("cannot start the scripted server: {e}"))?;
        let scratch = tempfile::Builder::new()
            .prefix("clawloop-conformance-run-")
            .tempdir()
            .map_err(|e| format!("cannot create a scratch directory: {e}"))?;
        let home = scratch.path().join("home");
        let agent_dir = home.join("agents/main/agent");
        let sessions_dir = home.join("agents/main/sessions");
        let workspace = scratch.path().join("workspace");
        for dir in [&agent_dir, &sessions_dir, &workspace] {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        let raw = &input.raw;
        let config_value = scenario_config(
            raw.get("config").cloned().unwrap_or_else(|| json!({})),
            &server,
        );
        let config =
            Arc::new(Config::from_value(config_value).map_err(|e| format!("input.config: {e}"))?);
        if let Some(profiles) = raw.get("authProfiles") {
            write_json(&agent_dir.join("auth-profiles.json"), profiles)?;
        }
        if let Some(state) = raw.get("authState") {
            write_json(&agent_dir.join("auth-state.json"), state)?;
        }
        for (path, content) in raw
            .get("workspace")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            let file = workspace.join(path);
            if let Some(parent) = file.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| format!("input.workspace.{path}: {e}"))?;
            }
            std::fs::write(&file, content.as_str().unwrap_or_default())
                .map_err(|e| format!("input.workspace.{path}: {e}"))?;
        }
        let start = input.start_time_ms.map_or(DEFAULT_START_MS, |ms| ms as u64);
        let clock = ManualClock::new(start);
        let shared_clock: Arc<dyn Clock> = Arc::new(clock.clone());
        let store = SessionStore::new(&sessions_dir).with_clock(shared_clock.clone());
        if let Some(lines) = raw.get("sessionLines").and_then(Value::as_array) {
            seed_session(&store, &sessions_dir, lines, start)?;
        }
        let env = TurnEnv::builder(&home, &workspace)
            .config(Config::clone(&config))
            .clock(shared_clock)
            .env_lookup(Arc::new(|_: &str| None))
            .timezone("UTC")
            .build()
            .map_err(|e| format!("cannot set the agent up: {e}"))?;
        Ok(Scene {
            server,
            _scratch: scratch,
            workspace,
            sessions_dir,
            agent_dir,
            clock,
            env,
        })
    }

    /// The transcript the key points at now.
    fn session_file(&self) -> Option<PathBuf> {
        let store = SessionStore::new(&self.sessions_dir);
        let record = store.find_by_key(SESSION_KEY).ok().flatten()?;
        Some(record.transcript_path(&self.sessions_dir))
    }
}

/// The case's config with every provider's `baseUrl` at the server and the built-in waits at 0.
fn scenario_config(mut config: Value, server: &ProviderScriptServer) -> Value {
    if let Some(providers) = config
        .pointer_mut("/models/providers")
        .and_then(Value::as_object_mut)
    {
        for (id, provider) in providers.iter_mut() {
            let suffix = match provider.get("api").and_then(Value::as_str) {
                Some("openai-completions" | "openai-responses") => "/v1",
                Some("google-generative-ai") => "/v1beta",
                _ => "",
            };
            if let Some(map) = provider.as_object_mut() {
                map.insert(
                    "baseUrl".to_owned(),
                    json!(format!("{}{suffix}", server.provider_url(id))),
                );
            }
        }
    }
    let has_delay = config
        .pointer("/agents/defaults/retry/transientHttpRetryDelayMs")
        .is_some();
    if !has_delay {
        let root = ensure_object(&mut config);
        let agents = ensure_object(root.entry("agents").or_insert_with(|| json!({})));
        let defaults = ensure_object(agents.entry("defaults").or_insert_with(|| json!({})));
        let retry = ensure_object(defaults.entry("retry").or_insert_with(|| json!({})));
        retry.insert("transientHttpRetryDelayMs".to_owned(), json!(0));
    }
    config
}

fn ensure_object(value: &mut Value) -> &mut Map<String, Value> {
    if !value.is_object() {
        *value = json!({});
    }
    match value {
        Value::Object(map) => map,
        // Made an object just above.
        _ => unreachable_object(),
    }
}

#[allow(clippy::panic)]
fn unreachable_object() -> &'static mut Map<String, Value> {
    panic!("a value made an object is an object")
}

fn write_json(path: &Path, value: &Value) -> Result<(), String> {
    let text =
        serde_json::to_string_pretty(value).map_err(|e| format!("{}: {e}", path.display()))?;
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Writes the case's transcript and binds the key `scenario` to it.
fn seed_session(store: &SessionStore, dir: &Path, lines: &[Value], now: u64) -> Result<(), String> {
    let id = lines
        .first()
        .and_then(|h| h.get("id"))
        .and_then(Value::as_str)
        .unwrap_or("00000000-0000-4000-8000-00000000c0de")
        .to_owned();
    let file = dir.join(format!("{id}.jsonl"));
    let mut text = String::new();
    for line in lines {
        match line {
            Value::String(raw) => text.push_str(raw),
            other => text.push_str(&other.to_string()),
        }
        text.push('\n');
    }
    std::fs::write(&file, text).map_err(|e| format!("input.sessionLines: {e}"))?;
    let record = SessionRecord::new(id, Some(file.display().to_string()), now);
    store
        .set(SESSION_KEY, record)
        .map_err(|e| format!("input.sessionLines: {e}"))
}

/// Collects block reply texts.
struct Replies(Arc<Mutex<Vec<String>>>);

impl SubscriptionSink for Replies {
    fn on_block_reply(&mut self, reply: BlockReply) {
        self.0.lock().push(reply.text);
    }
}

async fn run_turn(scene: &Scene, raw: &Value, at: &str) -> Result<(), String> {
    if let Some(ms) = raw.get("advanceClockMs").and_then(Value::as_f64) {
        scene
            .clock
            .set(scene.clock.now_ms().saturating_add(ms as u64));
    }
    let mut script = Vec::new();
    for (j, response) in raw
        .get("responses")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let exchange: ScriptedExchange = serde_json::from_value(response.clone())
            .map_err(|e| format!("{at}.responses[{j}]: {e}"))?;
        script.push(exchange);
    }
    let before = scene.session_file().map(|f| (f.clone(), line_count(&f)));
    scene.server.begin_turn(script);

    let events = Arc::new(Mutex::new(Vec::new()));
    let sink: EventSink = {
        let events = Arc::clone(&events);
        Arc::new(move |event: AgentEvent| events.lock().push(event.type_name().to_owned()))
    };
    let blocks = Arc::new(Mutex::new(Vec::new()));
    let cancel = CancellationToken::new();
    if let Some(ms) = raw.get("abortAfterMs").and_then(Value::as_f64) {
        let cancel = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs_f64(ms.max(0.0) / 1000.0)).await;
            cancel.cancel();
        });
    }
    let io = TurnIo {
        cancel,
        events: Some(sink),
        replies: SharedReplySink::new(Replies(Arc::clone(&blocks))),
        queues: MessageQueues::new(),
    };
    let request = turn_request(raw, at)?;
    let result = run_agent_turn_with_fallback(&scene.env, request, io).await;
    let report = scene.server.end_turn();
    if let Some(problem) = report.problems().first() {
        return Err(format!("{at}: {problem}"));
    }
    let mut actual = Map::new();
    actual.insert("result".to_owned(), result_facts(&result));
    actual.insert("requests".to_owned(), json!(report.requests.len()));
    actual.insert("events".to_owned(), json!(*events.lock()));
    actual.insert("blockReplies".to_owned(), json!(*blocks.lock()));
    actual.insert("session".to_owned(), session_facts(scene, before)?);
    let expect = raw.get("expect").cloned().unwrap_or_else(|| json!({}));
    if let Some(files) = expect.get("workspace").and_then(Value::as_object) {
        actual.insert(
            "workspace".to_owned(),
            workspace_facts(&scene.workspace, files),
        );
    }
    if let Some(profiles) = expect.get("auth").and_then(Value::as_object) {
        actual.insert(
            "auth".to_owned(),
            auth_facts(&scene.agent_dir, profiles, scene.clock.now_ms())?,
        );
    }
    compare_at(&format!("{at}.expect"), &expect, &Value::Object(actual)).map_err(|m| m.to_string())
}

fn turn_request(raw: &Value, at: &str) -> Result<TurnRequest, String> {
    let text = |key: &str| raw.get(key).and_then(Value::as_str).map(str::to_owned);
    let thinking = match text("thinking") {
        Some(level) => Some(
            level
                .parse::<ThinkLevel>()
                .map_err(|e| format!("{at}.thinking: {e}"))?,
        ),
        None => None,
    };
    let client_tools = raw
        .get("clientTools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|tool| {
            ClientToolDefinition::new(
                tool.get("name").and_then(Value::as_str).unwrap_or_default(),
                tool.get("description")
                    .and_then(Value::as_str)
                    .unwrap_or_default(),
                tool.get("parameters")
                    .cloned()
                    .unwrap_or_else(|| json!({"type": "object", "properties": {}})),
            )
        })
        .collect();
    Ok(TurnRequest {
        session_key: SESSION_KEY.to_owned(),
        prompt: raw.get("prompt").map(expand_text).unwrap_or_default(),
        provider: text("provider"),
        model: text("model"),
        thinking,
        client_tools,
        ..TurnRequest::default()
    })
}

/// The result as FORMAT.md's `result` facts.
fn result_facts(result: &AgentRunLoopResult) -> Value {
    match result {
        AgentRunLoopResult::Final { payload, .. } => json!({
            "kind": "final",
            "texts": payload.text.iter().collect::<Vec<_>>(),
            // `textContains` is checked against the texts joined with "\n".
            "text": payload.text.clone().unwrap_or_default(),
            "isError": payload.is_error,
        }),
        AgentRunLoopResult::Success(success) => {
            let run = &success.run_result;
            let meta = serde_json::to_value(&run.meta).unwrap_or_else(|_| json!({}));
            let agent = meta.get("agentMeta").cloned().unwrap_or_else(|| json!({}));
            let usage = |key: &str| {
                agent.get(key).cloned().map(|mut u| {
                    if let Some(map) = u.as_object_mut()
                        && let Some(total) = map.get("total").cloned()
                    {
                        map.insert("totalTokens".to_owned(), total);
                    }
                    u
                })
            };
            let texts: Vec<String> = run.payloads.iter().filter_map(|p| p.text.clone()).collect();
            json!({
                "kind": "success",
                "text": texts.join("\n"),
                "texts": texts,
                "isError": run.payloads.iter().any(|p| p.is_error),
                "errorKind": meta.pointer("/error/kind").cloned(),
                "provider": agent.get("provider").cloned(),
                "model": agent.get("model").cloned(),
                "stopReason": meta.get("stopReason").cloned(),
                "pendingToolCalls": run.meta.pending_tool_calls.iter().map(|c| c.name.clone()).collect::<Vec<_>>(),
                "compactionCount": agent.get("compactionCount").cloned().unwrap_or(json!(0)),
                "aborted": run.meta.aborted,
                "usage": usage("usage"),
                "lastCallUsage": usage("lastCallUsage"),
                "promptTokens": agent.get("promptTokens").cloned(),
            })
        }
    }
}

fn line_count(file: &Path) -> usize {
    std::fs::read_to_string(file)
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

/// What the session file gained, what it rebuilds to, and whether every line parses.
fn session_facts(scene: &Scene, before: Option<(PathBuf, usize)>) -> Result<Value, String> {
    let Some(file) = scene.session_file() else {
        return Ok(json!({"appendedTypes": [], "messages": [], "fileLinesValidJson": true}));
    };
    let text = std::fs::read_to_string(&file).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let skip = match &before {
        Some((old, count)) if *old == file => *count,
        Some(_) | None => 0,
    };
    let parsed: Vec<Option<Value>> = lines
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).ok())
        .collect();
    let valid = parsed.iter().all(Option::is_some);
    let appended: Vec<Value> = parsed
        .iter()
        .skip(skip)
        .flatten()
        .filter_map(|line| line.get("type").cloned())
        .filter(|t| t != "session")
        .collect();
    let messages = if file.exists() {
        let transcript = Transcript::open(&file, SessionOptions::default())
            .map_err(|e| format!("the session file does not reopen: {e}"))?;
        let values: Vec<Value> = transcript
            .build_context()
            .messages
            .iter()
            .filter_map(|m| serde_json::to_value(m).ok())
            .collect();
        summarize_all(&values)
    } else {
        json!([])
    };
    Ok(json!({"appendedTypes": appended, "messages": messages, "fileLinesValidJson": valid}))
}

fn workspace_facts(workspace: &Path, files: &Map<String, Value>) -> Value {
    let facts: Map<String, Value> = files
        .keys()
        .map(|path| {
            let content = std::fs::read_to_string(workspace.join(path)).ok();
            (path.clone(), content.map_or(Value::Null, Value::String))
        })
        .collect();
    Value::Object(facts)
}

/// Each expected profile's state as stored: any active window, disabled, error count, reason.
fn auth_facts(
    agent_dir: &Path,
    profiles: &Map<String, Value>,
    now_ms: u64,
) -> Result<Value, String> {
    let state: Value = match std::fs::read_to_string(agent_dir.join("auth-state.json")) {
        Ok(text) => serde_json::from_str(&text)
            .map_err(|e| format!("auth-state.json does not parse: {e}"))?,
        Err(_) => json!({}),
    };
    #[allow(clippy::cast_precision_loss)]
    let now = now_ms as f64;
    let facts: Map<String, Value> = profiles
        .keys()
        .map(|id| {
            let stats = state
                .pointer(&format!(
                    "/usageStats/{}",
                    id.replace('~', "~0").replace('/', "~1")
                ))
                .cloned()
                .unwrap_or_else(|| json!({}));
            let until = |key: &str| {
                stats
                    .get(key)
                    .and_then(Value::as_f64)
                    .filter(|v| v.is_finite() && *v > now)
            };
            let fact = json!({
                "inCooldown": until("cooldownUntil").is_some() || until("disabledUntil").is_some(),
                "disabled": until("disabledUntil").is_some(),
                "errorCount": stats.get("errorCount").cloned().unwrap_or(json!(0)),
                "cooldownReason": stats.get("cooldownReason").cloned(),
            });
            (id.clone(), fact)
        })
        .collect();
    Ok(Value::Object(facts))
}
