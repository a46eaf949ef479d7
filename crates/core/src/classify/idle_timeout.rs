//! The LLM idle timeout's error text (OpenClaw `run/llm-idle-timeout.ts`): one wording shared by
//! every place that times a stream out, and the predicate the runner uses to tell an idle
//! timeout from other failures (SPEC §8.1: it ends the attempt as `aborted` with `timedOut`).

use std::time::Duration;

const PREFIX: &str = "LLM idle timeout (";
const SUFFIX: &str = "s): no response from model";

/// `LLM idle timeout (<s>s): no response from model`, seconds as JavaScript prints them.
pub fn idle_timeout_message(timeout: Duration) -> String {
    let seconds = crate::js_number::format_js_number(timeout.as_secs_f64());
    format!("{PREFIX}{seconds}{SUFFIX}")
}

/// Whether `message` is the idle-timeout text of [`idle_timeout_message`].
pub fn is_idle_timeout_error(message: &str) -> bool {
    message
        .trim()
        .strip_prefix(PREFIX)
        .and_then(|rest| rest.strip_suffix(SUFFIX))
        .is_some_and(|seconds| !seconds.is_empty() && seconds.parse::<f64>().is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_text_names_the_timeout_in_seconds() {
        assert_eq!(
            idle_timeout_message(Duration::from_secs(120)),
            "LLM idle timeout (120s): no response from model"
        );
        assert_eq!(
            idle_timeout_message(Duration::from_millis(250)),
            "LLM idle timeout (0.25s): no response from model"
        );
    }

    #[test]
    fn only_the_idle_text_is_an_idle_timeout() {
        let rows = [
            ("LLM idle timeout (120s): no response from model", true),
            ("  LLM idle timeout (0.2s): no response from model ", true),
            ("LLM idle timeout (s): no response from model", false),
            ("request timed out", false),
            ("LLM request timed out.", false),
            ("LLM idle timeout (abc s): no response from model", false),
        ];
        for (text, expected) in rows {
            assert_eq!(is_idle_timeout_error(text), expected, "{text}");
        }
    }
}
