//! Verbose tool messages (OpenClaw `emitToolSummary`, `emitToolOutput` and
//! `emitToolResultMessage` of `subscribeEmbeddedPiSession`), sent through
//! [`SubscriptionSink::on_tool_result`].

use serde_json::Value;

use super::Subscription;
use crate::reply_directives::{
    ReplyDirectiveOptions, filter_tool_result_media_urls, parse_reply_directives,
};
use crate::sink::{SubscriptionSink, ToolResultReply};
use crate::tool_display::{format_tool_aggregate, format_tool_output, is_compact_tool_output};
use crate::tool_meta::{openclaw_tool_name, tool_result_text};

impl<S: SubscriptionSink> Subscription<S> {
    /// At verbose `on` or `full`, sends the summary line of a starting call. Called once per
    /// call id until the call ends (when it first enters `started_tools`).
    pub(super) fn emit_tool_summary(&mut self, tool_call_id: &str, tool_name: &str) {
        if !self.options.verbose.emits_tool_summaries() {
            return;
        }
        let meta = self
            .started_tools
            .get(tool_call_id)
            .and_then(|s| s.summary.meta.as_deref());
        let text = format_tool_aggregate(
            openclaw_tool_name(tool_name),
            meta.as_slice(),
            self.options.tool_result_format.is_markdown(),
            self.options.home_display.as_ref(),
        );
        self.emit_tool_result_message(tool_name, &text, &Value::Null);
    }

    /// At verbose `full`, sends a finished call's summary line with its output. A provider
    /// list of `image_generate` / `video_generate` is sent at any level. A result without
    /// text sends nothing.
    pub(super) fn emit_tool_output(&mut self, tool_name: &str, meta: Option<&str>, result: &Value) {
        let output = tool_result_text(result);
        if !self.options.verbose.emits_tool_output()
            && !is_compact_tool_output(tool_name, result, output.as_deref())
        {
            return;
        }
        let Some(output) = output else {
            return;
        };
        let text = format_tool_output(
            openclaw_tool_name(tool_name),
            meta,
            &output,
            self.options.tool_result_format.is_markdown(),
            self.options.home_display.as_ref(),
        );
        self.emit_tool_result_message(tool_name, &text, result);
    }

    /// Reads the message's directives (`MEDIA:` lines outside code fences become media the
    /// tool may attach) and sends what is left, unless nothing is.
    fn emit_tool_result_message(&mut self, tool_name: &str, message: &str, result: &Value) {
        let parsed = parse_reply_directives(message, &ReplyDirectiveOptions::default());
        let media_urls = filter_tool_result_media_urls(tool_name, &parsed.media_urls, result);
        if parsed.text.is_empty() && media_urls.is_empty() {
            return;
        }
        self.sink.on_tool_result(ToolResultReply {
            text: parsed.text,
            media_urls,
        });
    }
}
