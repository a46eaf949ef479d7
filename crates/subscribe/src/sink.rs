//! What a [`Subscription`](crate::Subscription) reports, and to whom.

use clawloop_core::CompactionReason;
use serde_json::Value;

/// A reply block for the user (OpenClaw `onBlockReply` payload).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BlockReply {
    /// The text, tags stripped and trailing whitespace trimmed, reply directives read out
    /// ([`reply_directives`](crate::reply_directives)). Empty for a media-only reply.
    pub text: String,
    /// Media to attach: the block's `MEDIA:` lines, then media tool results left for the next
    /// reply.
    pub media_urls: Vec<String>,
    /// Send attached audio as a voice message (`[[audio_as_voice]]`, or a tool's
    /// `details.media.audioAsVoice`).
    pub audio_as_voice: bool,
    /// The message to reply to, from `[[reply_to: id]]` in this block or an earlier block of
    /// the same assistant message. `[[reply_to_current]]` alone leaves it `None`: the channel
    /// knows the current message.
    pub reply_to_id: Option<String>,
    /// A reply-to tag was seen in this or an earlier block of the same assistant message.
    pub reply_to_tag: bool,
    /// `[[reply_to_current]]` was seen in this or an earlier block of the same assistant
    /// message.
    pub reply_to_current: bool,
    /// `true` for a `Reasoning:` block (reasoning level `on`).
    pub is_reasoning: bool,
    /// Which assistant message (1-based, counted by `message_start`) the block belongs to.
    pub assistant_message_index: u32,
}

/// Reasoning for a live reasoning display (reasoning level `stream`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReasoningUpdate<'a> {
    /// The reasoning grew. `text` is the reasoning so far (raw; see
    /// [`format_reasoning_message`](crate::format_reasoning_message) for OpenClaw's display
    /// form) and `delta` what is new since the previous update (all of `text` after a
    /// non-append change).
    Stream {
        /// Reasoning so far.
        text: &'a str,
        /// New since the previous update.
        delta: &'a str,
    },
    /// The reasoning section ended (a thinking block or a `</think>` tag closed).
    End,
}

/// A tool summary or tool output for verbose displays (OpenClaw `onToolResult` payload).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolResultReply {
    /// The message: `<emoji> <label>: <detail>` when a call starts; that line, a newline and
    /// the output (fenced for markdown, `(no output)` when blank) when it ends.
    pub text: String,
    /// Media the message carries.
    pub media_urls: Vec<String>,
}

/// Phases of the lifecycle stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LifecyclePhase {
    /// `agent_start`.
    Start,
    /// `agent_end` after a successful last message.
    End,
    /// `agent_end` after an errored last message.
    Error,
}

/// A run event for UIs (OpenClaw `onAgentEvent` streams `assistant`, `tool`, `compaction`,
/// `lifecycle`). Borrowed so that reporting costs nothing per delta.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SubscriptionEvent<'a> {
    /// The visible assistant text grew.
    Assistant {
        /// Visible text so far (trimmed).
        text: &'a str,
        /// What is new.
        delta: &'a str,
    },
    /// A tool call starts.
    ToolStart {
        /// Normalized tool name.
        tool_name: &'a str,
        /// Call id.
        tool_call_id: &'a str,
        /// Arguments.
        args: &'a Value,
    },
    /// A tool reported progress.
    ToolUpdate {
        /// Normalized tool name.
        tool_name: &'a str,
        /// Call id.
        tool_call_id: &'a str,
    },
    /// A tool call ended.
    ToolResult {
        /// Normalized tool name.
        tool_name: &'a str,
        /// Call id.
        tool_call_id: &'a str,
        /// The call's meta.
        meta: Option<&'a str>,
        /// Whether it failed.
        is_error: bool,
    },
    /// Automatic compaction started.
    CompactionStart {
        /// Why.
        reason: CompactionReason,
    },
    /// Automatic compaction ended.
    CompactionEnd {
        /// The failed request is retried.
        will_retry: bool,
        /// A compaction was made (a result, not aborted).
        completed: bool,
        /// The runner must zero the `usage` of every assistant message in the session: the
        /// figures describe a context that no longer exists (set when not retrying).
        zero_assistant_usage: bool,
    },
    /// Run lifecycle.
    Lifecycle {
        /// Which phase.
        phase: LifecyclePhase,
    },
}

/// Receives what a [`Subscription`](crate::Subscription) produces. Every method defaults to
/// doing nothing, so a sink implements only what it delivers.
pub trait SubscriptionSink {
    /// A block reply for the user.
    fn on_block_reply(&mut self, reply: BlockReply) {
        let _ = reply;
    }

    /// Block replies so far must be delivered now (a message or tool boundary).
    fn on_block_reply_flush(&mut self) {}

    /// The visible text of the current message so far (typing previews).
    fn on_partial_reply(&mut self, text: &str) {
        let _ = text;
    }

    /// Live reasoning (reasoning level `stream`).
    fn on_reasoning(&mut self, update: ReasoningUpdate<'_>) {
        let _ = update;
    }

    /// A tool summary (verbose `on` or `full`, once per call when it starts) or a tool's
    /// output (verbose `full`, when it ends), formatted per
    /// [`ToolResultFormat`](crate::ToolResultFormat).
    fn on_tool_result(&mut self, reply: ToolResultReply) {
        let _ = reply;
    }

    /// A run event.
    fn on_agent_event(&mut self, event: SubscriptionEvent<'_>) {
        let _ = event;
    }

    /// A new assistant message started (the earliest "typing" signal).
    fn on_assistant_message_start(&mut self) {}
}

/// A sink that drops everything.
impl SubscriptionSink for () {}

impl<T: SubscriptionSink + ?Sized> SubscriptionSink for &mut T {
    fn on_block_reply(&mut self, reply: BlockReply) {
        (**self).on_block_reply(reply);
    }
    fn on_block_reply_flush(&mut self) {
        (**self).on_block_reply_flush();
    }
    fn on_partial_reply(&mut self, text: &str) {
        (**self).on_partial_reply(text);
    }
    fn on_reasoning(&mut self, update: ReasoningUpdate<'_>) {
        (**self).on_reasoning(update);
    }
    fn on_tool_result(&mut self, reply: ToolResultReply) {
        (**self).on_tool_result(reply);
    }
    fn on_agent_event(&mut self, event: SubscriptionEvent<'_>) {
        (**self).on_agent_event(event);
    }
    fn on_assistant_message_start(&mut self) {
        (**self).on_assistant_message_start();
    }
}

/// A sink that records what it receives (tests, conformance, simple runners).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CollectingSink {
    /// Every block reply, in order.
    pub block_replies: Vec<BlockReply>,
    /// Every partial reply text, in order.
    pub partial_replies: Vec<String>,
    /// Every streamed reasoning text (the `text` of each update), in order.
    pub reasoning: Vec<String>,
    /// How many reasoning sections ended.
    pub reasoning_ends: usize,
    /// How many flushes were requested.
    pub flushes: usize,
    /// Every tool summary and tool output, in order.
    pub tool_results: Vec<ToolResultReply>,
    /// A one-line label per agent event (`assistant`, `tool:start`, `compaction:end`, …).
    pub events: Vec<String>,
}

impl SubscriptionSink for CollectingSink {
    fn on_block_reply(&mut self, reply: BlockReply) {
        self.block_replies.push(reply);
    }
    fn on_block_reply_flush(&mut self) {
        self.flushes += 1;
    }
    fn on_partial_reply(&mut self, text: &str) {
        self.partial_replies.push(text.to_owned());
    }
    fn on_reasoning(&mut self, update: ReasoningUpdate<'_>) {
        match update {
            ReasoningUpdate::Stream { text, .. } => self.reasoning.push(text.to_owned()),
            ReasoningUpdate::End => self.reasoning_ends += 1,
        }
    }
    fn on_tool_result(&mut self, reply: ToolResultReply) {
        self.tool_results.push(reply);
    }
    fn on_agent_event(&mut self, event: SubscriptionEvent<'_>) {
        let label = match event {
            SubscriptionEvent::Assistant { .. } => "assistant",
            SubscriptionEvent::ToolStart { .. } => "tool:start",
            SubscriptionEvent::ToolUpdate { .. } => "tool:update",
            SubscriptionEvent::ToolResult { .. } => "tool:result",
            SubscriptionEvent::CompactionStart { .. } => "compaction:start",
            SubscriptionEvent::CompactionEnd { .. } => "compaction:end",
            SubscriptionEvent::Lifecycle { phase } => match phase {
                LifecyclePhase::Start => "lifecycle:start",
                LifecyclePhase::End => "lifecycle:end",
                LifecyclePhase::Error => "lifecycle:error",
            },
        };
        self.events.push(label.to_owned());
    }
}

impl CollectingSink {
    /// The texts of the block replies, in order. Media-only replies carry no text and are
    /// left out.
    pub fn block_reply_texts(&self) -> Vec<String> {
        self.block_replies
            .iter()
            .filter(|r| !r.text.is_empty())
            .map(|r| r.text.clone())
            .collect()
    }

    /// The texts of the tool summaries and outputs, in order.
    pub fn tool_result_texts(&self) -> Vec<String> {
        self.tool_results.iter().map(|r| r.text.clone()).collect()
    }
}
