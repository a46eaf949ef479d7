//! Execution semantics with fake tools (pi-mono §2.3): parallel results in call order,
//! sequential mode, steering skips, hooks, streaming updates, cancellation.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clawloop_core::agent_event::AgentEvent;
use clawloop_core::clock::ManualClock;
use clawloop_core::hooks::HookResult;
use clawloop_core::message::{
    AgentMessage, ContentBlock, ToolCall, ToolResultMessage, UserMessage,
};
use clawloop_core::tool::{
    AgentToolResult, BoxFuture, Tool, ToolContext, ToolError, ToolResult, ToolUpdate,
};
use clawloop_tools::call_hooks::{
    AfterToolCall, AfterToolCallOutcome, BeforeToolCall, BeforeToolCallOutcome, ToolCallHooks,
};
use clawloop_tools::execute::{
    EventSink, ExecutionMode, ExecutionOutcome, SteeringPoll, ToolExecutor,
};
use clawloop_tools::registry::ToolRegistry;
use pretty_assertions::assert_eq;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

type Behaviour = Arc<
    dyn Fn(
            Value,
            CancellationToken,
            ToolUpdate,
        ) -> BoxFuture<'static, Result<ToolResult, ToolError>>
        + Send
        + Sync,
>;

/// A tool whose `execute` runs `behaviour`.
struct Fake {
    name: &'static str,
    schema: Value,
    behaviour: Behaviour,
}

impl Tool for Fake {
    fn name(&self) -> &str {
        self.name
    }
    fn label(&self) -> &str {
        self.name
    }
    fn description(&self) -> &str {
        "fake"
    }
    fn parameters(&self) -> &Value {
        &self.schema
    }
    fn execute<'a>(
        &'a self,
        _tool_call_id: &'a str,
        args: Value,
        _ctx: &'a ToolContext,
        cancel: CancellationToken,
        on_update: ToolUpdate,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
        (self.behaviour)(args, cancel, on_update)
    }
}

fn fake<F, Fut>(name: &'static str, behaviour: F) -> Arc<dyn Tool>
where
    F: Fn(Value, CancellationToken, ToolUpdate) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = Result<ToolResult, ToolError>> + Send + 'static,
{
    Arc::new(Fake {
        name,
        schema: json!({
            "type": "object",
            "properties": {"text": {"type": "string"}, "ms": {"type": "integer"}},
        }),
        behaviour: Arc::new(move |args, cancel, update| Box::pin(behaviour(args, cancel, update))),
    })
}

/// Echoes `text` after sleeping `ms`.
fn sleeper() -> Arc<dyn Tool> {
    fake("sleep", |args, _cancel, _update| async move {
        let ms = args["ms"].as_u64().unwrap_or(0);
        tokio::time::sleep(Duration::from_millis(ms)).await;
        Ok(ToolResult::text(
            args["text"].as_str().unwrap_or("").to_owned(),
        ))
    })
}

fn call(id: &str, name: &str, args: Value) -> ToolCall {
    ToolCall::new(id, name, args)
}

/// Records events as short strings.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<String>>>);

impl Recorder {
    fn sink(&self) -> EventSink {
        let log = self.0.clone();
        Arc::new(move |event: AgentEvent| {
            let line = match event {
                AgentEvent::ToolExecutionStart { tool_call_id, .. } => {
                    format!("start {tool_call_id}")
                }
                AgentEvent::ToolExecutionUpdate {
                    tool_call_id,
                    partial_result,
                    args,
                    ..
                } => format!(
                    "update {tool_call_id} {} {args}",
                    text_of(&partial_result.content)
                ),
                AgentEvent::ToolExecutionEnd {
                    tool_call_id,
                    result,
                    is_error,
                    ..
                } => format!(
                    "end {tool_call_id} {}{}",
                    if is_error { "error " } else { "" },
                    text_of(&result.content)
                ),
                AgentEvent::MessageStart { message } => {
                    format!("message_start {}", id_of(&message))
                }
                AgentEvent::MessageEnd { message } => format!("message_end {}", id_of(&message)),
                other => format!("other {}", other.type_name()),
            };
            log.lock().unwrap().push(line);
        })
    }

    fn lines(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }

    /// Only the start and end lines.
    fn starts_and_ends(&self) -> Vec<String> {
        self.lines()
            .into_iter()
            .filter(|l| l.starts_with("start") || l.starts_with("end"))
            .collect()
    }
}

fn text_of(content: &[ContentBlock]) -> String {
    clawloop_core::message::join_text(content)
}

fn id_of(message: &AgentMessage) -> String {
    match message {
        AgentMessage::ToolResult(result) => result.tool_call_id.clone(),
        _ => "?".to_owned(),
    }
}

fn summary(results: &[ToolResultMessage]) -> Vec<(String, bool, String)> {
    results
        .iter()
        .map(|r| (r.tool_call_id.clone(), r.is_error, r.text_content()))
        .collect()
}

fn owned(rows: &[(&str, bool, &str)]) -> Vec<(String, bool, String)> {
    rows.iter()
        .map(|(id, e, t)| ((*id).to_owned(), *e, (*t).to_owned()))
        .collect()
}

fn strings(lines: &[&str]) -> Vec<String> {
    lines.iter().map(|l| (*l).to_owned()).collect()
}

fn executor(tools: Vec<Arc<dyn Tool>>) -> ToolExecutor {
    ToolExecutor::new(ToolRegistry::from_tools(tools).unwrap())
        .with_clock(Arc::new(ManualClock::new(1_000)))
}

fn ctx() -> ToolContext {
    ToolContext::new("/ws")
}

/// Runs `calls` in [`ctx`] with a fresh cancellation token, recording the events in `rec`.
async fn run(exec: &ToolExecutor, calls: &[ToolCall], rec: &Recorder) -> ExecutionOutcome {
    exec.execute(calls, &ctx(), &CancellationToken::new(), &rec.sink())
        .await
}

#[tokio::test]
async fn parallel_calls_run_concurrently_and_finish_in_call_order() {
    let exec = executor(vec![sleeper()]);
    let rec = Recorder::default();
    let calls = [
        call("c1", "sleep", json!({"text": "one", "ms": 400})),
        call("c2", "sleep", json!({"text": "two", "ms": 10})),
        call("c3", "sleep", json!({"text": "three", "ms": 400})),
    ];
    let started = Instant::now();
    let outcome = run(&exec, &calls, &rec).await;
    assert!(
        started.elapsed() < Duration::from_millis(750),
        "calls ran one after another: {:?}",
        started.elapsed()
    );
    assert_eq!(
        summary(&outcome.results),
        owned(&[
            ("c1", false, "one"),
            ("c2", false, "two"),
            ("c3", false, "three")
        ])
    );
    assert_eq!(
        rec.lines(),
        strings(&[
            "start c1",
            "start c2",
            "start c3",
            "end c1 one",
            "message_start c1",
            "message_end c1",
            "end c2 two",
            "message_start c2",
            "message_end c2",
            "end c3 three",
            "message_start c3",
            "message_end c3",
        ])
    );
    assert_eq!(outcome.steering, Vec::new());
    assert_eq!(
        outcome.results[0],
        ToolResultMessage {
            tool_call_id: "c1".into(),
            tool_name: "sleep".into(),
            content: vec![ContentBlock::text("one")],
            details: None,
            is_error: false,
            timestamp: 1_000,
            extra: Map::new(),
        }
    );
}

#[tokio::test]
async fn immediate_failures_keep_their_place_in_call_order_in_parallel_mode() {
    let exec = executor(vec![sleeper()]);
    let rec = Recorder::default();
    let calls = [
        call("c1", "sleep", json!({"text": "ok", "ms": 20})),
        call("c2", "nope", json!({})),
        call("c3", "sleep", json!({"text": 5, "ms": "fast"})),
    ];
    let outcome = run(&exec, &calls, &rec).await;
    let invalid = "Validation failed for tool \"sleep\":\n  - ms: must be integer\n\n\
                   Received arguments:\n{\n  \"text\": 5,\n  \"ms\": \"fast\"\n}";
    assert_eq!(
        summary(&outcome.results),
        owned(&[
            ("c1", false, "ok"),
            ("c2", true, "Tool nope not found"),
            ("c3", true, invalid),
        ])
    );
    // pi's error result shape: `details: {}`.
    assert_eq!(outcome.results[1].details, Some(json!({})));
    assert_eq!(
        rec.starts_and_ends(),
        strings(&[
            "start c1",
            "start c2",
            "start c3",
            "end c1 ok",
            "end c2 error Tool nope not found",
            &format!("end c3 error {invalid}"),
        ])
    );
}

#[tokio::test]
async fn a_call_with_refused_arguments_is_an_error_and_never_runs() {
    let ran = Arc::new(AtomicUsize::new(0));
    let count = ran.clone();
    let exec = executor(vec![fake("probe", move |_a, _c, _u| {
        count.fetch_add(1, Ordering::SeqCst);
        async { Ok(ToolResult::text("ran")) }
    })]);
    let reason = "tool call arguments exceed 4194304 bytes".to_owned();
    let calls = [
        ToolCall::refused("c1", "probe", reason.clone()),
        call("c2", "probe", json!({})),
    ];
    let outcome = run(&exec, &calls, &Recorder::default()).await;
    assert_eq!(
        summary(&outcome.results),
        owned(&[("c1", true, &reason), ("c2", false, "ran")])
    );
    assert_eq!(ran.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn arguments_reach_the_tool_coerced() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let exec = executor(vec![fake("probe", move |args, _c, _u| {
        sink.lock().unwrap().push(args);
        async { Ok(ToolResult::text("ok")) }
    })]);
    run(
        &exec,
        &[call("c1", "probe", json!({"text": 12, "ms": "7"}))],
        &Recorder::default(),
    )
    .await;
    assert_eq!(*seen.lock().unwrap(), vec![json!({"text": "12", "ms": 7})]);
}

#[tokio::test]
async fn sequential_mode_runs_one_call_at_a_time() {
    let running = Arc::new(AtomicUsize::new(0));
    let max = Arc::new(AtomicUsize::new(0));
    let (r, m) = (running.clone(), max.clone());
    let exec = executor(vec![fake("one", move |args, _c, _u| {
        let (r, m) = (r.clone(), m.clone());
        async move {
            let now = r.fetch_add(1, Ordering::SeqCst) + 1;
            m.fetch_max(now, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(30)).await;
            r.fetch_sub(1, Ordering::SeqCst);
            Ok(ToolResult::text(
                args["text"].as_str().unwrap_or("").to_owned(),
            ))
        }
    })])
    .with_mode(ExecutionMode::Sequential);
    let rec = Recorder::default();
    let calls = [
        call("c1", "one", json!({"text": "a"})),
        call("c2", "missing", json!({})),
        call("c3", "one", json!({"text": "c"})),
    ];
    let outcome = run(&exec, &calls, &rec).await;
    assert_eq!(max.load(Ordering::SeqCst), 1);
    assert_eq!(
        summary(&outcome.results),
        owned(&[
            ("c1", false, "a"),
            ("c2", true, "Tool missing not found"),
            ("c3", false, "c"),
        ])
    );
    assert_eq!(
        rec.starts_and_ends(),
        strings(&[
            "start c1",
            "end c1 a",
            "start c2",
            "end c2 error Tool missing not found",
            "start c3",
            "end c3 c",
        ])
    );
}

/// A steering poll that reports a message on its `n`-th call (1-based) and nothing otherwise.
fn steering_on(n: usize) -> (SteeringPoll, Arc<AtomicUsize>) {
    let polls = Arc::new(AtomicUsize::new(0));
    let counter = polls.clone();
    let poll: SteeringPoll = Arc::new(move || {
        if counter.fetch_add(1, Ordering::SeqCst) + 1 == n {
            vec![AgentMessage::User(UserMessage::text("stop", 5))]
        } else {
            Vec::new()
        }
    });
    (poll, polls)
}

#[tokio::test]
async fn steering_skips_the_remaining_calls_in_sequential_mode() {
    let (poll, polls) = steering_on(1);
    let exec = executor(vec![sleeper()])
        .with_mode(ExecutionMode::Sequential)
        .with_steering(poll);
    let rec = Recorder::default();
    let calls = [
        call("c1", "sleep", json!({"text": "a"})),
        call("c2", "sleep", json!({"text": "b"})),
        call("c3", "sleep", json!({"text": "c"})),
    ];
    let outcome = run(&exec, &calls, &rec).await;
    let skipped = "Skipped due to queued user message.";
    assert_eq!(
        summary(&outcome.results),
        owned(&[
            ("c1", false, "a"),
            ("c2", true, skipped),
            ("c3", true, skipped)
        ])
    );
    assert_eq!(
        rec.starts_and_ends(),
        strings(&[
            "start c1",
            "end c1 a",
            "start c2",
            &format!("end c2 error {skipped}"),
            "start c3",
            &format!("end c3 error {skipped}"),
        ])
    );
    assert_eq!(
        outcome.steering,
        vec![AgentMessage::User(UserMessage::text("stop", 5))]
    );
    assert_eq!(polls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn steering_skips_prepared_and_remaining_calls_in_parallel_mode() {
    let ran = Arc::new(AtomicUsize::new(0));
    let counter = ran.clone();
    let exec = executor(vec![fake("count", move |_a, _c, _u| {
        counter.fetch_add(1, Ordering::SeqCst);
        async { Ok(ToolResult::text("ran")) }
    })])
    .with_steering(steering_on(2).0);
    let rec = Recorder::default();
    let calls = [
        call("c1", "count", json!({})),
        call("c2", "count", json!({})),
        call("c3", "count", json!({})),
    ];
    let outcome = run(&exec, &calls, &rec).await;
    let skipped = "Skipped due to queued user message.";
    assert_eq!(ran.load(Ordering::SeqCst), 0);
    assert_eq!(
        summary(&outcome.results),
        owned(&[
            ("c1", true, skipped),
            ("c2", true, skipped),
            ("c3", true, skipped)
        ])
    );
    // Prepared calls get no second start; the call not yet prepared gets one.
    assert_eq!(
        rec.starts_and_ends(),
        strings(&[
            "start c1",
            "start c2",
            &format!("end c1 error {skipped}"),
            &format!("end c2 error {skipped}"),
            "start c3",
            &format!("end c3 error {skipped}"),
        ])
    );
    assert_eq!(outcome.steering.len(), 1);
}

#[tokio::test]
async fn steering_after_parallel_execution_is_returned() {
    // Three polls: after each of two preparations, then once at the end.
    let exec = executor(vec![sleeper()]).with_steering(steering_on(3).0);
    let calls = [
        call("c1", "sleep", json!({"text": "a"})),
        call("c2", "sleep", json!({"text": "b"})),
    ];
    let outcome = run(&exec, &calls, &Recorder::default()).await;
    assert_eq!(
        summary(&outcome.results),
        owned(&[("c1", false, "a"), ("c2", false, "b")])
    );
    assert_eq!(outcome.steering.len(), 1);
}

/// Blocks `blocked`, blocks `silent` without a reason, rewrites `rewrite`'s arguments, fails on
/// `broken`, and replaces the result of `sleep` calls whose text is `patch`.
struct TestHooks;

impl ToolCallHooks for TestHooks {
    fn before_tool_call<'a>(
        &'a self,
        call: BeforeToolCall<'a>,
        _cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, HookResult<Option<BeforeToolCallOutcome>>> {
        Box::pin(async move {
            Ok(match call.tool_call.id.as_str() {
                "blocked" => Some(BeforeToolCallOutcome {
                    block: true,
                    reason: Some("not today".into()),
                    args: None,
                }),
                "silent" => Some(BeforeToolCallOutcome {
                    block: true,
                    ..Default::default()
                }),
                "rewrite" => Some(BeforeToolCallOutcome {
                    args: Some(json!({"text": "rewritten"})),
                    ..Default::default()
                }),
                "broken" => return Err("hook exploded".into()),
                _ => None,
            })
        })
    }

    fn after_tool_call<'a>(
        &'a self,
        call: AfterToolCall<'a>,
        _cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, HookResult<Option<AfterToolCallOutcome>>> {
        Box::pin(async move {
            if call.args["text"] == "patch" {
                assert_eq!(text_of(&call.result.content), "patch");
                return Ok(Some(AfterToolCallOutcome {
                    content: Some(vec![ContentBlock::text("patched")]),
                    details: Some(json!({"by": "hook"})),
                    is_error: Some(true),
                }));
            }
            if call.args["text"] == "keep" {
                return Ok(Some(AfterToolCallOutcome {
                    details: Some(json!({"only": "details"})),
                    ..Default::default()
                }));
            }
            Ok(None)
        })
    }
}

#[tokio::test]
async fn hooks_block_rewrite_and_replace_results() {
    let exec = executor(vec![sleeper()]).with_hooks(Arc::new(TestHooks));
    let calls = [
        call("blocked", "sleep", json!({"text": "x"})),
        call("silent", "sleep", json!({"text": "x"})),
        call("rewrite", "sleep", json!({"text": "x"})),
        call("broken", "sleep", json!({"text": "x"})),
        call("patch", "sleep", json!({"text": "patch"})),
        call("keep", "sleep", json!({"text": "keep"})),
    ];
    let outcome = run(&exec, &calls, &Recorder::default()).await;
    assert_eq!(
        summary(&outcome.results),
        owned(&[
            ("blocked", true, "not today"),
            ("silent", true, "Tool execution was blocked"),
            ("rewrite", false, "rewritten"),
            ("broken", true, "hook exploded"),
            ("patch", true, "patched"),
            ("keep", false, "keep"),
        ])
    );
    assert_eq!(outcome.results[4].details, Some(json!({"by": "hook"})));
    assert_eq!(outcome.results[5].details, Some(json!({"only": "details"})));
}

#[tokio::test]
async fn updates_stream_between_start_and_end_with_the_original_arguments() {
    let leaked: Arc<Mutex<Option<ToolUpdate>>> = Arc::new(Mutex::new(None));
    let keep = leaked.clone();
    let exec = executor(vec![fake("stream", move |_args, _c, update| {
        *keep.lock().unwrap() = Some(update.clone());
        async move {
            update(AgentToolResult::text("1"));
            tokio::time::sleep(Duration::from_millis(5)).await;
            update(AgentToolResult::text("2"));
            Ok(ToolResult::text("done"))
        }
    })]);
    let rec = Recorder::default();
    run(&exec, &[call("c1", "stream", json!({"ms": "3"}))], &rec).await;
    // An update after the end (from a task the tool left behind) is dropped.
    let late = leaked.lock().unwrap().take().unwrap();
    late(AgentToolResult::text("late"));
    assert_eq!(
        rec.lines(),
        strings(&[
            "start c1",
            r#"update c1 1 {"ms":"3"}"#,
            r#"update c1 2 {"ms":"3"}"#,
            "end c1 done",
            "message_start c1",
            "message_end c1",
        ])
    );
}

#[tokio::test]
async fn tool_errors_and_panics_become_error_results() {
    let exec = executor(vec![
        fake("fails", |_a, _c, _u| async {
            Err(ToolError::Failed("File not found: x".into()))
        }),
        fake("panics", |_a, _c, _u| async { panic!("boom") }),
        fake("soft", |_a, _c, _u| async {
            Ok(ToolResult::error("soft failure"))
        }),
    ]);
    let calls = [
        call("c1", "fails", json!({})),
        call("c2", "panics", json!({})),
        call("c3", "soft", json!({})),
    ];
    let outcome = run(&exec, &calls, &Recorder::default()).await;
    assert_eq!(
        summary(&outcome.results),
        owned(&[
            ("c1", true, "File not found: x"),
            ("c2", true, "Tool panics panicked: boom"),
            ("c3", true, "soft failure"),
        ])
    );
    assert_eq!(outcome.results[0].details, Some(json!({})));
}

#[tokio::test]
async fn cancellation_reaches_tools_and_stragglers_are_aborted() {
    let exec = executor(vec![
        // Honours cancellation with its own result.
        fake("polite", |_a, cancel: CancellationToken, _u| async move {
            cancel.cancelled().await;
            Err(ToolError::Failed(
                "partial output\n\nCommand aborted".into(),
            ))
        }),
        // Ignores it.
        fake("stubborn", |_a, _c, _u| async {
            tokio::time::sleep(Duration::from_secs(60)).await;
            Ok(ToolResult::text("too late"))
        }),
    ])
    .with_abort_grace(Duration::from_millis(100));
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let outcome = exec
        .execute(
            &[
                call("c1", "polite", json!({})),
                call("c2", "stubborn", json!({})),
            ],
            &ctx(),
            &cancel,
            &Recorder::default().sink(),
        )
        .await;
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(
        summary(&outcome.results),
        owned(&[
            ("c1", true, "partial output\n\nCommand aborted"),
            ("c2", true, "Operation aborted"),
        ])
    );
}

#[test]
fn without_a_runtime_tools_run_inline() {
    let exec = executor(vec![fake("sync", |_a, _c, _u| async {
        Ok(ToolResult::text("inline"))
    })]);
    let outcome = futures_lite_block_on(run(
        &exec,
        &[call("c1", "sync", json!({}))],
        &Recorder::default(),
    ));
    assert_eq!(summary(&outcome.results), owned(&[("c1", false, "inline")]));
}

/// Polls a future that never waits on I/O or timers to completion.
fn futures_lite_block_on<F: std::future::Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
    }
}

/// A core plugin hook that blocks `sleep` calls whose text is `deny` and rewrites `swap`.
struct Plugin {
    observed: Mutex<Vec<(String, Option<String>)>>,
}

impl clawloop_core::hooks::Hooks for Plugin {
    fn before_tool_call<'a>(
        &'a self,
        _ctx: &'a clawloop_core::hooks::HookContext,
        event: &'a clawloop_core::hooks::BeforeToolCallEvent,
    ) -> BoxFuture<'a, HookResult<Option<clawloop_core::hooks::ToolCallDecision>>> {
        Box::pin(async move {
            Ok(match event.params["text"].as_str() {
                Some("deny") => Some(clawloop_core::hooks::ToolCallDecision {
                    block: true,
                    block_reason: Some("denied by plugin".into()),
                    params: None,
                }),
                Some("swap") => Some(clawloop_core::hooks::ToolCallDecision {
                    params: Some(json!({"text": "swapped"})),
                    ..Default::default()
                }),
                _ => None,
            })
        })
    }

    fn after_tool_call<'a>(
        &'a self,
        _ctx: &'a clawloop_core::hooks::HookContext,
        event: &'a clawloop_core::hooks::AfterToolCallEvent,
    ) -> BoxFuture<'a, HookResult<()>> {
        Box::pin(async move {
            let text = event.result.as_ref().map(|r| text_of(&r.content));
            self.observed
                .lock()
                .unwrap()
                .push((event.tool_call_id.clone(), text));
            Ok(())
        })
    }
}

#[tokio::test]
async fn core_plugin_hooks_adapt_to_the_executor() {
    let plugin = Arc::new(Plugin {
        observed: Mutex::new(Vec::new()),
    });
    let hooks = clawloop_tools::call_hooks::PluginHooks::new(
        plugin.clone(),
        clawloop_core::hooks::HookContext::default(),
    );
    let exec = executor(vec![sleeper()])
        .with_mode(ExecutionMode::Sequential)
        .with_hooks(Arc::new(hooks));
    let calls = [
        call("c1", "sleep", json!({"text": "deny"})),
        call("c2", "sleep", json!({"text": "swap"})),
    ];
    let outcome = run(&exec, &calls, &Recorder::default()).await;
    assert_eq!(
        summary(&outcome.results),
        owned(&[("c1", true, "denied by plugin"), ("c2", false, "swapped")])
    );
    // Blocked calls never ran, so only the executed one is observed.
    assert_eq!(
        *plugin.observed.lock().unwrap(),
        vec![("c2".to_owned(), Some("swapped".to_owned()))]
    );
}
