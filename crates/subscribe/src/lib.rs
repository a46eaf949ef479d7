//! `clawloop-subscribe`: turning a streamed assistant reply into what the user sees (SPEC §6).
//!
//! This crate is synchronous and does no I/O. The runner feeds every agent event to a
//! [`Subscription`] and receives what the user should see through a [`SubscriptionSink`]
//! (block replies, partial replies, reasoning, run events). The subscription is built on pure
//! pieces that are usable alone (reference §18.5 and §19):
//!
//! * [`TagFilter`]: a stateful filter over text deltas that removes `<think>`, `<thinking>`,
//!   `<thought>` and `<antthinking>` blocks and `<final>` tags (or, with
//!   [`TagFilterOptions::enforce_final_tag`], keeps only the text inside `<final>…</final>`).
//!   Tags inside fenced code blocks and inline code spans are text, and a tag split across
//!   deltas is recognized without its prefix ever being shown. Its output is the same however
//!   the text is split, and work per delta is proportional to the delta.
//! * [`BlockChunker`]: cuts the streamed text into reply blocks between `min_chars` and
//!   `max_chars`, preferring paragraph, then newline, then sentence, then whitespace breaks, and
//!   closing and reopening a code fence when a block must be split inside one (with SPEC §6's
//!   fix: it never emits an empty reopened code block). [`fences`] holds the fence parser both
//!   rely on.
//! * [`messaging_dedupe`]: the normalized containment test that keeps a text a messaging tool
//!   already sent from being sent again as a block reply.
//! * [`usage_accumulator`]: usage sums over a run's model calls, plus the last call.
//! * [`tool_meta`]: tool metas, the last tool error and mutating-action fingerprints.
//! * [`compaction_wait`]: the compaction-retry wait, pollable or awaitable without a runtime.
//!
//! [`Subscription`] itself (reference §18.3) handles message boundaries, the `text_end` and
//! `message_end` break modes, the flush before each tool, reasoning blocks and streams, the
//! `NO_REPLY` fallback, compaction state and liveness.
//!
//! All lengths are counted in Unicode scalar values (`char`s), never bytes. It depends only on
//! `clawloop-core`.
//!
//! # Example
//!
//! Stream deltas through the tag filter, chunk the visible text, and force out the tail at the
//! end of the message:
//!
//! ```
//! use clawloop_subscribe::{
//!     BlockChunker, BreakPreference, ChunkingOptions, TagFilter, TagFilterOptions,
//! };
//!
//! let mut filter = TagFilter::new(TagFilterOptions::default());
//! let mut chunker = BlockChunker::new(ChunkingOptions {
//!     min_chars: 10,
//!     max_chars: 200,
//!     break_preference: BreakPreference::Paragraph,
//!     flush_on_paragraph: false,
//! });
//!
//! let mut blocks = Vec::new();
//! for delta in ["<thi", "nk>plan the answer</th", "ink>Here is the summary.\n\nIt has ", "two parts."] {
//!     chunker.push(&filter.push(delta));
//!     chunker.drain(false, |block| blocks.push(block));
//! }
//! chunker.push(&filter.finish());
//! chunker.drain(true, |block| blocks.push(block));
//!
//! assert_eq!(blocks, ["Here is the summary.", "It has two parts."]);
//! assert_eq!(filter.reasoning(), "plan the answer");
//! ```
//!
//! Or let a [`Subscription`] do all of it from agent events:
//!
//! ```
//! use std::sync::Arc;
//! use clawloop_core::message::{AssistantMessage, ContentBlock};
//! use clawloop_core::{AgentEvent, AgentMessage, AssistantMessageEvent};
//! use clawloop_subscribe::{CollectingSink, Subscription, SubscriptionOptions};
//!
//! let mut message = AssistantMessage::empty("openai-completions", "openai", "gpt-5", 0);
//! let start = AgentEvent::MessageStart { message: Arc::new(AgentMessage::Assistant(message.clone())) };
//! message.content.push(ContentBlock::text("Hello there."));
//! let delta = AgentEvent::MessageUpdate {
//!     assistant_message_event: AssistantMessageEvent::TextDelta { content_index: 0, delta: "Hello there.".into() },
//!     message: None,
//! };
//! let end = AgentEvent::MessageEnd { message: Arc::new(AgentMessage::Assistant(message)) };
//!
//! let mut sub = Subscription::new(SubscriptionOptions::default(), CollectingSink::default());
//! for event in [start, delta, end] {
//!     sub.handle(&event);
//! }
//! assert_eq!(sub.sink().block_reply_texts(), ["Hello there."]);
//! assert_eq!(sub.assistant_texts(), ["Hello there."]);
//! ```

#![deny(missing_docs)]

pub mod block_chunker;
pub mod compaction_wait;
pub mod fences;
pub mod messaging_dedupe;
pub mod reply_directives;
pub mod sink;
pub mod subscription;
pub mod tag_filter;
mod text_scan;
pub mod tool_display;
pub mod tool_meta;
pub mod usage_accumulator;

pub use block_chunker::{BlockChunker, BreakPreference, ChunkingOptions};
pub use compaction_wait::{CompactionWait, CompactionWaitError, CompactionWaitState};
pub use fences::{FenceSpan, find_fence_span_at, is_safe_fence_break, parse_fence_spans};
pub use reply_directives::{
    InlineDirectiveOptions, InlineDirectives, MediaSegment, MediaSplit, ReplyDirectiveOptions,
    ReplyDirectives, SILENT_REPLY_TOKEN, StreamingDirectiveAccumulator, ToolMediaArtifact,
    ToolOutputDisplay, extract_tool_result_media_artifact, filter_tool_result_media_urls,
    parse_inline_directives, parse_reply_directives, split_media_from_output,
    tool_result_pending_media,
};
pub use sink::ToolResultReply;
pub use sink::{
    BlockReply, CollectingSink, LifecyclePhase, ReasoningUpdate, SubscriptionEvent,
    SubscriptionSink,
};
pub use subscription::{
    BlockReplyBreak, LivenessState, MessagingToolTarget, ReasoningMode, Subscription,
    SubscriptionOptions, SubscriptionReport, block_reply_payload_key, extract_assistant_text,
    extract_assistant_thinking, format_reasoning_message,
};
pub use tag_filter::{TagFilter, TagFilterOptions};
pub use tool_display::{
    HomeDisplay, ToolDisplay, ToolResultFormat, VerboseLevel, format_tool_aggregate,
    format_tool_output, format_tool_output_block, resolve_tool_call_display, resolve_tool_display,
};
pub use tool_meta::{LastToolError, ToolMeta};
pub use usage_accumulator::{UsageAccumulator, UsageTotals};
