//! `classify` runner: error classification helpers of `clawloop_core::classify` and the
//! user-facing error copy (reference §15, §16).

use clawloop_core::StopReason;
use clawloop_core::classify::{
    FailoverSignal, extract_observed_overflow_token_count, failover_reason_from_signal,
    is_context_overflow_error, is_likely_context_overflow_error, is_role_ordering_error,
    is_transient_http_error, parse_image_size_error,
};
use clawloop_core::error_text::{ErrorTextContext, format_assistant_error_text};
use serde_json::{Map, Value};

use super::wrong_spec;
use crate::conformance::compare::compare;
use crate::conformance::kind::Kind;
use crate::conformance::scenario::classify::ClassifyInput;
use crate::conformance::scenario::{Case, Spec};

/// Runs a `classify` case.
pub fn run(case: &Case) -> Result<(), String> {
    let Spec::Classify(input, _) = &case.spec else {
        return Err(wrong_spec(case, Kind::Classify));
    };
    let mut actual = Map::new();
    // Only the fields the case asks about are computed: each is a separate function.
    for key in case.expect.as_object().into_iter().flat_map(|m| m.keys()) {
        actual.insert(key.clone(), field(input, key)?);
    }
    compare(&case.expect, &Value::Object(actual)).map_err(|m| m.to_string())
}

fn field(input: &ClassifyInput, key: &str) -> Result<Value, String> {
    let message = input.message.as_str();
    Ok(match key {
        "reason" => {
            let signal = FailoverSignal {
                status: status(input.status),
                code: input.code.as_deref(),
                message,
                provider: input.provider.as_deref(),
            };
            failover_reason_from_signal(&signal).map_or(Value::Null, |r| Value::from(r.as_str()))
        }
        "contextOverflow" => Value::Bool(is_context_overflow_error(message)),
        "likelyContextOverflow" => Value::Bool(is_likely_context_overflow_error(message)),
        "transientHttp" => Value::Bool(is_transient_http_error(message)),
        "roleOrdering" => Value::Bool(is_role_ordering_error(message)),
        "imageSizeMb" => parse_image_size_error(message)
            .and_then(|e| e.max_mb)
            .map_or(Value::Null, Value::from),
        "observedOverflowTokens" => {
            extract_observed_overflow_token_count(message).map_or(Value::Null, Value::from)
        }
        "userText" => {
            let ctx = ErrorTextContext {
                provider: input.provider.as_deref(),
                model: None,
            };
            format_assistant_error_text(StopReason::Error, Some(message), &ctx)
                .map_or(Value::Null, |t| Value::from(rebrand(&t)))
        }
        other => return Err(format!("expect.{other}: not a classify field")),
    })
}

/// FORMAT.md compares the copy with OpenClaw's product name replaced by ours.
fn rebrand(text: &str) -> String {
    text.replace("OpenClaw", "clawloop")
        .replace("openclaw", "clawloop")
}

/// A status the scenario gives as a JSON number; one that is no HTTP status is not a status.
fn status(raw: Option<f64>) -> Option<u16> {
    raw.filter(|s| s.fract() == 0.0 && (0.0..=f64::from(u16::MAX)).contains(s))
        .map(|s| s as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_conversion() {
        assert_eq!(status(Some(429.0)), Some(429));
        assert_eq!(status(Some(429.5)), None);
        assert_eq!(status(Some(-1.0)), None);
        assert_eq!(status(None), None);
    }

    #[test]
    fn rebrands_copy() {
        assert_eq!(
            rebrand("Run openclaw doctor (OpenClaw)"),
            "Run clawloop doctor (clawloop)"
        );
    }
}
