//! Token usage as CLIs report it (OpenClaw's `toCliUsage` / `readCliUsage`), mapped onto pi's
//! [`Usage`]. Cost stays zero: a CLI bills through its own account.

use clawloop_core::Usage;
use serde_json::{Map, Value};

/// The usage of a record: `message.usage`, else `usage`, else `stats`.
pub(crate) fn record_usage(record: &Map<String, Value>) -> Option<Usage> {
    if let Some(Value::Object(usage)) = record
        .get("message")
        .and_then(Value::as_object)
        .and_then(|m| m.get("usage"))
        && let Some(usage) = to_usage(usage)
    {
        return Some(usage);
    }
    if let Some(Value::Object(usage)) = record.get("usage")
        && let Some(usage) = to_usage(usage)
    {
        return Some(usage);
    }
    match record.get("stats") {
        Some(Value::Object(stats)) => to_usage(stats),
        _ => None,
    }
}

/// A positive number; JSON floats are truncated (`as` saturates, NaN cannot come from JSON).
fn positive(raw: &Map<String, Value>, key: &str) -> Option<u64> {
    let n = raw.get(key)?.as_f64()?;
    (n > 0.0).then_some(n as u64)
}

fn nested_cached(raw: &Map<String, Value>, key: &str) -> Option<u64> {
    positive(raw.get(key)?.as_object()?, "cached_tokens")
}

/// `None` when no count is positive.
pub(crate) fn to_usage(raw: &Map<String, Value>) -> Option<Usage> {
    let total_input = positive(raw, "input_tokens").or_else(|| positive(raw, "inputTokens"));
    let output = positive(raw, "output_tokens").or_else(|| positive(raw, "outputTokens"));
    let nested = nested_cached(raw, "input_tokens_details")
        .or_else(|| nested_cached(raw, "prompt_tokens_details"));
    let cache_read = positive(raw, "cache_read_input_tokens")
        .or_else(|| positive(raw, "cached_input_tokens"))
        .or_else(|| positive(raw, "cacheRead"))
        .or_else(|| positive(raw, "cached"))
        .or(nested);
    // Only a `cached` count (or a nested one) is known to be inside the input count.
    let input = positive(raw, "input").or_else(|| {
        if raw.contains_key("cached") || nested.is_some() {
            total_input.map(|t| t.saturating_sub(cache_read.unwrap_or(0)))
        } else {
            total_input
        }
    });
    let cache_write = positive(raw, "cache_creation_input_tokens")
        .or_else(|| positive(raw, "cache_write_input_tokens"))
        .or_else(|| positive(raw, "cacheWrite"));
    let total = positive(raw, "total_tokens").or_else(|| positive(raw, "total"));
    if input.is_none()
        && output.is_none()
        && cache_read.is_none()
        && cache_write.is_none()
        && total.is_none()
    {
        return None;
    }
    let mut usage = Usage {
        input: input.unwrap_or(0),
        output: output.unwrap_or(0),
        cache_read: cache_read.unwrap_or(0),
        cache_write: cache_write.unwrap_or(0),
        ..Usage::default()
    };
    usage.total_tokens = total.unwrap_or_else(|| {
        usage
            .input
            .saturating_add(usage.output)
            .saturating_add(usage.cache_read)
            .saturating_add(usage.cache_write)
    });
    Some(usage)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn usage(v: Value) -> Option<Usage> {
        to_usage(v.as_object()?)
    }

    fn counts(u: Option<Usage>) -> Option<(u64, u64, u64, u64, u64)> {
        u.map(|u| {
            (
                u.input,
                u.output,
                u.cache_read,
                u.cache_write,
                u.total_tokens,
            )
        })
    }

    #[test]
    fn claude_and_codex_shapes() {
        assert_eq!(
            counts(usage(json!({
                "input_tokens": 10, "output_tokens": 5,
                "cache_read_input_tokens": 100, "cache_creation_input_tokens": 7
            }))),
            Some((10, 5, 100, 7, 122))
        );
        // Codex: cached_input_tokens is reported but not subtracted (no `cached` key).
        assert_eq!(
            counts(usage(
                json!({"input_tokens": 50, "cached_input_tokens": 20, "output_tokens": 3})
            )),
            Some((50, 3, 20, 0, 73))
        );
        assert_eq!(
            counts(usage(
                json!({"input_tokens": 50, "cached": 20, "total": 99})
            )),
            Some((30, 0, 20, 0, 99))
        );
        assert_eq!(
            counts(usage(
                json!({"input_tokens": 50, "input_tokens_details": {"cached_tokens": 8}})
            )),
            Some((42, 0, 8, 0, 50))
        );
        assert_eq!(counts(usage(json!({"input_tokens": 0, "x": "y"}))), None);
        assert_eq!(
            counts(usage(json!({"input_tokens": -4, "output_tokens": 1e300}))),
            Some((0, u64::MAX, 0, 0, u64::MAX))
        );
    }
}
