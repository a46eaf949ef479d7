//! The measured side of `cargo xtask bench scale`: each benchmark runs in a process of its
//! own (the `scale_probe` example, release build), so its RSS is its own and the provider
//! server, which keeps every request it answered, lives elsewhere.
//!
//! Every workload goes through the runner's public API: a [`TurnEnv`] over a scratch home and
//! [`run_agent_turn_with_fallback`], against the [`rule`](super::rule) on a
//! [`ProviderRuleServer`] in the `serve` process.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use clawloop_core::StopReason;
use clawloop_core::agent_event::AgentEvent;
use clawloop_core::message::{
    AgentMessage, AssistantMessage, ContentBlock, ToolCall, ToolResultMessage, UserMessage,
};
use clawloop_runner::attempt::SharedReplySink;
use clawloop_runner::config::Config;
use clawloop_runner::turn::{
    AgentRunLoopResult, TurnEnv, TurnIo, TurnRequest, TurnSuccess, run_agent_turn_with_fallback,
};
use clawloop_session::{FsyncPolicy, SessionOptions, Transcript};
use clawloop_subscribe::{BlockReply, SubscriptionSink};
use clawloop_testkit::ProviderRuleServer;
use clawloop_tools::execute::EventSink;
use serde_json::json;

use super::proc_stats::{cpu_seconds, reset_peak_rss, rss};
use super::report::{Concurrency, LongRun, SessionScale, StreamRun};
use super::rule::{self, READ_ANSWER};

/// The small file every `read` turn reads.
const SMALL_FILE: &str = "small.txt";
/// Entries between two compactions of the generated session.
const ENTRIES_PER_COMPACTION: usize = 100;

/// How the scratch agent is set up.
struct EnvSpec<'a> {
    url: &'a str,
    max_concurrent: u64,
    context_window: u64,
}

/// A turn environment over a scratch home in `dir`, its only model `bench/m` at `url`.
fn bench_env(dir: &Path, spec: &EnvSpec<'_>) -> Result<TurnEnv, String> {
    let config = Config::from_value(json!({
        "agents": {"defaults": {
            "model": {"primary": "bench/m"},
            "maxConcurrent": spec.max_concurrent,
            "compaction": {"reserveTokens": 4000, "reserveTokensFloor": 4000,
                           "keepRecentTokens": 2000},
        }},
        "models": {"providers": {"bench": {
            "api": "openai-completions",
            "baseUrl": format!("{}/p/bench/v1", spec.url),
            "apiKey": "sk-bench",
            "models": [{"id": "m", "contextWindow": spec.context_window, "maxTokens": 4096}],
        }}},
    }))
    .map_err(|e| format!("bench config: {e}"))?;
    let workspace = dir.join("workspace");
    std::fs::create_dir_all(&workspace)
        .map_err(|e| format!("cannot create {}: {e}", workspace.display()))?;
    std::fs::write(workspace.join(SMALL_FILE), "hello from the scale bench\n")
        .map_err(|e| format!("cannot write the small file: {e}"))?;
    TurnEnv::builder(dir.join("home"), workspace)
        .config(config)
        .build()
        .map_err(|e| e.to_string())
}

fn scratch() -> Result<tempfile::TempDir, String> {
    tempfile::tempdir().map_err(|e| format!("cannot create a scratch directory: {e}"))
}

/// One turn; the success, or the failure's text.
async fn turn(env: &TurnEnv, key: &str, prompt: &str, io: TurnIo) -> Result<TurnSuccess, String> {
    let request = TurnRequest {
        session_key: key.to_owned(),
        prompt: prompt.to_owned(),
        ..TurnRequest::default()
    };
    match run_agent_turn_with_fallback(env, request, io).await {
        AgentRunLoopResult::Success(success) => Ok(*success),
        AgentRunLoopResult::Final { payload, .. } => {
            Err(payload.text.unwrap_or_else(|| "(no text)".to_owned()))
        }
    }
}

/// Whether two texts hold the same words: block replies are cut at paragraph breaks and
/// trimmed, so the reply's whitespace differs from the model's.
fn same_words(a: &str, b: &str) -> bool {
    a.split_whitespace().eq(b.split_whitespace())
}

fn millis(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

/// Serves the bench rule until stdin closes; the first line on stdout is the server's URL.
pub async fn serve() -> Result<(), String> {
    let server = ProviderRuleServer::start(rule::reply)
        .await
        .map_err(|e| format!("cannot start the provider server: {e}"))?;
    println!("{}", server.url());
    // The parent closes our stdin when it is done (or dies).
    tokio::task::spawn_blocking(|| std::io::copy(&mut std::io::stdin(), &mut std::io::sink()))
        .await
        .map_err(|e| format!("stdin watcher: {e}"))?
        .map_err(|e| format!("stdin: {e}"))?;
    drop(server);
    Ok(())
}

/// Benchmark 3: writes an `entries`-entry session for a key, opens it and rebuilds its
/// context, then runs one more turn on it.
pub async fn session_scale(url: &str, entries: usize) -> Result<SessionScale, String> {
    let dir = scratch()?;
    let env = bench_env(
        dir.path(),
        &EnvSpec {
            url,
            max_concurrent: 4,
            context_window: 128_000,
        },
    )?;
    let key = "bench:session-scale";
    let binding = env
        .sessions
        .bind(key)
        .await
        .map_err(|e| format!("cannot bind {key}: {}", e.message))?;
    let path = binding.session_file.clone();
    let options = SessionOptions {
        fsync: FsyncPolicy::Never,
        session_id: Some(binding.session_id.clone()),
        ..SessionOptions::default()
    };
    let started = Instant::now();
    let entries = write_session(&path, options.clone(), entries)?;
    let write_s = started.elapsed().as_secs_f64();
    let file_bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);

    let started = Instant::now();
    let transcript =
        Transcript::open(&path, options).map_err(|e| format!("cannot open the session: {e}"))?;
    let open_ms = millis(started);
    let started = Instant::now();
    let context = transcript.build_context();
    let rebuild_ms = millis(started);
    let rss_open_kb = rss()?.now_kb;
    let context_messages = context.messages.len() as u64;
    drop(context);
    drop(transcript);

    let started = Instant::now();
    let outcome = turn(&env, key, "bench:chat 400", TurnIo::default()).await;
    let turn_ms = millis(started);
    let turn_ok = match outcome {
        Ok(success) => {
            let reply = success.run_result.reply_text();
            let ok = same_words(&reply, &rule::streamed_text(400));
            if !ok {
                eprintln!(
                    "session: the turn answered {:?}",
                    reply.get(..200).unwrap_or(&reply)
                );
            }
            ok
        }
        Err(e) => {
            eprintln!("session: the turn failed: {e}");
            false
        }
    };
    Ok(SessionScale {
        entries: entries as u64,
        file_bytes,
        write_s,
        open_ms,
        rebuild_ms,
        context_messages,
        rss_open_kb,
        turn_ms,
        peak_rss_kb: rss()?.peak_kb,
        turn_ok,
    })
}

/// Appends at least `entries` entries (up to three more, to end on a whole turn) of realistic
/// sizes: turns of a user message, an assistant message with a `read` call, its result and
/// an answer, a compaction every [`ENTRIES_PER_COMPACTION`] entries (a long-lived session has
/// them).
fn write_session(path: &Path, options: SessionOptions, entries: usize) -> Result<usize, String> {
    let err = |e: clawloop_session::SessionError| format!("cannot write the session: {e}");
    let mut transcript = Transcript::open(path, options).map_err(err)?;
    let mut text = TextGen(0x5eed);
    let mut written = 0;
    let mut turn = 0usize;
    let mut recent_users: Vec<String> = Vec::new();
    while written < entries {
        turn += 1;
        let user_id = transcript
            .append_message(UserMessage::text(text.words(300), 0))
            .map_err(err)?;
        recent_users.push(user_id);
        written += 1;
        let call_id = format!("call_{turn}");
        let mut ask = AssistantMessage::empty("openai-completions", "bench", "m", 0);
        ask.content.push(ContentBlock::text(text.words(120)));
        ask.content.push(ContentBlock::ToolCall(ToolCall::new(
            &call_id,
            "read",
            json!({"path": "src/lib.rs"}),
        )));
        ask.stop_reason = StopReason::ToolUse;
        let steps: [AgentMessage; 3] = [
            ask.into(),
            ToolResultMessage::text(&call_id, "read", text.words(1_500), false, 0).into(),
            {
                let mut answer = AssistantMessage::empty("openai-completions", "bench", "m", 0);
                answer.content.push(ContentBlock::text(text.words(800)));
                answer.into()
            },
        ];
        // Whole turns only: a session ending on the user message would leave it orphaned,
        // and the next turn's prompt is then merged into it (as OpenClaw does), which the
        // rule would not read as the bench's own command.
        for message in steps {
            transcript.append_message(message).map_err(err)?;
            written += 1;
        }
        if written % ENTRIES_PER_COMPACTION < 4 && written < entries && recent_users.len() > 4 {
            let kept = recent_users[recent_users.len() - 4].clone();
            transcript
                .append_compaction(text.words(2_000), kept, 90_000, None, None)
                .map_err(err)?;
            recent_users.clear();
            written += 1;
        }
    }
    transcript.close().map_err(err)?;
    Ok(written)
}

/// Deterministic prose of a given length.
struct TextGen(u64);

impl TextGen {
    fn words(&mut self, len: usize) -> String {
        const WORDS: [&str; 16] = [
            "session", "context", "the", "model", "reads", "a", "file", "and", "answers", "tool",
            "result", "with", "some", "lines", "of", "code",
        ];
        let mut out = String::with_capacity(len + 16);
        while out.len() < len {
            // xorshift: no dependency, same text every run.
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            out.push_str(WORDS[(self.0 % 16) as usize]);
            out.push(' ');
        }
        out.truncate(len);
        out
    }
}

/// Benchmark 4: `turns` concurrent turns on as many keys, each reading a small file; one
/// turn's CPU is measured first over `sequential` turns in the same process.
pub async fn concurrency(
    url: &str,
    turns: usize,
    sequential: usize,
    stall_ms: u64,
) -> Result<Concurrency, String> {
    let dir = scratch()?;
    let env = Arc::new(bench_env(
        dir.path(),
        &EnvSpec {
            url,
            max_concurrent: turns as u64,
            context_window: 128_000,
        },
    )?);
    let prompt = format!("bench:read {SMALL_FILE}");
    let check = |outcome: Result<TurnSuccess, String>| -> bool {
        outcome.is_ok_and(|s| s.run_result.reply_text() == READ_ANSWER)
    };
    // Warm-up: connection pool, lazily built tables, the store file.
    for i in 0..5 {
        if !check(turn(&env, &format!("bench:warm:{i}"), &prompt, TurnIo::default()).await) {
            return Err("the warm-up turn did not answer as scripted".to_owned());
        }
    }
    let cpu_before = cpu_seconds()?;
    for i in 0..sequential {
        if !check(turn(&env, &format!("bench:seq:{i}"), &prompt, TurnIo::default()).await) {
            return Err(format!("sequential turn {i} did not answer as scripted"));
        }
    }
    let one_turn_cpu_ms = (cpu_seconds()? - cpu_before) * 1000.0 / sequential.max(1) as f64;

    let baseline_rss_kb = rss()?.now_kb;
    reset_peak_rss()?;
    let in_flight = Arc::new(AtomicU64::new(0));
    let max_in_flight = Arc::new(AtomicU64::new(0));
    let reported = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let held = format!("bench:read {SMALL_FILE} stall {stall_ms}");
    let cpu_before = cpu_seconds()?;
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..turns {
        let (env, held) = (Arc::clone(&env), held.clone());
        let (in_flight, max_in_flight) = (Arc::clone(&in_flight), Arc::clone(&max_in_flight));
        let reported = Arc::clone(&reported);
        tasks.spawn(async move {
            let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            max_in_flight.fetch_max(now, Ordering::SeqCst);
            let outcome = turn(&env, &format!("bench:many:{i}"), &held, TurnIo::default()).await;
            in_flight.fetch_sub(1, Ordering::SeqCst);
            match outcome {
                Ok(success) => success.run_result.reply_text() == READ_ANSWER,
                Err(e) => {
                    if !reported.swap(true, Ordering::SeqCst) {
                        eprintln!("concurrency: a turn failed: {e}");
                    }
                    false
                }
            }
        });
    }
    let mut errors = 0;
    while let Some(joined) = tasks.join_next().await {
        if !joined.unwrap_or(false) {
            errors += 1;
        }
    }
    let wall_s = started.elapsed().as_secs_f64();
    let cpu_s = cpu_seconds()? - cpu_before;
    Ok(Concurrency {
        turns: turns as u64,
        errors,
        wall_s,
        cpu_s,
        one_turn_cpu_ms,
        sequential_turns: sequential as u64,
        baseline_rss_kb,
        peak_rss_kb: rss()?.peak_kb,
        max_in_flight: max_in_flight.load(Ordering::SeqCst),
    })
}

/// Counts block replies and keeps their text.
#[derive(Default)]
struct BlockCounter {
    blocks: Arc<AtomicU64>,
    bytes: Arc<AtomicU64>,
    text: Arc<std::sync::Mutex<String>>,
}

impl SubscriptionSink for BlockCounter {
    fn on_block_reply(&mut self, reply: BlockReply) {
        self.blocks.fetch_add(1, Ordering::Relaxed);
        self.bytes
            .fetch_add(reply.text.len() as u64, Ordering::Relaxed);
        let mut text = self
            .text
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        text.push_str(&reply.text);
        text.push('\n');
    }
}

/// Benchmark 5: one reply of `bytes` bytes in one-byte deltas, through block replies into the
/// transcript.
pub async fn stream(url: &str, bytes: usize) -> Result<StreamRun, String> {
    let dir = scratch()?;
    let env = bench_env(
        dir.path(),
        &EnvSpec {
            url,
            max_concurrent: 4,
            context_window: 1_000_000,
        },
    )?;
    let counter = BlockCounter::default();
    let (blocks, block_bytes) = (Arc::clone(&counter.blocks), Arc::clone(&counter.bytes));
    let block_text = Arc::clone(&counter.text);
    let io = TurnIo {
        replies: SharedReplySink::new(counter),
        ..TurnIo::default()
    };
    let key = "bench:stream";
    let started = Instant::now();
    let outcome = turn(&env, key, &format!("bench:stream {bytes}"), io).await;
    let seconds = started.elapsed().as_secs_f64();
    let expected = rule::streamed_text(bytes);
    // The block replies delivered the whole text, and the final reply holds it too.
    let replied = outcome.is_ok_and(|s| {
        let blocks = block_text.lock().map(|t| t.clone()).unwrap_or_default();
        same_words(&blocks, &expected) && same_words(&s.run_result.reply_text(), &expected)
    });
    if !replied {
        eprintln!("stream: the blocks and the reply do not hold the streamed text");
    }
    let binding = env
        .sessions
        .bind(key)
        .await
        .map_err(|e| format!("cannot bind {key}: {}", e.message))?;
    let transcript = Transcript::open(&binding.session_file, SessionOptions::default())
        .map_err(|e| format!("cannot open the stream session: {e}"))?;
    let stored = transcript
        .build_context()
        .messages
        .last()
        .map(AgentMessage::text)
        .unwrap_or_default();
    if stored != expected {
        eprintln!(
            "stream: the transcript holds {} bytes, not the streamed {bytes}",
            stored.len()
        );
    }
    Ok(StreamRun {
        bytes: bytes as u64,
        seconds,
        blocks: blocks.load(Ordering::Relaxed),
        block_bytes: block_bytes.load(Ordering::Relaxed),
        complete: replied && stored == expected,
    })
}

/// An event sink counting compactions made and failed (the first failure is printed).
fn compaction_events(made: Arc<AtomicU64>, failed: Arc<AtomicU64>) -> EventSink {
    Arc::new(move |event: AgentEvent| {
        if let AgentEvent::AutoCompactionEnd {
            result,
            error_message,
            ..
        } = event
        {
            if result.is_some() {
                made.fetch_add(1, Ordering::Relaxed);
            }
            if let Some(message) = error_message
                && failed.fetch_add(1, Ordering::Relaxed) == 0
            {
                eprintln!("long run: a compaction failed: {message}");
            }
        }
    })
}

/// Benchmark 6: `turns` turns of one session with a small context window, so it compacts.
pub async fn long_run(url: &str, turns: usize) -> Result<LongRun, String> {
    let dir = scratch()?;
    let env = bench_env(
        dir.path(),
        &EnvSpec {
            url,
            max_concurrent: 4,
            context_window: 16_000,
        },
    )?;
    let key = "bench:long-run";
    let mut text = TextGen(0x10c);
    let early_turn = (turns / 10).max(1);
    let (mut errors, mut compactions) = (0, 0);
    let (made, failed) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let (mut rss_early_kb, mut early_turn_ms, mut late_started) = (0, 0.0, None);
    let started = Instant::now();
    for n in 1..=turns {
        let prompt = format!("bench:chat 1200 {}", text.words(400));
        let io = TurnIo {
            events: Some(compaction_events(Arc::clone(&made), Arc::clone(&failed))),
            ..TurnIo::default()
        };
        match turn(&env, key, &prompt, io).await {
            Ok(success)
                if same_words(&success.run_result.reply_text(), &rule::streamed_text(1200)) =>
            {
                compactions += u64::from(success.auto_compaction_completed);
            }
            Ok(success) => {
                if errors == 0 {
                    eprintln!(
                        "long run: turn {n} answered {:?}",
                        success.run_result.reply_text().get(..80)
                    );
                }
                errors += 1;
            }
            Err(e) => {
                if errors == 0 {
                    eprintln!("long run: turn {n} failed: {e}");
                }
                errors += 1;
            }
        }
        if n == early_turn {
            rss_early_kb = rss()?.now_kb;
            early_turn_ms = millis(started) / early_turn as f64;
        }
        if n == turns - early_turn {
            late_started = Some(Instant::now());
        }
    }
    // Compactions the events saw, in case a turn made more than one.
    compactions = compactions.max(made.load(Ordering::Relaxed));
    let failed = failed.load(Ordering::Relaxed);
    if failed > 0 {
        eprintln!("long run: {failed} compactions failed");
        errors += failed;
    }
    let late_turn_ms = late_started.map_or(0.0, |t| millis(t) / early_turn as f64);
    let wall_s = started.elapsed().as_secs_f64();
    let binding = env
        .sessions
        .bind(key)
        .await
        .map_err(|e| format!("cannot bind {key}: {}", e.message))?;
    Ok(LongRun {
        turns: turns as u64,
        errors,
        compactions,
        early_turn: early_turn as u64,
        rss_early_kb,
        rss_end_kb: rss()?.now_kb,
        early_turn_ms,
        late_turn_ms,
        wall_s,
        file_bytes: std::fs::metadata(&binding.session_file)
            .map(|m| m.len())
            .unwrap_or(0),
    })
}
