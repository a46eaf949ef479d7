//! Model-not-found and CLI-session-expired wording (reference §15.3 steps 2 and 3).

use super::js_regex::{js_regexes, js_trim, lower_trim};

js_regexes! {
    NO_ENDPOINTS_RE = (r"no endpoints found for", "i");
    UNKNOWN_MODEL_RE = (r"unknown model", "i");
    MODEL_NOT_FOUND_RE = (r"model(?:[_\-\s])?not(?:[_\-\s])?found", "i");
    STATUS_404_RE = (r"\b404\b", "");
    NOT_FOUND_RE = (r"not(?:[_\-\s])?found", "i");
    NOT_FOUND_ERROR_RE = (r"not_found_error", "i");
    MODEL_ID_RE = (r"model:\s*[a-z0-9._/-]+", "i");
    MODELS_PATH_NOT_FOUND_RE = (r"models\/[^\s]+ is not found", "i");
    MODEL_RE = (r"model", "i");
    DOES_NOT_EXIST_RE = (r"does not exist", "i");
    DEPRECATED_RE = (r"deprecated", "i");
    UPGRADE_TO_RE = (r"(upgrade|transition) to", "i");
    STEALTH_MODEL_RE = (r"stealth model", "i");
    FIND_IT_HERE_RE = (r"find it here", "i");
    NOT_VALID_MODEL_ID_RE = (r"is not a valid model id", "i");
    INVALID_MODEL_RE = (r"invalid model", "i");
    INVALID_MODEL_REFERENCE_RE = (r"invalid model reference", "i");
}

/// `isModelNotFoundErrorMessage` (`live-model-errors.ts`): unknown or retired models
/// (`Unknown model`, `model_not_found`, `404 … not found`, `models/x is not found`,
/// `model … does not exist`, `… deprecated … upgrade to`, `is not a valid model id`,
/// `invalid model` but not `invalid model reference`, …).
pub fn is_model_not_found_error_message(message: &str) -> bool {
    let msg = js_trim(message);
    if msg.is_empty() {
        return false;
    }
    NO_ENDPOINTS_RE.is_match(msg)
        || UNKNOWN_MODEL_RE.is_match(msg)
        || MODEL_NOT_FOUND_RE.is_match(msg)
        || (STATUS_404_RE.is_match(msg) && NOT_FOUND_RE.is_match(msg))
        || NOT_FOUND_ERROR_RE.is_match(msg)
        || (MODEL_ID_RE.is_match(msg) && NOT_FOUND_RE.is_match(msg))
        || MODELS_PATH_NOT_FOUND_RE.is_match(msg)
        || (MODEL_RE.is_match(msg) && DOES_NOT_EXIST_RE.is_match(msg))
        || (MODEL_RE.is_match(msg) && DEPRECATED_RE.is_match(msg) && UPGRADE_TO_RE.is_match(msg))
        || (STEALTH_MODEL_RE.is_match(msg) && FIND_IT_HERE_RE.is_match(msg))
        || NOT_VALID_MODEL_ID_RE.is_match(msg)
        || (INVALID_MODEL_RE.is_match(msg) && !INVALID_MODEL_REFERENCE_RE.is_match(msg))
}

/// `isCliSessionExpiredErrorMessage`: a CLI backend's session or conversation is gone
/// (`session not found`, `session expired`, `no such session`, `conversation id not found`, …).
pub fn is_cli_session_expired_error_message(message: &str) -> bool {
    let lower = lower_trim(message);
    [
        "session not found",
        "session does not exist",
        "session expired",
        "session invalid",
        "conversation not found",
        "conversation does not exist",
        "conversation expired",
        "conversation invalid",
        "no such session",
        "invalid session",
        "session id not found",
        "conversation id not found",
    ]
    .iter()
    .any(|s| lower.contains(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regexes_compile() {
        assert_eq!(force_all_regexes(), 17);
    }

    #[test]
    fn model_not_found_vectors() {
        let positives = [
            "No endpoints found for openai/gpt-9.",
            "Unknown model: gpt-9-ultra",
            "model_not_found",
            "Model not found",
            "404 page not found",
            r#"{"type":"not_found_error"}"#,
            "model: claude-x was not found",
            "models/gemini-9 is not found for API version v1beta",
            "The model `gpt-9` does not exist or you do not have access to it.",
            "This model is deprecated. Please upgrade to claude-4",
            "The stealth model has ended; find it here",
            "foo is not a valid model ID",
            "Invalid model: x",
        ];
        for m in positives {
            assert!(is_model_not_found_error_message(m), "{m}");
        }
        let negatives = [
            "",
            "invalid model reference: x",
            "file not found",
            "rate limit",
        ];
        for m in negatives {
            assert!(!is_model_not_found_error_message(m), "{m}");
        }
    }

    #[test]
    fn session_expired_vectors() {
        for m in [
            "Session not found",
            "error: no such session abc",
            "Conversation ID not found",
        ] {
            assert!(is_cli_session_expired_error_message(m), "{m}");
        }
        for m in ["", "session started", "conversation ended"] {
            assert!(!is_cli_session_expired_error_message(m), "{m}");
        }
    }
}
