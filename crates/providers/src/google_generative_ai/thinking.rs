//! Gemini `thinkingConfig` from the requested level (pi's `streamSimpleGoogle`, pi-mono §1.8).

use clawloop_core::model::ThinkingBudgets;
use clawloop_core::{Model, StreamOptions, ThinkLevel};
use serde_json::{Value, json};

/// The `generationConfig.thinkingConfig` to send, if any.
///
/// Only reasoning models get one, and only when a level other than `off` is requested (pi
/// 0.58.3 sends nothing for `off`). Gemini 3 Pro and Flash take a `thinkingLevel`; other models
/// a `thinkingBudget`. `xhigh` is clamped to `high`. `adaptive` (not a pi level) asks only for
/// thoughts and lets the server choose how much to think.
pub fn thinking_config(model: &Model, options: &StreamOptions) -> Option<Value> {
    if !model.reasoning {
        return None;
    }
    let level = match options.reasoning? {
        ThinkLevel::Off => return None,
        ThinkLevel::Adaptive => return Some(json!({"includeThoughts": true})),
        ThinkLevel::Xhigh => ThinkLevel::High,
        other => other,
    };
    let id = model.id.to_ascii_lowercase();
    if is_gemini3(&id, "pro") {
        let level = match level {
            ThinkLevel::Minimal | ThinkLevel::Low => "LOW",
            _ => "HIGH",
        };
        return Some(json!({"includeThoughts": true, "thinkingLevel": level}));
    }
    if is_gemini3(&id, "flash") {
        let level = match level {
            ThinkLevel::Minimal => "MINIMAL",
            ThinkLevel::Low => "LOW",
            ThinkLevel::Medium => "MEDIUM",
            _ => "HIGH",
        };
        return Some(json!({"includeThoughts": true, "thinkingLevel": level}));
    }
    let budget = budget(&model.id, level, &options.thinking_budgets);
    Some(json!({"includeThoughts": true, "thinkingBudget": budget}))
}

/// pi's `getGoogleBudget`: custom budgets first, then the 2.5 Pro / 2.5 Flash tables, else
/// `-1` (dynamic). `StreamOptions` always carries budgets, so only budgets that differ from the
/// defaults count as the caller's own (pi's `thinkingBudgets` is optional).
fn budget(model_id: &str, level: ThinkLevel, budgets: &ThinkingBudgets) -> i64 {
    if *budgets != ThinkingBudgets::default()
        && let Some(custom) = budgets.budget(level)
    {
        return i64::try_from(custom).unwrap_or(i64::MAX);
    }
    let table: [i64; 4] = if model_id.contains("2.5-pro") {
        [128, 2048, 8192, 32768]
    } else if model_id.contains("2.5-flash") {
        [128, 2048, 8192, 24576]
    } else {
        return -1;
    };
    match level {
        ThinkLevel::Minimal => table[0],
        ThinkLevel::Low => table[1],
        ThinkLevel::Medium => table[2],
        _ => table[3],
    }
}

/// `/gemini-3(\.\d+)?-<family>/` on the lowercased model id.
pub(crate) fn is_gemini3(id: &str, family: &str) -> bool {
    id.match_indices("gemini-3").any(|(at, marker)| {
        let rest = &id[at + marker.len()..];
        let rest = match rest.strip_prefix('.') {
            Some(minor) => {
                let digits = minor.chars().take_while(char::is_ascii_digit).count();
                if digits == 0 {
                    return false;
                }
                &minor[digits..]
            }
            None => rest,
        };
        rest.strip_prefix('-')
            .is_some_and(|tail| tail.starts_with(family))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn model(id: &str, reasoning: bool) -> Model {
        serde_json::from_value(json!({
            "id": id, "api": "google-generative-ai", "provider": "google", "reasoning": reasoning,
            "contextWindow": 1000, "maxTokens": 100
        }))
        .unwrap()
    }

    fn config(id: &str, level: Option<ThinkLevel>) -> Option<Value> {
        let options = StreamOptions {
            reasoning: level,
            ..StreamOptions::default()
        };
        thinking_config(&model(id, true), &options)
    }

    #[test]
    fn levels_and_budgets_follow_pi() {
        assert_eq!(config("gemini-2.5-flash", None), None);
        assert_eq!(config("gemini-2.5-flash", Some(ThinkLevel::Off)), None);
        assert_eq!(
            thinking_config(
                &model("gemini-2.5-flash", false),
                &StreamOptions {
                    reasoning: Some(ThinkLevel::High),
                    ..StreamOptions::default()
                }
            ),
            None
        );
        assert_eq!(
            config("gemini-2.5-flash", Some(ThinkLevel::Xhigh)),
            Some(json!({"includeThoughts": true, "thinkingBudget": 24576}))
        );
        assert_eq!(
            config("gemini-2.5-pro", Some(ThinkLevel::Minimal)),
            Some(json!({"includeThoughts": true, "thinkingBudget": 128}))
        );
        assert_eq!(
            config("gemini-2.0-flash-thinking", Some(ThinkLevel::Medium)),
            Some(json!({"includeThoughts": true, "thinkingBudget": -1}))
        );
        assert_eq!(
            config("gemini-3-pro-preview", Some(ThinkLevel::Medium)),
            Some(json!({"includeThoughts": true, "thinkingLevel": "HIGH"}))
        );
        assert_eq!(
            config("gemini-3.1-pro-preview", Some(ThinkLevel::Minimal)),
            Some(json!({"includeThoughts": true, "thinkingLevel": "LOW"}))
        );
        assert_eq!(
            config("gemini-3-flash-preview", Some(ThinkLevel::Minimal)),
            Some(json!({"includeThoughts": true, "thinkingLevel": "MINIMAL"}))
        );
        assert_eq!(
            config("gemini-3-flash-preview", Some(ThinkLevel::Adaptive)),
            Some(json!({"includeThoughts": true}))
        );
        let custom = StreamOptions {
            reasoning: Some(ThinkLevel::Low),
            thinking_budgets: ThinkingBudgets {
                low: 999,
                ..ThinkingBudgets::default()
            },
            ..StreamOptions::default()
        };
        assert_eq!(
            thinking_config(&model("gemini-2.5-pro", true), &custom),
            Some(json!({"includeThoughts": true, "thinkingBudget": 999}))
        );
    }

    #[test]
    fn gemini3_matcher() {
        assert!(is_gemini3("gemini-3-pro", "pro"));
        assert!(is_gemini3("models/gemini-3.10-flash-lite", "flash"));
        assert!(!is_gemini3("gemini-3.-pro", "pro"));
        assert!(!is_gemini3("gemini-30-pro", "pro"));
        assert!(!is_gemini3("gemini-2.5-pro", "pro"));
    }
}
