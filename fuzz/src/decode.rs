//! A response body through a wire API's public decoding path, as the stream loop runs it:
//! `start`, [`BodyDecoder`] over the reads, then `finish` or `fail`.

use clawloop_core::message::ContentBlock;
use clawloop_core::{AssistantMessage, AssistantMessageEvent, ModelCost};
use clawloop_providers::stream_driver::{WireDecoder, decode_reads};
use clawloop_providers::transport::DEFAULT_MAX_EVENT_BYTES;

use crate::split::{Rng, reads};

/// Prices that make every usage counter matter for the cost.
pub const PRICES: ModelCost = ModelCost {
    input: 3.0,
    output: 15.0,
    cache_read: 0.3,
    cache_write: 3.75,
};

/// The message a decoder starts from.
pub fn initial(api: &str, provider: &str) -> AssistantMessage {
    AssistantMessage::empty(api, provider, "fuzz-model", 1_700_000_000_000)
}

/// Decodes `body` as it would arrive with each `content type` (the decoder picks the framing),
/// once in one read and once cut into small reads, and checks that both give the same events
/// and that those events form a well-made stream.
pub fn check_body<D: WireDecoder>(make: impl Fn() -> D, body: &[u8]) {
    let mut rng = Rng::from_bytes(body);
    // Mostly the real limit; sometimes a small one, so that the size checks are reached.
    let limit = if rng.next() % 4 == 0 {
        rng.range(8, 2048)
    } else {
        DEFAULT_MAX_EVENT_BYTES
    };
    for content_type in [Some("text/event-stream"), Some("application/json")] {
        let whole = run(make(), content_type, &[body], limit);
        let pieces = reads(body, &mut rng, 48);
        let split = run(make(), content_type, &pieces, limit);
        assert_eq!(
            whole, split,
            "the events depend on how the body was cut into reads"
        );
        check_stream(&whole);
    }
}

/// The events of one body, as `stream_call` yields them after the response head.
fn run<D: WireDecoder>(
    decoder: D,
    content_type: Option<&str>,
    reads: &[&[u8]],
    limit: usize,
) -> Vec<AssistantMessageEvent> {
    decode_reads(decoder, D::framing(content_type), reads, limit)
}

/// `start` first, exactly one terminal event and it last, every content event inside the
/// final message, and a final message that survives a transcript round trip.
pub fn check_stream(events: &[AssistantMessageEvent]) {
    assert!(
        matches!(events.first(), Some(AssistantMessageEvent::Start { .. })),
        "the stream does not begin with start"
    );
    let terminals = events.iter().filter(|e| e.is_terminal()).count();
    assert_eq!(terminals, 1, "the stream has {terminals} terminal events");
    let Some(last) = events.last() else {
        return;
    };
    let Some(message) = last.final_message() else {
        panic!("the last event is not terminal: {}", last.type_name());
    };
    match last {
        AssistantMessageEvent::Error { reason, error } => {
            assert!(reason.is_failure(), "an error event with reason {reason:?}");
            assert!(
                error.error_message.is_some(),
                "an error event without errorMessage"
            );
        }
        AssistantMessageEvent::Done { reason, .. } => {
            assert!(!reason.is_failure(), "a done event with reason {reason:?}");
        }
        _ => {}
    }
    for event in events {
        if let Some(index) = event.content_index() {
            let block = message.content.get(index);
            assert!(
                block.is_some(),
                "{} at content index {index} but the message has {} blocks",
                event.type_name(),
                message.content.len()
            );
            let kind_fits = matches!(
                (event, block),
                (
                    AssistantMessageEvent::TextStart { .. }
                        | AssistantMessageEvent::TextDelta { .. }
                        | AssistantMessageEvent::TextEnd { .. },
                    Some(ContentBlock::Text(_))
                ) | (
                    AssistantMessageEvent::ThinkingStart { .. }
                        | AssistantMessageEvent::ThinkingDelta { .. }
                        | AssistantMessageEvent::ThinkingEnd { .. },
                    Some(ContentBlock::Thinking(_))
                ) | (
                    AssistantMessageEvent::ToolcallStart { .. }
                        | AssistantMessageEvent::ToolcallDelta { .. }
                        | AssistantMessageEvent::ToolcallEnd { .. },
                    Some(ContentBlock::ToolCall(_))
                )
            );
            assert!(
                kind_fits,
                "{} at content index {index} names a block of another kind",
                event.type_name()
            );
        }
    }
    // The message is what the session appends: its line must read back as the same message.
    let line = match serde_json::to_string(message) {
        Ok(line) => line,
        Err(error) => panic!("the final message does not serialize: {error}"),
    };
    let back: AssistantMessage = match serde_json::from_str(&line) {
        Ok(back) => back,
        Err(error) => panic!("the final message does not read back: {error}: {line}"),
    };
    let mut expected = message.clone();
    expected.error_diagnostics = None;
    assert_eq!(back, expected, "the final message changes through JSON");
}
