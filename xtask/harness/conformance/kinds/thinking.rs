//! `thinking` runner: `pick_fallback_thinking_level` (reference §17).

use clawloop_core::think_level::pick_fallback_thinking_level;
use serde_json::{Value, json};

use super::wrong_spec;
use crate::conformance::compare::compare;
use crate::conformance::kind::Kind;
use crate::conformance::scenario::{Case, Spec};

/// Runs a `thinking` case.
pub fn run(case: &Case) -> Result<(), String> {
    let Spec::Thinking(input, _) = &case.spec else {
        return Err(wrong_spec(case, Kind::Thinking));
    };
    let level = pick_fallback_thinking_level(&input.message, &input.attempted);
    let actual = json!({"level": level.map_or(Value::Null, |l| Value::from(l.as_str()))});
    compare(&case.expect, &actual).map_err(|m| m.to_string())
}
