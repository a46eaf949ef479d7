//! Load (issue 12 "Prove it"): many concurrent turns through one `TurnEnv` against a real
//! provider server on 127.0.0.1, with rate limits and overloads on the way, and two processes
//! sharing one home.
//!
//! What must hold, whatever order the runs take:
//! * the runs of one session never overlap (the session lane);
//! * every turn ends (nothing deadlocks) — each is bounded by a generous timeout and a turn that
//!   hits it is reported by key, never timed;
//! * every transcript reopens: each line parses, the context rebuilds, no tool call is left
//!   without its result; the session index maps every key to its transcript;
//! * two processes rotating and cooling profiles in one agent dir lose no update of
//!   `auth-state.json`: its error counts are exactly the failures both processes were served.
//!
//! The provider is a [`ProviderRuleServer`]: with turns running at once no script order can say
//! which request comes first, so each reply is computed from the request itself — the turn's
//! prompt, whether its tool result is already there, the key it was sent with.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use clawloop_core::agent_event::AgentEvent;
use clawloop_core::clock::ManualClock;
use clawloop_core::tool::{BoxFuture, Tool, ToolContext, ToolError, ToolResult, ToolUpdate};
use clawloop_runner::config::Config;
use clawloop_runner::turn::{
    AgentRunLoopResult, TurnEnv, TurnIo, TurnRequest, run_agent_turn_with_fallback,
};
use clawloop_session::{SessionOptions, SessionStore, Transcript};
use clawloop_testkit::{ProviderRequest, ProviderRuleServer, ScriptedReply, ScriptedToolCall};
use clawloop_tools::execute::EventSink;
use parking_lot::Mutex;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const NOW: u64 = 1_700_000_000_000;
/// Concurrent turns of the in-process load, spread over `KEYS` session keys.
const TURNS: usize = 200;
const KEYS: usize = 50;
/// Far above what a turn against a local server takes; only a hang reaches it.
const TURN_BOUND: Duration = Duration::from_secs(60);

/// Env var naming the shared home of the two-process test's child; absent in a normal run.
const CHILD_HOME_ENV: &str = "CLAWLOOP_LOAD_TEST_CHILD_HOME";
/// Turns each process of the two-process test runs at once.
const TURNS_PER_PROCESS: usize = 24;

// ---------------------------------------------------------------------------------------------
// The agent: two providers with two profiles each, a fallback model, one tool.

const ALPHA_ONE: &str = "sk-alpha-one";
const ALPHA_TWO: &str = "sk-alpha-two";

fn config(server: &ProviderRuleServer) -> Config {
    Config::from_value(json!({
        "agents": {"defaults": {
            "model": {"primary": "alpha/a1", "fallbacks": ["beta/b1"]},
            "maxConcurrent": 8,
            "retry": {"transientHttpRetryDelayMs": 0},
        }},
        "models": {"providers": {
            "alpha": {
                "api": "openai-completions",
                "baseUrl": format!("{}/v1", server.provider_url("alpha")),
                "models": [{"id": "a1", "contextWindow": 128000, "maxTokens": 4096}],
            },
            "beta": {
                "api": "anthropic-messages",
                "baseUrl": server.provider_url("beta"),
                "models": [{"id": "b1", "contextWindow": 200000, "maxTokens": 8192}],
            },
        }},
        "auth": {"order": {
            "alpha": ["alpha:one", "alpha:two"],
            "beta": ["beta:one", "beta:two"],
        }},
    }))
    .unwrap()
}

fn write_auth_profiles(agent_dir: &Path) {
    let profiles = json!({"version": 1, "profiles": {
        "alpha:one": {"type": "api_key", "provider": "alpha", "key": ALPHA_ONE},
        "alpha:two": {"type": "api_key", "provider": "alpha", "key": ALPHA_TWO},
        "beta:one": {"type": "api_key", "provider": "beta", "key": "sk-beta-one"},
        "beta:two": {"type": "api_key", "provider": "beta", "key": "sk-beta-two"},
    }});
    std::fs::create_dir_all(agent_dir).unwrap();
    std::fs::write(
        agent_dir.join("auth-profiles.json"),
        serde_json::to_string_pretty(&profiles).unwrap(),
    )
    .unwrap();
}

/// The agent's tool: notes a text and says so.
struct Note {
    schema: Value,
}

impl Tool for Note {
    fn name(&self) -> &str {
        "note"
    }
    fn label(&self) -> &str {
        "Note"
    }
    fn description(&self) -> &str {
        "Notes a text."
    }
    fn parameters(&self) -> &Value {
        &self.schema
    }
    fn is_mutating(&self) -> bool {
        false
    }
    fn execute<'a>(
        &'a self,
        _id: &'a str,
        args: Value,
        _ctx: &'a ToolContext,
        _cancel: CancellationToken,
        _on_update: ToolUpdate,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
        Box::pin(async move {
            let text = args.get("text").and_then(Value::as_str).unwrap_or_default();
            Ok(ToolResult::text(format!("noted {text}")))
        })
    }
}

fn build_env(home: &Path, server: &ProviderRuleServer, clock: &ManualClock) -> TurnEnv {
    TurnEnv::builder(home, home.join("workspace"))
        .config(config(server))
        .clock(Arc::new(clock.clone()))
        .tools(vec![Arc::new(Note {
            schema: json!({"type": "object", "properties": {"text": {"type": "string"}},
                           "required": ["text"]}),
        })])
        .env_lookup(Arc::new(|_: &str| None))
        .build()
        .unwrap()
}

// ---------------------------------------------------------------------------------------------
// The provider's side.

fn rate_limited() -> ScriptedReply {
    serde_json::from_value(json!({
        "status": 429,
        "body": {"error": {"message": "Rate limit reached for requests per minute.",
                           "type": "requests", "code": "rate_limit_exceeded"}}
    }))
    .unwrap()
}

fn overloaded() -> ScriptedReply {
    serde_json::from_value(json!({
        "status": 503,
        "body": {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    }))
    .unwrap()
}

fn unavailable() -> ScriptedReply {
    serde_json::from_value(json!({
        "status": 503,
        "body": {"error": {"message": "The upstream server is busy right now.",
                           "type": "server_error"}}
    }))
    .unwrap()
}

/// What a well model says at request number `n`: first a call of `note` with the turn's
/// prompt, then — once that call's result is in the request — the answer.
fn model_reply(n: usize, request: &ProviderRequest) -> ScriptedReply {
    let prompt = request.last_user_text().unwrap_or_default();
    if request.body_text().contains(&format!("noted {prompt}")) {
        return ScriptedReply {
            text: Some(answer(&prompt)),
            ..ScriptedReply::default()
        };
    }
    ScriptedReply {
        tool_calls: Some(vec![ScriptedToolCall {
            // Unique across the whole load: a session's history must never hold two calls
            // with one id.
            id: Some(format!("call_{n}")),
            name: "note".to_owned(),
            arguments: Some(json!({"text": prompt})),
            arguments_raw: None,
        }]),
        ..ScriptedReply::default()
    }
}

fn prompt(key: &str, turn: usize) -> String {
    format!("turn {turn} of {key}")
}

fn answer(prompt: &str) -> String {
    format!("done: {prompt}")
}

// ---------------------------------------------------------------------------------------------
// Running turns and what they leave behind.

/// `agent_start` / `agent_end` of every run, numbered in one sequence for all keys.
#[derive(Default)]
struct RunLog {
    marks: Mutex<Vec<(String, u64, bool)>>,
}

impl RunLog {
    fn sink(self: &Arc<Self>, key: &str) -> EventSink {
        let log = Arc::clone(self);
        let key = key.to_owned();
        Arc::new(move |event: AgentEvent| {
            let start = match event {
                AgentEvent::AgentStart => true,
                AgentEvent::AgentEnd { .. } => false,
                _ => return,
            };
            // Numbered under the lock: the number is the mark's place in one global order.
            let mut marks = log.marks.lock();
            let seq = marks.len() as u64;
            marks.push((key.clone(), seq, start));
        })
    }

    /// Per key, runs that began before the previous one ended, and runs left open.
    fn overlaps(&self) -> Vec<String> {
        let mut by_key: BTreeMap<&str, Vec<(u64, bool)>> = BTreeMap::new();
        let marks = self.marks.lock();
        for (key, seq, start) in marks.iter() {
            by_key.entry(key).or_default().push((*seq, *start));
        }
        let mut problems = Vec::new();
        for (key, marks) in by_key {
            // The runs of the key still going, by the number of their start.
            let mut open: Vec<u64> = Vec::new();
            for (seq, start) in marks {
                if start {
                    if let Some(began) = open.last() {
                        problems.push(format!(
                            "{key}: a run started at #{seq} while the run started at #{began} \
                             was still going"
                        ));
                    }
                    open.push(seq);
                } else if open.pop().is_none() {
                    problems.push(format!("{key}: a run ended at #{seq} without a start"));
                }
            }
            for began in open {
                problems.push(format!("{key}: the run started at #{began} never ended"));
            }
        }
        problems
    }

    fn runs(&self) -> usize {
        self.marks
            .lock()
            .iter()
            .filter(|(_, _, start)| *start)
            .count()
    }
}

/// How one turn ended.
#[derive(Debug)]
enum Ended {
    Replied { text: String, session_id: String },
    Failed(String),
    Hung,
}

/// Runs every `(key, prompt)` at once, each bounded by [`TURN_BOUND`].
async fn run_all(env: &TurnEnv, turns: Vec<(String, String)>, log: &Arc<RunLog>) -> Vec<Ended> {
    let tasks: Vec<_> = turns
        .into_iter()
        .map(|(key, prompt)| {
            let env = env.clone();
            let io = TurnIo {
                events: Some(log.sink(&key)),
                ..TurnIo::default()
            };
            tokio::spawn(async move {
                let request = TurnRequest {
                    session_key: key,
                    prompt,
                    ..TurnRequest::default()
                };
                let turn = run_agent_turn_with_fallback(&env, request, io);
                match tokio::time::timeout(TURN_BOUND, turn).await {
                    Err(_) => Ended::Hung,
                    Ok(AgentRunLoopResult::Success(success)) => Ended::Replied {
                        text: success.run_result.reply_text(),
                        session_id: success.session_id,
                    },
                    Ok(AgentRunLoopResult::Final { payload, .. }) => {
                        Ended::Failed(payload.text.unwrap_or_default())
                    }
                }
            })
        })
        .collect();
    let mut ended = Vec::with_capacity(tasks.len());
    for task in tasks {
        ended.push(task.await.unwrap());
    }
    ended
}

/// Problems of one transcript: lines that do not parse, a context that does not rebuild,
/// tool calls without a result and results without a call. Also returns the rebuilt messages
/// as JSON.
fn check_transcript(file: &Path) -> (Vec<String>, Vec<Value>) {
    let name = file.display();
    let mut problems = Vec::new();
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) => return (vec![format!("{name}: cannot read: {e}")], Vec::new()),
    };
    for (i, line) in text.lines().enumerate() {
        if let Err(e) = serde_json::from_str::<Value>(line) {
            problems.push(format!("{name}:{}: not JSON ({e}): {line:?}", i + 1));
        }
    }
    let transcript = match Transcript::open(file, SessionOptions::default()) {
        Ok(t) => t,
        Err(e) => {
            problems.push(format!("{name}: does not reopen: {e}"));
            return (problems, Vec::new());
        }
    };
    let messages: Vec<Value> = transcript
        .build_context()
        .messages
        .iter()
        .map(|m| serde_json::to_value(m).unwrap())
        .collect();
    let mut open_calls: Vec<String> = Vec::new();
    for message in &messages {
        match message["role"].as_str() {
            Some("assistant") => {
                if !open_calls.is_empty() {
                    problems.push(format!(
                        "{name}: tool calls {open_calls:?} have no result before the next \
                         assistant message"
                    ));
                    open_calls.clear();
                }
                for block in message["content"].as_array().into_iter().flatten() {
                    if block["type"] == "toolCall" {
                        open_calls.push(block["id"].as_str().unwrap_or_default().to_owned());
                    }
                }
            }
            Some("toolResult") => {
                let id = message["toolCallId"].as_str().unwrap_or_default();
                match open_calls.iter().position(|c| c == id) {
                    Some(at) => {
                        open_calls.remove(at);
                    }
                    None => problems.push(format!("{name}: a result for unknown call {id:?}")),
                }
            }
            _ => {}
        }
    }
    if !open_calls.is_empty() {
        problems.push(format!("{name}: tool calls {open_calls:?} have no result"));
    }
    (problems, messages)
}

fn message_texts(message: &Value) -> Vec<String> {
    match &message["content"] {
        Value::String(text) => vec![text.clone()],
        Value::Array(blocks) => blocks
            .iter()
            .filter(|b| b["type"] == "text")
            .filter_map(|b| b["text"].as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

// ---------------------------------------------------------------------------------------------
// 200 turns, 50 keys, one environment.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_turns_keep_sessions_serial_and_transcripts_valid() {
    let clock = ManualClock::new(NOW);
    let requests = Arc::new(AtomicUsize::new(0));
    let rule = {
        let requests = Arc::clone(&requests);
        let clock = clock.clone();
        move |request: &ProviderRequest| {
            let n = requests.fetch_add(1, Ordering::SeqCst);
            // Time passes with the traffic, so cooled profiles come back and cool again.
            clock.advance(1_000);
            match n % 36 {
                4 | 13 | 22 => rate_limited(),
                8 | 31 => overloaded(),
                17 => unavailable(),
                _ => model_reply(n, request),
            }
        }
    };
    let server = ProviderRuleServer::start(rule).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let env = build_env(&home, &server, &clock);
    write_auth_profiles(&env.agent_dir);

    let keys: Vec<String> = (0..KEYS).map(|k| format!("load:chat:{k:02}")).collect();
    // A key's turns are started side by side, so they compete for the global lane's slots
    // at the same moment and only the session lane keeps them apart.
    let per_key = TURNS / KEYS;
    let turns: Vec<(String, String)> = (0..TURNS)
        .map(|i| {
            let key = keys[i / per_key].clone();
            let prompt = prompt(&key, i % per_key);
            (key, prompt)
        })
        .collect();
    let log = Arc::new(RunLog::default());
    let ended = run_all(&env, turns.clone(), &log).await;

    // Nothing hangs.
    let hung: Vec<&str> = turns
        .iter()
        .zip(&ended)
        .filter(|(_, e)| matches!(e, Ended::Hung))
        .map(|((_, prompt), _)| prompt.as_str())
        .collect();
    assert_eq!(
        hung,
        Vec::<&str>::new(),
        "turns that did not end within {TURN_BOUND:?}"
    );
    // No two runs of one session overlap.
    assert_eq!(log.overlaps(), Vec::<String>::new());

    // The failures really happened, and every turn that answered gave its own answer.
    let statuses: BTreeSet<u16> = server.exchanges().iter().map(|e| e.status()).collect();
    assert_eq!(statuses, BTreeSet::from([200, 429, 503]));
    let mut replied: BTreeMap<&str, Vec<(&str, &str)>> = BTreeMap::new();
    for ((key, prompt), end) in turns.iter().zip(&ended) {
        match end {
            Ended::Replied { text, session_id } => {
                assert_eq!(*text, answer(prompt), "the reply to {prompt:?}");
                replied
                    .entry(key)
                    .or_default()
                    .push((prompt.as_str(), session_id.as_str()));
            }
            Ended::Failed(text) => assert!(!text.is_empty(), "{prompt}: an empty failure"),
            Ended::Hung => unreachable!("reported above"),
        }
    }

    // A turn that answered ran at least once (a turn refused before any run has none).
    let answered = replied.values().map(Vec::len).sum::<usize>();
    assert!(
        log.runs() >= answered,
        "{} runs for {answered} answered turns",
        log.runs()
    );

    // The session index maps every key, and every transcript reopens whole.
    let sessions_dir = home.join("agents/main/sessions");
    let store = SessionStore::new(&sessions_dir);
    let listed: BTreeSet<String> = store.list().unwrap().into_iter().map(|s| s.key).collect();
    assert_eq!(listed, keys.iter().cloned().collect::<BTreeSet<_>>());
    let mut problems = Vec::new();
    for key in &keys {
        let Some(record) = store.find_by_key(key).unwrap() else {
            problems.push(format!("{key}: not in the session index"));
            continue;
        };
        let file = record.transcript_path(&sessions_dir);
        let (mut found, messages) = check_transcript(&file);
        problems.append(&mut found);
        // Every answered turn of the key is in the transcript the key points at, with its
        // prompt and its answer.
        let texts: BTreeSet<String> = messages.iter().flat_map(message_texts).collect();
        for (prompt, session_id) in replied.get(key.as_str()).into_iter().flatten() {
            if *session_id != record.session_id {
                problems.push(format!(
                    "{key}: {prompt:?} ran in session {session_id}, the index says {}",
                    record.session_id
                ));
            }
            for text in [prompt.to_string(), answer(prompt)] {
                if !texts.contains(&text) {
                    problems.push(format!("{key}: {text:?} is missing from the transcript"));
                }
            }
        }
    }
    assert_eq!(problems, Vec::<String>::new());
    let state = std::fs::read_to_string(env.agent_dir.join("auth-state.json")).unwrap();
    serde_json::from_str::<Value>(&state).unwrap();
}

// ---------------------------------------------------------------------------------------------
// Two processes, one home.

/// What one process of the two-process test was served.
#[derive(Debug, Default, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
struct Served {
    rate_limited: u32,
    overloaded: u32,
}

/// Runs [`TURNS_PER_PROCESS`] turns at once in the agent of `home`, against a server on which
/// `alpha:one` is always rate-limited and `alpha:two` always overloaded (so neither profile
/// ever succeeds and resets its count), and `beta` answers; `name` keeps the keys apart.
async fn turns_of_one_process(home: &Path, name: &str) -> Served {
    let rule = |request: &ProviderRequest| match request.api_key.as_deref() {
        Some(ALPHA_ONE) => rate_limited(),
        Some(ALPHA_TWO) => overloaded(),
        _ => ScriptedReply {
            text: Some(answer(&request.last_user_text().unwrap_or_default())),
            ..ScriptedReply::default()
        },
    };
    let server = ProviderRuleServer::start(rule).await.unwrap();
    // Both processes read the same fixed time: no window ends, so no count restarts.
    let clock = ManualClock::new(NOW);
    let env = build_env(home, &server, &clock);
    let turns = (0..TURNS_PER_PROCESS)
        .map(|i| {
            let key = format!("{name}:chat:{i}");
            let prompt = prompt(&key, 0);
            (key, prompt)
        })
        .collect();
    let ended = run_all(&env, turns, &Arc::new(RunLog::default())).await;
    let hung = ended.iter().filter(|e| matches!(e, Ended::Hung)).count();
    assert_eq!(
        hung, 0,
        "{name}: turns that did not end within {TURN_BOUND:?}"
    );
    let mut served = Served::default();
    for exchange in server.exchanges() {
        match exchange.status() {
            429 => served.rate_limited += 1,
            503 => served.overloaded += 1,
            _ => {}
        }
    }
    served
}

/// Waits (at most a minute) for the parent's go.
fn wait_for_go(go: &Path) {
    for _ in 0..6_000 {
        if go.exists() {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!(
        "the parent's {} did not appear within a minute",
        go.display()
    );
}

fn child_paths(home: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let base = home.parent().unwrap();
    (
        base.join("child-ready"),
        base.join("go"),
        base.join("child-served.json"),
    )
}

/// Not a test on its own: the child half of
/// `two_processes_sharing_a_home_keep_auth_state_consistent`, run by the parent as
/// `<this test binary> --exact auth_child_worker` with the home in the environment.
#[test]
fn auth_child_worker() {
    let Ok(home) = std::env::var(CHILD_HOME_ENV) else {
        return;
    };
    let home = PathBuf::from(home);
    let (ready, go, served_file) = child_paths(&home);
    std::fs::write(&ready, "").unwrap();
    wait_for_go(&go);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let served = runtime.block_on(turns_of_one_process(&home, "child"));
    std::fs::write(served_file, serde_json::to_string(&served).unwrap()).unwrap();
}

#[test]
fn two_processes_sharing_a_home_keep_auth_state_consistent() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    write_auth_profiles(&home.join("agents/main/agent"));
    let (ready, go, served_file) = child_paths(&home);

    let child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "auth_child_worker", "--test-threads", "1"])
        .env(CHILD_HOME_ENV, &home)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Both start their turns together, so their writes to the auth state interleave.
    let mut child = child;
    for _ in 0..6_000 {
        if ready.exists() {
            break;
        }
        if child.try_wait().unwrap().is_some() {
            panic!(
                "the child ended early: {:?}",
                child.wait_with_output().unwrap()
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(ready.exists(), "the child did not start within a minute");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    std::fs::write(&go, "").unwrap();
    let parent = runtime.block_on(turns_of_one_process(&home, "parent"));
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "the child failed: {output:?}");
    let child: Served =
        serde_json::from_str(&std::fs::read_to_string(&served_file).unwrap()).unwrap();

    let text = std::fs::read_to_string(home.join("agents/main/agent/auth-state.json")).unwrap();
    let state: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("auth-state.json does not parse ({e}): {text}"));
    let stats = |id: &str| {
        let stats = &state["usageStats"][id];
        (
            stats["errorCount"].as_u64().unwrap_or(0),
            stats["failureCounts"].clone(),
        )
    };
    let rate_limited = u64::from(parent.rate_limited + child.rate_limited);
    let overloaded = u64::from(parent.overloaded + child.overloaded);
    assert!(
        rate_limited >= 1 && overloaded >= 1,
        "parent {parent:?}, child {child:?}"
    );
    assert_eq!(
        [
            stats("alpha:one"),
            stats("alpha:two"),
            stats("beta:one"),
            stats("beta:two")
        ],
        [
            (rate_limited, json!({"rate_limit": rate_limited})),
            (overloaded, json!({"overloaded": overloaded})),
            (0, Value::Null),
            (0, Value::Null),
        ],
        "parent served {parent:?}, child served {child:?}; state: {text}"
    );
}
