//! `truncate` runner: tool-result size control of `clawloop-session` (reference §10.1 with
//! SPEC's 400 000 cap).
//!
//! `truncateText` reports `{"text", "length"}` (length in chars); the comparer's suffix rules
//! (`textPrefix`, `textContains`, `lengthMax`, …) read those base fields.

use clawloop_session::transforms::{
    MIN_KEEP_CHARS, max_tool_result_chars, session_likely_has_oversized_tool_results,
    truncate_tool_result_text,
};
use serde_json::json;

use super::history::agent_messages;
use super::wrong_spec;
use crate::conformance::compare::compare;
use crate::conformance::kind::Kind;
use crate::conformance::scenario::truncate::TruncateInput;
use crate::conformance::scenario::{Case, Spec};

/// Runs a `truncate` case.
pub fn run(case: &Case) -> Result<(), String> {
    let Spec::Truncate(input, _) = &case.spec else {
        return Err(wrong_spec(case, Kind::Truncate));
    };
    let actual = match input {
        TruncateInput::MaxToolResultChars { context_window } => {
            let tokens = whole(*context_window, "input.contextWindow")?;
            json!({ "value": max_tool_result_chars(tokens) })
        }
        TruncateInput::TruncateText {
            text,
            max_chars,
            min_keep_chars,
        } => {
            let max = chars(*max_chars, "input.maxChars")?;
            let keep = match min_keep_chars {
                Some(k) => chars(*k, "input.minKeepChars")?,
                None => MIN_KEEP_CHARS,
            };
            let out = truncate_tool_result_text(&text.render(), max, keep);
            json!({ "length": out.chars().count(), "text": out })
        }
        TruncateInput::SessionHasOversized {
            messages,
            context_window,
        } => {
            let tokens = whole(*context_window, "input.contextWindow")?;
            let messages = agent_messages(messages)?;
            json!({ "value": session_likely_has_oversized_tool_results(&messages, tokens) })
        }
    };
    compare(&case.expect, &actual).map_err(|m| m.to_string())
}

/// A non-negative whole number, or the case fails naming the field.
fn whole(value: f64, field: &str) -> Result<u64, String> {
    if value.is_finite() && value >= 0.0 && value.fract() == 0.0 && value <= 2f64.powi(53) {
        // Range-checked and integral, so the cast is exact.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Ok(value as u64)
    } else {
        Err(format!(
            "{field}: {value} is not a non-negative whole number"
        ))
    }
}

/// A char count.
fn chars(value: f64, field: &str) -> Result<usize, String> {
    let n = whole(value, field)?;
    usize::try_from(n).map_err(|_| format!("{field}: {value} is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::scenario::parse_case;
    use pretty_assertions::assert_eq;
    use serde_json::Value;
    use std::path::Path;

    fn case(input: Value, expect: Value) -> Case {
        let raw = json!({"kind": "truncate", "name": "t", "input": input, "expect": expect});
        parse_case(&raw, Path::new(".")).unwrap()
    }

    #[test]
    fn text_checks_read_text_and_length() {
        let c = case(
            json!({"op": "truncateText", "text": {"repeat": "x", "count": 50000}, "maxChars": 100}),
            json!({"length": 2037, "lengthMax": 2037, "textSuffix": "[... 48000 more characters truncated]",
                   "textNotContains": ["middle content omitted"]}),
        );
        assert_eq!(run(&c), Ok(()));
        let c = case(
            json!({"op": "truncateText", "text": "short", "maxChars": 100, "minKeepChars": 0}),
            json!({"text": "short", "length": 5}),
        );
        assert_eq!(run(&c), Ok(()));
    }

    #[test]
    fn numbers_must_be_whole() {
        let c = case(
            json!({"op": "maxToolResultChars", "contextWindow": 1000.5}),
            json!({"value": 1200}),
        );
        assert_eq!(
            run(&c),
            Err("input.contextWindow: 1000.5 is not a non-negative whole number".to_owned())
        );
        let c = case(
            json!({"op": "maxToolResultChars", "contextWindow": 128000}),
            json!({"value": 153600}),
        );
        assert_eq!(run(&c), Ok(()));
        assert_eq!(
            whole(-1.0, "f"),
            Err("f: -1 is not a non-negative whole number".to_owned())
        );
    }
}
