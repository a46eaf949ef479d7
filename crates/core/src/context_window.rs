//! Context-window resolution and guard (reference §12, `agents/context-window-guard.ts`).

use serde::{Deserialize, Serialize};

/// Below this many tokens a model is refused before any attempt (SPEC §8.4).
pub const CONTEXT_WINDOW_HARD_MIN_TOKENS: u64 = 16_000;
/// Below this many tokens the runner logs a low-context-window warning.
pub const CONTEXT_WINDOW_WARN_BELOW_TOKENS: u64 = 32_000;
/// The context window assumed when neither the model nor the config knows one.
pub const DEFAULT_CONTEXT_TOKENS: u64 = 200_000;

/// The raw context-window values of the model and the config, as they were read (JSON
/// numbers). Each is floored; non-finite and non-positive values count as absent.
#[derive(Debug, Clone, Copy, Default)]
pub struct ContextWindowSources {
    /// The model's `contextWindow`.
    pub model_context_window: Option<f64>,
    /// The model's `contextTokens` (wins over its `contextWindow`).
    pub model_context_tokens: Option<f64>,
    /// `models.providers[<provider>].models[id == model].contextWindow`.
    pub config_context_window: Option<f64>,
    /// `models.providers[<provider>].models[id == model].contextTokens` (wins over the config
    /// `contextWindow`).
    pub config_context_tokens: Option<f64>,
    /// `agents.defaults.contextTokens`: a cap that lowers, never raises, the window.
    pub agent_context_tokens: Option<f64>,
}

/// Where a resolved context window came from.
///
/// Serialized as `model`, `modelsConfig`, `agentContextTokens`, `default`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ContextWindowSource {
    /// The model definition (`contextTokens`, else `contextWindow`).
    Model,
    /// The model's entry in `models.providers` of the config.
    ModelsConfig,
    /// The `agents.defaults.contextTokens` cap.
    AgentContextTokens,
    /// [`DEFAULT_CONTEXT_TOKENS`].
    Default,
}

impl ContextWindowSource {
    /// The wire name: `"model"`, `"modelsConfig"`, `"agentContextTokens"` or `"default"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ContextWindowSource::Model => "model",
            ContextWindowSource::ModelsConfig => "modelsConfig",
            ContextWindowSource::AgentContextTokens => "agentContextTokens",
            ContextWindowSource::Default => "default",
        }
    }
}

/// A resolved context window (`resolveContextWindowInfo`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextWindowInfo {
    /// The window in tokens.
    pub tokens: u64,
    /// Where it came from.
    pub source: ContextWindowSource,
}

/// `normalizePositiveInt`: floored, and only when finite and positive after flooring.
fn positive_int(value: Option<f64>) -> Option<u64> {
    let v = value?;
    if !v.is_finite() {
        return None;
    }
    let floored = v.floor();
    // Positive and finite; values beyond u64 saturate (they are nonsense windows anyway).
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    (floored > 0.0).then_some(floored as u64)
}

/// `resolveContextWindowInfo` (reference §12): the models-config entry (`contextTokens`, else
/// `contextWindow`), else the model (`contextTokens`, else `contextWindow`), else the default;
/// then `agents.defaults.contextTokens` caps it when smaller.
pub fn resolve_context_window_info(sources: &ContextWindowSources) -> ContextWindowInfo {
    let from_config = positive_int(sources.config_context_tokens)
        .or_else(|| positive_int(sources.config_context_window));
    let from_model = positive_int(sources.model_context_tokens)
        .or_else(|| positive_int(sources.model_context_window));
    let base = match (from_config, from_model) {
        (Some(tokens), _) => ContextWindowInfo {
            tokens,
            source: ContextWindowSource::ModelsConfig,
        },
        (None, Some(tokens)) => ContextWindowInfo {
            tokens,
            source: ContextWindowSource::Model,
        },
        (None, None) => ContextWindowInfo {
            tokens: DEFAULT_CONTEXT_TOKENS,
            source: ContextWindowSource::Default,
        },
    };
    match positive_int(sources.agent_context_tokens) {
        Some(cap) if cap < base.tokens => ContextWindowInfo {
            tokens: cap,
            source: ContextWindowSource::AgentContextTokens,
        },
        _ => base,
    }
}

/// The guard's verdict on a context window (`evaluateContextWindowGuard`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextWindowGuard {
    /// The window in tokens.
    pub tokens: u64,
    /// Where it came from.
    pub source: ContextWindowSource,
    /// The window is positive and below the warn threshold: log a warning.
    pub should_warn: bool,
    /// The window is positive and below the hard minimum: refuse the model.
    pub should_block: bool,
}

/// A threshold as JavaScript computes `Math.max(1, Math.floor(value ?? default))`: NaN stays
/// NaN (and then nothing compares below it).
fn threshold(value: Option<f64>, default: u64) -> f64 {
    // The defaults are small integers, exactly representable.
    #[allow(clippy::cast_precision_loss)]
    let v = value.unwrap_or(default as f64).floor();
    if v.is_nan() { v } else { v.max(1.0) }
}

/// `evaluateContextWindowGuard` (reference §12): warn below `warn_below_tokens` (default
/// 32000), block below `hard_min_tokens` (default 16000); both floored with a minimum of 1. A
/// window of 0 never warns nor blocks.
pub fn evaluate_context_window_guard(
    info: &ContextWindowInfo,
    warn_below_tokens: Option<f64>,
    hard_min_tokens: Option<f64>,
) -> ContextWindowGuard {
    let warn_below = threshold(warn_below_tokens, CONTEXT_WINDOW_WARN_BELOW_TOKENS);
    let hard_min = threshold(hard_min_tokens, CONTEXT_WINDOW_HARD_MIN_TOKENS);
    // Token counts stay far below 2^53.
    #[allow(clippy::cast_precision_loss)]
    let tokens = info.tokens as f64;
    ContextWindowGuard {
        tokens: info.tokens,
        source: info.source,
        should_warn: info.tokens > 0 && tokens < warn_below,
        should_block: info.tokens > 0 && tokens < hard_min,
    }
}

/// The error the runner fails with for a blocked model (SPEC §8.4):
/// `Model context window too small (N tokens). Minimum is 16000.`
pub fn context_window_too_small_message(tokens: u64) -> String {
    format!(
        "Model context window too small ({tokens} tokens). Minimum is {CONTEXT_WINDOW_HARD_MIN_TOKENS}."
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use ContextWindowSource::{AgentContextTokens, Default as Dflt, Model, ModelsConfig};
    use pretty_assertions::assert_eq;

    fn guard(
        sources: ContextWindowSources,
        warn: Option<f64>,
        hard: Option<f64>,
    ) -> (u64, ContextWindowSource, bool, bool) {
        let g = evaluate_context_window_guard(&resolve_context_window_info(&sources), warn, hard);
        (g.tokens, g.source, g.should_warn, g.should_block)
    }

    fn model(window: f64) -> ContextWindowSources {
        ContextWindowSources {
            model_context_window: Some(window),
            ..ContextWindowSources::default()
        }
    }

    #[test]
    fn reference_vectors() {
        let cases = vec![
            (
                "8000 warns and blocks",
                guard(model(8000.0), None, None),
                (8000, Model, true, true),
            ),
            (
                "24000 warns only",
                guard(model(24000.0), None, None),
                (24000, Model, true, false),
            ),
            (
                "64000 neither",
                guard(model(64000.0), None, None),
                (64000, Model, false, false),
            ),
            (
                "models config window 12000",
                guard(
                    ContextWindowSources {
                        config_context_window: Some(12000.0),
                        ..model(200_000.0)
                    },
                    None,
                    None,
                ),
                (12000, ModelsConfig, true, true),
            ),
            (
                "contextTokens beats contextWindow",
                guard(
                    ContextWindowSources {
                        model_context_tokens: Some(12000.0),
                        ..model(1_050_000.0)
                    },
                    None,
                    None,
                ),
                (12000, Model, true, true),
            ),
            (
                "cap 20000",
                guard(
                    ContextWindowSources {
                        agent_context_tokens: Some(20000.0),
                        ..model(200_000.0)
                    },
                    None,
                    None,
                ),
                (20000, AgentContextTokens, true, false),
            ),
            (
                "cap never raises",
                guard(
                    ContextWindowSources {
                        agent_context_tokens: Some(128_000.0),
                        ..model(64000.0)
                    },
                    None,
                    None,
                ),
                (64000, Model, false, false),
            ),
            (
                "custom thresholds",
                guard(model(10000.0), Some(12000.0), Some(9000.0)),
                (10000, Model, true, false),
            ),
            (
                "default",
                guard(ContextWindowSources::default(), None, None),
                (200_000, Dflt, false, false),
            ),
            (
                "config tokens over config window",
                guard(
                    ContextWindowSources {
                        config_context_window: Some(20000.0),
                        config_context_tokens: Some(90000.0),
                        ..model(200_000.0)
                    },
                    None,
                    None,
                ),
                (90000, ModelsConfig, false, false),
            ),
            (
                "config tokens 0 falls to config window",
                guard(
                    ContextWindowSources {
                        config_context_tokens: Some(0.0),
                        config_context_window: Some(14000.0),
                        ..model(100_000.0)
                    },
                    None,
                    None,
                ),
                (14000, ModelsConfig, true, true),
            ),
        ];
        for (name, got, expected) in cases {
            assert_eq!(got, expected, "{name}");
        }
    }

    #[test]
    fn raw_values_are_floored_and_filtered() {
        assert_eq!(
            guard(model(16000.9), None, None),
            (16000, Model, true, false)
        );
        assert_eq!(guard(model(0.5), None, None), (200_000, Dflt, false, false));
        assert_eq!(
            guard(model(-5.0), None, None),
            (200_000, Dflt, false, false)
        );
        assert_eq!(
            guard(model(f64::NAN), None, None),
            (200_000, Dflt, false, false)
        );
        assert_eq!(
            guard(model(f64::INFINITY), None, None),
            (200_000, Dflt, false, false)
        );
        assert_eq!(
            guard(
                ContextWindowSources {
                    agent_context_tokens: Some(0.0),
                    ..model(8000.0)
                },
                None,
                None
            ),
            (8000, Model, true, true)
        );
    }

    #[test]
    fn thresholds_follow_javascript() {
        let info = ContextWindowInfo {
            tokens: 10,
            source: Model,
        };
        let g = |w, h| {
            let r = evaluate_context_window_guard(&info, w, h);
            (r.should_warn, r.should_block)
        };
        assert_eq!(g(Some(0.0), Some(-3.0)), (false, false)); // both become 1
        assert_eq!(g(Some(10.5), Some(11.0)), (false, true)); // floor(10.5) = 10
        assert_eq!(g(Some(f64::NAN), Some(f64::NAN)), (false, false));
        assert_eq!(g(Some(f64::INFINITY), None), (true, true));
        let zero = ContextWindowInfo {
            tokens: 0,
            source: Model,
        };
        let r = evaluate_context_window_guard(&zero, None, None);
        assert_eq!((r.should_warn, r.should_block), (false, false));
    }

    #[test]
    fn source_names() {
        for (source, name) in [
            (Model, "model"),
            (ModelsConfig, "modelsConfig"),
            (AgentContextTokens, "agentContextTokens"),
            (Dflt, "default"),
        ] {
            assert_eq!(source.as_str(), name);
            assert_eq!(
                serde_json::to_string(&source).unwrap(),
                format!("\"{name}\"")
            );
        }
    }

    #[test]
    fn too_small_message() {
        assert_eq!(
            context_window_too_small_message(8000),
            "Model context window too small (8000 tokens). Minimum is 16000."
        );
    }
}
