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

/// `a + b + …`, saturating at `u64::MAX`: a script may carry counters near the top.
fn saturating_sum(counts: impl IntoIterator<Item = u64>) -> u64 {
    counts.into_iter().fold(0, u64::saturating_add)
}
