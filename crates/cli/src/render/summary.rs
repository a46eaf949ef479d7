//! The last line of a turn on stderr: tokens, cost when the catalog prices the model, the
//! duration, and the session with the command that continues it.

use std::time::Duration;

use clawloop_core::{ModelCost, Usage};
use clawloop_providers::catalog::ModelCatalog;
use clawloop_runner::config::Config;
use clawloop_runner::payloads::NormalizedUsage;

use super::tool_line::format_duration;

/// What the last line reports about one turn.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TurnStats {
    /// Input tokens of the run (all its model calls).
    pub input_tokens: Option<u64>,
    /// Output tokens of the run.
    pub output_tokens: Option<u64>,
    /// Cost in USD, when the model has prices and the summary line shows it (not in
    /// `--print` or `--json`).
    pub cost_usd: Option<f64>,
    /// Wall time of the turn.
    pub duration: Duration,
}

/// The run's cost: `provider/model`'s catalog prices (built-in merged with the config) times
/// its usage; `None` when the model is unknown or has no prices.
pub fn run_cost(
    config: &Config,
    provider: &str,
    model: &str,
    usage: &NormalizedUsage,
) -> Option<f64> {
    let catalog = ModelCatalog::from_config(&config.models).ok()?;
    let prices: ModelCost = catalog.get(provider, model).ok()?.cost;
    let priced = [
        prices.input,
        prices.output,
        prices.cache_read,
        prices.cache_write,
    ]
    .iter()
    .any(|price| *price > 0.0);
    if !priced {
        return None;
    }
    let mut priced_usage = Usage {
        input: usage.input.unwrap_or(0),
        output: usage.output.unwrap_or(0),
        cache_read: usage.cache_read.unwrap_or(0),
        cache_write: usage.cache_write.unwrap_or(0),
        ..Usage::default()
    };
    priced_usage.apply_cost(&prices);
    Some(priced_usage.cost.total)
}

/// `12 in · 5 out tokens · $0.0012 · 1.3 s`, then `session <id>; <hint>` when known.
pub fn summary_line(stats: &TurnStats, session: Option<(&str, Option<&str>)>) -> String {
    let mut parts = Vec::new();
    if stats.input_tokens.is_some() || stats.output_tokens.is_some() {
        parts.push(format!(
            "{} in · {} out tokens",
            stats.input_tokens.unwrap_or(0),
            stats.output_tokens.unwrap_or(0)
        ));
    }
    if let Some(cost) = stats.cost_usd {
        parts.push(format_cost(cost));
    }
    parts.push(format_duration(stats.duration));
    let mut line = parts.join(" · ");
    if let Some((id, hint)) = session {
        line.push_str(&format!(" · session {id}"));
        if let Some(hint) = hint {
            line.push_str(&format!("; {hint}"));
        }
    }
    line
}

/// `$0.0012`: four decimals under a dollar keep small runs visible, two above.
fn format_cost(cost: f64) -> String {
    if cost < 1.0 {
        format!("${cost:.4}")
    } else {
        format!("${cost:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_line_names_tokens_cost_time_and_session() {
        let stats = TurnStats {
            input_tokens: Some(1200),
            output_tokens: Some(80),
            cost_usd: Some(0.00123),
            duration: Duration::from_millis(2300),
        };
        assert_eq!(
            summary_line(&stats, Some(("abc", Some("continue with: x")))),
            "1200 in · 80 out tokens · $0.0012 · 2.3 s · session abc; continue with: x"
        );
        let bare = TurnStats {
            duration: Duration::from_millis(5),
            ..TurnStats::default()
        };
        assert_eq!(summary_line(&bare, None), "5 ms");
    }

    #[test]
    fn cost_comes_from_the_catalog_and_is_absent_without_prices() -> Result<(), String> {
        let config = Config::from_value(serde_json::json!({"models": {"providers": {"acme": {
            "api": "openai-completions", "baseUrl": "http://127.0.0.1:1/v1",
            "models": [
                {"id": "paid", "cost": {"input": 3.0, "output": 15.0, "cacheRead": 0.3, "cacheWrite": 3.75}},
                {"id": "free"}
            ]}}}}))
        .map_err(|e| e.to_string())?;
        let usage = NormalizedUsage {
            input: Some(1_000_000),
            output: Some(100_000),
            ..NormalizedUsage::default()
        };
        assert_eq!(run_cost(&config, "acme", "paid", &usage), Some(4.5));
        assert_eq!(run_cost(&config, "acme", "free", &usage), None);
        assert_eq!(run_cost(&config, "acme", "missing", &usage), None);
        Ok(())
    }
}
