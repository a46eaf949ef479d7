//! Every lifecycle hook through whole turns over the scripted server: called once at its point,
//! with the run's data, in order; a failing or panicking hook never fails the turn.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod turn_support;

use std::sync::Arc;

use clawloop_core::hooks::{
    AfterToolCallEvent, AgentEndEvent, AgentStartResult, BeforeModelResolveEvent,
    BeforeToolCallEvent, CompactionEvent, HookContext, HookResult, Hooks, LlmInputEvent,
    LlmOutputEvent, ModelOverride, PromptBuildEvent, PromptBuildResult, ToolCallDecision,
};
use clawloop_core::message::AgentMessage;
use clawloop_core::tool::BoxFuture;
use clawloop_runner::turn::{TurnIo, TurnRequest, run_agent_turn_with_fallback};
use parking_lot::Mutex;
use pretty_assertions::assert_eq;
use serde_json::json;
use turn_support::{Scene, overflow, success_text, text, tool_call};

/// One hook call as the recorder saw it.
#[derive(Debug, Clone, PartialEq)]
enum Call {
    ModelResolve(BeforeModelResolveEvent),
    AgentStart(PromptBuildEvent),
    PromptBuild(PromptBuildEvent),
    LlmInput(LlmInputEvent),
    LlmOutput(LlmOutputEvent),
    BeforeTool(BeforeToolCallEvent),
    AfterTool(AfterToolCallEvent),
    BeforeCompaction(CompactionEvent),
    AfterCompaction(CompactionEvent),
    AgentEnd(AgentEndEvent),
}

impl Call {
    fn name(&self) -> &'static str {
        match self {
            Call::ModelResolve(_) => "before_model_resolve",
            Call::AgentStart(_) => "before_agent_start",
            Call::PromptBuild(_) => "before_prompt_build",
            Call::LlmInput(_) => "llm_input",
            Call::LlmOutput(_) => "llm_output",
            Call::BeforeTool(_) => "before_tool_call",
            Call::AfterTool(_) => "after_tool_call",
            Call::BeforeCompaction(_) => "before_compaction",
            Call::AfterCompaction(_) => "after_compaction",
            Call::AgentEnd(_) => "agent_end",
        }
    }
}

/// Records every call (and its context); answers with what it was told; fails every call when
/// `fail` is set, and panics in `agent_end` when `panic` is set.
#[derive(Default)]
struct Recorder {
    calls: Mutex<Vec<(HookContext, Call)>>,
    model: Option<ModelOverride>,
    agent_start: Option<AgentStartResult>,
    fail: bool,
    panic: bool,
    /// Observers never finish.
    hang: bool,
}

impl Recorder {
    fn record<T: Send + 'static>(
        &self,
        ctx: &HookContext,
        call: Call,
        answer: T,
    ) -> BoxFuture<'_, HookResult<T>> {
        let observer = matches!(
            call,
            Call::LlmInput(_) | Call::LlmOutput(_) | Call::AgentEnd(_) | Call::AfterCompaction(_)
        );
        self.calls.lock().push((ctx.clone(), call));
        if self.hang && observer {
            return Box::pin(std::future::pending());
        }
        let fail = self.fail;
        Box::pin(async move {
            if fail {
                Err("the plugin broke".into())
            } else {
                Ok(answer)
            }
        })
    }

    fn names(&self) -> Vec<&'static str> {
        self.calls.lock().iter().map(|(_, c)| c.name()).collect()
    }

    fn calls(&self) -> Vec<Call> {
        self.calls.lock().iter().map(|(_, c)| c.clone()).collect()
    }
}

impl Hooks for Recorder {
    fn before_model_resolve<'a>(
        &'a self,
        ctx: &'a HookContext,
        event: &'a BeforeModelResolveEvent,
    ) -> BoxFuture<'a, HookResult<Option<ModelOverride>>> {
        self.record(ctx, Call::ModelResolve(event.clone()), self.model.clone())
    }
    fn before_prompt_build<'a>(
        &'a self,
        ctx: &'a HookContext,
        event: &'a PromptBuildEvent,
    ) -> BoxFuture<'a, HookResult<Option<PromptBuildResult>>> {
        self.record(ctx, Call::PromptBuild(event.clone()), None)
    }
    fn before_agent_start<'a>(
        &'a self,
        ctx: &'a HookContext,
        event: &'a PromptBuildEvent,
    ) -> BoxFuture<'a, HookResult<Option<AgentStartResult>>> {
        self.record(
            ctx,
            Call::AgentStart(event.clone()),
            self.agent_start.clone(),
        )
    }
    fn llm_input<'a>(
        &'a self,
        ctx: &'a HookContext,
        event: &'a LlmInputEvent,
    ) -> BoxFuture<'a, HookResult<()>> {
        self.record(ctx, Call::LlmInput(event.clone()), ())
    }
    fn llm_output<'a>(
        &'a self,
        ctx: &'a HookContext,
        event: &'a LlmOutputEvent,
    ) -> BoxFuture<'a, HookResult<()>> {
        self.record(ctx, Call::LlmOutput(event.clone()), ())
    }
    fn before_tool_call<'a>(
        &'a self,
        ctx: &'a HookContext,
        event: &'a BeforeToolCallEvent,
    ) -> BoxFuture<'a, HookResult<Option<ToolCallDecision>>> {
        self.record(ctx, Call::BeforeTool(event.clone()), None)
    }
    fn after_tool_call<'a>(
        &'a self,
        ctx: &'a HookContext,
        event: &'a AfterToolCallEvent,
    ) -> BoxFuture<'a, HookResult<()>> {
        self.record(ctx, Call::AfterTool(event.clone()), ())
    }
    fn before_compaction<'a>(
        &'a self,
        ctx: &'a HookContext,
        event: &'a CompactionEvent,
    ) -> BoxFuture<'a, HookResult<()>> {
        self.record(ctx, Call::BeforeCompaction(event.clone()), ())
    }
    fn after_compaction<'a>(
        &'a self,
        ctx: &'a HookContext,
        event: &'a CompactionEvent,
    ) -> BoxFuture<'a, HookResult<()>> {
        self.record(ctx, Call::AfterCompaction(event.clone()), ())
    }
    fn agent_end<'a>(
        &'a self,
        ctx: &'a HookContext,
        event: &'a AgentEndEvent,
    ) -> BoxFuture<'a, HookResult<()>> {
        let answer = self.record(ctx, Call::AgentEnd(event.clone()), ());
        if self.panic {
            panic!("agent_end observer panicked on purpose");
        }
        answer
    }
}

fn request(key: &str, prompt: &str, run_id: &str) -> TurnRequest {
    TurnRequest {
        session_key: key.to_owned(),
        prompt: prompt.to_owned(),
        run_id: Some(run_id.to_owned()),
        ..TurnRequest::default()
    }
}

fn roles(messages: &[AgentMessage]) -> Vec<&'static str> {
    messages
        .iter()
        .map(|m| match m {
            AgentMessage::User(_) => "user",
            AgentMessage::Assistant(_) => "assistant",
            AgentMessage::ToolResult(_) => "toolResult",
            _ => "other",
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_hook_is_called_once_at_its_point_in_order() {
    let hooks = Arc::new(Recorder::default());
    let scene = Scene::new(json!({}), hooks.clone(), |b| b).await;
    scene.server.begin_turn(vec![
        tool_call(
            "call_1",
            "write",
            json!({"path": "notes.txt", "content": "buy milk\n"}),
        ),
        text("Saved your note."),
    ]);
    let prompt = "Save 'buy milk' in notes.txt.";
    let result = run_agent_turn_with_fallback(
        &scene.env,
        request("hooks", prompt, "run-hooks-1"),
        TurnIo::default(),
    )
    .await;
    assert_eq!(success_text(&result), "Saved your note.");
    let report = scene.server.end_turn();
    assert_eq!(report.requests.len(), 2);

    assert_eq!(
        hooks.names(),
        vec![
            "before_model_resolve",
            "before_agent_start",
            "before_prompt_build",
            "llm_input",
            "before_tool_call",
            "after_tool_call",
            "agent_end",
            "llm_output",
        ]
    );
    let recorded = hooks.calls.lock().clone();
    for (ctx, call) in &recorded {
        assert_eq!(
            (
                ctx.agent_id.as_str(),
                ctx.session_key.as_deref(),
                ctx.run_id.as_str(),
                ctx.workspace_dir.as_ref()
            ),
            ("main", Some("hooks"), "run-hooks-1", Some(&scene.workspace)),
            "context of {}",
            call.name()
        );
    }
    let calls = hooks.calls();
    assert_eq!(
        calls[0],
        Call::ModelResolve(BeforeModelResolveEvent {
            prompt: prompt.to_owned()
        })
    );
    assert_eq!(
        calls[1],
        Call::AgentStart(PromptBuildEvent {
            prompt: prompt.to_owned(),
            messages: Arc::from(Vec::new()),
        })
    );
    let Call::PromptBuild(build) = &calls[2] else {
        panic!("{:?}", calls[2])
    };
    assert_eq!((build.prompt.as_str(), build.messages.len()), (prompt, 0));

    let Call::LlmInput(input) = &calls[3] else {
        panic!("{:?}", calls[3])
    };
    let system = input.system_prompt.clone().unwrap_or_default();
    assert!(
        system.contains(&scene.workspace.display().to_string()),
        "{system}"
    );
    assert_eq!(
        input,
        &LlmInputEvent {
            provider: "acme".into(),
            model: "m1".into(),
            system_prompt: Some(system.clone()),
            prompt: prompt.into(),
            history_messages: Arc::from(Vec::new()),
            images_count: 0,
        }
    );
    let Call::BeforeTool(before_tool) = &calls[4] else {
        panic!("{:?}", calls[4])
    };
    assert_eq!(
        before_tool,
        &BeforeToolCallEvent {
            tool_name: "write".into(),
            tool_call_id: "call_1".into(),
            params: json!({"path": "notes.txt", "content": "buy milk\n"}),
        }
    );
    let Call::AfterTool(after_tool) = &calls[5] else {
        panic!("{:?}", calls[5])
    };
    assert_eq!(
        (
            after_tool.tool_call_id.as_str(),
            after_tool.error.as_deref()
        ),
        ("call_1", None)
    );
    let Call::AgentEnd(end) = &calls[6] else {
        panic!("{:?}", calls[6])
    };
    assert_eq!(
        (end.success, end.error.clone(), roles(&end.messages)),
        (
            true,
            None,
            vec!["user", "assistant", "toolResult", "assistant"]
        )
    );
    let Call::LlmOutput(output) = &calls[7] else {
        panic!("{:?}", calls[7])
    };
    assert_eq!(
        (
            output.provider.as_str(),
            output.model.as_str(),
            output.assistant_texts.clone(),
            output
                .last_assistant
                .as_ref()
                .map(|a| clawloop_core::message::join_text(&a.content)),
        ),
        (
            "acme",
            "m1",
            vec!["Saved your note.".to_owned()],
            Some("Saved your note.".to_owned())
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn model_hooks_choose_the_model_field_by_field_and_the_legacy_answer_is_reused() {
    let hooks = Arc::new(Recorder {
        model: Some(ModelOverride {
            provider: None,
            model: Some("b2".into()),
        }),
        agent_start: Some(AgentStartResult {
            prepend_context: Some("Remember: the user is on call.".into()),
            system_prompt: None,
            model_override: ModelOverride {
                provider: Some("bolt".into()),
                model: Some("b1".into()),
            },
        }),
        ..Recorder::default()
    });
    let scene = Scene::new(json!({}), hooks.clone(), |b| b).await;
    scene.server.begin_turn(vec![text("Hello from b2.")]);
    let result = run_agent_turn_with_fallback(
        &scene.env,
        request("override", "Say hello.", "run-override"),
        TurnIo::default(),
    )
    .await;
    assert_eq!(success_text(&result), "Hello from b2.");
    let report = scene.server.end_turn();
    let sent: Vec<_> = report
        .requests
        .iter()
        .map(|r| {
            (
                r.provider().map(str::to_owned),
                r.model.clone(),
                r.last_user_text(),
            )
        })
        .collect();
    assert_eq!(
        sent,
        vec![(
            Some("bolt".to_owned()),
            Some("b2".to_owned()),
            Some("Remember: the user is on call.\n\nSay hello.".to_owned())
        )]
    );
    // The legacy hook ran once, before the model was resolved; the attempt reused its answer.
    assert_eq!(
        hooks.names(),
        vec![
            "before_model_resolve",
            "before_agent_start",
            "before_prompt_build",
            "llm_input",
            "agent_end",
            "llm_output",
        ]
    );
    let Call::LlmInput(input) = &hooks.calls()[3] else {
        panic!()
    };
    assert_eq!(
        (input.provider.as_str(), input.model.as_str()),
        ("bolt", "b2")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failing_and_panicking_hooks_do_not_fail_the_turn() {
    let hooks = Arc::new(Recorder {
        fail: true,
        panic: true,
        ..Recorder::default()
    });
    let scene = Scene::new(json!({}), hooks.clone(), |b| b).await;
    scene.server.begin_turn(vec![
        tool_call(
            "call_1",
            "write",
            json!({"path": "notes.txt", "content": "buy milk\n"}),
        ),
        text("Saved your note."),
    ]);
    let result = run_agent_turn_with_fallback(
        &scene.env,
        request("failing", "Save 'buy milk' in notes.txt.", "run-failing"),
        TurnIo::default(),
    )
    .await;
    assert_eq!(success_text(&result), "Saved your note.");
    // A failing before_tool_call only warns: the tool still ran.
    assert_eq!(
        std::fs::read_to_string(scene.workspace.join("notes.txt")).unwrap(),
        "buy milk\n"
    );
    assert_eq!(
        hooks.names(),
        vec![
            "before_model_resolve",
            "before_agent_start",
            "before_prompt_build",
            "llm_input",
            "before_tool_call",
            "after_tool_call",
            "agent_end",
            "llm_output",
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn observers_that_never_finish_do_not_hold_the_turn() {
    let hooks = Arc::new(Recorder {
        hang: true,
        ..Recorder::default()
    });
    let scene = Scene::new(json!({}), hooks.clone(), |b| b).await;
    scene.server.begin_turn(vec![text("Still here.")]);
    let result = run_agent_turn_with_fallback(
        &scene.env,
        request("hang", "Are you there?", "run-hang"),
        TurnIo::default(),
    )
    .await;
    assert_eq!(success_text(&result), "Still here.");
    assert_eq!(
        hooks.names(),
        vec![
            "before_model_resolve",
            "before_agent_start",
            "before_prompt_build",
            "llm_input",
            "agent_end",
            "llm_output",
        ]
    );
}

/// Seeds the key with one exchange so a compaction has something to summarize.
async fn seed_history(scene: &Scene, key: &str) {
    scene.server.begin_turn(vec![text(
        "Understood: billing deploys Friday 10:00, blue-green, rollback above 2 percent errors.",
    )]);
    let first = run_agent_turn_with_fallback(
        &scene.env,
        request(
            key,
            "We deploy the billing service on Friday at 10:00 with a blue-green rollout.",
            "run-seed",
        ),
        TurnIo::default(),
    )
    .await;
    success_text(&first);
    scene.server.end_turn();
}

fn compaction_calls(hooks: &Recorder) -> Vec<Call> {
    hooks
        .calls()
        .into_iter()
        .filter(|c| matches!(c, Call::BeforeCompaction(_) | Call::AfterCompaction(_)))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compaction_hooks_surround_the_attempts_overflow_compaction() {
    let hooks = Arc::new(Recorder::default());
    let scene = Scene::new(
        json!({"compaction": {"keepRecentTokens": 10}}),
        hooks.clone(),
        |b| b,
    )
    .await;
    seed_history(&scene, "compact").await;
    hooks.calls.lock().clear();

    scene.server.begin_turn(vec![
        overflow(),
        text("SUMMARY: billing deploys Friday 10:00, blue-green."),
        text("Checklist: Friday 10:00, blue-green."),
    ]);
    let result = run_agent_turn_with_fallback(
        &scene.env,
        request("compact", "Write the plan as a checklist.", "run-compact"),
        TurnIo::default(),
    )
    .await;
    assert_eq!(
        success_text(&result),
        "Checklist: Friday 10:00, blue-green."
    );
    assert_eq!(scene.server.end_turn().requests.len(), 3);
    let names = hooks.names();
    assert_eq!(
        names,
        vec![
            "before_model_resolve",
            "before_agent_start",
            "before_prompt_build",
            "llm_input",
            "before_compaction",
            "after_compaction",
            "agent_end",
            "llm_output",
        ]
    );
    assert_compaction_events(&scene, &compaction_calls(&hooks));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compaction_hooks_surround_the_run_loops_compaction() {
    let hooks = Arc::new(Recorder::default());
    // Without auto compaction the attempt ends on the overflow and the run loop compacts.
    let scene = Scene::new(
        json!({"compaction": {"keepRecentTokens": 10, "enabled": false}}),
        hooks.clone(),
        |b| b,
    )
    .await;
    seed_history(&scene, "compact").await;
    hooks.calls.lock().clear();

    scene.server.begin_turn(vec![
        overflow(),
        text("SUMMARY: billing deploys Friday 10:00, blue-green."),
        text("Checklist: Friday 10:00, blue-green."),
    ]);
    let result = run_agent_turn_with_fallback(
        &scene.env,
        request("compact", "Write the plan as a checklist.", "run-compact"),
        TurnIo::default(),
    )
    .await;
    assert_eq!(
        success_text(&result),
        "Checklist: Friday 10:00, blue-green."
    );
    assert_eq!(scene.server.end_turn().requests.len(), 3);
    assert_eq!(
        hooks.names(),
        vec![
            "before_model_resolve",
            "before_agent_start",
            "before_prompt_build",
            "llm_input",
            "agent_end",
            "llm_output",
            "before_compaction",
            "after_compaction",
            "before_prompt_build",
            "llm_input",
            "agent_end",
            "llm_output",
        ]
    );
    assert_compaction_events(&scene, &compaction_calls(&hooks));
}

/// Before: the whole context with a token count; after: fewer messages, the summarized count.
fn assert_compaction_events(scene: &Scene, calls: &[Call]) {
    let [Call::BeforeCompaction(before), Call::AfterCompaction(after)] = calls else {
        panic!("{calls:?}")
    };
    let file = scene
        .store()
        .find_by_key("compact")
        .unwrap()
        .unwrap()
        .transcript_path(&scene.sessions_dir);
    assert_eq!(
        (before.session_file.as_ref(), before.compacted_count),
        (Some(&file), None)
    );
    assert_eq!(after.session_file.as_ref(), Some(&file));
    assert!(before.token_count.is_some_and(|t| t > 0), "{before:?}");
    assert!(after.token_count.is_some(), "{after:?}");
    // The seeded exchange plus this turn's prompt and its overflow error were in the context;
    // the seeded prompt was summarized away and the summary took a place of its own.
    assert_eq!(
        (
            before.message_count,
            after.message_count,
            after.compacted_count
        ),
        (4, 4, Some(1)),
        "{before:?} {after:?}"
    );
}
