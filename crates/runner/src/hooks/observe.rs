//! Fire-and-forget observers (`llm_input`, `llm_output`, `before_compaction`,
//! `after_compaction`, `agent_end`): the run never waits for one and never fails because of one.
//!
//! An observer is started inline — its first poll runs at the point of the call, so observers
//! see events in the order they happen — and whatever it still has to await runs detached on
//! the tokio runtime. Its error, or its panic, is only logged.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use clawloop_core::hooks::{
    AgentEndEvent, CompactionEvent, HookContext, HookResult, Hooks, LlmInputEvent, LlmOutputEvent,
};

/// One observer call with its event.
#[derive(Debug, Clone, PartialEq)]
pub enum ObserverEvent {
    /// `llm_input`.
    LlmInput(LlmInputEvent),
    /// `llm_output`.
    LlmOutput(LlmOutputEvent),
    /// `before_compaction`.
    BeforeCompaction(CompactionEvent),
    /// `after_compaction`.
    AfterCompaction(CompactionEvent),
    /// `agent_end`.
    AgentEnd(AgentEndEvent),
}

impl ObserverEvent {
    /// The hook's name, as logs and OpenClaw's plugins call it.
    pub fn hook_name(&self) -> &'static str {
        match self {
            ObserverEvent::LlmInput(_) => "llm_input",
            ObserverEvent::LlmOutput(_) => "llm_output",
            ObserverEvent::BeforeCompaction(_) => "before_compaction",
            ObserverEvent::AfterCompaction(_) => "after_compaction",
            ObserverEvent::AgentEnd(_) => "agent_end",
        }
    }
}

/// The hooks of one run with the run's context: what every observer call needs.
#[derive(Clone)]
pub struct HookObserver {
    hooks: Arc<dyn Hooks>,
    context: HookContext,
}

impl std::fmt::Debug for HookObserver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HookObserver")
            .field("context", &self.context)
            .finish_non_exhaustive()
    }
}

impl HookObserver {
    /// Observers of `hooks` for the run `context` names.
    pub fn new(hooks: Arc<dyn Hooks>, context: HookContext) -> Self {
        HookObserver { hooks, context }
    }

    /// The run's context.
    pub fn context(&self) -> &HookContext {
        &self.context
    }

    /// The hooks.
    pub fn hooks(&self) -> &Arc<dyn Hooks> {
        &self.hooks
    }

    /// Calls the observer for `event` without waiting for it.
    pub fn notify(&self, event: ObserverEvent) {
        let hooks = Arc::clone(&self.hooks);
        let context = self.context.clone();
        let name = event.hook_name();
        let call = async move {
            let result: HookResult<()> = match &event {
                ObserverEvent::LlmInput(e) => hooks.llm_input(&context, e).await,
                ObserverEvent::LlmOutput(e) => hooks.llm_output(&context, e).await,
                ObserverEvent::BeforeCompaction(e) => hooks.before_compaction(&context, e).await,
                ObserverEvent::AfterCompaction(e) => hooks.after_compaction(&context, e).await,
                ObserverEvent::AgentEnd(e) => hooks.agent_end(&context, e).await,
            };
            if let Err(err) = result {
                tracing::warn!(target: "clawloop::hooks", "{name} hook failed: {err}");
            }
        };
        start_detached(name, Box::pin(call));
    }
}

type Detached = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// Polls `task` once here, then leaves the rest to the runtime.
fn start_detached(name: &'static str, mut task: Detached) {
    // The no-op waker is never relied on: a task that is still pending is spawned, and a
    // spawned task is polled again by the runtime with its own waker.
    let mut cx = Context::from_waker(Waker::noop());
    let first = std::panic::catch_unwind(AssertUnwindSafe(|| task.as_mut().poll(&mut cx)));
    match first {
        Ok(Poll::Ready(())) => {}
        Ok(Poll::Pending) => match tokio::runtime::Handle::try_current() {
            Ok(handle) => {
                handle.spawn(async move {
                    let guarded = CatchUnwind { inner: task };
                    if guarded.await.is_err() {
                        tracing::warn!(target: "clawloop::hooks", "{name} hook panicked");
                    }
                });
            }
            Err(_) => {
                tracing::warn!(target: "clawloop::hooks", "{name} hook could not finish: no async runtime to run it on");
            }
        },
        Err(_) => tracing::warn!(target: "clawloop::hooks", "{name} hook panicked"),
    }
}

/// Resolves to `Err` when the inner future panics, so a detached observer's panic is logged
/// like its errors.
struct CatchUnwind {
    inner: Detached,
}

impl Future for CatchUnwind {
    type Output = Result<(), ()>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = &mut self.inner;
        match std::panic::catch_unwind(AssertUnwindSafe(|| inner.as_mut().poll(cx))) {
            Ok(Poll::Ready(())) => Poll::Ready(Ok(())),
            Ok(Poll::Pending) => Poll::Pending,
            Err(_) => Poll::Ready(Err(())),
        }
    }
}
