//! Streams with many content blocks and tool calls, one per wire API (issue 10 item 8): `n`
//! rounds of a thinking block, a text block in two deltas and a tool call whose arguments
//! arrive in two fragments (whole, for the APIs that send calls whole). A decoder that looks
//! up its block or call by a search over all earlier ones, or copies what it accumulated per
//! event, costs O(n²) here; a linear one costs four times as much for four times the rounds.

use std::fmt::Write as _;

use clawloop_core::{AssistantMessage, ModelCost};
use clawloop_providers::anthropic_messages::EventDecoder;
use clawloop_providers::stream_driver::Framing;
use clawloop_providers::{google_generative_ai, ollama, openai_completions, openai_responses};

use super::decode_body;

/// The five wire APIs, by the names the example and the bench use.
pub const APIS: [&str; 5] = ["completions", "responses", "anthropic", "gemini", "ollama"];

/// A Responses stream of `n` `function_call` items that are all open at once (issue 22 item 6):
/// every item is added, then each call's arguments arrive in two interleaved passes, then
/// every item is done. A decoder, or the message builder behind it, that searches the open
/// calls per event costs O(n²) here, which the sequential rounds never show. Its final message
/// has `n` blocks, not `3n`.
pub const PARALLEL: &str = "responses-parallel";

/// The body of `n` rounds in `api`'s wire format ([`PARALLEL`]: `n` parallel calls).
pub fn body(api: &str, n: usize) -> String {
    let mut out = String::new();
    if api == PARALLEL {
        parallel_calls(&mut out, n);
        return out;
    }
    for i in 0..n {
        match api {
            "completions" => completions_round(&mut out, i),
            "responses" => responses_round(&mut out, i),
            "anthropic" => anthropic_round(&mut out, i),
            "gemini" => gemini_round(&mut out, i),
            _ => ollama_round(&mut out, i),
        }
    }
    match api {
        "completions" => {
            sse(&mut out, "", r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#);
            sse(&mut out, "", "[DONE]");
        }
        "responses" => sse(
            &mut out,
            "response.completed",
            r#"{"type":"response.completed","response":{"status":"completed","usage":{"input_tokens":9,"output_tokens":9,"total_tokens":18}}}"#,
        ),
        "anthropic" => {
            sse(&mut out, "message_delta", r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}"#);
            sse(&mut out, "message_stop", r#"{"type":"message_stop"}"#);
        }
        "gemini" => sse(
            &mut out,
            "",
            r#"{"candidates":[{"content":{"role":"model","parts":[]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":9,"totalTokenCount":18}}"#,
        ),
        _ => out.push_str(
            "{\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\",\"prompt_eval_count\":9,\"eval_count\":9}\n",
        ),
    }
    out
}

/// The framing `api`'s body is read with.
pub fn framing(api: &str) -> Framing {
    if api == "ollama" {
        Framing::Ndjson
    } else {
        Framing::Sse
    }
}

/// Decodes `reads` of `api`'s body through the stream loop's body handling; the number of
/// content blocks of the final message.
pub fn decode(api: &str, reads: &[&[u8]]) -> Result<usize, String> {
    let initial = |name: &str| AssistantMessage::empty(name, "bench", "bench", 0);
    let prices = ModelCost::default();
    let framing = framing(api);
    let message = match api {
        "completions" => decode_body(
            openai_completions::ChunkDecoder::new(initial("openai-completions"), prices),
            framing,
            reads,
        ),
        "responses" | PARALLEL => decode_body(
            openai_responses::ResponsesDecoder::new(initial("openai-responses"), prices),
            framing,
            reads,
        ),
        "anthropic" => decode_body(
            EventDecoder::new(initial("anthropic-messages"), prices),
            framing,
            reads,
        ),
        "gemini" => decode_body(
            google_generative_ai::ChunkDecoder::new(initial("google-generative-ai"), prices),
            framing,
            reads,
        ),
        _ => decode_body(
            ollama::ChunkDecoder::new(initial("ollama"), prices),
            framing,
            reads,
        ),
    }?;
    Ok(message.content.len())
}

fn sse(out: &mut String, event: &str, data: &str) {
    if !event.is_empty() {
        let _ = writeln!(out, "event: {event}");
    }
    let _ = write!(out, "data: {data}\n\n");
}

fn completions_round(out: &mut String, i: usize) {
    let delta = |out: &mut String, delta: &str| {
        sse(
            out,
            "",
            &format!(r#"{{"choices":[{{"index":0,"delta":{delta},"finish_reason":null}}]}}"#),
        );
    };
    delta(out, &format!(r#"{{"reasoning_content":"think {i}"}}"#));
    delta(out, &format!(r#"{{"content":"text {i} "}}"#));
    delta(out, r#"{"content":"more"}"#);
    delta(
        out,
        &format!(
            r#"{{"tool_calls":[{{"index":{i},"id":"call_{i}","type":"function","function":{{"name":"read","arguments":""}}}}]}}"#
        ),
    );
    delta(
        out,
        &format!(r#"{{"tool_calls":[{{"index":{i},"function":{{"arguments":"{{\"path\":"}}}}]}}"#),
    );
    delta(
        out,
        &format!(
            r#"{{"tool_calls":[{{"index":{i},"function":{{"arguments":"\"f{i}.txt\"}}"}}}}]}}"#
        ),
    );
}

fn responses_round(out: &mut String, i: usize) {
    let (rs, msg, fc) = (3 * i, 3 * i + 1, 3 * i + 2);
    let mut event = |kind: &str, rest: String| {
        sse(out, kind, &format!(r#"{{"type":"{kind}",{rest}}}"#));
    };
    event(
        "response.output_item.added",
        format!(r#""output_index":{rs},"item":{{"id":"rs_{i}","type":"reasoning","summary":[]}}"#),
    );
    event(
        "response.reasoning_summary_part.added",
        format!(r#""item_id":"rs_{i}","output_index":{rs}"#),
    );
    event(
        "response.reasoning_summary_text.delta",
        format!(r#""item_id":"rs_{i}","output_index":{rs},"delta":"think {i}""#),
    );
    event(
        "response.reasoning_summary_part.done",
        format!(r#""item_id":"rs_{i}","output_index":{rs}"#),
    );
    event(
        "response.output_item.done",
        format!(
            r#""output_index":{rs},"item":{{"id":"rs_{i}","type":"reasoning","summary":[{{"type":"summary_text","text":"think {i}"}}]}}"#
        ),
    );
    event(
        "response.output_item.added",
        format!(r#""output_index":{msg},"item":{{"id":"msg_{i}","type":"message","content":[]}}"#),
    );
    event(
        "response.output_text.delta",
        format!(r#""item_id":"msg_{i}","output_index":{msg},"delta":"text {i} ""#),
    );
    event(
        "response.output_text.delta",
        format!(r#""item_id":"msg_{i}","output_index":{msg},"delta":"more""#),
    );
    event(
        "response.output_item.done",
        format!(
            r#""output_index":{msg},"item":{{"id":"msg_{i}","type":"message","content":[{{"type":"output_text","text":"text {i} more"}}]}}"#
        ),
    );
    event(
        "response.output_item.added",
        format!(
            r#""output_index":{fc},"item":{{"id":"fc_{i}","type":"function_call","call_id":"call_{i}","name":"read","arguments":""}}"#
        ),
    );
    event(
        "response.function_call_arguments.delta",
        format!(r#""item_id":"fc_{i}","output_index":{fc},"delta":"{{\"path\":""#),
    );
    event(
        "response.function_call_arguments.delta",
        format!(r#""item_id":"fc_{i}","output_index":{fc},"delta":"\"f{i}.txt\"}}""#),
    );
    event(
        "response.output_item.done",
        format!(
            r#""output_index":{fc},"item":{{"id":"fc_{i}","type":"function_call","call_id":"call_{i}","name":"read","arguments":"{{\"path\":\"f{i}.txt\"}}"}}"#
        ),
    );
}

fn parallel_calls(out: &mut String, n: usize) {
    let mut event = |kind: &str, rest: String| {
        sse(out, kind, &format!(r#"{{"type":"{kind}",{rest}}}"#));
    };
    let call = |i: usize, arguments: &str| {
        format!(
            r#"{{"id":"fc_{i}","type":"function_call","call_id":"call_{i}","name":"read","arguments":"{arguments}"}}"#
        )
    };
    for i in 0..n {
        event(
            "response.output_item.added",
            format!(r#""output_index":{i},"item":{}"#, call(i, "")),
        );
    }
    for i in 0..n {
        event(
            "response.function_call_arguments.delta",
            format!(r#""item_id":"fc_{i}","output_index":{i},"delta":"{{\"path\":""#),
        );
    }
    for i in 0..n {
        event(
            "response.function_call_arguments.delta",
            format!(r#""item_id":"fc_{i}","output_index":{i},"delta":"\"f{i}.txt\"}}""#),
        );
    }
    for i in 0..n {
        event(
            "response.output_item.done",
            format!(
                r#""output_index":{i},"item":{}"#,
                call(i, &format!(r#"{{\"path\":\"f{i}.txt\"}}"#))
            ),
        );
    }
    event(
        "response.completed",
        r#""response":{"status":"completed","usage":{"input_tokens":9,"output_tokens":9,"total_tokens":18}}"#.to_owned(),
    );
}

fn anthropic_round(out: &mut String, i: usize) {
    let (th, tx, tu) = (3 * i, 3 * i + 1, 3 * i + 2);
    let mut event = |kind: &str, rest: String| {
        sse(out, kind, &format!(r#"{{"type":"{kind}",{rest}}}"#));
    };
    event(
        "content_block_start",
        format!(
            r#""index":{th},"content_block":{{"type":"thinking","thinking":"","signature":""}}"#
        ),
    );
    event(
        "content_block_delta",
        format!(r#""index":{th},"delta":{{"type":"thinking_delta","thinking":"think {i}"}}"#),
    );
    event(
        "content_block_delta",
        format!(r#""index":{th},"delta":{{"type":"signature_delta","signature":"c2ln"}}"#),
    );
    event("content_block_stop", format!(r#""index":{th}"#));
    event(
        "content_block_start",
        format!(r#""index":{tx},"content_block":{{"type":"text","text":""}}"#),
    );
    event(
        "content_block_delta",
        format!(r#""index":{tx},"delta":{{"type":"text_delta","text":"text {i} "}}"#),
    );
    event(
        "content_block_delta",
        format!(r#""index":{tx},"delta":{{"type":"text_delta","text":"more"}}"#),
    );
    event("content_block_stop", format!(r#""index":{tx}"#));
    event(
        "content_block_start",
        format!(
            r#""index":{tu},"content_block":{{"type":"tool_use","id":"toolu_{i}","name":"read","input":{{}}}}"#
        ),
    );
    event(
        "content_block_delta",
        format!(
            r#""index":{tu},"delta":{{"type":"input_json_delta","partial_json":"{{\"path\":"}}"#
        ),
    );
    event(
        "content_block_delta",
        format!(
            r#""index":{tu},"delta":{{"type":"input_json_delta","partial_json":"\"f{i}.txt\"}}"}}"#
        ),
    );
    event("content_block_stop", format!(r#""index":{tu}"#));
}

fn gemini_round(out: &mut String, i: usize) {
    let mut parts = |parts: String| {
        sse(
            out,
            "",
            &format!(
                r#"{{"candidates":[{{"content":{{"role":"model","parts":[{parts}]}}}}],"responseId":"r"}}"#
            ),
        );
    };
    parts(format!(r#"{{"text":"think {i}","thought":true}}"#));
    parts(format!(r#"{{"text":"text {i} "}}"#));
    parts(r#"{"text":"more"}"#.to_owned());
    parts(format!(
        r#"{{"functionCall":{{"id":"call_{i}","name":"read","args":{{"path":"f{i}.txt"}}}}}}"#
    ));
}

fn ollama_round(out: &mut String, i: usize) {
    let mut line = |message: String| {
        let _ = writeln!(
            out,
            r#"{{"model":"m","created_at":"2025-01-01T00:00:00Z","message":{{"role":"assistant",{message}}},"done":false}}"#
        );
    };
    line(format!(r#""content":"","thinking":"think {i}""#));
    line(format!(r#""content":"text {i} ""#));
    line(r#""content":"more""#.to_owned());
    line(format!(
        r#""content":"","tool_calls":[{{"id":"call_{i}","function":{{"name":"read","arguments":{{"path":"f{i}.txt"}}}}}}]"#
    ));
}
