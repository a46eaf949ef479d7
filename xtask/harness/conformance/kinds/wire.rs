//! `wire` runner: provider stream decoding (FORMAT.md `wire`, SPEC §4).
//!
//! The case's body is served by `clawloop-testkit`'s scripted server whole, one byte per
//! write and at seeded random splits ([`replay_wire`]); the real client of `input.api`
//! consumes each, and the three runs must agree and make one request each. The agreed result
//! is reported as plain facts and compared with the expect:
//!
//! * `message`: `content` as block summaries, `stopReason`, `errorMessage` (for
//!   `errorMessageContains`) and `usage`;
//! * `events`: the event type names (an ordered subsequence check);
//! * `error`: `reason` = `classifyFailoverSignal` over the HTTP status and the final
//!   `errorMessage`, `contextOverflow` = pi's overflow check on the final message,
//!   `retryAfterMs` from the transport diagnostics.

mod client;

use std::fs;

use clawloop_core::AssistantMessage;
use clawloop_core::classify::{FailoverSignal, failover_reason_from_signal, is_context_overflow};
use clawloop_providers::{HttpTransport, TransportConfig};
use clawloop_testkit::{WIRE_SPLIT_SEED, WireBody, WireRun, replay_wire};
use serde_json::{Map, Value, json};

use self::client::{Client, context, core_api, model_for, options};
use super::wrong_spec;
use crate::conformance::compare::compare;
use crate::conformance::kind::Kind;
use crate::conformance::scenario::wire::WireInput;
use crate::conformance::scenario::{Case, Spec};

/// Runs a `wire` case.
pub fn run(case: &Case) -> Result<(), String> {
    let Spec::Wire(input, _) = &case.spec else {
        return Err(wrong_spec(case, Kind::Wire));
    };
    let input: &WireInput = input;
    let api = core_api(input.api);
    let transport = HttpTransport::new(TransportConfig::default())
        .map_err(|e| format!("cannot create the HTTP client: {e}"))?;
    let client = Client::for_api(&api, transport)?;
    // Validated once up front so a bad description fails the case instead of each call.
    let model = model_for(&api, input.model.as_deref(), "http://127.0.0.1")?;
    let status = input.status.map_or(200, |s| s.0);
    let headers = input
        .headers
        .iter()
        .flatten()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let body = WireBody::new(&api, status, headers, body_bytes(case, input)?);

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start a tokio runtime: {e}"))?;
    let context = context();
    let run = runtime.block_on(replay_wire(&body, WIRE_SPLIT_SEED, |url| {
        let mut model = model.clone();
        model.base_url = url.to_owned();
        client.stream(&model, &context, options())
    }))?;
    compare(&case.expect, &facts(&run, model.context_window)).map_err(|m| m.to_string())
}

/// `body`, or the bytes of `bodyFile` (relative to the scenario file), or nothing.
fn body_bytes(case: &Case, input: &WireInput) -> Result<Vec<u8>, String> {
    match (&input.body, &input.body_file) {
        (Some(body), _) => Ok(body.clone().into_bytes()),
        (None, Some(file)) => {
            let path = case.base_dir.join(&file.0);
            fs::read(&path)
                .map_err(|e| format!("input.bodyFile: cannot read {}: {e}", path.display()))
        }
        (None, None) => Ok(Vec::new()),
    }
}

/// What the expect may check, from the agreed run.
fn facts(run: &WireRun, context_window: u64) -> Value {
    let message = &run.message;
    let error_message = message.error_message.as_deref();
    let reason = failover_reason_from_signal(&FailoverSignal {
        status: run.diagnostics.http_status(),
        message: error_message.unwrap_or_default(),
        ..FailoverSignal::default()
    });
    let overflow = is_context_overflow(
        message.stop_reason,
        error_message,
        &message.usage,
        Some(context_window),
    );
    json!({
        "message": message_facts(message),
        "events": run.types(),
        "error": {
            "reason": reason.map(|r| r.as_str()),
            "contextOverflow": overflow,
            "retryAfterMs": run.diagnostics.retry_after_ms(),
        },
    })
}

fn message_facts(message: &AssistantMessage) -> Value {
    let content: Vec<Value> = message
        .content
        .iter()
        .map(|block| block_summary(&serde_json::to_value(block).unwrap_or(Value::Null)))
        .collect();
    json!({
        "content": content,
        "stopReason": message.stop_reason.as_str(),
        "errorMessage": message.error_message,
        "usage": serde_json::to_value(&message.usage).unwrap_or(Value::Null),
    })
}

/// A content block in FORMAT.md's summary form: its own fields plus `hasSignature` (the
/// block's signature field is a non-empty string) and, for thinking, `redacted`.
fn block_summary(block: &Value) -> Value {
    let kind = block
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let (fields, signature): (&[&str], &str) = match kind {
        "text" => (&["text"], "textSignature"),
        "thinking" => (&["thinking"], "thinkingSignature"),
        "toolCall" => (&["id", "name", "arguments"], "thoughtSignature"),
        _ => (&[], ""),
    };
    let mut summary = Map::new();
    summary.insert("type".into(), Value::from(kind));
    for field in fields {
        summary.insert(
            (*field).into(),
            block.get(*field).cloned().unwrap_or(Value::Null),
        );
    }
    if !signature.is_empty() {
        let has = block
            .get(signature)
            .and_then(Value::as_str)
            .is_some_and(|s| !s.is_empty());
        summary.insert("hasSignature".into(), Value::from(has));
    }
    if kind == "thinking" {
        let redacted = block.get("redacted").and_then(Value::as_bool) == Some(true);
        summary.insert("redacted".into(), Value::from(redacted));
    }
    Value::Object(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::scenario::parse_case;
    use pretty_assertions::assert_eq;
    use std::path::Path;

    fn case(input: Value, expect: Value) -> Case {
        let raw = json!({"kind": "wire", "name": "t", "input": input, "expect": expect});
        parse_case(&raw, Path::new(".")).unwrap()
    }

    const TEXT: &str = "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n\
        data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n\
        data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n";

    #[test]
    fn decodes_and_compares() {
        let input = json!({"api": "openai-completions", "body": TEXT});
        let ok = case(
            input.clone(),
            json!({"message": {"content": [{"type": "text", "text": "Hi"}], "stopReason": "stop",
                               "usage": {"input": 5, "output": 1, "totalTokens": 6}},
                   "events": ["start", "text_start", "text_end", "done"]}),
        );
        assert_eq!(run(&ok), Ok(()));
        let bad = case(
            input,
            json!({"message": {"content": [{"type": "text", "text": "Ho"}]}}),
        );
        assert_eq!(
            run(&bad),
            Err("expect.message.content[0].text: expected \"Ho\", got \"Hi\"".to_owned())
        );
    }

    #[test]
    fn errors_are_classified() {
        let c = case(
            json!({"api": "openai-completions", "status": 429,
                   "body": "{\"error\":{\"message\":\"Rate limit reached\"}}",
                   "headers": {"retry-after-ms": "1500"}}),
            json!({"message": {"content": [], "stopReason": "error",
                               "errorMessageContains": "Rate limit reached"},
                   "events": ["error"],
                   "error": {"reason": "rate_limit", "contextOverflow": false, "retryAfterMs": 1500}}),
        );
        assert_eq!(run(&c), Ok(()));
    }

    #[test]
    fn missing_body_file_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("b.sse"), TEXT).unwrap();
        let raw = json!({"kind": "wire", "name": "t",
                         "input": {"api": "openai-completions", "bodyFile": "b.sse"},
                         "expect": {"message": {"stopReason": "stop"}}});
        let c = parse_case(&raw, dir.path()).unwrap();
        assert_eq!(run(&c), Ok(()));
        std::fs::remove_file(dir.path().join("b.sse")).unwrap();
        assert!(
            run(&c)
                .unwrap_err()
                .starts_with("input.bodyFile: cannot read")
        );
    }

    #[test]
    fn summaries() {
        assert_eq!(
            block_summary(
                &json!({"type": "thinking", "thinking": "", "thinkingSignature": "s",
                                  "redacted": true})
            ),
            json!({"type": "thinking", "thinking": "", "hasSignature": true, "redacted": true})
        );
        assert_eq!(
            block_summary(&json!({"type": "toolCall", "id": "c", "name": "n", "arguments": {}})),
            json!({"type": "toolCall", "id": "c", "name": "n", "arguments": {},
                   "hasSignature": false})
        );
        assert_eq!(
            block_summary(&json!({"type": "text", "text": "t", "textSignature": ""})),
            json!({"type": "text", "text": "t", "hasSignature": false})
        );
        assert_eq!(block_summary(&json!(3)), json!({"type": ""}));
    }
}
