//! Block replies with their directives and tool media (OpenClaw `emitBlockChunk`'s directive
//! step, `emitSplitResultAsBlockReply`, `emitBlockReply` with
//! `consumePendingToolMediaIntoReply`, `queuePendingToolMedia` and agent_end's media-only reply).

use clawloop_core::js_text::js_trim;
use serde_json::Value;

use super::{Subscription, block_reply_payload_key};
use crate::reply_directives::{ReplyDirectives, ToolOutputDisplay, tool_result_pending_media};
use crate::sink::{BlockReply, SubscriptionSink};

impl<S: SubscriptionSink> Subscription<S> {
    /// The end of `emitBlockChunk`: the chunk goes through the streaming directive
    /// accumulator, and what it gives (nothing while a `[[` may still open a directive) is
    /// sent.
    pub(super) fn emit_chunk_with_directives(&mut self, chunk: &str) {
        let Some(parsed) = self.reply_directives.consume(chunk, false) else {
            return;
        };
        if parsed.text.is_empty() && parsed.media_urls.is_empty() && !parsed.audio_as_voice {
            return;
        }
        self.deliver_parsed_block_reply(parsed);
    }

    /// `emitSplitResultAsBlockReply(consumeReplyDirectives(text, { final: true }))`: the
    /// message_end safety send (`text` is the whole message) and, with `""`, the flush of a
    /// held-back directive tail.
    pub(super) fn emit_final_with_directives(&mut self, text: &str) {
        let Some(parsed) = self.reply_directives.consume(text, true) else {
            return;
        };
        let visible = !js_trim(&parsed.text).is_empty()
            || parsed.media_urls.iter().any(|m| !js_trim(m).is_empty())
            || parsed.audio_as_voice;
        if visible {
            self.deliver_parsed_block_reply(parsed);
        }
    }

    fn deliver_parsed_block_reply(&mut self, parsed: ReplyDirectives) {
        let reply = BlockReply {
            text: parsed.text,
            media_urls: parsed.media_urls,
            audio_as_voice: parsed.audio_as_voice,
            reply_to_id: parsed.reply_to_id,
            reply_to_tag: parsed.reply_to_tag,
            reply_to_current: parsed.reply_to_current,
            is_reasoning: false,
            assistant_message_index: self.assistant_message_index,
        };
        self.deliver_block_reply(reply);
    }

    /// OpenClaw `emitBlockReply`: tool media waiting for a reply joins the first non-reasoning
    /// one, whose key is remembered for dropping final payloads that repeat it.
    pub(super) fn deliver_block_reply(&mut self, mut reply: BlockReply) {
        if !reply.is_reasoning {
            self.pending_tool_media
                .merge_into(&mut reply.media_urls, &mut reply.audio_as_voice);
            let media: Vec<String> = reply
                .media_urls
                .iter()
                .map(|m| js_trim(m))
                .filter(|m| !m.is_empty())
                .map(str::to_owned)
                .collect();
            self.directly_sent_block_keys
                .insert(block_reply_payload_key(&reply.text, &media));
        }
        self.sink.on_block_reply(reply);
    }

    /// Media of a successful tool call waits for the next block reply (OpenClaw
    /// `queuePendingToolMedia` from `emitToolResultOutput`).
    pub(super) fn queue_tool_media(&mut self, tool_name: &str, result: &Value, is_error: bool) {
        let display = ToolOutputDisplay {
            emit_output: self.options.verbose.emits_tool_output(),
            plain: !self.options.tool_result_format.is_markdown(),
        };
        if let Some(artifact) = tool_result_pending_media(tool_name, result, is_error, display) {
            self.pending_tool_media.queue(artifact);
        }
    }

    /// At agent_end, after the block-reply flush: tool media no reply took is sent as a
    /// media-only reply, then block replies are flushed again.
    pub(super) fn emit_orphaned_tool_media(&mut self) {
        if let Some((media_urls, audio_as_voice)) = self.pending_tool_media.take() {
            let visible = media_urls.iter().any(|m| !js_trim(m).is_empty()) || audio_as_voice;
            if visible && self.options.block_replies {
                self.deliver_block_reply(BlockReply {
                    media_urls,
                    audio_as_voice,
                    assistant_message_index: self.assistant_message_index,
                    ..BlockReply::default()
                });
            }
        }
        self.flush_block_reply_buffer();
    }
}
