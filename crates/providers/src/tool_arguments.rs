//! The arguments JSON of one tool call as a decoder accumulates it, bounded: a model (or a
//! proxy) can stream any amount, and every copy of it (the decoder's, the message builder's,
//! the events') multiplies the memory. Past [`MAX_TOOL_CALL_ARGUMENT_BYTES`] the text is
//! dropped and nothing more is kept or forwarded; the call then ends as a refused call
//! ([`ToolCall::refused`]) whose error result tells the model why, and it never runs.

use clawloop_core::message::ToolCall;
use serde_json::Value;

/// The most argument bytes one tool call may have. No model writes this much in one call (a
/// 128k-token reply is about 0.5 MB); a larger one is a runaway or hostile stream.
pub const MAX_TOOL_CALL_ARGUMENT_BYTES: usize = 4 * 1024 * 1024;

/// One call's arguments so far.
#[derive(Debug, Clone, Default)]
pub(crate) struct ToolArguments {
    text: String,
    /// Bytes received in all, kept or not (for the error text).
    received: usize,
}

impl ToolArguments {
    /// Appends `fragment`; false (and the text is dropped) once the total passes the bound,
    /// in which case the caller must not forward the fragment either.
    pub(crate) fn push(&mut self, fragment: &str) -> bool {
        self.received = self.received.saturating_add(fragment.len());
        if self.over() {
            self.text = String::new();
            return false;
        }
        self.text.push_str(fragment);
        true
    }

    /// Replaces the text with the whole arguments (a `done` event, or an item that carries
    /// them): a server that sends them whole is held to the same bound.
    pub(crate) fn set(&mut self, whole: String) {
        self.received = self.received.max(whole.len());
        self.text = if self.over() { String::new() } else { whole };
    }

    /// The text kept (empty once over the bound).
    pub(crate) fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether nothing was received.
    pub(crate) fn is_empty(&self) -> bool {
        self.received == 0
    }

    fn over(&self) -> bool {
        self.received > MAX_TOOL_CALL_ARGUMENT_BYTES
    }

    /// The finished call: its arguments parsed by `parse`, or refused when over the bound.
    pub(crate) fn call(
        &self,
        id: impl Into<String>,
        name: impl Into<String>,
        parse: impl FnOnce(&str) -> Value,
    ) -> ToolCall {
        if self.over() {
            ToolCall::refused(id, name, refusal(self.received))
        } else {
            ToolCall::new(id, name, parse(&self.text))
        }
    }
}

/// Whether whole arguments of `len` bytes (a call that arrives in one piece) are refused.
pub(crate) fn too_large(len: usize) -> bool {
    len > MAX_TOOL_CALL_ARGUMENT_BYTES
}

/// The error result the model gets for a call of `received` argument bytes.
pub(crate) fn refusal(received: usize) -> String {
    format!(
        "tool call arguments exceed {MAX_TOOL_CALL_ARGUMENT_BYTES} bytes ({received} received); \
         the call was not run. Send smaller arguments (write a large file in parts)."
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn within_the_bound_the_call_has_its_arguments() {
        let mut args = ToolArguments::default();
        assert!(args.push("{\"a\":") && args.push("1}"));
        let call = args.call("c", "t", |t| serde_json::from_str(t).unwrap_or_default());
        assert_eq!(call, ToolCall::new("c", "t", json!({"a": 1})));
    }

    #[test]
    fn past_the_bound_nothing_is_kept_and_the_call_is_refused() {
        let mut args = ToolArguments::default();
        let chunk = "x".repeat(MAX_TOOL_CALL_ARGUMENT_BYTES / 2);
        assert!(args.push(&chunk) && args.push(&chunk));
        assert!(!args.push("y"));
        assert!(!args.push("z"));
        assert_eq!(args.as_str(), "");
        let call = args.call("c", "t", |_| json!({"never": "parsed"}));
        let received = MAX_TOOL_CALL_ARGUMENT_BYTES + 2;
        assert_eq!(call, ToolCall::refused("c", "t", refusal(received)));
        assert_eq!(call.arguments, json!({}));
        assert!(
            call.arguments_error()
                .is_some_and(|e| e.starts_with("tool call arguments exceed 4194304 bytes")),
            "{call:?}"
        );
        let mut whole = ToolArguments::default();
        whole.set("w".repeat(MAX_TOOL_CALL_ARGUMENT_BYTES + 1));
        assert!(
            whole
                .call("c", "t", |_| json!({}))
                .arguments_error()
                .is_some()
        );
    }
}
