//! Chaining the wrappers: `provider.drop_thinking_blocks().trim_tool_call_names()…`, each call
//! adding one layer outside the previous ones.

use std::sync::Arc;
use std::time::Duration;

use clawloop_core::LlmStream;

use super::{
    DropThinkingBlocks, IdleWatchdog, LogPayloads, PayloadLogger, RepairToolCallArguments,
    SanitizeToolCallIds, ToolCallIdMode, TrimToolCallNames,
};

/// Adds a wrapper around a shared stream function; the result is again an
/// `Arc<dyn LlmStream>`, so calls chain (the last call is the outermost layer).
pub trait StreamLayers {
    /// Adds [`DropThinkingBlocks`].
    fn drop_thinking_blocks(self) -> Arc<dyn LlmStream>;
    /// Adds [`SanitizeToolCallIds`] (`None`: mode chosen per model).
    fn sanitize_tool_call_ids(self, mode: Option<ToolCallIdMode>) -> Arc<dyn LlmStream>;
    /// Adds [`TrimToolCallNames`].
    fn trim_tool_call_names(self) -> Arc<dyn LlmStream>;
    /// Adds [`RepairToolCallArguments`].
    fn repair_tool_call_arguments(self) -> Arc<dyn LlmStream>;
    /// Adds [`LogPayloads`] writing to `logger`.
    fn log_payloads(self, logger: Arc<PayloadLogger>) -> Arc<dyn LlmStream>;
    /// Adds [`IdleWatchdog`] (`None` or zero: disabled, the layer passes through).
    fn idle_watchdog(self, timeout: Option<Duration>) -> Arc<dyn LlmStream>;
}

impl StreamLayers for Arc<dyn LlmStream> {
    fn drop_thinking_blocks(self) -> Arc<dyn LlmStream> {
        Arc::new(DropThinkingBlocks::new(self))
    }

    fn sanitize_tool_call_ids(self, mode: Option<ToolCallIdMode>) -> Arc<dyn LlmStream> {
        Arc::new(SanitizeToolCallIds::new(self, mode))
    }

    fn trim_tool_call_names(self) -> Arc<dyn LlmStream> {
        Arc::new(TrimToolCallNames::new(self))
    }

    fn repair_tool_call_arguments(self) -> Arc<dyn LlmStream> {
        Arc::new(RepairToolCallArguments::new(self))
    }

    fn log_payloads(self, logger: Arc<PayloadLogger>) -> Arc<dyn LlmStream> {
        Arc::new(LogPayloads::new(self, logger))
    }

    fn idle_watchdog(self, timeout: Option<Duration>) -> Arc<dyn LlmStream> {
        Arc::new(IdleWatchdog::new(self, timeout))
    }
}
