//! Hides the request's API key in a failed call's error text.
//!
//! Providers echo the key they were given in error bodies (OpenAI's 401 says `Incorrect API
//! key provided: sk-…`, proxies quote whole request headers), and the error text travels on
//! from here into transcripts, stderr and `--json` output. Replacing the literal key where the
//! text is made keeps it out of all of them at once.

use clawloop_core::{AssistantEventStream, AssistantMessageEvent};

use super::map_events::map_events;
use super::redact::REDACTED;

/// Keys shorter than this are left in the text: no real provider key is that short, and
/// replacing a placeholder such as `k` everywhere would mangle the message instead.
pub const MIN_REDACTED_KEY_LEN: usize = 8;

/// `inner` with every literal occurrence of `api_key` in the terminal error's `errorMessage`
/// replaced by [`REDACTED`]. A key shorter than [`MIN_REDACTED_KEY_LEN`] changes nothing.
pub fn redact_key_in_errors(inner: AssistantEventStream, api_key: &str) -> AssistantEventStream {
    if api_key.len() < MIN_REDACTED_KEY_LEN {
        return inner;
    }
    let key = api_key.to_owned();
    map_events(inner, move |event| match event {
        AssistantMessageEvent::Error { reason, mut error } => {
            if let Some(text) = error.error_message.as_mut()
                && text.contains(key.as_str())
            {
                *text = text.replace(key.as_str(), REDACTED);
            }
            AssistantMessageEvent::Error { reason, error }
        }
        other => other,
    })
}
