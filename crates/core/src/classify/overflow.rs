//! Context overflow detection (reference §15.5): `isContextOverflowError`,
//! `isLikelyContextOverflowError`, `isCompactionFailureError` and the observed token count.

use super::js_regex::{js_regexes, lower_trim, parse_js_uint};
use super::patterns::{TPM_RE, is_billing_error_message, is_rate_limit_error_message};

js_regexes! {
    PROVIDER_INPUT_TOKEN_COUNT_RE = (r"\binput token count exceeds the maximum number of input tokens\b", "i");
    PROVIDER_INPUT_TOO_LONG_THIS_MODEL_RE = (r"\binput is too long for this model\b", "i");
    PROVIDER_INPUT_EXCEEDS_MAX_TOKENS_RE = (r"\binput exceeds the maximum number of tokens\b", "i");
    PROVIDER_OLLAMA_RE = (r"\bollama error:\s*context length exceeded(?:,\s*too many tokens)?\b", "i");
    PROVIDER_TOTAL_TOKENS_RE = (r"\btotal tokens?.*exceeds? (?:the )?(?:model(?:'s)? )?(?:max|maximum|limit)", "i");
    PROVIDER_AVAILABLE_CONTEXT_SIZE_RE = (r"\b(?:request|prompt) \(\d[\d,]*\s*tokens?\) exceeds (?:the )?available context size\b", "i");
    PROVIDER_INPUT_TOO_LONG_MODEL_RE = (r"\binput (?:is )?too long for (?:the )?model\b", "i");
    PROVIDER_CONTEXT_OVERFLOW_SIGNAL_RE = (r"\b(?:context|window|prompt|token|tokens|input|request|model)\b", "i");
    PROVIDER_CONTEXT_OVERFLOW_ACTION_RE = (r"\b(?:too\s+(?:large|long|many)|exceed(?:s|ed|ing)?|overflow|limit|maximum|max)\b", "i");
    CONTEXT_WINDOW_TOO_SMALL_RE = (r"context window.*(too small|minimum is)", "i");
    CONTEXT_OVERFLOW_HINT_RE = (r"context.*overflow|context window.*(too (?:large|long)|exceed|over|limit|max(?:imum)?|requested|sent|tokens)|prompt.*(too (?:large|long)|exceed|over|limit|max(?:imum)?)|(?:request|input).*(?:context|window|length|token).*(too (?:large|long)|exceed|over|limit|max(?:imum)?)", "i");
    RATE_LIMIT_HINT_RE = (r"rate limit|too many requests|requests per (?:minute|hour|day)|quota|throttl|429\b|tokens per day", "i");
    OBSERVED_PROMPT_TOO_LONG_RE = (r"prompt is too long:\s*([\d,]+)\s+tokens\s*>\s*[\d,]+\s+maximum", "i");
    OBSERVED_REQUESTED_RE = (r"requested\s+([\d,]+)\s+tokens", "i");
    OBSERVED_RESULTED_IN_RE = (r"resulted in\s+([\d,]+)\s+tokens", "i");
}

/// A reasoning-constraint message: `reasoning is mandatory`, `reasoning is required`,
/// `requires reasoning`, or `reasoning` together with `cannot be disabled`.
pub fn is_reasoning_constraint_error(message: &str) -> bool {
    let lower = lower_trim(message);
    lower.contains("reasoning is mandatory")
        || lower.contains("reasoning is required")
        || lower.contains("requires reasoning")
        || (lower.contains("reasoning") && lower.contains("cannot be disabled"))
}

/// A tokens-per-minute rate limit hint (`tpm`, `tokens per minute`): Groq answers TPM limits
/// with 413, which is not an overflow.
fn has_rate_limit_tpm_hint(message: &str) -> bool {
    let lower = lower_trim(message);
    TPM_RE.is_match(&lower) || lower.contains("tokens per minute")
}

/// `matchesProviderContextOverflow`: provider-specific overflow wording (Bedrock, Gemini,
/// Ollama, llama.cpp, …), only for text that mentions a context-ish noun and an excess verb.
fn matches_provider_context_overflow(message: &str) -> bool {
    if !(PROVIDER_CONTEXT_OVERFLOW_SIGNAL_RE.is_match(message)
        && PROVIDER_CONTEXT_OVERFLOW_ACTION_RE.is_match(message))
    {
        return false;
    }
    [
        &PROVIDER_INPUT_TOKEN_COUNT_RE,
        &PROVIDER_INPUT_TOO_LONG_THIS_MODEL_RE,
        &PROVIDER_INPUT_EXCEEDS_MAX_TOKENS_RE,
        &PROVIDER_OLLAMA_RE,
        &PROVIDER_TOTAL_TOKENS_RE,
        &PROVIDER_AVAILABLE_CONTEXT_SIZE_RE,
        &PROVIDER_INPUT_TOO_LONG_MODEL_RE,
    ]
    .iter()
    .any(|re| re.is_match(message))
}

/// The generic overflow wording of `isContextOverflowError` (without the exclusions and the
/// provider patterns); `lower` is the trimmed, lowercased text, `raw` the original.
pub(crate) fn looks_like_generic_context_overflow(lower: &str, raw: &str) -> bool {
    let has = |s: &str| lower.contains(s);
    let context_window =
        has("context window") || has("context length") || has("maximum context length");
    has("request_too_large")
        || (has("invalid_argument") && has("maximum number of tokens"))
        || has("request exceeds the maximum size")
        || has("context length exceeded")
        || has("maximum context length")
        || has("prompt is too long")
        || has("prompt too long")
        || has("exceeds model context window")
        || has("model token limit")
        || (has("input exceeds") && has("maximum number of tokens"))
        || (has("request size exceeds") && context_window)
        || has("context overflow:")
        || has("exceed context limit")
        || has("exceeds the model's maximum context")
        || (has("max_tokens") && has("exceed") && has("context"))
        || (has("input length") && has("exceed") && has("context"))
        || (has("413") && has("too large"))
        || has("context_window_exceeded")
        || [
            "上下文过长",
            "上下文超出",
            "上下文长度超",
            "超出最大上下文",
            "请压缩上下文",
        ]
        .iter()
        .any(|s| raw.contains(s))
}

/// `isContextOverflowError` (reference §15.5): the prompt does not fit the model's context
/// window. False for TPM rate limits and reasoning-constraint errors; true for the known
/// wordings (`prompt is too long`, `maximum context length`, `request_too_large`,
/// `context_window_exceeded`, Chinese proxy messages, …) and the provider patterns.
/// Prose such as `Let's investigate the context overflow bug` is not an overflow.
pub fn is_context_overflow_error(message: &str) -> bool {
    if message.is_empty()
        || has_rate_limit_tpm_hint(message)
        || is_reasoning_constraint_error(message)
    {
        return false;
    }
    looks_like_generic_context_overflow(&lower_trim(message), message)
        || matches_provider_context_overflow(message)
}

/// `isLikelyContextOverflowError` (reference §15.5): a wider heuristic than
/// [`is_context_overflow_error`]. False for TPM hints, reasoning constraints, billing,
/// `context window … too small / minimum is` and rate limits; true for exact overflows; else the
/// overflow hint regex unless a rate-limit hint is present.
pub fn is_likely_context_overflow_error(message: &str) -> bool {
    if message.is_empty()
        || has_rate_limit_tpm_hint(message)
        || is_reasoning_constraint_error(message)
        || is_billing_error_message(message)
        || CONTEXT_WINDOW_TOO_SMALL_RE.is_match(message)
        || is_rate_limit_error_message(message)
    {
        return false;
    }
    if is_context_overflow_error(message) {
        return true;
    }
    if RATE_LIMIT_HINT_RE.is_match(message) {
        return false;
    }
    CONTEXT_OVERFLOW_HINT_RE.is_match(message)
}

/// `isCompactionFailureError`: the text names compaction (`summarization failed`,
/// `auto-compaction`, `compaction failed`, `compaction`) and is a likely overflow or says
/// `context overflow`.
pub fn is_compaction_failure_error(message: &str) -> bool {
    if message.is_empty() {
        return false;
    }
    let lower = lower_trim(message);
    let compaction = [
        "summarization failed",
        "auto-compaction",
        "compaction failed",
        "compaction",
    ]
    .iter()
    .any(|s| lower.contains(s));
    if !compaction {
        return false;
    }
    is_likely_context_overflow_error(message) || lower.contains("context overflow")
}

/// `extractObservedOverflowTokenCount`: the prompt size a provider reported in an overflow
/// error (`prompt is too long: N tokens > M maximum`, `requested N tokens`, `resulted in N
/// tokens`), commas removed, when positive.
pub fn extract_observed_overflow_token_count(message: &str) -> Option<u64> {
    [
        &OBSERVED_PROMPT_TOO_LONG_RE,
        &OBSERVED_REQUESTED_RE,
        &OBSERVED_RESULTED_IN_RE,
    ]
    .iter()
    .find_map(|re| {
        let digits = re.captures(message)?.get(1)?.as_str().replace(',', "");
        parse_js_uint(&digits).filter(|n| *n > 0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn regexes_compile() {
        assert_eq!(force_all_regexes(), 15);
    }

    #[test]
    fn context_overflow_vectors() {
        let positives = [
            "prompt is too long: 277403 tokens > 200000 maximum",
            "request_too_large",
            "INVALID_ARGUMENT: The input token count exceeds the maximum number of tokens allowed",
            "Request exceeds the maximum size",
            "context length exceeded",
            "This model's maximum context length is 128000 tokens",
            "Prompt too long",
            "Input exceeds model context window",
            "exceeded model token limit",
            "input exceeds the maximum number of tokens",
            "Request size exceeds model context window",
            "Context overflow: prompt too large",
            "tokens exceed context limit",
            "This exceeds the model's maximum context",
            "max_tokens would exceed the context window",
            "input length and max_tokens exceed context limit",
            "413 Request Entity Too Large",
            "Unhandled stop reason: model_context_window_exceeded",
            "上下文过长",
            "错误：上下文超出限制",
            "上下文长度超过限制",
            "超出最大上下文",
            "请压缩上下文后重试",
            "Input token count exceeds the maximum number of input tokens",
            "The input is too long for this model",
            "ollama error: context length exceeded, too many tokens",
            "Total tokens of 300000 exceeds the model's maximum",
            "request (140000 tokens) exceeds the available context size",
            "Input is too long for the model",
        ];
        for m in positives {
            assert!(is_context_overflow_error(m), "expected overflow: {m}");
        }
        let negatives = [
            "",
            "request size exceeds upload limit",
            "Let's investigate the context overflow bug",
            "413 Request too large: TPM limit reached",
            "Rate limit reached: tokens per minute exceeded, prompt is too long",
            "Reasoning is mandatory for this endpoint and prompt is too long",
            "Reasoning cannot be disabled; context length exceeded",
            "429 Too Many Requests",
            "上下文",
            // A likely overflow only (reference §15.5 vector).
            "Context window exceeded: too many tokens per request.",
        ];
        for m in negatives {
            assert!(!is_context_overflow_error(m), "expected no overflow: {m}");
        }
    }

    #[test]
    fn likely_context_overflow_vectors() {
        let cases = [
            ("prompt is too long: 277403 tokens > 200000 maximum", true),
            (
                "Context window exceeded: too many tokens per request.",
                true,
            ),
            ("context window too large for this request", true),
            ("the request input length is over the model limit", true),
            (
                "request reached organization TPD rate limit, current: 1000",
                false,
            ),
            (
                "402 Payment Required: request token limit exceeded for this billing plan",
                false,
            ),
            (
                "Model context window too small (8000 tokens). Minimum is 16000.",
                false,
            ),
            ("429 prompt exceeds quota", false),
            ("prompt quota exceeded", false),
            ("tokens per minute: prompt too large", false),
            ("Reasoning is required; prompt too large", false),
            ("Let's investigate the context overflow bug", true),
            ("all good", false),
            ("", false),
        ];
        for (m, expected) in cases {
            assert_eq!(is_likely_context_overflow_error(m), expected, "{m}");
        }
    }

    #[test]
    fn compaction_failure_vectors() {
        let cases = [
            ("Compaction failed: prompt is too long", true),
            ("auto-compaction: context window exceeded", true),
            ("Summarization failed: context overflow", true),
            (
                "request_too_large: summarization failed - Request size exceeds model context window",
                true,
            ),
            ("Context overflow: prompt too large", false),
            ("compaction finished", false),
            ("", false),
        ];
        for (m, expected) in cases {
            assert_eq!(is_compaction_failure_error(m), expected, "{m}");
        }
    }

    #[test]
    fn reasoning_constraint_vectors() {
        let cases = [
            (
                "400 Reasoning is mandatory for this endpoint and cannot be disabled.",
                true,
            ),
            ("reasoning is required", true),
            ("This model requires reasoning", true),
            ("Reasoning effort cannot be disabled", true),
            ("cannot be disabled", false),
            ("reasoning effort low not supported", false),
        ];
        for (m, expected) in cases {
            assert_eq!(is_reasoning_constraint_error(m), expected, "{m}");
        }
    }

    #[test]
    fn observed_token_count_vectors() {
        let cases = [
            (
                "prompt is too long: 277403 tokens > 200000 maximum",
                Some(277_403),
            ),
            (
                "prompt is too long: 277,403 tokens > 200,000 maximum",
                Some(277_403),
            ),
            (
                "You requested 12000 tokens but the limit is 8192",
                Some(12_000),
            ),
            ("This request resulted in 145,000 tokens", Some(145_000)),
            ("requested 0 tokens", None),
            ("requested , tokens", None),
            ("no numbers here", None),
        ];
        for (m, expected) in cases {
            assert_eq!(extract_observed_overflow_token_count(m), expected, "{m}");
        }
    }
}
