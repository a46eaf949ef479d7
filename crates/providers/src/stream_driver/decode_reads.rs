//! The stream loop over a body already in memory: what [`stream_call`](super::stream_call)
//! does after the response head, without the socket, so fixtures, benchmarks, fuzzing and the
//! test kit's encoders decode a body exactly as a live call would.

use clawloop_core::{AssistantMessageEvent, StopReason};

use super::{BodyDecoder, BodyError, Framing, Progress, WireDecoder};
use crate::transport::TransportError;

/// Decodes `reads` (a body cut where the socket would cut it) framed as `framing`, where one
/// frame may not exceed `max_event_bytes`: `start`, the content events, then exactly one
/// `done` or `error` — the events a live call yields after its response head.
pub fn decode_reads<D: WireDecoder>(
    decoder: D,
    framing: Framing,
    reads: &[&[u8]],
    max_event_bytes: usize,
) -> Vec<AssistantMessageEvent> {
    let mut out = vec![decoder.start()];
    let mut body = BodyDecoder::new(decoder, framing, max_event_bytes);
    let mut result = Ok(());
    let mut complete = false;
    for read in reads {
        match body.feed(read, &mut out) {
            Ok(Progress::More) => {}
            Ok(Progress::Complete) => {
                complete = true;
                break;
            }
            Err(error) => {
                result = Err(error);
                break;
            }
        }
    }
    if !complete && result.is_ok() {
        result = body.end(&mut out);
    }
    end_stream(body.into_decoder(), result, &mut out);
    out
}

/// Ends a stream whose body ended with `result`: `finish` after a whole body, `fail` with the
/// transport's or the decoder's message otherwise.
pub(crate) fn end_stream<D: WireDecoder>(
    decoder: D,
    result: Result<(), BodyError>,
    out: &mut Vec<AssistantMessageEvent>,
) {
    match result {
        Ok(()) => decoder.finish(out),
        Err(BodyError::Transport(error)) => {
            decoder.fail(stop_reason(&error), D::transport_error_message(&error), out);
        }
        Err(BodyError::Decode(message)) => decoder.fail(StopReason::Error, message, out),
    }
}

/// How a transport failure ends the stream: `aborted` when the caller cancelled, else `error`.
pub(crate) fn stop_reason(error: &TransportError) -> StopReason {
    match error {
        TransportError::Aborted => StopReason::Aborted,
        TransportError::Http(_)
        | TransportError::Connect(_)
        | TransportError::Body(_)
        | TransportError::Frame(_) => StopReason::Error,
    }
}

#[cfg(test)]
mod tests {
    use clawloop_core::{AssistantMessage, ModelCost};

    use super::*;
    use crate::openai_completions::ChunkDecoder;

    const BODY: &[u8] = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n\
data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}]}\n\n\
data: [DONE]\n\n";

    fn events(reads: &[&[u8]], limit: usize) -> Vec<AssistantMessageEvent> {
        let initial = AssistantMessage::empty("openai-completions", "openai", "m", 0);
        decode_reads(
            ChunkDecoder::new(initial, ModelCost::default()),
            Framing::Sse,
            reads,
            limit,
        )
    }

    #[test]
    fn a_body_decodes_the_same_however_it_is_cut() {
        let whole = events(&[BODY], 1 << 20);
        let types: Vec<_> = whole.iter().map(AssistantMessageEvent::type_name).collect();
        assert_eq!(types.first(), Some(&"start"));
        assert_eq!(types.last(), Some(&"done"));
        assert_eq!(
            whole
                .last()
                .and_then(|e| e.final_message())
                .map(|m| m.text()),
            Some("Hello".into())
        );
        let bytes: Vec<&[u8]> = BODY.chunks(1).collect();
        assert_eq!(events(&bytes, 1 << 20), whole);
    }

    #[test]
    fn a_frame_over_the_limit_ends_the_stream_with_an_error() {
        let events = events(&[BODY], 16);
        let Some(AssistantMessageEvent::Error { reason, error }) = events.last() else {
            panic!("{events:?}")
        };
        assert_eq!(*reason, StopReason::Error);
        assert!(error.error_message.is_some(), "{error:?}");
    }
}
