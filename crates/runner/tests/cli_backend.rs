//! CLI backends end to end: real child processes (small shell scripts playing Claude Code, the
//! Codex CLI, a plain-text CLI, a silent one, a failing one and one printing garbage) driven
//! through the `LlmStream` interface.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod fake_cli;

use std::future::poll_fn;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use clawloop_core::{
    AssistantEventStream, AssistantMessage, AssistantMessageEvent, ContentBlock, Context,
    LlmStream, ManualClock, Message, Model, StopReason, StreamOptions, Usage, UserMessage,
};
use clawloop_runner::cli_backend::{
    CLI_ABORTED, CLI_SESSION_BINDING_KEY, CliBackendConfig, CliBackendProvider, CliSessionBinding,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const NOW: u64 = 1_700_000_000_000;

/// The fake CLIs. They are written once, before any test spawns a process: a script still
/// open for writing in one thread while another thread forks cannot be executed (ETXTBSY).
fn scripts() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        fake_cli::write_scripts(
            "clawloop-fake-clis-",
            &[
                // Claude Code: prompt on stdin, stream-json lines, a result line with usage.
                ("claude", r#"prompt=$(cat)
printf '%s\n' "$@" > "$FAKE_DIR/args"
printf '%s' "$prompt" > "$FAKE_DIR/stdin"
echo $$ > "$FAKE_DIR/pid"
echo '{"type":"system","subtype":"init","session_id":"sess-42"}'
echo '{"type":"assistant","message":{"content":[{"type":"text","text":"Hello from claude"}],"usage":{"input_tokens":12,"output_tokens":5,"cache_read_input_tokens":3}},"session_id":"sess-42"}'
echo '{"type":"result","subtype":"success","is_error":false,"result":"Hello from claude","session_id":"sess-42","usage":{"input_tokens":999}}'
"#),
                // Claude Code with `--output-format json`: one object.
                ("claude-json", r#"cat > /dev/null
echo '{"type":"result","subtype":"success","is_error":false,"result":"One object","session_id":"sess-json","usage":{"input_tokens":2,"output_tokens":1}}'
"#),
                // Codex: prompt as the last argument, JSONL items; `exec resume` answers in text.
                ("codex", r#"printf '%s\n' "$@" > "$FAKE_DIR/args"
for a in "$@"; do
  case "$a" in
    model_instructions_file=*) f=${a#model_instructions_file=}; f=${f#\"}; f=${f%\"}; cat "$f" > "$FAKE_DIR/system";;
  esac
done
prev=""
for a in "$@"; do
  if [ "$prev" = "--image" ]; then cat "$a" >> "$FAKE_DIR/images"; echo "$a" >> "$FAKE_DIR/image_paths"; fi
  prev=$a
done
if [ "$2" = "resume" ]; then echo "  resumed answer  "; exit 0; fi
echo '{"type":"thread.started","thread_id":"th-7"}'
echo '{"type":"item.completed","item":{"id":"i0","type":"reasoning","text":"hmm"}}'
echo '{"type":"item.completed","item":{"id":"i1","type":"agent_message","text":"Codex says hi"}}'
echo '{"type":"turn.completed","usage":{"input_tokens":40,"cached_input_tokens":10,"output_tokens":7}}'
"#),
                ("text", r#"echo $$ > "$FAKE_DIR/pid"
for last in "$@"; do :; done
printf '\n  you said: %s  \n\n' "$last"
"#),
                // Silent forever, with a grandchild in its process group.
                ("hang", r#"echo $$ > "$FAKE_DIR/pid.tmp" && mv "$FAKE_DIR/pid.tmp" "$FAKE_DIR/pid"
sleep 300 &
echo $! > "$FAKE_DIR/child.tmp" && mv "$FAKE_DIR/child.tmp" "$FAKE_DIR/child"
wait
"#),
                // Holds a lock directory while it works: a second run at the same time fails.
                ("exclusive", r#"mkdir "$FAKE_DIR/lock" 2>/dev/null || { echo "overlapping runs" >&2; exit 1; }
sleep 0.2
rmdir "$FAKE_DIR/lock"
echo "done ${HOME-unset}"
"#),
                ("flood", r#"while :; do echo "lots and lots of output"; done
"#),
                ("fail", r#"echo "half an answer"
echo "warming up" >&2
echo "fatal: the model is overloaded" >&2
exit 3
"#),
                ("fail-json", r#"echo '{"type":"result","is_error":true,"result":"API Error: 429 {\"error\":{\"message\":\"rate limit exceeded\"}}"}'
exit 1
"#),
                ("garbage", r#"printf '\377\376\000garbage {{{ [[ "\n'
printf '{"broken": \001 }}}\n'
"#),
            ],
        )
    })
}

fn model(provider: &str, id: &str) -> Model {
    serde_json::from_value(json!({
        "id": id, "api": "cli", "provider": provider, "contextWindow": 200000, "maxTokens": 8192
    }))
    .unwrap()
}

fn user(text: &str) -> Message {
    Message::User(UserMessage::text(text, NOW))
}

fn context(system: Option<&str>, messages: Vec<Message>) -> Context {
    Context {
        system_prompt: system.map(str::to_owned),
        messages,
        tools: Vec::new(),
    }
}

/// A provider for backend `id` whose command is the fake `script`, with `extra` keys; its
/// scripts write what they saw into `state`.
fn provider(id: &str, script: &str, state: &Path, extra: Value) -> CliBackendProvider {
    let mut table = json!({
        "command": scripts().join(script).to_string_lossy(),
        "env": {"FAKE_DIR": state.to_string_lossy()},
    });
    if let (Some(table), Value::Object(extra)) = (table.as_object_mut(), extra) {
        table.extend(extra);
    }
    let backend = CliBackendConfig::resolve(id, Some(&table)).unwrap();
    CliBackendProvider::new(backend)
        .with_workspace(state)
        .with_clock(Arc::new(ManualClock::new(NOW)))
}

async fn collect(mut stream: AssistantEventStream) -> Vec<AssistantMessageEvent> {
    let mut events = Vec::new();
    while let Some(event) = poll_fn(|cx| stream.as_mut().poll_next(cx)).await {
        events.push(event);
    }
    events
}

fn read(state: &Path, name: &str) -> String {
    std::fs::read_to_string(state.join(name)).unwrap_or_default()
}

fn lines(state: &Path, name: &str) -> Vec<String> {
    read(state, name).lines().map(str::to_owned).collect()
}

fn initial(provider: &str, id: &str) -> AssistantMessage {
    AssistantMessage::for_model(&model(provider, id), NOW)
}

/// The events of a successful call answering `text`.
fn answered(
    start: AssistantMessage,
    text: &str,
    done: AssistantMessage,
) -> Vec<AssistantMessageEvent> {
    vec![
        AssistantMessageEvent::Start {
            partial: Some(Box::new(start)),
        },
        AssistantMessageEvent::TextStart { content_index: 0 },
        AssistantMessageEvent::TextDelta {
            content_index: 0,
            delta: text.into(),
        },
        AssistantMessageEvent::TextEnd {
            content_index: 0,
            content: text.into(),
            content_signature: None,
        },
        AssistantMessageEvent::Done {
            reason: StopReason::Stop,
            message: Box::new(done),
        },
    ]
}

fn failed(
    start: AssistantMessage,
    reason: StopReason,
    message: &str,
) -> Vec<AssistantMessageEvent> {
    let mut error = start.clone();
    error.stop_reason = reason;
    error.error_message = Some(message.into());
    vec![
        AssistantMessageEvent::Start {
            partial: Some(Box::new(start)),
        },
        AssistantMessageEvent::Error {
            reason,
            error: Box::new(error),
        },
    ]
}

fn bound(mut message: AssistantMessage, backend: &str, session: &str) -> AssistantMessage {
    CliSessionBinding {
        backend: backend.into(),
        session_id: session.into(),
    }
    .attach(&mut message);
    message
}

fn with_text(mut message: AssistantMessage, text: &str) -> AssistantMessage {
    message.content = vec![ContentBlock::text(text)];
    message
}

/// Whether `pid` is gone: no process at all (a zombie would still answer signal 0).
fn gone(pid: i32) -> bool {
    let pid = rustix::process::Pid::from_raw(pid).unwrap();
    rustix::process::test_kill_process(pid).is_err()
}

/// Whether `pid` no longer runs: gone, or a zombie waiting for a reaper that is not ours
/// (a grandchild is reparented to init when its parent dies).
fn not_running(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

/// Waits until `condition` holds. SIGKILL is delivered asynchronously, so a grandchild may
/// take a moment to die; the wait is generous and only bounds a broken run, it asserts no time.
async fn eventually(what: &str, condition: impl Fn() -> bool) {
    for _ in 0..3000 {
        if condition() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("never happened: {what}");
}

fn pid(state: &Path, name: &str) -> i32 {
    read(state, name).trim().parse().unwrap()
}

#[tokio::test]
async fn claude_like_cli_answers_binds_its_session_and_resumes() {
    let state = tempfile::tempdir().unwrap();
    let claude = provider("claude-cli", "claude", state.path(), json!({}));
    let model = model("claude-cli", "claude-opus-4-6");
    let first = context(Some("Be brief."), vec![user("What is 2+2?")]);
    let events = collect(claude.stream(&model, &first, StreamOptions::default())).await;

    let mut done = with_text(
        initial("claude-cli", "claude-opus-4-6"),
        "Hello from claude",
    );
    done.usage = Usage {
        input: 12,
        output: 5,
        cache_read: 3,
        total_tokens: 20,
        ..Usage::default()
    };
    let done = bound(done, "claude-cli", "sess-42");
    assert_eq!(
        events,
        answered(
            initial("claude-cli", "claude-opus-4-6"),
            "Hello from claude",
            done.clone()
        )
    );
    assert_eq!(
        done.extra.get(CLI_SESSION_BINDING_KEY),
        Some(&json!({"backend": "claude-cli", "sessionId": "sess-42"}))
    );
    // The prompt went to stdin; the preset's flags, the aliased model, the system prompt (new
    // session) and a fresh session id were passed.
    assert_eq!(read(state.path(), "stdin"), "What is 2+2?");
    let args = lines(state.path(), "args");
    assert_eq!(
        &args[..9],
        &CliBackendConfig::resolve("claude-cli", None).unwrap().args[..]
    );
    assert_eq!(
        &args[9..13],
        &["--model", "opus", "--append-system-prompt", "Be brief."]
    );
    assert_eq!(args[13], "--session-id");
    assert_eq!(args[14].len(), 36, "a UUID: {}", args[14]);
    assert!(gone(pid(state.path(), "pid")), "the CLI was reaped");

    // The next call finds the binding in the history and resumes: no system prompt again.
    let next = context(
        Some("Be brief."),
        vec![
            user("What is 2+2?"),
            Message::Assistant(done),
            user("And 3+3?"),
        ],
    );
    let events = collect(claude.stream(&model, &next, StreamOptions::default())).await;
    assert_eq!(events.len(), 5);
    assert_eq!(read(state.path(), "stdin"), "And 3+3?");
    let args = lines(state.path(), "args");
    assert_eq!(&args[9..], &["--resume", "sess-42", "--model", "opus"]);
}

#[tokio::test]
async fn json_output_is_one_object() {
    let state = tempfile::tempdir().unwrap();
    let cli = provider(
        "claude",
        "claude-json",
        state.path(),
        json!({"output": "json"}),
    );
    let events = collect(cli.stream(
        &model("claude", "sonnet"),
        &context(None, vec![user("hi")]),
        StreamOptions::default(),
    ))
    .await;
    let mut done = with_text(initial("claude", "sonnet"), "One object");
    done.usage = Usage {
        input: 2,
        output: 1,
        total_tokens: 3,
        ..Usage::default()
    };
    assert_eq!(
        events,
        answered(
            initial("claude", "sonnet"),
            "One object",
            bound(done, "claude", "sess-json")
        )
    );
}

#[tokio::test]
async fn codex_like_cli_reads_jsonl_gets_files_and_resumes_as_text() {
    let state = tempfile::tempdir().unwrap();
    let codex = provider("codex-cli", "codex", state.path(), json!({}));
    let model = model("codex-cli", "gpt-5.4");
    let mut message = UserMessage::text("Describe the picture", NOW);
    if let clawloop_core::UserContent::Blocks(blocks) = &mut message.content {
        blocks.push(ContentBlock::image("aW1hZ2UtYnl0ZXM=", "image/png"));
    }
    let first = context(Some("You are terse."), vec![Message::User(message)]);
    let events = collect(codex.stream(&model, &first, StreamOptions::default())).await;
    let mut done = with_text(initial("codex-cli", "gpt-5.4"), "Codex says hi");
    done.usage = Usage {
        input: 40,
        output: 7,
        cache_read: 10,
        total_tokens: 57,
        ..Usage::default()
    };
    let done = bound(done, "codex-cli", "th-7");
    assert_eq!(
        events,
        answered(
            initial("codex-cli", "gpt-5.4"),
            "Codex says hi",
            done.clone()
        )
    );
    // The system prompt reached the CLI as a file, the image as a file, the prompt as the
    // argument before the image flags.
    assert_eq!(read(state.path(), "system"), "You are terse.");
    assert_eq!(read(state.path(), "images"), "image-bytes");
    let args = lines(state.path(), "args");
    let image_path = read(state.path(), "image_paths").trim().to_owned();
    assert_eq!(
        &args[7..],
        &[
            "--model".to_owned(),
            "gpt-5.4".to_owned(),
            "-c".to_owned(),
            args[10].clone(),
            "Describe the picture".to_owned(),
            "--image".to_owned(),
            image_path.clone(),
        ]
    );
    assert!(
        args[10].starts_with("model_instructions_file=\""),
        "{}",
        args[10]
    );
    assert!(
        !Path::new(&image_path).exists(),
        "scratch files are removed after the call"
    );

    let next = context(
        Some("You are terse."),
        vec![Message::Assistant(done), user("Again")],
    );
    let events = collect(codex.stream(&model, &next, StreamOptions::default())).await;
    let resumed = bound(
        with_text(initial("codex-cli", "gpt-5.4"), "resumed answer"),
        "codex-cli",
        "th-7",
    );
    assert_eq!(
        events,
        answered(initial("codex-cli", "gpt-5.4"), "resumed answer", resumed)
    );
    assert_eq!(
        lines(state.path(), "args"),
        vec![
            "exec",
            "resume",
            "th-7",
            "--dangerously-bypass-approvals-and-sandbox",
            "--model",
            "gpt-5.4",
            "Again"
        ]
    );
}

#[tokio::test]
async fn text_cli_answers_with_its_trimmed_stdout() {
    let state = tempfile::tempdir().unwrap();
    let cli = provider(
        "echo-cli",
        "text",
        state.path(),
        json!({"output": "text", "sessionMode": "none"}),
    );
    let events = collect(cli.stream(
        &model("echo-cli", "any"),
        &context(Some("ignored: no system prompt flag"), vec![user("ping")]),
        StreamOptions::default(),
    ))
    .await;
    assert_eq!(
        events,
        answered(
            initial("echo-cli", "any"),
            "you said: ping",
            with_text(initial("echo-cli", "any"), "you said: ping")
        )
    );
    assert!(gone(pid(state.path(), "pid")));
}

#[tokio::test]
async fn a_silent_cli_is_killed_by_the_watchdog() {
    let state = tempfile::tempdir().unwrap();
    let cli = provider("hang-cli", "hang", state.path(), json!({"output": "text"}))
        .with_no_output_timeout(Duration::from_millis(300));
    let events = collect(cli.stream(
        &model("hang-cli", "m"),
        &context(None, vec![user("anyone?")]),
        StreamOptions::default(),
    ))
    .await;
    assert_eq!(
        events,
        failed(
            initial("hang-cli", "m"),
            StopReason::Error,
            "CLI produced no output for 0.3s and was terminated."
        )
    );
    // Whatever the script had started when it was killed is gone with it.
    if state.path().join("pid").exists() {
        assert!(gone(pid(state.path(), "pid")));
    }
    if state.path().join("child").exists() {
        let child = pid(state.path(), "child");
        eventually("the grandchild dies", || not_running(child)).await;
    }
}

#[tokio::test]
async fn the_configured_watchdog_uses_openclaws_text() {
    let state = tempfile::tempdir().unwrap();
    // The smallest configurable timeout is one second.
    let cli = provider(
        "hang-cli",
        "hang",
        state.path(),
        json!({"output": "text", "noOutputTimeoutMs": 10}),
    );
    let events = collect(cli.stream(
        &model("hang-cli", "m"),
        &context(None, vec![user("anyone?")]),
        StreamOptions::default(),
    ))
    .await;
    assert_eq!(
        events
            .last()
            .and_then(|e| e.final_message())
            .and_then(|m| m.error_message.clone()),
        Some("CLI produced no output for 1s and was terminated.".to_owned())
    );
}

#[tokio::test]
async fn cancelling_kills_the_whole_process_group() {
    let state = tempfile::tempdir().unwrap();
    let cli = provider("hang-cli", "hang", state.path(), json!({"output": "text"}));
    let cancel = CancellationToken::new();
    let options = StreamOptions {
        cancel: cancel.clone(),
        ..StreamOptions::default()
    };
    let stream = cli.stream(
        &model("hang-cli", "m"),
        &context(None, vec![user("wait")]),
        options,
    );
    let run = tokio::spawn(collect(stream));
    eventually("the CLI and its grandchild run", || {
        state.path().join("child").exists()
    })
    .await;
    let (leader, child) = (pid(state.path(), "pid"), pid(state.path(), "child"));
    assert!(
        !gone(leader) && !not_running(child),
        "both run before the cancel"
    );
    cancel.cancel();
    let events = run.await.unwrap();
    assert_eq!(
        events,
        failed(initial("hang-cli", "m"), StopReason::Aborted, CLI_ABORTED)
    );
    assert!(gone(leader), "the CLI was killed and reaped: no zombie");
    // The grandchild got the same SIGKILL.
    eventually("the grandchild dies", || not_running(child)).await;
}

#[tokio::test]
async fn dropping_the_stream_kills_the_cli() {
    let state = tempfile::tempdir().unwrap();
    let cli = provider("hang-cli", "hang", state.path(), json!({"output": "text"}));
    let mut stream = cli.stream(
        &model("hang-cli", "m"),
        &context(None, vec![user("wait")]),
        StreamOptions::default(),
    );
    let first = poll_fn(|cx| stream.as_mut().poll_next(cx)).await;
    assert!(matches!(first, Some(AssistantMessageEvent::Start { .. })));
    let poller = async {
        poll_fn(|cx| stream.as_mut().poll_next(cx)).await;
    };
    // Drive the run until the CLI is up, then drop it mid-flight.
    tokio::select! {
        () = poller => panic!("the silent CLI cannot finish"),
        () = eventually("the CLI and its grandchild run", || state.path().join("child").exists()) => {}
    }
    let (leader, child) = (pid(state.path(), "pid"), pid(state.path(), "child"));
    drop(stream);
    eventually("the CLI dies", || not_running(leader)).await;
    eventually("the grandchild dies", || not_running(child)).await;
}

#[tokio::test]
async fn a_failing_cli_reports_its_stderr_and_exit_code() {
    let state = tempfile::tempdir().unwrap();
    let cli = provider("bad-cli", "fail", state.path(), json!({"output": "text"}));
    let events = collect(cli.stream(
        &model("bad-cli", "m"),
        &context(None, vec![user("go")]),
        StreamOptions::default(),
    ))
    .await;
    assert_eq!(
        events,
        failed(
            initial("bad-cli", "m"),
            StopReason::Error,
            "warming up\nfatal: the model is overloaded (CLI exited with code 3)"
        )
    );

    let cli = provider(
        "claude-cli",
        "fail-json",
        state.path(),
        json!({"output": "json"}),
    );
    let events = collect(cli.stream(
        &model("claude-cli", "opus"),
        &context(None, vec![user("go")]),
        StreamOptions::default(),
    ))
    .await;
    assert_eq!(
        events,
        failed(
            initial("claude-cli", "opus"),
            StopReason::Error,
            "rate limit exceeded (CLI exited with code 1)"
        )
    );
}

#[tokio::test]
async fn garbage_output_never_panics() {
    let state = tempfile::tempdir().unwrap();
    for format in ["json", "jsonl", "text"] {
        let cli = provider(
            "junk-cli",
            "garbage",
            state.path(),
            json!({"output": format}),
        );
        let events = collect(cli.stream(
            &model("junk-cli", "m"),
            &context(None, vec![user("go")]),
            StreamOptions::default(),
        ))
        .await;
        // Nothing recognizable: the raw text (invalid UTF-8 replaced) is the answer.
        let text = "\u{FFFD}\u{FFFD}\0garbage {{{ [[ \"\n{\"broken\": \u{1} }}}";
        assert_eq!(
            events,
            answered(
                initial("junk-cli", "m"),
                text,
                with_text(initial("junk-cli", "m"), text)
            ),
            "output {format}"
        );
    }
}

#[tokio::test]
async fn a_missing_program_fails_before_start() {
    let state = tempfile::tempdir().unwrap();
    let backend = CliBackendConfig::resolve(
        "ghost",
        Some(&json!({"command": state.path().join("no-such-cli").to_string_lossy()})),
    )
    .unwrap();
    let cli = CliBackendProvider::new(backend).with_clock(Arc::new(ManualClock::new(NOW)));
    let events = collect(cli.stream(
        &model("ghost", "m"),
        &context(None, vec![user("hello?")]),
        StreamOptions::default(),
    ))
    .await;
    assert_eq!(events.len(), 1);
    let message = events[0]
        .final_message()
        .and_then(|m| m.error_message.clone())
        .unwrap_or_default();
    assert!(
        message.starts_with("CLI backend ghost could not start `")
            && message.contains("no-such-cli"),
        "{message}"
    );

    // No user message: nothing to send.
    let events = collect(cli.stream(
        &model("ghost", "m"),
        &context(None, Vec::new()),
        StreamOptions::default(),
    ))
    .await;
    assert_eq!(
        events
            .iter()
            .map(|e| e.final_message().and_then(|m| m.error_message.clone()))
            .collect::<Vec<_>>(),
        vec![Some(
            "CLI backend ghost needs a user message to send".to_owned()
        )]
    );
}

#[tokio::test]
async fn an_already_cancelled_call_starts_nothing() {
    let state = tempfile::tempdir().unwrap();
    let cli = provider("echo-cli", "text", state.path(), json!({"output": "text"}));
    let cancel = CancellationToken::new();
    cancel.cancel();
    let events = collect(cli.stream(
        &model("echo-cli", "m"),
        &context(None, vec![user("x")]),
        StreamOptions {
            cancel,
            ..StreamOptions::default()
        },
    ))
    .await;
    assert_eq!(events.len(), 1);
    assert_eq!(
        events[0]
            .final_message()
            .map(|m| (m.stop_reason, m.error_message.clone())),
        Some((StopReason::Aborted, Some(CLI_ABORTED.to_owned())))
    );
    assert!(!state.path().join("pid").exists(), "the CLI never ran");
}

#[tokio::test]
async fn the_overall_timeout_kills_the_cli() {
    let state = tempfile::tempdir().unwrap();
    let cli = provider("hang-cli", "hang", state.path(), json!({"output": "text"}))
        .with_timeout(Some(Duration::from_millis(300)));
    let events = collect(cli.stream(
        &model("hang-cli", "m"),
        &context(None, vec![user("x")]),
        StreamOptions::default(),
    ))
    .await;
    assert_eq!(
        events,
        failed(
            initial("hang-cli", "m"),
            StopReason::Error,
            "CLI exceeded timeout (0.3s) and was terminated."
        )
    );
}

#[tokio::test]
async fn endless_output_is_cut_off() {
    let state = tempfile::tempdir().unwrap();
    let cli = provider(
        "flood-cli",
        "flood",
        state.path(),
        json!({"output": "text"}),
    )
    .with_max_output_bytes(100_000);
    let events = collect(cli.stream(
        &model("flood-cli", "m"),
        &context(None, vec![user("x")]),
        StreamOptions::default(),
    ))
    .await;
    assert_eq!(
        events,
        failed(
            initial("flood-cli", "m"),
            StopReason::Error,
            "CLI output exceeded 100000 bytes and was terminated."
        )
    );
}

#[tokio::test]
async fn serialized_runs_do_not_overlap_and_clear_env_applies() {
    let state = tempfile::tempdir().unwrap();
    let cli = provider(
        "solo-cli",
        "exclusive",
        state.path(),
        json!({"output": "text", "clearEnv": ["HOME"]}),
    );
    assert!(cli.backend().serialize);
    let model = model("solo-cli", "m");
    let ctx = context(None, vec![user("x")]);
    let (a, b) = tokio::join!(
        collect(cli.stream(&model, &ctx, StreamOptions::default())),
        collect(cli.clone().stream(&model, &ctx, StreamOptions::default())),
    );
    for events in [a, b] {
        assert_eq!(
            events
                .last()
                .and_then(|e| e.final_message())
                .map(AssistantMessage::text),
            Some("done unset".to_owned())
        );
    }
}

#[test]
fn a_bad_cli_backend_table_fails_the_config_naming_its_key() {
    let err = clawloop_runner::config::Config::from_value(json!({
        "cliBackends": {"my-cli": {"command": "x", "sessionMode": "sometimes"}}
    }))
    .err()
    .map(|e| e.path);
    assert_eq!(err.as_deref(), Some("cliBackends.my-cli.sessionMode"));
    let err = clawloop_runner::config::Config::from_value(json!({
        "cliBackends": {"my-cli": {"args": ["--json"]}}
    }))
    .err()
    .map(|e| e.to_string());
    assert_eq!(
        err.as_deref(),
        Some(
            "config key `cliBackends.my-cli.command`: is required: a program name or [program, args…]"
        )
    );
    // The presets need nothing.
    assert!(
        clawloop_runner::config::Config::from_value(json!({"cliBackends": {"claude-cli": {}}}))
            .is_ok()
    );
}
