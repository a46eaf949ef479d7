//! The LLM idle-timeout watchdog (OpenClaw's `streamWithIdleTimeout`): a stream that produces
//! no event for the timeout ends with a terminal error carrying OpenClaw's idle text, its
//! partial content kept, and the underlying request is cancelled.
//!
//! This is the only idle timer (config `agents.defaults.llm.idleTimeoutSeconds`, default 120 s,
//! `0` disables). The HTTP transport has none: one timer around the stream function covers
//! every stream function alike, including ones that never touch the transport (scripted
//! providers, CLI backends), and its limit is chosen per run while a transport is shared by a
//! whole runtime. Only events count as progress, so a server that keeps the connection busy
//! with SSE comments, blank lines or an event trickling out byte by byte still times out (the
//! wire decoders emit nothing for those; pi's SSE parser drops comments the same way).

use std::future::poll_fn;
use std::sync::Arc;
use std::time::Duration;

use clawloop_core::classify::idle_timeout_message;
use clawloop_core::{
    AssistantEventStream, AssistantMessage, AssistantMessageBuilder, Clock, Context, LlmStream,
    Model, StopReason, StreamOptions, SystemClock,
};

/// OpenClaw's default LLM idle timeout (`agents.defaults.llm.idleTimeoutSeconds = 120`).
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(120);

/// Ends a stream that stays silent for longer than the timeout.
///
/// The timer restarts on every event and covers the wait for the first one (the response head
/// and an error body included). When it fires the inner request is cancelled through a child
/// of `options.cancel` (the caller's token is left alone) and the stream ends with an `error`
/// event of reason `aborted` (SPEC §8.1: an idle timeout aborts the attempt, `timedOut`) whose
/// `errorMessage` is core's [`idle_timeout_message`], `LLM idle timeout (<s>s): no response
/// from model`, with the content so far kept. Core's
/// [`is_idle_timeout_error`](clawloop_core::classify::is_idle_timeout_error) on that text tells
/// it from a user abort (`Request was aborted`). A stream that ends without a terminal event
/// gets the usual "stream ended before completion" error.
///
/// The timer is Tokio's, so the stream must be polled inside a Tokio runtime with time
/// enabled, as every transport-backed stream already is.
#[derive(Clone)]
pub struct IdleWatchdog {
    inner: Arc<dyn LlmStream>,
    timeout: Option<Duration>,
}

impl IdleWatchdog {
    /// Wraps `inner`; `None` or a zero timeout disables the watchdog
    /// (`agents.defaults.llm.idleTimeoutSeconds = 0`).
    pub fn new(inner: Arc<dyn LlmStream>, timeout: Option<Duration>) -> Self {
        IdleWatchdog {
            inner,
            timeout: timeout.filter(|t| !t.is_zero()),
        }
    }

    /// The timeout in force, if any.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }
}

impl LlmStream for IdleWatchdog {
    fn stream(
        &self,
        model: &Model,
        context: &Context,
        mut options: StreamOptions,
    ) -> AssistantEventStream {
        let Some(limit) = self.timeout else {
            return self.inner.stream(model, context, options);
        };
        let request_cancel = options.cancel.child_token();
        options.cancel = request_cancel.clone();
        let initial = AssistantMessage::for_model(model, SystemClock.now_ms());
        let mut inner = self.inner.stream(model, context, options);
        Box::pin(async_stream::stream! {
            let mut builder = AssistantMessageBuilder::new(initial);
            loop {
                let next = poll_fn(|cx| inner.as_mut().poll_next(cx));
                match tokio::time::timeout(limit, next).await {
                    Ok(Some(event)) => {
                        let terminal = event.is_terminal();
                        if !terminal {
                            builder.apply(&event);
                        }
                        yield event;
                        if terminal {
                            return;
                        }
                    }
                    Ok(None) => {
                        yield builder.ended_without_terminal();
                        return;
                    }
                    Err(_) => {
                        request_cancel.cancel();
                        // Dropping the inner stream closes its connection now, not at the end
                        // of this stream's life.
                        drop(inner);
                        yield builder.fail(StopReason::Aborted, idle_timeout_message(limit));
                        return;
                    }
                }
            }
        })
    }
}
