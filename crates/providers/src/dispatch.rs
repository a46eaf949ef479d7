//! From a resolved model to the stream function a run calls: the wire API's client over the
//! runtime's transport, wrapped in the layers the run's settings ask for (SPEC §4, reference
//! openclaw-runner §6 item 9), as one `Arc<dyn LlmStream>`.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use clawloop_core::provider::stream_of;
use clawloop_core::{
    Api, AssistantEventStream, AssistantMessage, AssistantMessageBuilder, Clock, Context,
    LlmStream, Model, StopReason, StreamOptions, SystemClock,
};

use crate::transport::HttpTransport;
use crate::wrappers::{
    DEFAULT_IDLE_TIMEOUT, PayloadLogger, StreamLayers, ToolCallIdMode, redact_key_in_errors,
};
use crate::{AnthropicMessages, GoogleGenerativeAi, Ollama, OpenAiCompletions, OpenAiResponses};

/// The longest idle timeout taken from config (OpenClaw clamps timeouts to 2 147 000 s).
const MAX_IDLE_TIMEOUT_SECONDS: f64 = 2_147_000.0;

/// Which wrappers a run's stream function gets. The defaults are OpenClaw's for a provider
/// whose transcript policy keeps thinking: every response fix-up on, no payload log, the
/// 120 s idle timeout.
#[derive(Debug, Clone)]
pub struct StreamSettings {
    /// Drop thinking blocks from the request (the transcript policy's `dropThinkingBlocks`).
    pub drop_thinking_blocks: bool,
    /// Rewrite tool-call ids to the provider's rules. Never applied to `openai-responses`,
    /// whose ids pair function calls with reasoning items and must stay verbatim.
    pub sanitize_tool_call_ids: bool,
    /// The id rules to apply; `None` chooses them from the model
    /// ([`ToolCallIdMode::for_model`]), which leaves APIs without id rules alone.
    pub tool_call_id_mode: Option<ToolCallIdMode>,
    /// Trim whitespace around tool-call names in the response.
    pub trim_tool_call_names: bool,
    /// Repair malformed tool-call argument JSON in the response.
    pub repair_tool_call_arguments: bool,
    /// Append a redacted record of every request here.
    pub payload_logger: Option<Arc<PayloadLogger>>,
    /// The LLM idle timeout (`agents.defaults.llm.idleTimeoutSeconds`); `None` disables it.
    pub idle_timeout: Option<Duration>,
}

impl Default for StreamSettings {
    fn default() -> Self {
        StreamSettings {
            drop_thinking_blocks: false,
            sanitize_tool_call_ids: true,
            tool_call_id_mode: None,
            trim_tool_call_names: true,
            repair_tool_call_arguments: true,
            payload_logger: None,
            idle_timeout: Some(DEFAULT_IDLE_TIMEOUT),
        }
    }
}

impl StreamSettings {
    /// These settings with the idle timeout of `agents.defaults.llm.idleTimeoutSeconds`:
    /// `0` (or a negative or non-finite value) disables it, larger values are capped at
    /// OpenClaw's 2 147 000 s.
    pub fn with_idle_timeout_seconds(mut self, seconds: f64) -> Self {
        self.idle_timeout = (seconds.is_finite() && seconds > 0.0)
            .then(|| Duration::from_secs_f64(seconds.min(MAX_IDLE_TIMEOUT_SECONDS)));
        self
    }
}

/// A model whose API has no client here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownApi {
    /// The API the model named.
    pub api: String,
}

impl fmt::Display for UnknownApi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "No API provider registered for api: {} (known APIs: ",
            self.api
        )?;
        for (i, api) in Api::KNOWN.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(api.as_str())?;
        }
        f.write_str(")")
    }
}

impl std::error::Error for UnknownApi {}

/// The stream function for `model`: the client of `model.api` over `transport`, with the
/// layers `settings` choose, innermost to outermost:
///
/// 1. the wire API's client (one request per call, never a retry);
/// 2. the payload logger, if any. OpenClaw's logger sits further out but records the request
///    payload itself (through `onPayload`), i.e. what reaches the provider after every request
///    rewrite; this one records the context it is given, so it goes right around the client to
///    log the same thing (thinking already dropped, ids already rewritten);
/// 3. drop thinking blocks (when the transcript policy says so);
/// 4. tool-call-id sanitization (not for `openai-responses`);
/// 5. trim tool-call names, then repair malformed tool-call arguments;
/// 6. the idle-timeout watchdog (the only idle timer; see
///    [`IdleWatchdog`](crate::wrappers::IdleWatchdog));
/// 7. the call's binding to this model and `api_key`: a call whose options carry no key gets
///    `api_key`; a call for a model of another API ends in pi's `Mismatched api: X expected
///    Y` error; the key is replaced by `[REDACTED]` in a failed call's error text (providers
///    echo it, and that text reaches transcripts and terminals).
///
/// A failed call's data (HTTP status, `retry-after`, request id, error code) is on the
/// terminal error message's
/// [`error_diagnostics`](clawloop_core::AssistantMessage::error_diagnostics): every layer
/// passes the failed message on.
///
/// # Errors
///
/// [`UnknownApi`] for an [`Api::Other`], naming it and the known APIs.
pub fn stream_for_model(
    model: &Model,
    transport: &HttpTransport,
    api_key: Option<String>,
    settings: &StreamSettings,
) -> Result<Arc<dyn LlmStream>, UnknownApi> {
    let transport = transport.clone();
    let mut stream: Arc<dyn LlmStream> = match &model.api {
        Api::OpenaiCompletions => Arc::new(OpenAiCompletions::new(transport)),
        Api::OpenaiResponses => Arc::new(OpenAiResponses::new(transport)),
        Api::AnthropicMessages => Arc::new(AnthropicMessages::new(transport)),
        Api::GoogleGenerativeAi => Arc::new(GoogleGenerativeAi::new(transport)),
        Api::Ollama => Arc::new(Ollama::new(transport)),
        Api::Other(name) => return Err(UnknownApi { api: name.clone() }),
    };
    if let Some(logger) = &settings.payload_logger {
        stream = stream.log_payloads(Arc::clone(logger));
    }
    if settings.drop_thinking_blocks {
        stream = stream.drop_thinking_blocks();
    }
    if settings.sanitize_tool_call_ids && model.api != Api::OpenaiResponses {
        let mode = settings
            .tool_call_id_mode
            .or_else(|| ToolCallIdMode::for_model(model));
        if let Some(mode) = mode {
            stream = stream.sanitize_tool_call_ids(Some(mode));
        }
    }
    if settings.trim_tool_call_names {
        stream = stream.trim_tool_call_names();
    }
    if settings.repair_tool_call_arguments {
        stream = stream.repair_tool_call_arguments();
    }
    if settings.idle_timeout.is_some() {
        stream = stream.idle_watchdog(settings.idle_timeout);
    }
    Ok(Arc::new(BoundToModel {
        inner: stream,
        api: model.api.clone(),
        api_key,
    }))
}

/// The outermost layer of [`stream_for_model`]: the call's API key and API check.
struct BoundToModel {
    inner: Arc<dyn LlmStream>,
    api: Api,
    api_key: Option<String>,
}

impl LlmStream for BoundToModel {
    fn stream(
        &self,
        model: &Model,
        context: &Context,
        mut options: StreamOptions,
    ) -> AssistantEventStream {
        if model.api != self.api {
            let message = format!("Mismatched api: {} expected {}", model.api, self.api);
            let initial = AssistantMessage::for_model(model, SystemClock.now_ms());
            return stream_of(vec![
                AssistantMessageBuilder::new(initial).fail(StopReason::Error, message),
            ]);
        }
        if options.api_key.is_none() {
            options.api_key.clone_from(&self.api_key);
        }
        let key = options.api_key.clone().unwrap_or_default();
        redact_key_in_errors(self.inner.stream(model, context, options), &key)
    }
}
