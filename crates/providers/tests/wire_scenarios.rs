//! The public `wire` conformance scenarios (FORMAT.md) for `openai-completions`, and every
//! real recorded Chat Completions response, served over HTTP whole, one byte per read and at
//! seeded random splits; all three must agree with the expectation and make one request.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use clawloop_core::classify::{FailoverSignal, failover_reason_from_signal, is_context_overflow};
use clawloop_core::message::ContentBlock;
use clawloop_core::{AssistantMessage, StreamOptions};
use clawloop_providers::OpenAiCompletions;
use clawloop_providers::scripted_server::{ScriptedResponse, ScriptedServer};
use common::*;
use serde_json::{Value, json};

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

/// Runs one `wire` case; returns the first difference.
async fn run_case(dir: &Path, case: &Value) -> Result<(), String> {
    let input = &case["input"];
    let body: Vec<u8> = match (&input["body"], &input["bodyFile"]) {
        (Value::String(s), _) => s.clone().into_bytes(),
        (_, Value::String(file)) => {
            std::fs::read(dir.join(file)).map_err(|e| format!("{file}: {e}"))?
        }
        _ => Vec::new(),
    };
    let status = input["status"].as_u64().unwrap_or(200) as u16;
    let headers: Vec<(String, String)> = input["headers"]
        .as_object()
        .map(|h| {
            h.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                .collect()
        })
        .unwrap_or_default();
    let mut model_extra = json!({});
    if let Some(m) = input["model"].as_object() {
        for (k, v) in m {
            model_extra[k] = v.clone();
        }
    }
    let mut first: Option<AssistantMessage> = None;
    for (label, chunking) in splits(body.len(), 0x5eed) {
        let mut response = ScriptedResponse::status(status, body.clone()).chunked(chunking);
        response.headers = headers.clone();
        let server = ScriptedServer::start(vec![response]).await.unwrap();
        let model = model(&server.url(), model_extra.clone());
        let (stream, diagnostics) = OpenAiCompletions::new(transport(None))
            .stream_with_diagnostics(&model, &context(), StreamOptions::default());
        let events = collect(stream).await;
        let fail = |what: String| Err(format!("{label}: {what}"));
        if server.requests().len() != 1 {
            return fail(format!("{} requests", server.requests().len()));
        }
        if events.iter().filter(|e| e.is_terminal()).count() != 1
            || !events.last().is_some_and(|e| e.is_terminal())
        {
            return fail("not exactly one terminal event, last".into());
        }
        let message = events
            .last()
            .and_then(|e| e.final_message())
            .unwrap()
            .clone();
        let expect = &case["expect"];
        if let Some(expected) = expect.get("message") {
            check_message(&message, expected).or_else(fail)?;
        }
        if let Some(expected) = expect["events"].as_array() {
            let types: Vec<&str> = events.iter().map(|e| e.type_name()).collect();
            let mut it = types.iter();
            for e in expected {
                let e = e.as_str().unwrap_or_default();
                if !it.any(|t| *t == e) {
                    return fail(format!("events {types:?} lack subsequence {expected:?}"));
                }
            }
        }
        if let Some(error) = expect.get("error") {
            let text = message.error_message.clone().unwrap_or_default();
            let reason = failover_reason_from_signal(&FailoverSignal {
                status: diagnostics.http_status(),
                message: &text,
                ..FailoverSignal::default()
            });
            let reason = reason.map(|r| json!(r.as_str())).unwrap_or(Value::Null);
            if error.get("reason").is_some_and(|r| *r != reason) {
                return fail(format!("reason {reason} != {}", error["reason"]));
            }
            let overflow = is_context_overflow(
                message.stop_reason,
                message.error_message.as_deref(),
                &message.usage,
                None,
            );
            if error
                .get("contextOverflow")
                .is_some_and(|o| *o != json!(overflow))
            {
                return fail(format!("contextOverflow {overflow}"));
            }
            if let Some(ms) = error.get("retryAfterMs")
                && *ms != json!(diagnostics.retry_after_ms())
            {
                return fail(format!("retryAfterMs {:?}", diagnostics.retry_after_ms()));
            }
        }
        let mut normalized = message.clone();
        normalized.timestamp = 0;
        match &first {
            None => first = Some(normalized),
            Some(m) if *m != normalized => return fail("differs from the whole-body run".into()),
            Some(_) => {}
        }
    }
    Ok(())
}

fn check_message(m: &AssistantMessage, expected: &Value) -> Result<(), String> {
    if let Some(reason) = expected.get("stopReason")
        && *reason != json!(m.stop_reason.as_str())
    {
        return Err(format!(
            "stopReason {} != {reason} ({:?})",
            m.stop_reason, m.error_message
        ));
    }
    if let Some(needle) = expected["errorMessageContains"].as_str() {
        let text = m.error_message.as_deref().unwrap_or_default();
        if !text.contains(needle) {
            return Err(format!("errorMessage {text:?} lacks {needle:?}"));
        }
    }
    if let Some(usage) = expected["usage"].as_object() {
        let actual = serde_json::to_value(&m.usage).unwrap();
        for (k, v) in usage {
            if actual[k] != *v {
                return Err(format!("usage.{k} {} != {v}", actual[k]));
            }
        }
    }
    if let Some(blocks) = expected["content"].as_array() {
        if blocks.len() != m.content.len() {
            return Err(format!("content {:?} != {blocks:?}", m.content));
        }
        for (block, want) in m.content.iter().zip(blocks) {
            check_block(block, want)?;
        }
    }
    Ok(())
}

fn check_block(block: &ContentBlock, want: &Value) -> Result<(), String> {
    let actual = serde_json::to_value(block).unwrap();
    let eq = |key: &str, actual_key: &str| match want.get(key) {
        Some(v) if actual.get(actual_key).unwrap_or(&Value::Null) != v => {
            Err(format!("block {actual} field {key} != {v}"))
        }
        _ => Ok(()),
    };
    eq("type", "type")?;
    eq("text", "text")?;
    eq("thinking", "thinking")?;
    eq("id", "id")?;
    eq("name", "name")?;
    eq("arguments", "arguments")?;
    eq("redacted", "redacted")?;
    if let Some(has) = want["hasSignature"].as_bool() {
        let present = ["textSignature", "thinkingSignature", "thoughtSignature"]
            .iter()
            .any(|k| actual.get(*k).is_some_and(|v| !v.is_null()));
        if present != has {
            return Err(format!("block {actual} hasSignature != {has}"));
        }
    }
    Ok(())
}

#[tokio::test]
async fn public_wire_scenarios_and_real_fixtures() {
    let dir = shared().join("conformance/scenarios/wire");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut passed = 0;
    let mut failures = Vec::new();
    let mut fixtures_seen = BTreeSet::new();
    for file in files {
        let json: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        let cases = json["cases"]
            .as_array()
            .cloned()
            .unwrap_or_else(|| vec![json.clone()]);
        for case in cases {
            if case["kind"] != "wire" || case["input"]["api"] != "openai-completions" {
                continue;
            }
            if let Some(f) = case["input"]["bodyFile"].as_str() {
                fixtures_seen.insert(
                    Path::new(f)
                        .file_name()
                        .unwrap()
                        .to_string_lossy()
                        .into_owned(),
                );
            }
            let name = format!(
                "{}#{}",
                file.file_name().unwrap().to_string_lossy(),
                case["name"].as_str().unwrap_or("?")
            );
            match run_case(&dir, &case).await {
                Ok(()) => passed += 1,
                Err(e) => failures.push(format!("{name}: {e}")),
            }
        }
    }
    // Real fixtures no public scenario covers get their expectation here.
    let own = own_fixture_cases();
    let fixture_dir = shared().join("fixtures/real/openai-chat");
    for case in &own {
        fixtures_seen.insert(case["input"]["bodyFile"].as_str().unwrap().to_owned());
        match run_case(&fixture_dir, case).await {
            Ok(()) => passed += 1,
            Err(e) => failures.push(format!("own#{}: {e}", case["name"])),
        }
    }
    let all: BTreeSet<String> = std::fs::read_dir(&fixture_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let missing: Vec<_> = all.difference(&fixtures_seen).collect();
    eprintln!("{passed} passed, {} failed", failures.len());
    assert!(failures.is_empty(), "{failures:#?}");
    assert!(missing.is_empty(), "fixtures without a case: {missing:?}");
    assert!(passed >= 12, "only {passed} cases ran");
}

fn own_fixture_cases() -> Vec<Value> {
    vec![json!({
        "kind": "wire",
        "name": "json_nonstream_usage_cached_tokens",
        "description": "a server that ignores stream:true answers one JSON completion; cached tokens leave input",
        "input": {"api": "openai-completions", "bodyFile": "json_nonstream_usage_cached_tokens.json",
                  "headers": {"content-type": "application/json"}},
        "expect": {
            "message": {"content": [{"type": "text", "text": "OK"}], "stopReason": "stop",
                        "usage": {"input": 8, "output": 4, "cacheRead": 4012, "cacheWrite": 0, "totalTokens": 4024}},
            "events": ["start", "text_start", "text_end", "done"]
        }
    })]
}
