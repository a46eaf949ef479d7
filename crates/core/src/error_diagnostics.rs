//! The failure of a model call as data: what the runner's retry, rotation and cooldown policy
//! needs beyond the `errorMessage` text (SPEC §4: HTTP errors carry status, `retry-after`,
//! request id).
//!
//! A provider puts it on the failed [`AssistantMessage`](crate::AssistantMessage) of the
//! terminal `error` event ([`AssistantMessage::error_diagnostics`](crate::AssistantMessage)),
//! so it reaches whoever holds the `Arc<dyn LlmStream>` through every wrapper (they pass the
//! failed message on) and through the agent loop (which keeps that message). It is never
//! written to a transcript: pi's JSON of the message stays as it is.

use crate::classify::FailoverSignal;

/// Facts about a failed call that its `errorMessage` does not carry reliably.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ErrorDiagnostics {
    /// The HTTP status of a non-2xx response.
    pub http_status: Option<u16>,
    /// How long the provider asked to wait before the next request, in ms (`retry-after-ms`,
    /// or `retry-after` in seconds or as an HTTP date).
    pub retry_after_ms: Option<u64>,
    /// The request id the provider assigned (`x-request-id`, `request-id`, …), for support
    /// tickets and logs.
    pub request_id: Option<String>,
    /// The provider's own error code from the error body (`rate_limit_exceeded`,
    /// `RESOURCE_EXHAUSTED`, `overloaded_error`, …).
    pub error_code: Option<String>,
}

impl ErrorDiagnostics {
    /// Whether nothing is known.
    pub fn is_empty(&self) -> bool {
        *self == ErrorDiagnostics::default()
    }

    /// The classification input for this failure: status and code from here, `message` and
    /// `provider` as given (reference §15.2 reads all four).
    pub fn failover_signal<'a>(
        &'a self,
        message: &'a str,
        provider: Option<&'a str>,
    ) -> FailoverSignal<'a> {
        FailoverSignal {
            status: self.http_status,
            code: self.error_code.as_deref(),
            message,
            provider,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::failover_reason_from_signal;
    use crate::{AssistantMessage, FailoverReason, StopReason};
    use pretty_assertions::assert_eq;

    #[test]
    fn the_signal_carries_status_and_code() {
        let diagnostics = ErrorDiagnostics {
            http_status: Some(400),
            error_code: Some("RESOURCE_EXHAUSTED".into()),
            ..ErrorDiagnostics::default()
        };
        assert!(!diagnostics.is_empty());
        assert!(ErrorDiagnostics::default().is_empty());
        let signal = diagnostics.failover_signal("bad", Some("google"));
        assert_eq!(
            (signal.status, signal.code, signal.message, signal.provider),
            (Some(400), Some("RESOURCE_EXHAUSTED"), "bad", Some("google"))
        );
        // The status decides first (400 → format); without one, the code does.
        assert_eq!(
            failover_reason_from_signal(&signal),
            Some(FailoverReason::Format)
        );
        let coded = ErrorDiagnostics {
            error_code: Some("overloaded_error".into()),
            ..ErrorDiagnostics::default()
        };
        assert_eq!(
            failover_reason_from_signal(&coded.failover_signal("boom", None)),
            Some(FailoverReason::Overloaded)
        );
    }

    #[test]
    fn a_message_carries_them_without_writing_them() {
        let mut failed = AssistantMessage::empty("google-generative-ai", "google", "g", 5);
        failed.stop_reason = StopReason::Error;
        failed.error_message = Some("429 RESOURCE_EXHAUSTED: quota".into());
        let written = serde_json::to_string(&failed).unwrap();
        failed.error_diagnostics = Some(Box::new(ErrorDiagnostics {
            http_status: Some(429),
            retry_after_ms: Some(1500),
            request_id: Some("req_1".into()),
            error_code: Some("RESOURCE_EXHAUSTED".into()),
        }));
        assert_eq!(serde_json::to_string(&failed).unwrap(), written);
        let read: AssistantMessage = serde_json::from_str(&written).unwrap();
        assert_eq!(read.error_diagnostics, None);

        let signal = failed.failover_signal();
        assert_eq!(
            (signal.status, signal.code, signal.message, signal.provider),
            (
                Some(429),
                Some("RESOURCE_EXHAUSTED"),
                "429 RESOURCE_EXHAUSTED: quota",
                Some("google")
            )
        );
        failed.error_diagnostics = None;
        let signal = failed.failover_signal();
        assert_eq!((signal.status, signal.code), (None, None));
    }
}
