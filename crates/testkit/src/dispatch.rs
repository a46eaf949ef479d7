//! Per-API scripting: each wire API's reply encoder and roles reader (its module's
//! `script.rs`), chosen by [`Api`]. APIs outside the five (`Api::Other`) have neither, which
//! callers report instead of guessing.

use clawloop_core::Api;
use serde_json::Value;

use super::ScriptedReply;
use crate::script::anthropic_messages;
use crate::script::google_generative_ai;
use crate::script::ollama;
use crate::script::openai_completions;
use crate::script::openai_responses;

/// A reply encoded for one API: its data chunks and their `content-type`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedReply {
    /// The body as data chunks (one SSE event or NDJSON line each), in order.
    pub chunks: Vec<Vec<u8>>,
    /// The `content-type` of the stream.
    pub content_type: &'static str,
}

/// `reply` in `api`'s wire format for `model_id`; `None` when clawloop has no encoder for
/// `api` (yet).
pub fn encode_reply(api: &Api, reply: &ScriptedReply, model_id: &str) -> Option<EncodedReply> {
    let (chunks, content_type) = match api {
        Api::OpenaiCompletions => (
            openai_completions::encode_reply(reply, model_id),
            openai_completions::CONTENT_TYPE,
        ),
        Api::OpenaiResponses => (
            openai_responses::encode_reply(reply, model_id),
            openai_responses::CONTENT_TYPE,
        ),
        Api::AnthropicMessages => (
            anthropic_messages::encode_reply(reply, model_id),
            anthropic_messages::CONTENT_TYPE,
        ),
        Api::GoogleGenerativeAi => (
            google_generative_ai::encode_reply(reply, model_id),
            google_generative_ai::CONTENT_TYPE,
        ),
        Api::Ollama => (ollama::encode_reply(reply, model_id), ollama::CONTENT_TYPE),
        Api::Other(_) => return None,
    };
    Some(EncodedReply {
        chunks,
        content_type,
    })
}

/// The normalized wire roles of a request body (FORMAT.md `roles`); `None` when clawloop
/// cannot read `api`'s messages (yet).
pub fn wire_roles(api: &Api, request_body: &Value) -> Option<Vec<String>> {
    Some(match api {
        Api::OpenaiCompletions => openai_completions::wire_roles(request_body),
        Api::OpenaiResponses => openai_responses::wire_roles(request_body),
        Api::AnthropicMessages => anthropic_messages::wire_roles(request_body),
        Api::GoogleGenerativeAi => google_generative_ai::wire_roles(request_body),
        Api::Ollama => ollama::wire_roles(request_body),
        Api::Other(_) => return None,
    })
}

/// The `content-type` of `api`'s streams (`text/event-stream` for APIs clawloop does not
/// know).
pub fn stream_content_type(api: &Api) -> &'static str {
    match api {
        Api::OpenaiCompletions => openai_completions::CONTENT_TYPE,
        Api::OpenaiResponses => openai_responses::CONTENT_TYPE,
        Api::AnthropicMessages => anthropic_messages::CONTENT_TYPE,
        Api::GoogleGenerativeAi => google_generative_ai::CONTENT_TYPE,
        Api::Ollama => ollama::CONTENT_TYPE,
        Api::Other(_) => "text/event-stream",
    }
}
