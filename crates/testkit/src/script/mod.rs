//! Each wire API's half of a script: a [`ScriptedReply`](crate::ScriptedReply) encoded as the
//! exact body that API streams (`encode_reply`, with its `CONTENT_TYPE`), and FORMAT.md's
//! `roles` view of a request body recorded in that API's format (`wire_roles`).
//! [`encode_reply`](crate::encode_reply) and [`wire_roles`](crate::wire_roles) pick the module
//! by [`Api`](clawloop_core::Api).

pub mod anthropic_messages;
pub mod google_generative_ai;
pub mod ollama;
pub mod openai_completions;
pub mod openai_responses;

/// A scripted body through the providers' own decoding path, one read per chunk
/// ([`decode_reads`](clawloop_providers::stream_driver::decode_reads)): the events a live call
/// yields after its response head, `start` first.
#[cfg(test)]
fn decoded<D: clawloop_providers::stream_driver::WireDecoder>(
    decoder: D,
    chunks: &[Vec<u8>],
) -> Vec<clawloop_core::AssistantMessageEvent> {
    let reads: Vec<&[u8]> = chunks.iter().map(Vec::as_slice).collect();
    clawloop_providers::stream_driver::decode_reads(
        decoder,
        D::framing(None),
        &reads,
        clawloop_providers::transport::DEFAULT_MAX_EVENT_BYTES,
    )
}

/// The message of the terminal event `decoded` ends with.
#[cfg(test)]
fn final_message(
    events: &[clawloop_core::AssistantMessageEvent],
) -> clawloop_core::AssistantMessage {
    match events.last().and_then(|e| e.final_message()) {
        Some(message) => message.clone(),
        None => panic!("no terminal event: {events:?}"),
    }
}

/// `a + b + …`, saturating at `u64::MAX`: a script may carry counters near the top.
fn saturating_sum(counts: impl IntoIterator<Item = u64>) -> u64 {
    counts.into_iter().fold(0, u64::saturating_add)
}
