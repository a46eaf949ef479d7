//! `history` runner: transcript transforms of `clawloop-session` (reference §8, §9).
//!
//! Input messages (full or shorthand) are expanded and read as pi messages, transformed, and
//! the result compared in summary form; `historyLimitFromSessionKey` compares `{"limit"}`.

use clawloop_core::message::AgentMessage;
use clawloop_session::transforms::{
    ErroredAssistantPolicy, ToolPairingOptions, history_limit_from_session_key,
    limit_history_turns, repair_tool_pairing, validate_anthropic_turns, validate_gemini_turns,
};
use serde_json::{Map, Value, json};

use super::wrong_spec;
use crate::conformance::compare::compare;
use crate::conformance::kind::Kind;
use crate::conformance::scenario::history::HistoryInput;
use crate::conformance::scenario::message::InputMessage;
use crate::conformance::scenario::{Case, Spec};
use crate::conformance::shorthand::expand_message;
use crate::conformance::summary::summarize_all;

/// Runs a `history` case.
pub fn run(case: &Case) -> Result<(), String> {
    let Spec::History(input, _) = &case.spec else {
        return Err(wrong_spec(case, Kind::History));
    };
    let actual = match input {
        HistoryInput::LimitHistoryTurns { messages, limit } => {
            let messages = agent_messages(messages)?;
            summary(limit_history_turns(&messages, turn_limit(*limit)?))?
        }
        HistoryInput::RepairToolPairing { messages } => {
            // FORMAT.md: the errored-assistant policy of the replay sanitizer, `drop`.
            let options = ToolPairingOptions {
                errored_assistant: ErroredAssistantPolicy::Drop,
                missing_result_text: None,
                now_ms: 0,
            };
            summary(&repair_tool_pairing(&agent_messages(messages)?, &options).messages)?
        }
        HistoryInput::ValidateAnthropicTurns { messages } => {
            summary(&validate_anthropic_turns(&agent_messages(messages)?))?
        }
        HistoryInput::ValidateGeminiTurns { messages } => {
            summary(&validate_gemini_turns(&agent_messages(messages)?))?
        }
        HistoryInput::HistoryLimitFromSessionKey {
            session_key,
            channels,
        } => {
            let limit = channels
                .as_ref()
                .and_then(|c| history_limit_from_session_key(session_key, c));
            json!({ "limit": limit })
        }
    };
    compare(&case.expect, &actual).map_err(|m| m.to_string())
}

/// The input messages expanded from shorthand and read as pi messages.
pub(super) fn agent_messages(messages: &[InputMessage]) -> Result<Vec<AgentMessage>, String> {
    messages
        .iter()
        .enumerate()
        .map(|(i, m)| {
            serde_json::from_value(expand_message(&m.0))
                .map_err(|e| format!("input.messages[{i}]: not a pi message: {e}"))
        })
        .collect()
}

/// `{"messages": [summary...]}` of a transcript.
fn summary(messages: &[AgentMessage]) -> Result<Value, String> {
    let values = messages
        .iter()
        .map(serde_json::to_value)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("cannot serialize a resulting message: {e}"))?;
    let mut out = Map::new();
    out.insert("messages".into(), summarize_all(&values));
    Ok(Value::Object(out))
}

/// The scenario's `limit` as a turn count. OpenClaw treats a missing, zero or negative limit
/// as no limit; a fraction has no turn-count equivalent, so the case fails instead.
fn turn_limit(limit: Option<f64>) -> Result<Option<u64>, String> {
    match limit {
        None => Ok(None),
        Some(l) if l.is_nan() || l <= 0.0 => Ok(None),
        Some(l) if l.fract() == 0.0 && l <= 2f64.powi(53) => {
            // Integral and in range, so the cast is exact.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            Ok(Some(l as u64))
        }
        Some(l) => Err(format!("input.limit: {l} is not a whole number of turns")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::scenario::parse_case;
    use pretty_assertions::assert_eq;
    use std::path::Path;

    fn case(input: Value, expect: Value) -> Case {
        let raw = json!({"kind": "history", "name": "t", "input": input, "expect": expect});
        parse_case(&raw, Path::new(".")).unwrap()
    }

    #[test]
    fn limit_turns_and_session_keys() {
        let msgs = json!([{"role": "user", "text": "a"}, {"role": "assistant", "text": "b"},
                          {"role": "user", "text": "c"}]);
        let c = case(
            json!({"op": "limitHistoryTurns", "limit": 1, "messages": msgs}),
            json!({"messages": [{"role": "user", "text": "c"}]}),
        );
        assert_eq!(run(&c), Ok(()));
        let c = case(
            json!({"op": "limitHistoryTurns", "limit": 1.5, "messages": msgs}),
            json!({"messages": []}),
        );
        assert_eq!(
            run(&c),
            Err("input.limit: 1.5 is not a whole number of turns".to_owned())
        );
        let c = case(
            json!({"op": "historyLimitFromSessionKey", "sessionKey": "slack:channel:c"}),
            json!({"limit": null}),
        );
        assert_eq!(run(&c), Ok(()));
    }

    #[test]
    fn repair_reports_the_first_difference() {
        let c = case(
            json!({"op": "repairToolPairing", "messages": [
                {"role": "assistant", "toolCalls": [{"id": "c1", "name": "read"}]}]}),
            json!({"messages": [{"role": "assistant"}]}),
        );
        let err = run(&c).unwrap_err();
        assert!(
            err.starts_with("expect.messages: expected 1 elements, got 2: "),
            "{err}"
        );
        assert!(err.contains("[clawloop] missing tool result"), "{err}");
    }
}
