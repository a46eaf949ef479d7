//! A stream adaptor that rewrites each event as it passes, for the wrappers that fix up a
//! provider's response without buffering it.

use std::future::poll_fn;

use clawloop_core::{AssistantEventStream, AssistantMessageEvent};

/// `inner` with every event passed through `rewrite`, in order, one for one.
pub(crate) fn map_events(
    mut inner: AssistantEventStream,
    mut rewrite: impl FnMut(AssistantMessageEvent) -> AssistantMessageEvent + Send + 'static,
) -> AssistantEventStream {
    Box::pin(async_stream::stream! {
        // `poll_next` is callable on the trait object without naming the `Stream` trait, which
        // keeps `futures-core` a dev-only dependency of this crate.
        while let Some(event) = poll_fn(|cx| inner.as_mut().poll_next(cx)).await {
            yield rewrite(event);
        }
    })
}
