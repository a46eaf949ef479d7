//! FORMAT.md's `wire` kind for any API, on top of the crate's shared `replay_wire`: reads the
//! public scenarios of one API (and extra cases for real fixtures no scenario covers), serves
//! each body whole, one byte per read and at seeded random splits, and checks the expectation.
//! Used by the tests of every API.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use clawloop_core::classify::{FailoverSignal, failover_reason_from_signal, is_context_overflow};
use clawloop_core::message::ContentBlock;
use clawloop_core::{Api, AssistantEventStream, AssistantMessage};
use clawloop_providers::CallDiagnostics;
use clawloop_testkit::{WIRE_SPLIT_SEED, WireBody, replay_wire};
use serde_json::{Value, json};

/// The shared fixtures and scenarios.
pub fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

/// Starts one call for a server at `url`, with the case's `input.model` fields (an object,
/// possibly empty) to merge into the test's model.
pub type StartCall<'a> = &'a dyn Fn(&str, &Value) -> (AssistantEventStream, CallDiagnostics);

/// Runs one `wire` case; returns the first difference.
pub async fn run_case(
    api: &Api,
    dir: &Path,
    case: &Value,
    start: StartCall<'_>,
) -> Result<(), String> {
    let input = &case["input"];
    let body: Vec<u8> = match (&input["body"], &input["bodyFile"]) {
        (Value::String(s), _) => s.clone().into_bytes(),
        (_, Value::String(file)) => {
            std::fs::read(dir.join(file)).map_err(|e| format!("{file}: {e}"))?
        }
        _ => Vec::new(),
    };
    let status = u16::try_from(input["status"].as_u64().unwrap_or(200)).unwrap();
    let headers: Vec<(String, String)> = input["headers"]
        .as_object()
        .map(|h| {
            h.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                .collect()
        })
        .unwrap_or_default();
    let model_extra = input.get("model").cloned().unwrap_or_else(|| json!({}));
    let body = WireBody::new(api, status, headers, body);
    let run = replay_wire(&body, WIRE_SPLIT_SEED, |url| start(url, &model_extra)).await?;
    let (message, diagnostics) = (&run.message, &run.diagnostics);
    let expect = &case["expect"];
    if let Some(expected) = expect.get("message") {
        check_message(message, expected)?;
    }
    if let Some(expected) = expect["events"].as_array() {
        let types = run.types();
        let mut it = types.iter();
        for e in expected {
            let e = e.as_str().unwrap_or_default();
            if !it.any(|t| *t == e) {
                return Err(format!("events {types:?} lack subsequence {expected:?}"));
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
            return Err(format!("reason {reason} != {}", error["reason"]));
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
            return Err(format!("contextOverflow {overflow}"));
        }
        if let Some(ms) = error.get("retryAfterMs")
            && *ms != json!(diagnostics.retry_after_ms())
        {
            return Err(format!("retryAfterMs {:?}", diagnostics.retry_after_ms()));
        }
    }
    Ok(())
}

/// FORMAT.md's partial comparison of the final message.
pub fn check_message(m: &AssistantMessage, expected: &Value) -> Result<(), String> {
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

/// FORMAT.md's block summary comparison.
pub fn check_block(block: &ContentBlock, want: &Value) -> Result<(), String> {
    let actual = serde_json::to_value(block).unwrap();
    let eq = |key: &str| match want.get(key) {
        Some(v) if actual.get(key).unwrap_or(&Value::Null) != v => {
            Err(format!("block {actual} field {key} != {v}"))
        }
        _ => Ok(()),
    };
    for key in [
        "type",
        "text",
        "thinking",
        "id",
        "name",
        "arguments",
        "redacted",
    ] {
        eq(key)?;
    }
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

/// What [`run_public_scenarios`] found.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Names of the cases that passed.
    pub passed: Vec<String>,
    /// `name: difference` of the cases that failed.
    pub failures: Vec<String>,
    /// Real fixtures of the API that no case used.
    pub uncovered_fixtures: Vec<String>,
}

impl Outcome {
    /// Prints the counts, then requires every case to pass and every real fixture of the API
    /// to have a case.
    pub fn assert_all_passed(&self) {
        eprintln!(
            "{} passed, {} failed",
            self.passed.len(),
            self.failures.len()
        );
        assert!(self.failures.is_empty(), "{:#?}", self.failures);
        assert!(
            self.uncovered_fixtures.is_empty(),
            "fixtures without a case: {:?}",
            self.uncovered_fixtures
        );
    }
}

/// Every public `wire` case of `api`, then `own_cases` (whose `bodyFile` is relative to
/// `fixtures/real/<fixture_dir>`), and the real fixtures of that folder that none of them used
/// (an own case with an inline body names its recording in a top-level `fixture`).
pub async fn run_public_scenarios(
    api: &Api,
    fixture_dir: Option<&str>,
    own_cases: &[Value],
    start: StartCall<'_>,
) -> Outcome {
    let dir = shared().join("conformance/scenarios/wire");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut outcome = Outcome::default();
    let mut fixtures_seen = BTreeSet::new();
    let file_name = |p: &Path| p.file_name().unwrap().to_string_lossy().into_owned();
    for file in files {
        let json: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        let cases = json["cases"]
            .as_array()
            .cloned()
            .unwrap_or_else(|| vec![json.clone()]);
        for case in cases {
            if case["kind"] != "wire" || case["input"]["api"] != api.as_str() {
                continue;
            }
            if let Some(f) = case["input"]["bodyFile"].as_str() {
                fixtures_seen.insert(file_name(Path::new(f)));
            }
            let name = format!(
                "{}#{}",
                file_name(&file),
                case["name"].as_str().unwrap_or("?")
            );
            match run_case(api, &dir, &case, start).await {
                Ok(()) => outcome.passed.push(name),
                Err(e) => outcome.failures.push(format!("{name}: {e}")),
            }
        }
    }
    if let Some(fixture_dir) = fixture_dir {
        let dir = shared().join("fixtures/real").join(fixture_dir);
        for case in own_cases {
            // A case plays its recording as `bodyFile`, or names in `fixture` the recording
            // its inline body was built from.
            if let Some(fixture) = case["input"]["bodyFile"]
                .as_str()
                .or(case["fixture"].as_str())
            {
                fixtures_seen.insert(fixture.to_owned());
            }
            let name = format!("own#{}", case["name"].as_str().unwrap_or("?"));
            match run_case(api, &dir, case, start).await {
                Ok(()) => outcome.passed.push(name),
                Err(e) => outcome.failures.push(format!("{name}: {e}")),
            }
        }
        let all: BTreeSet<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        outcome.uncovered_fixtures = all.difference(&fixtures_seen).cloned().collect();
    }
    outcome
}
