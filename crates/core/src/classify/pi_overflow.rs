//! pi's `isContextOverflow` (pi-mono §1.10, `utils/overflow.ts` of pi-ai 0.58.3).
//!
//! This is the check the agent session and the providers use; the runner's overflow chain uses
//! [`is_context_overflow_error`](super::is_context_overflow_error) instead. The 0.73 additions
//! (`request_too_large`, the Ollama wording and the NON_OVERFLOW veto) are deliberately absent.

use crate::{StopReason, Usage};

use super::js_regex::js_regexes;

js_regexes! {
    ANTHROPIC_RE = (r"prompt is too long", "i");
    BEDROCK_RE = (r"input is too long for requested model", "i");
    OPENAI_RE = (r"exceeds the context window", "i");
    GEMINI_RE = (r"input token count.*exceeds the maximum", "i");
    XAI_RE = (r"maximum prompt length is \d+", "i");
    GROQ_RE = (r"reduce the length of the messages", "i");
    OPENROUTER_RE = (r"maximum context length is \d+ tokens", "i");
    COPILOT_RE = (r"exceeds the limit of \d+", "i");
    LLAMA_CPP_RE = (r"exceeds the available context size", "i");
    LM_STUDIO_RE = (r"greater than the context length", "i");
    MINIMAX_RE = (r"context window exceeds limit", "i");
    KIMI_RE = (r"exceeded model token limit", "i");
    MISTRAL_RE = (r"too large for model with \d+ maximum context length", "i");
    ZAI_RE = (r"model_context_window_exceeded", "i");
    GENERIC_CONTEXT_LENGTH_RE = (r"context[_ ]length[_ ]exceeded", "i");
    GENERIC_TOO_MANY_TOKENS_RE = (r"too many tokens", "i");
    GENERIC_TOKEN_LIMIT_RE = (r"token limit exceeded", "i");
    CEREBRAS_NO_BODY_RE = (r"^4(00|13)\s*(status code)?\s*\(no body\)", "i");
}

/// True if the error message matches one of pi's overflow patterns: Anthropic `prompt is too
/// long`, Bedrock, OpenAI `exceeds the context window`, Gemini, xAI, Groq, OpenRouter, Copilot,
/// llama.cpp, LM Studio, MiniMax, Kimi, Mistral, z.ai, the generic `context length exceeded` /
/// `too many tokens` / `token limit exceeded`, or Cerebras' `400/413 (no body)`.
pub fn matches_pi_overflow_pattern(error_message: &str) -> bool {
    [
        &ANTHROPIC_RE,
        &BEDROCK_RE,
        &OPENAI_RE,
        &GEMINI_RE,
        &XAI_RE,
        &GROQ_RE,
        &OPENROUTER_RE,
        &COPILOT_RE,
        &LLAMA_CPP_RE,
        &LM_STUDIO_RE,
        &MINIMAX_RE,
        &KIMI_RE,
        &MISTRAL_RE,
        &ZAI_RE,
        &GENERIC_CONTEXT_LENGTH_RE,
        &GENERIC_TOO_MANY_TOKENS_RE,
        &GENERIC_TOKEN_LIMIT_RE,
        &CEREBRAS_NO_BODY_RE,
    ]
    .iter()
    .any(|re| re.is_match(error_message))
}

/// pi's `isContextOverflow(message, contextWindow)`: an `error` stop with a non-empty message
/// matching [`matches_pi_overflow_pattern`], or a silent overflow (z.ai): a `stop` whose
/// `input + cacheRead` exceeds a known, non-zero context window.
pub fn is_context_overflow(
    stop_reason: StopReason,
    error_message: Option<&str>,
    usage: &Usage,
    context_window: Option<u64>,
) -> bool {
    if stop_reason == StopReason::Error
        && error_message.is_some_and(|m| !m.is_empty() && matches_pi_overflow_pattern(m))
    {
        return true;
    }
    match context_window {
        Some(window) if window > 0 && stop_reason == StopReason::Stop => {
            usage.input.saturating_add(usage.cache_read) > window
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn regexes_compile() {
        assert_eq!(force_all_regexes(), 18);
    }

    #[test]
    fn pattern_vectors() {
        let positives = [
            "prompt is too long: 213462 tokens > 200000 maximum",
            "input is too long for requested model",
            "Your input exceeds the context window of this model",
            "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575)",
            "This model's maximum prompt length is 131072 but the request contains 537812 tokens",
            "Please reduce the length of the messages or completion",
            "This endpoint's maximum context length is 128000 tokens",
            "prompt token count of 140000 exceeds the limit of 128000",
            "the request exceeds the available context size, try increasing it",
            "tokens to keep from the initial prompt is greater than the context length",
            "invalid params, context window exceeds limit (2013)",
            "Your request exceeded model token limit: 262144",
            "Prompt contains 140000 tokens, too large for model with 131072 maximum context length",
            "model_context_window_exceeded",
            "context_length_exceeded",
            "Context length exceeded",
            "too many tokens",
            "token limit exceeded",
            "400 status code (no body)",
            "413 (no body)",
            "413status code (no body)",
        ];
        for m in positives {
            assert!(matches_pi_overflow_pattern(m), "{m}");
        }
        let negatives = [
            "",
            "429 status code (no body)",
            "rate limit exceeded",
            "x 400 (no body)",
            "request_too_large",
            "prompt too long; exceeded max context length",
        ];
        for m in negatives {
            assert!(!matches_pi_overflow_pattern(m), "{m}");
        }
    }

    #[test]
    fn stop_reason_and_silent_overflow() {
        let usage = Usage {
            input: 150_000,
            cache_read: 60_000,
            ..Usage::default()
        };
        let none = Usage::default();
        let cases = [
            (
                StopReason::Error,
                Some("prompt is too long"),
                &none,
                None,
                true,
            ),
            (
                StopReason::Stop,
                Some("prompt is too long"),
                &none,
                None,
                false,
            ),
            (
                StopReason::Aborted,
                Some("prompt is too long"),
                &none,
                None,
                false,
            ),
            (StopReason::Error, Some(""), &none, None, false),
            (StopReason::Error, None, &none, None, false),
            (StopReason::Stop, None, &usage, Some(200_000), true),
            (StopReason::Stop, None, &usage, Some(210_000), false),
            (StopReason::Stop, None, &usage, Some(0), false),
            (StopReason::Stop, None, &usage, None, false),
            (StopReason::Length, None, &usage, Some(200_000), false),
            (
                StopReason::Error,
                Some("boom"),
                &usage,
                Some(200_000),
                false,
            ),
        ];
        for (stop, message, usage, window, expected) in cases {
            assert_eq!(
                is_context_overflow(stop, message, usage, window),
                expected,
                "{stop} {message:?} {window:?}"
            );
        }
    }
}
