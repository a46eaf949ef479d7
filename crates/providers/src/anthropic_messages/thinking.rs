//! Extended thinking: adaptive (Claude 4.6) or a token budget (older models), and the output
//! limit that goes with it (pi's `streamSimpleAnthropic`, pi-mono §1.3 and §1.7).

use clawloop_core::model::adjust_max_tokens_for_thinking;
use clawloop_core::{Model, StreamOptions, ThinkLevel};
use serde_json::{Value, json};

/// pi's budget when the adjusted one came out as zero (`thinkingBudgetTokens || 1024`).
const FALLBACK_BUDGET_TOKENS: u64 = 1024;

/// The thinking-related fields of one request.
#[derive(Debug, Clone, PartialEq)]
pub struct ThinkingPlan {
    /// `max_tokens` (thinking included for budget thinking).
    pub max_tokens: u64,
    /// The `thinking` object, when thinking is on.
    pub thinking: Option<Value>,
    /// `output_config` carrying the adaptive effort, when there is one.
    pub output_config: Option<Value>,
}

impl ThinkingPlan {
    /// Whether the request asks for thinking (Anthropic then rejects `temperature`).
    pub fn is_enabled(&self) -> bool {
        self.thinking.is_some()
    }
}

/// Whether `model_id` uses adaptive thinking with an effort instead of a token budget.
pub fn supports_adaptive_thinking(model_id: &str) -> bool {
    ["opus-4-6", "opus-4.6", "sonnet-4-6", "sonnet-4.6"]
        .iter()
        .any(|marker| model_id.contains(marker))
}

/// The effort for `level` on an adaptive model: `xhigh` is `max` only on Opus 4.6; our
/// `adaptive` level sends no effort, leaving the choice to the model.
fn effort(model_id: &str, level: ThinkLevel) -> Option<&'static str> {
    match level {
        ThinkLevel::Minimal | ThinkLevel::Low => Some("low"),
        ThinkLevel::Medium => Some("medium"),
        ThinkLevel::High => Some("high"),
        ThinkLevel::Xhigh if model_id.contains("opus-4-6") || model_id.contains("opus-4.6") => {
            Some("max")
        }
        ThinkLevel::Xhigh => Some("high"),
        ThinkLevel::Off | ThinkLevel::Adaptive => None,
    }
}

/// The plan for a call: no thinking unless a level other than `off` is asked of a reasoning
/// model; adaptive models get `{type:"adaptive"}` and an effort, the others a budget from
/// `options.thinking_budgets` with `max_tokens` raised to make room for it. Budget models
/// treat our `adaptive` level as `medium`, the middle of pi's budgets.
pub fn plan(model: &Model, options: &StreamOptions) -> ThinkingPlan {
    let base = options.base_max_tokens(model);
    let level = options
        .reasoning
        .filter(|level| *level != ThinkLevel::Off && model.reasoning);
    let Some(level) = level else {
        return ThinkingPlan {
            max_tokens: base,
            thinking: None,
            output_config: None,
        };
    };
    if supports_adaptive_thinking(&model.id) {
        return ThinkingPlan {
            max_tokens: base,
            thinking: Some(json!({"type": "adaptive"})),
            output_config: effort(&model.id, level).map(|effort| json!({"effort": effort})),
        };
    }
    let budget_level = if level == ThinkLevel::Adaptive {
        ThinkLevel::Medium
    } else {
        level
    };
    let (max_tokens, budget) = adjust_max_tokens_for_thinking(
        base,
        model.max_tokens,
        budget_level,
        &options.thinking_budgets,
    )
    .map_or((base, 0), |t| (t.max_tokens, t.thinking_budget));
    let budget = if budget == 0 {
        FALLBACK_BUDGET_TOKENS
    } else {
        budget
    };
    ThinkingPlan {
        max_tokens,
        thinking: Some(json!({"type": "enabled", "budget_tokens": budget})),
        output_config: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn model(id: &str, reasoning: bool) -> Model {
        serde_json::from_value(json!({
            "id": id, "api": "anthropic-messages", "provider": "anthropic", "reasoning": reasoning,
            "contextWindow": 200000, "maxTokens": 64000
        }))
        .unwrap()
    }

    fn with(level: Option<ThinkLevel>) -> StreamOptions {
        StreamOptions {
            reasoning: level,
            ..StreamOptions::default()
        }
    }

    #[test]
    fn budget_models_raise_max_tokens() {
        let m = model("claude-sonnet-4-5", true);
        assert_eq!(
            plan(&m, &with(Some(ThinkLevel::High))),
            ThinkingPlan {
                max_tokens: 48384,
                thinking: Some(json!({"type": "enabled", "budget_tokens": 16384})),
                output_config: None,
            }
        );
        assert_eq!(
            plan(&m, &with(Some(ThinkLevel::Adaptive))).thinking,
            Some(json!({"type": "enabled", "budget_tokens": 8192}))
        );
        let small = StreamOptions {
            max_tokens: Some(100),
            ..with(Some(ThinkLevel::Minimal))
        };
        let tiny: Model = Model {
            max_tokens: 1000,
            ..m.clone()
        };
        // max_tokens 1000 <= budget 1024: the budget shrinks to 0, which pi sends as 1024.
        assert_eq!(
            plan(&tiny, &small),
            ThinkingPlan {
                max_tokens: 1000,
                thinking: Some(json!({"type": "enabled", "budget_tokens": 1024})),
                output_config: None,
            }
        );
    }

    #[test]
    fn adaptive_models_send_an_effort() {
        let opus = model("claude-opus-4-6", true);
        let sonnet = model("claude-sonnet-4.6", true);
        let effort_of = |m: &Model, level| plan(m, &with(Some(level))).output_config;
        assert_eq!(
            effort_of(&opus, ThinkLevel::Xhigh),
            Some(json!({"effort": "max"}))
        );
        assert_eq!(
            effort_of(&sonnet, ThinkLevel::Xhigh),
            Some(json!({"effort": "high"}))
        );
        assert_eq!(
            effort_of(&sonnet, ThinkLevel::Minimal),
            Some(json!({"effort": "low"}))
        );
        assert_eq!(effort_of(&sonnet, ThinkLevel::Adaptive), None);
        let p = plan(&sonnet, &with(Some(ThinkLevel::Medium)));
        assert_eq!(
            (p.max_tokens, p.thinking),
            (32000, Some(json!({"type": "adaptive"})))
        );
    }

    #[test]
    fn off_or_not_a_reasoning_model() {
        for (m, level) in [
            (model("claude-sonnet-4-5", true), Some(ThinkLevel::Off)),
            (model("claude-sonnet-4-5", true), None),
            (model("claude-3-5-haiku", false), Some(ThinkLevel::High)),
        ] {
            let p = plan(&m, &with(level));
            assert!(!p.is_enabled());
            assert_eq!(p.max_tokens, 32000);
        }
    }
}
