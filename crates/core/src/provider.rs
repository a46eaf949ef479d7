//! The provider seam: one model call as a stream of [`AssistantMessageEvent`]s.

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};

use futures_core::Stream;

use crate::message::AssistantMessage;
use crate::model::{Context, Model, StreamOptions};
use crate::stream_event::{AssistantMessageBuilder, AssistantMessageEvent};

/// The events of one model call.
pub type AssistantEventStream = Pin<Box<dyn Stream<Item = AssistantMessageEvent> + Send>>;

/// Streams one model call (pi's stream function). The runner holds it as
/// `Arc<dyn LlmStream>`, so an embedder can swap in any implementation.
///
/// Contract:
/// * **Exactly one request, no retries**, no key rotation, no fallback: the runner owns every
///   policy and needs to see each failure.
/// * `stream` does not fail: every failure — before or after the request opens — is the
///   stream's final `error` event (reason `error`, or `aborted` once `options.cancel` fired),
///   with partial content kept and `errorMessage` set. The stream ends after its single
///   terminal event (see [`crate::stream_event`]).
/// * The returned stream must not borrow `model` or `context`: build the request body from
///   them before returning, so the history is not copied again for the async part.
/// * Cancelling `options.cancel` closes the connection promptly.
pub trait LlmStream: Send + Sync {
    /// Starts the call and returns its events.
    fn stream(
        &self,
        model: &Model,
        context: &Context,
        options: StreamOptions,
    ) -> AssistantEventStream;
}

impl<F> LlmStream for F
where
    F: Fn(&Model, &Context, StreamOptions) -> AssistantEventStream + Send + Sync,
{
    fn stream(
        &self,
        model: &Model,
        context: &Context,
        options: StreamOptions,
    ) -> AssistantEventStream {
        self(model, context, options)
    }
}

/// A stream that yields `events` in order (for tests and scripted providers).
pub fn stream_of(events: Vec<AssistantMessageEvent>) -> AssistantEventStream {
    Box::pin(Scripted {
        events: events.into(),
    })
}

struct Scripted {
    events: VecDeque<AssistantMessageEvent>,
}

impl Stream for Scripted {
    type Item = AssistantMessageEvent;

    fn poll_next(self: Pin<&mut Self>, _cx: &mut TaskContext<'_>) -> Poll<Option<Self::Item>> {
        Poll::Ready(self.get_mut().events.pop_front())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.events.len(), Some(self.events.len()))
    }
}

/// Enforces the terminal-event contract on any stream: it ends right after the first `done` or
/// `error`, and a stream that ends without one gets a final `error` event
/// ("stream ended before completion") carrying the content streamed so far. `initial` is the
/// message to report if the stream ends before even `start`.
pub fn ensure_terminal(
    inner: AssistantEventStream,
    initial: AssistantMessage,
) -> AssistantEventStream {
    Box::pin(EnsureTerminal {
        inner,
        builder: Some(AssistantMessageBuilder::new(initial)),
    })
}

struct EnsureTerminal {
    inner: AssistantEventStream,
    /// `None` once the terminal event went out.
    builder: Option<AssistantMessageBuilder>,
}

impl Stream for EnsureTerminal {
    type Item = AssistantMessageEvent;

    fn poll_next(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        let Some(builder) = this.builder.as_mut() else {
            return Poll::Ready(None);
        };
        match this.inner.as_mut().poll_next(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Some(event)) => {
                if event.is_terminal() {
                    this.builder = None;
                } else {
                    builder.apply(&event);
                }
                Poll::Ready(Some(event))
            }
            Poll::Ready(None) => Poll::Ready(
                this.builder
                    .take()
                    .map(AssistantMessageBuilder::ended_without_terminal),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::StopReason;
    use crate::message::ContentBlock;
    use crate::model::Api;
    use crate::stream_event::STREAM_ENDED_BEFORE_COMPLETION;
    use pretty_assertions::assert_eq;
    use std::sync::Arc;
    use std::task::Waker;

    /// Polls a stream that never returns `Pending` to its end.
    fn collect(mut stream: AssistantEventStream) -> Vec<AssistantMessageEvent> {
        let mut cx = TaskContext::from_waker(Waker::noop());
        let mut out = Vec::new();
        while let Poll::Ready(Some(event)) = stream.as_mut().poll_next(&mut cx) {
            out.push(event);
        }
        out
    }

    fn initial() -> AssistantMessage {
        AssistantMessage::empty(Api::Ollama, "ollama", "m", 1)
    }

    #[test]
    fn closures_are_providers() {
        let provider: Arc<dyn LlmStream> = Arc::new(|_: &Model, _: &Context, _: StreamOptions| {
            stream_of(vec![
                AssistantMessageBuilder::new(initial()).finish(StopReason::Stop),
            ])
        });
        let model: Model = serde_json::from_value(serde_json::json!({
            "id": "m", "api": "ollama", "provider": "ollama", "contextWindow": 1, "maxTokens": 1
        }))
        .unwrap();
        let events =
            collect(provider.stream(&model, &Context::default(), StreamOptions::default()));
        assert_eq!(events.len(), 1);
        assert!(matches!(
            events[0],
            AssistantMessageEvent::Done {
                reason: StopReason::Stop,
                ..
            }
        ));
    }

    #[test]
    fn a_stream_without_terminal_event_ends_in_an_error() {
        let inner = stream_of(vec![
            AssistantMessageEvent::Start {
                partial: Some(Box::new(initial())),
            },
            AssistantMessageEvent::TextStart { content_index: 0 },
            AssistantMessageEvent::TextDelta {
                content_index: 0,
                delta: "half an ans".into(),
            },
        ]);
        let events = collect(ensure_terminal(
            inner,
            AssistantMessage::empty("x", "x", "x", 0),
        ));
        assert_eq!(events.len(), 4);
        let mut expected = initial();
        expected.content = vec![ContentBlock::text("half an ans")];
        expected.stop_reason = StopReason::Error;
        expected.error_message = Some(STREAM_ENDED_BEFORE_COMPLETION.into());
        assert_eq!(
            events[3],
            AssistantMessageEvent::Error {
                reason: StopReason::Error,
                error: Box::new(expected)
            }
        );
    }

    #[test]
    fn nothing_follows_the_terminal_event() {
        let done = AssistantMessageBuilder::new(initial()).finish(StopReason::Stop);
        let inner = stream_of(vec![
            done.clone(),
            AssistantMessageEvent::TextStart { content_index: 0 },
            done.clone(),
        ]);
        assert_eq!(collect(ensure_terminal(inner, initial())), vec![done]);

        let empty = collect(ensure_terminal(stream_of(Vec::new()), initial()));
        assert_eq!(empty.len(), 1);
        assert_eq!(empty[0].final_message().map(|m| m.timestamp), Some(1));
    }
}
