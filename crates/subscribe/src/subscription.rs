//! The subscription state machine (reference §18, OpenClaw `subscribeEmbeddedPiSession`).
//!
//! The runner feeds every [`AgentEvent`] to [`Subscription::handle`]; the subscription turns
//! the stream into block replies, partial replies, reasoning and run events on its
//! [`SubscriptionSink`], and keeps what the runner reads afterwards: the assistant texts, tool
//! metas, the last tool error, messaging-tool sends, usage and compaction state.
//!
//! Everything is synchronous. Where OpenClaw defers work to a microtask (the flush after
//! `text_end`) it runs here before `handle` returns, which is the same order as long as events
//! are delivered one after another. Work per event is proportional to the event: visible text
//! is filtered incrementally ([`TagFilter`]) instead of re-scanning the message so far.

use clawloop_core::message::AssistantMessage;
use clawloop_core::{
    AgentEvent, AgentMessage, AgentToolResult, AssistantMessageEvent, StopReason, Usage,
};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};

use crate::block_chunker::{BlockChunker, ChunkingOptions};
use crate::compaction_wait::{CompactionGate, CompactionWait};
use crate::messaging_dedupe::normalize_text_for_comparison;
use crate::reply_directives::{
    PendingToolMedia, SILENT_REPLY_TOKEN, StreamingDirectiveAccumulator,
};
use crate::sink::{
    BlockReply, LifecyclePhase, ReasoningUpdate, SubscriptionEvent, SubscriptionSink,
};
use crate::tag_filter::{TagFilter, TagFilterOptions};
use crate::tool_display::{HomeDisplay, ToolResultFormat, VerboseLevel};
use crate::tool_meta::{
    LastToolError, ToolCallSummary, ToolMeta, extract_tool_error_message, is_cron_add,
    is_same_tool_mutation_action, is_tool_result_error, normalize_tool_name,
};
use crate::usage_accumulator::{UsageAccumulator, UsageTotals};
use clawloop_core::js_text::{js_trim, js_trim_end};

mod message_text;
mod messaging_ledger;
pub use message_text::{extract_assistant_text, extract_assistant_thinking};
use messaging_ledger::MessagingLedger;
mod directive_scan;
mod payload_key;
pub use payload_key::block_reply_payload_key;
mod reply_media;
mod report;
pub use report::SubscriptionReport;
mod text_compare;
mod tool_results;
mod visible_text;

use directive_scan::cleaned_reply_text;
use text_compare::normalized_ascii_prefixes_differ;
use visible_text::VisibleText;

/// When block replies are cut (OpenClaw `blockReplyBreak`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum BlockReplyBreak {
    /// Stream blocks while the text arrives; flush at each `text_end`.
    #[default]
    TextEnd,
    /// Hold everything until `message_end`.
    MessageEnd,
}

/// How reasoning is delivered (OpenClaw `reasoningMode`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum ReasoningMode {
    /// Reasoning is never shown.
    #[default]
    Off,
    /// A `Reasoning:` block reply per message.
    On,
    /// Live through [`SubscriptionSink::on_reasoning`].
    Stream,
}

/// Run liveness as the subscription sees it (OpenClaw `livenessState`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum LivenessState {
    /// Running normally.
    #[default]
    Working,
    /// Compacting.
    Paused,
    /// The last assistant message errored.
    Blocked,
    /// A mutating action made the run unsafe to replay, and nothing visible came of it.
    Abandoned,
}

/// Options of a [`Subscription`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubscriptionOptions {
    /// When block replies are cut.
    pub block_reply_break: BlockReplyBreak,
    /// Block chunking; without it each flush sends the buffered text as one block.
    pub chunking: Option<ChunkingOptions>,
    /// Show only text inside `<final>…</final>`.
    pub enforce_final_tag: bool,
    /// Reasoning delivery.
    pub reasoning_mode: ReasoningMode,
    /// Whether the runner delivers block replies (OpenClaw: an `onBlockReply` callback was
    /// given). Without them, texts are still collected in
    /// [`Subscription::assistant_texts`] for the final payloads.
    pub block_replies: bool,
    /// Channel-plugin tools whose `send` action sends a message (besides `message` and
    /// `sessions_send`), for messaging dedupe.
    pub channel_messaging_tools: Vec<String>,
    /// Tool messages for the user through [`SubscriptionSink::on_tool_result`]: a summary
    /// when each call starts (`On`, `Full`) and its output when it ends (`Full`).
    pub verbose: VerboseLevel,
    /// How tool messages are formatted (markdown code spans and fences, or plain text).
    pub tool_result_format: ToolResultFormat,
    /// The home directory, shown as `~` in tool metas and messages; `None` shows paths as
    /// they are.
    pub home_display: Option<HomeDisplay>,
}

impl Default for SubscriptionOptions {
    fn default() -> Self {
        Self {
            block_reply_break: BlockReplyBreak::TextEnd,
            chunking: None,
            enforce_final_tag: false,
            reasoning_mode: ReasoningMode::Off,
            block_replies: true,
            channel_messaging_tools: Vec::new(),
            verbose: VerboseLevel::Off,
            tool_result_format: ToolResultFormat::Markdown,
            home_display: None,
        }
    }
}

/// A message a messaging tool sent to someone (OpenClaw `MessagingToolSend`, target as given).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessagingToolTarget {
    /// The tool.
    pub tool: String,
    /// The channel (`provider`/`channel` argument, else the tool name).
    pub provider: String,
    /// The account used, if given.
    pub account_id: Option<String>,
    /// The recipient.
    pub to: String,
}

/// A tool call between its start and its end.
#[derive(Debug, Default)]
struct StartedTool {
    summary: ToolCallSummary,
    /// The arguments it started with.
    args: Value,
}

/// OpenClaw's display form of reasoning: `Reasoning:` then each non-empty line in `_…_`.
///
/// ```
/// assert_eq!(
///     clawloop_subscribe::format_reasoning_message(" a\n\nb "),
///     "Reasoning:\n_a_\n\n_b_"
/// );
/// assert_eq!(clawloop_subscribe::format_reasoning_message("  "), "");
/// ```
pub fn format_reasoning_message(text: &str) -> String {
    let trimmed = js_trim(text);
    if trimmed.is_empty() {
        return String::new();
    }
    let lines: Vec<String> = trimmed
        .split('\n')
        .map(|line| {
            if line.is_empty() {
                String::new()
            } else {
                format!("_{line}_")
            }
        })
        .collect();
    format!("Reasoning:\n{}", lines.join("\n"))
}

/// Which reasoning source the last streamed update came from, so lengths are compared within
/// one source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ReasoningSource {
    Native,
    Tagged,
}

/// The subscription state machine. See the [module docs](self).
#[derive(Debug)]
pub struct Subscription<S: SubscriptionSink> {
    options: SubscriptionOptions,
    sink: S,

    // Outputs.
    assistant_texts: Vec<String>,
    tool_metas: Vec<ToolMeta>,
    /// Calls started and not yet ended. A call's verbose summary is sent when it enters (OpenClaw
    /// `toolSummaryById`), so the keys are also the calls whose summary was sent.
    started_tools: HashMap<String, StartedTool>,
    last_tool_error: Option<LastToolError>,

    // Per-message buffers.
    delta_buffer: String,
    /// The message's tag-filtered text not yet sent as blocks, when there is no chunker.
    block_buffer: String,
    /// Chunks the message's tag-filtered text, never the raw deltas (see
    /// [`block_filter`](Self::block_filter)).
    chunker: Option<BlockChunker>,
    /// The message's visible text, filtered incrementally from `delta_buffer`, and what of
    /// it was reported.
    visible: VisibleText,
    /// Block replies are cut from tag-filtered text, never from the raw deltas. OpenClaw
    /// chunks the raw text and strips each chunk with a carried `blockState`; a block
    /// boundary inside a tag (a hard break at `maxChars` through `<think>`, or a whitespace
    /// break inside `< think >`) then shows the tag's first half as text and the hidden text
    /// after it. Filtering first makes a boundary unable to touch a tag: the chunker never
    /// sees one.
    ///
    /// Until the block text is first finished ([`finish_block_text`](Self::finish_block_text),
    /// which lets out what the filter held back), the block text is exactly the visible text,
    /// so the chunker takes what the visible text's filter shows and this is
    /// `None`. From then on the two differ by that held-back text, and this filter, a copy of
    /// the visible one taken there, filters the block text on its own.
    block_filter: Option<TagFilter>,
    /// Reused buffer for the text the block filter lets through per delta.
    block_stripped: String,
    /// Reused vector for the chunks a streaming drain emits.
    drained: Vec<String>,
    emitted_assistant_update: bool,
    last_block_reply_text: Option<String>,
    reasoning_stream_open: bool,
    assistant_message_index: u32,
    /// The last assistant text, trimmed at the end. Its normalized form
    /// ([`normalize_text_for_comparison`]) is computed only when a comparison needs it.
    last_assistant_text_trimmed: Option<String>,
    assistant_text_baseline: usize,
    suppress_block_chunks: bool,
    last_reasoning_sent: Option<String>,
    native_reasoning: String,
    streamed_reasoning: Option<(ReasoningSource, usize)>,
    /// The current message is transcript-only (delivery mirror, gateway injected, commentary).
    ignoring_message: bool,

    // Compaction.
    compaction: CompactionGate,
    compaction_count: u32,

    // Messaging.
    messaging: MessagingLedger,
    successful_cron_adds: u32,

    // Liveness and usage.
    replay_invalid: bool,
    had_potential_side_effects: bool,
    liveness: LivenessState,
    last_assistant_stop_reason: Option<StopReason>,
    usage: UsageAccumulator,
    directly_sent_block_keys: BTreeSet<String>,
    /// Directives across this message's block replies (OpenClaw `replyDirectiveAccumulator`).
    reply_directives: StreamingDirectiveAccumulator,
    /// Tool media waiting for the next block reply.
    pending_tool_media: PendingToolMedia,
}

impl<S: SubscriptionSink> Subscription<S> {
    /// A subscription reporting to `sink`.
    pub fn new(options: SubscriptionOptions, sink: S) -> Self {
        let tag_options = TagFilterOptions {
            enforce_final_tag: options.enforce_final_tag,
        };
        Self {
            chunker: options.chunking.map(BlockChunker::new),
            visible: VisibleText::new(tag_options),
            block_filter: None,
            block_stripped: String::new(),
            drained: Vec::new(),
            options,
            sink,
            assistant_texts: Vec::new(),
            tool_metas: Vec::new(),
            started_tools: HashMap::new(),
            last_tool_error: None,
            delta_buffer: String::new(),
            block_buffer: String::new(),
            emitted_assistant_update: false,
            last_block_reply_text: None,
            reasoning_stream_open: false,
            assistant_message_index: 0,
            last_assistant_text_trimmed: None,
            assistant_text_baseline: 0,
            suppress_block_chunks: false,
            last_reasoning_sent: None,
            native_reasoning: String::new(),
            streamed_reasoning: None,
            ignoring_message: false,
            compaction: CompactionGate::default(),
            compaction_count: 0,
            messaging: MessagingLedger::default(),
            successful_cron_adds: 0,
            replay_invalid: false,
            had_potential_side_effects: false,
            liveness: LivenessState::Working,
            last_assistant_stop_reason: None,
            usage: UsageAccumulator::new(),
            directly_sent_block_keys: BTreeSet::new(),
            reply_directives: StreamingDirectiveAccumulator::new(),
            pending_tool_media: PendingToolMedia::default(),
        }
    }

    // ---- accessors -------------------------------------------------------------------------

    /// The options.
    pub fn options(&self) -> &SubscriptionOptions {
        &self.options
    }
    /// The sink.
    pub fn sink(&self) -> &S {
        &self.sink
    }
    /// The sink, mutably.
    pub fn sink_mut(&mut self) -> &mut S {
        &mut self.sink
    }
    /// Consumes the subscription, returning the sink.
    pub fn into_sink(self) -> S {
        self.sink
    }
    /// Texts of the run's replies, in order (the final payload texts).
    pub fn assistant_texts(&self) -> &[String] {
        &self.assistant_texts
    }
    /// Finished tool calls, in completion order.
    pub fn tool_metas(&self) -> &[ToolMeta] {
        &self.tool_metas
    }
    /// The unresolved tool failure, if any.
    pub fn last_tool_error(&self) -> Option<&LastToolError> {
        self.last_tool_error.as_ref()
    }
    /// Texts messaging tools sent successfully (at most the 200 most recent).
    pub fn messaging_tool_sent_texts(&self) -> &[String] {
        &self.messaging.sent_texts
    }
    /// Recipients messaging tools sent to successfully.
    pub fn messaging_tool_sent_targets(&self) -> &[MessagingToolTarget] {
        &self.messaging.sent_targets
    }
    /// Media messaging tools sent successfully.
    pub fn messaging_tool_sent_media_urls(&self) -> &[String] {
        &self.messaging.sent_media_urls
    }
    /// `true` when a messaging tool sent text (the final reply is then usually redundant).
    pub fn did_send_via_messaging_tool(&self) -> bool {
        !self.messaging.sent_texts.is_empty()
    }
    /// Successful `cron` `add` calls.
    pub fn successful_cron_adds(&self) -> u32 {
        self.successful_cron_adds
    }
    /// Summed usage over the run's assistant messages; `None` when all zero.
    pub fn usage_totals(&self) -> Option<UsageTotals> {
        self.usage.totals()
    }
    /// The latest model call's usage.
    pub fn last_call_usage(&self) -> Option<&Usage> {
        self.usage.last_call()
    }
    /// Compactions that produced a result.
    pub fn compaction_count(&self) -> u32 {
        self.compaction_count
    }
    /// `true` while compacting or a compaction retry is pending.
    pub fn is_compacting(&self) -> bool {
        self.compaction.is_compacting()
    }
    /// `true` while a compaction runs.
    pub fn is_compaction_in_flight(&self) -> bool {
        self.compaction.in_flight()
    }
    /// The compaction-retry wait (reference §18.4): resolved when idle, shared while compacting
    /// or retrying, rejected after [`unsubscribe`](Self::unsubscribe).
    pub fn wait_for_compaction_retry(&mut self) -> CompactionWait {
        self.compaction.wait()
    }
    /// Stops the subscription: a pending compaction wait is rejected and later events are
    /// ignored. The runner aborts an in-flight compaction itself
    /// ([`is_compaction_in_flight`](Self::is_compaction_in_flight) tells whether one runs).
    pub fn unsubscribe(&mut self) {
        self.compaction.unsubscribe();
    }
    /// The run's liveness.
    pub fn liveness(&self) -> LivenessState {
        self.liveness
    }
    /// A successful mutating action happened, so replaying the run is unsafe.
    pub fn replay_invalid(&self) -> bool {
        self.replay_invalid
    }
    /// Some action may have changed the world.
    pub fn had_potential_side_effects(&self) -> bool {
        self.had_potential_side_effects
    }
    /// Keys ([`block_reply_payload_key`]) of every block delivered as a block reply.
    pub fn directly_sent_block_keys(&self) -> &BTreeSet<String> {
        &self.directly_sent_block_keys
    }

    // ---- dispatch --------------------------------------------------------------------------

    /// Feeds one agent event. Never panics; events after
    /// [`unsubscribe`](Self::unsubscribe) are ignored.
    pub fn handle(&mut self, event: &AgentEvent) {
        if self.compaction.is_unsubscribed() {
            return;
        }
        match event {
            AgentEvent::AgentStart => self.sink.on_agent_event(SubscriptionEvent::Lifecycle {
                phase: LifecyclePhase::Start,
            }),
            AgentEvent::MessageStart { message } => self.on_message_start(message),
            AgentEvent::MessageUpdate {
                assistant_message_event,
                message,
            } => self.on_message_update(assistant_message_event, message.as_deref()),
            AgentEvent::MessageEnd { message } => self.on_message_end(message),
            AgentEvent::ToolExecutionStart {
                tool_call_id,
                tool_name,
                args,
            } => self.on_tool_start(tool_call_id, tool_name, args),
            AgentEvent::ToolExecutionUpdate {
                tool_call_id,
                tool_name,
                ..
            } => {
                let name = normalize_tool_name(tool_name);
                self.sink.on_agent_event(SubscriptionEvent::ToolUpdate {
                    tool_name: &name,
                    tool_call_id,
                });
            }
            AgentEvent::ToolExecutionEnd {
                tool_call_id,
                tool_name,
                result,
                is_error,
            } => self.on_tool_end(tool_call_id, tool_name, result, *is_error),
            AgentEvent::AutoCompactionStart { reason } => {
                self.compaction.compaction_started();
                self.liveness = LivenessState::Paused;
                self.sink
                    .on_agent_event(SubscriptionEvent::CompactionStart { reason: *reason });
            }
            AgentEvent::AutoCompactionEnd {
                result,
                aborted,
                will_retry,
                ..
            } => self.on_compaction_end(result.is_some(), *aborted, *will_retry),
            AgentEvent::AgentEnd { .. } => self.on_agent_end(),
            AgentEvent::TurnStart
            | AgentEvent::TurnEnd { .. }
            | AgentEvent::AutoRetryStart { .. }
            | AgentEvent::AutoRetryEnd { .. } => {}
        }
    }

    /// Transcript-only messages never reach the user: OpenClaw's delivery mirror and gateway
    /// injections, and `commentary`-phase messages.
    fn is_transcript_only(message: &AssistantMessage) -> bool {
        (message.provider == "openclaw"
            && matches!(
                message.model.as_str(),
                "delivery-mirror" | "gateway-injected"
            ))
            || message.extra.get("phase").and_then(Value::as_str) == Some("commentary")
    }

    fn on_message_start(&mut self, message: &AgentMessage) {
        let Some(assistant) = message.as_assistant() else {
            return;
        };
        self.ignoring_message = Self::is_transcript_only(assistant);
        if self.ignoring_message {
            return;
        }
        // message_start is the only reliable boundary: late text_end events can follow
        // message_end, so the per-message state is reset here and not there.
        self.reset_message_state(self.assistant_texts.len());
        self.sink.on_assistant_message_start();
    }

    fn reset_message_state(&mut self, baseline: usize) {
        self.reset_text_buffers();
        self.reply_directives.reset();
        self.emitted_assistant_update = false;
        self.last_block_reply_text = None;
        self.last_reasoning_sent = None;
        self.native_reasoning.clear();
        self.streamed_reasoning = None;
        self.suppress_block_chunks = false;
        self.assistant_message_index = self.assistant_message_index.saturating_add(1);
        self.last_assistant_text_trimmed = None;
        self.assistant_text_baseline = baseline;
    }

    /// Clears the streamed text of the message: its buffers, chunker and tag filters.
    fn reset_text_buffers(&mut self) {
        self.delta_buffer.clear();
        self.block_buffer.clear();
        if let Some(chunker) = self.chunker.as_mut() {
            chunker.reset();
        }
        self.block_filter = None;
        self.reset_visible();
        self.reasoning_stream_open = false;
    }

    fn reset_visible(&mut self) {
        self.visible.reset();
    }

    // ---- message_update --------------------------------------------------------------------

    fn on_message_update(&mut self, event: &AssistantMessageEvent, message: Option<&AgentMessage>) {
        if let Some(message) = message {
            let Some(assistant) = message.as_assistant() else {
                return;
            };
            if Self::is_transcript_only(assistant) {
                return;
            }
            self.last_assistant_stop_reason = Some(assistant.stop_reason);
        }
        if self.ignoring_message {
            return;
        }
        match event {
            AssistantMessageEvent::ThinkingStart { .. } => {
                self.reasoning_stream_open = true;
            }
            AssistantMessageEvent::ThinkingDelta { delta, .. } => {
                self.reasoning_stream_open = true;
                self.native_reasoning.push_str(delta);
                self.stream_native_reasoning();
            }
            AssistantMessageEvent::ThinkingEnd { content, .. } => {
                // The full content wins when it is more than what the deltas gave.
                if !content.is_empty() && content.len() > self.native_reasoning.len() {
                    self.native_reasoning.clone_from(content);
                }
                self.stream_native_reasoning();
                self.reasoning_stream_open = true;
                self.emit_reasoning_end();
            }
            AssistantMessageEvent::TextStart { .. } => self.on_text(TextEventKind::Start, None),
            AssistantMessageEvent::TextDelta { delta, .. } => {
                self.on_text(TextEventKind::Delta, Some(delta))
            }
            AssistantMessageEvent::TextEnd { content, .. } => {
                self.on_text(TextEventKind::End, Some(content))
            }
            _ => {}
        }
    }

    fn on_text(&mut self, kind: TextEventKind, payload: Option<&str>) {
        let chunk: &str = match (kind, payload) {
            (TextEventKind::Delta, Some(delta)) => delta,
            (TextEventKind::Delta | TextEventKind::Start, _) | (TextEventKind::End, None) => "",
            // Some providers resend the full content on text_end: only a suffix (or nothing)
            // is appended, so the output stays monotonic.
            (TextEventKind::End, Some("")) => "",
            (TextEventKind::End, Some(content)) => {
                if let Some(suffix) = content.strip_prefix(self.delta_buffer.as_str()) {
                    suffix
                } else if self.delta_buffer.starts_with(content)
                    || self.delta_buffer.contains(content)
                {
                    ""
                } else {
                    content
                }
            }
        };
        if !chunk.is_empty() {
            self.delta_buffer.push_str(chunk);
            if self.block_filter.is_some() {
                self.push_block_text(chunk);
            }
            self.push_visible(chunk);
        }
        if self.options.reasoning_mode == ReasoningMode::Stream {
            self.stream_tagged_reasoning();
        }

        if self.options.block_replies
            && self.options.block_reply_break == BlockReplyBreak::TextEnd
            && let Some(chunker) = self.chunker.as_mut()
        {
            // Into a vector kept from delta to delta: most drains emit nothing, and a fresh
            // vector per delta was a visible cost with one-byte deltas.
            let mut chunks = std::mem::take(&mut self.drained);
            chunker.drain(false, |chunk| chunks.push(chunk));
            for c in chunks.drain(..) {
                self.emit_block_chunk(&c);
            }
            self.drained = chunks;
        }
        if kind == TextEventKind::End && self.options.block_reply_break == BlockReplyBreak::TextEnd
        {
            self.flush_block_reply_buffer();
        }
    }

    /// Filters `chunk` with the block text's own filter, once it has one, and hands what
    /// it lets through to the chunker (or the block buffer).
    fn push_block_text(&mut self, chunk: &str) {
        let Some(filter) = self.block_filter.as_mut() else {
            return;
        };
        let mut shown = std::mem::take(&mut self.block_stripped);
        shown.clear();
        filter.push_into(chunk, &mut shown);
        self.add_block_text(&shown);
        self.block_stripped = shown;
    }

    /// Lets out what the block filter still holds back (a trailing `<thi` that never became a
    /// tag is text after all), because the block text ends here: at a `text_end` flush, before
    /// a tool, at `message_end` and `agent_end`.
    fn finish_block_text(&mut self) {
        let filter = self
            .block_filter
            .get_or_insert_with(|| self.visible.filter().clone());
        let mut shown = std::mem::take(&mut self.block_stripped);
        shown.clear();
        filter.finish_into(&mut shown);
        self.add_block_text(&shown);
        self.block_stripped = shown;
    }

    fn add_block_text(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        match self.chunker.as_mut() {
            Some(chunker) => chunker.push(text),
            None => self.block_buffer.push_str(text),
        }
    }

    /// Filters `chunk` into the visible text and reports growth as an assistant event and a
    /// partial reply.
    fn push_visible(&mut self, chunk: &str) {
        let pushed = self.visible.push(chunk);
        let shown = self.visible.shown_since(pushed.base);
        if self.block_filter.is_none() && !shown.is_empty() {
            match self.chunker.as_mut() {
                Some(chunker) => chunker.push(shown),
                None => self.block_buffer.push_str(shown),
            }
        }
        if !pushed.was_thinking && pushed.now_thinking {
            self.reasoning_stream_open = true;
        }
        if pushed.was_thinking && !pushed.now_thinking {
            self.emit_reasoning_end();
        }
        let partial = self.should_emit_partial_replies();
        if let Some((text, delta)) = self.visible.next_report() {
            self.sink
                .on_agent_event(SubscriptionEvent::Assistant { text, delta });
            self.emitted_assistant_update = true;
            if partial {
                self.sink.on_partial_reply(text);
            }
        }
    }

    fn should_emit_partial_replies(&self) -> bool {
        self.options.reasoning_mode != ReasoningMode::On || self.options.block_replies
    }

    fn stream_native_reasoning(&mut self) {
        if self.options.reasoning_mode == ReasoningMode::Stream {
            report_reasoning(
                &mut self.streamed_reasoning,
                &mut self.sink,
                ReasoningSource::Native,
                &self.native_reasoning,
            );
        }
    }

    fn stream_tagged_reasoning(&mut self) {
        // Borrowing the filter's reasoning in place keeps this free of per-delta copies.
        report_reasoning(
            &mut self.streamed_reasoning,
            &mut self.sink,
            ReasoningSource::Tagged,
            self.visible.reasoning(),
        );
    }

    fn emit_reasoning_end(&mut self) {
        if !self.reasoning_stream_open {
            return;
        }
        self.reasoning_stream_open = false;
        if self.options.reasoning_mode == ReasoningMode::Stream {
            self.sink.on_reasoning(ReasoningUpdate::End);
        }
    }

    // ---- block replies ---------------------------------------------------------------------

    /// Collects `text` as an assistant text and remembers it as this message's last one.
    fn record_assistant_text(&mut self, text: &str) {
        self.assistant_texts.push(text.to_owned());
        set_reusing(&mut self.last_assistant_text_trimmed, js_trim_end(text));
    }

    fn should_skip_assistant_text(&self, text: &str) -> bool {
        // Reset at each message start, so it is always this message's text.
        let Some(last) = self.last_assistant_text_trimmed.as_deref() else {
            return false;
        };
        let trimmed = js_trim_end(text);
        if !trimmed.is_empty() && last == trimmed {
            return true;
        }
        // Normalizing both texts for every block was most of the cost of a block; texts whose
        // normalized forms already differ in their ASCII beginnings skip it.
        if normalized_ascii_prefixes_differ(trimmed, last) {
            return false;
        }
        // Trailing whitespace never changes the normalized form, so `last` normalizes as the
        // text it was trimmed from.
        let normalized = normalize_text_for_comparison(text);
        !normalized.is_empty() && normalize_text_for_comparison(last) == normalized
    }

    fn push_assistant_text(&mut self, text: &str) {
        if text.is_empty() || self.should_skip_assistant_text(text) {
            return;
        }
        self.record_assistant_text(text);
    }

    fn is_messaging_duplicate(&self, text: &str) -> bool {
        self.messaging.is_duplicate(text)
    }

    /// OpenClaw `emitBlockChunk` for a chunk of the already tag-filtered text (see
    /// [`block_filter`](Self::block_filter)): trim its end, then skip empty chunks, repeats,
    /// messaging-tool duplicates and repeats of this message's last text.
    fn emit_block_chunk(&mut self, chunk: &str) {
        if self.suppress_block_chunks {
            return;
        }
        let chunk = js_trim_end(chunk);
        if chunk.is_empty()
            || self.last_block_reply_text.as_deref() == Some(chunk)
            || self.is_messaging_duplicate(chunk)
            || self.should_skip_assistant_text(chunk)
        {
            return;
        }
        set_reusing(&mut self.last_block_reply_text, chunk);
        self.record_assistant_text(chunk);
        if self.options.block_replies {
            self.emit_chunk_with_directives(chunk);
        }
    }

    /// OpenClaw `flushBlockReplyBuffer`: force out whatever is buffered.
    fn flush_block_reply_buffer(&mut self) {
        if !self.options.block_replies {
            return;
        }
        self.finish_block_text();
        if self
            .chunker
            .as_ref()
            .is_some_and(BlockChunker::has_buffered)
        {
            self.force_drain_chunker();
            return;
        }
        if !self.block_buffer.is_empty() {
            let buffered = std::mem::take(&mut self.block_buffer);
            self.emit_block_chunk(&buffered);
        }
    }

    /// Sends everything the chunker holds as block chunks and resets it.
    fn force_drain_chunker(&mut self) {
        let Some(chunker) = self.chunker.as_mut() else {
            return;
        };
        let chunks = chunker.drain_to_vec(true);
        chunker.reset();
        for c in chunks {
            self.emit_block_chunk(&c);
        }
    }

    // ---- message_end -----------------------------------------------------------------------

    fn on_message_end(&mut self, message: &AgentMessage) {
        let Some(assistant) = message.as_assistant() else {
            return;
        };
        if Self::is_transcript_only(assistant) {
            return;
        }
        self.last_assistant_stop_reason = Some(assistant.stop_reason);
        self.usage.record(&assistant.usage);
        // The message's text is complete: what the block filter held back is decided now.
        self.finish_block_text();

        let wants_reasoning = matches!(
            self.options.reasoning_mode,
            ReasoningMode::On | ReasoningMode::Stream
        );
        // OpenClaw's whole-message computation (see `message_text`): it sanitizes before the
        // block-tag strip, so it is not what the streaming filter saw. The reasoning is needed
        // up front; the text (two whole-message passes) only where a step below consults it,
        // which a streamed message on a `text_end` channel never does.
        let (mut visible, raw_thinking) = if wants_reasoning {
            let message_text::MessageText { visible, thinking } =
                message_text::message_text(assistant, true);
            (Some(visible), thinking)
        } else {
            (None, String::new())
        };
        let mut text: Option<String> = None;
        let formatted_reasoning = format_reasoning_message(&raw_thinking);

        // Step 3: a final assistant event when streaming never reported the text.
        if !self.emitted_assistant_update {
            let text = text.get_or_insert_with(|| self.message_end_text(assistant, visible.take()));
            let cleaned = cleaned_reply_text(js_trim(text));
            if !cleaned.is_empty() {
                self.sink.on_agent_event(SubscriptionEvent::Assistant {
                    text: &cleaned,
                    delta: &cleaned,
                });
                self.emitted_assistant_update = true;
            }
        }

        // Step 4: the text counts only when `finalize_assistant_texts` may push it.
        let added_during_message = self.assistant_texts.len() > self.assistant_text_baseline;
        let chunker_has_buffered = self
            .chunker
            .as_ref()
            .is_some_and(BlockChunker::has_buffered);
        let finalize_takes_text = (self.options.reasoning_mode == ReasoningMode::On
            && !self.options.block_replies)
            || (!added_during_message && !chunker_has_buffered);
        let text_for_finalize = if finalize_takes_text {
            text.get_or_insert_with(|| self.message_end_text(assistant, visible.take()))
                .as_str()
        } else {
            // `finalize_assistant_texts` then only moves the baseline, whatever the text.
            ""
        };
        self.finalize_assistant_texts(
            text_for_finalize,
            added_during_message,
            chunker_has_buffered,
        );

        // Step 5: the reasoning block goes first when the whole answer is still to come.
        let should_emit_reasoning = self.options.reasoning_mode == ReasoningMode::On
            && !formatted_reasoning.is_empty()
            && self.options.block_replies
            && self.last_reasoning_sent.as_deref() != Some(formatted_reasoning.as_str());
        let reasoning_first = should_emit_reasoning
            && self.options.block_reply_break == BlockReplyBreak::MessageEnd
            && !added_during_message;
        if reasoning_first {
            self.emit_reasoning_block(&formatted_reasoning);
        }

        // Step 6: the safety send, when the text is not empty: drain what the chunker holds,
        // else send the text when it differs from the last block. Evaluated in an order that
        // consults the text last, as its value cannot change the outcome before.
        if self.options.block_replies {
            if self
                .chunker
                .as_ref()
                .is_some_and(BlockChunker::has_buffered)
            {
                let text =
                    text.get_or_insert_with(|| self.message_end_text(assistant, visible.take()));
                if !text.is_empty() {
                    self.force_drain_chunker();
                }
            } else {
                // On a `text_end` channel a message that already sent a block was delivered
                // by its `text_end` flushes; the safety send is for messages that sent none
                // (a non-streaming model, or text that never reached a flush).
                let delivered_by_text_end = self.options.block_reply_break
                    == BlockReplyBreak::TextEnd
                    && self.last_block_reply_text.is_some();
                if !delivered_by_text_end {
                    let text = text
                        .get_or_insert_with(|| self.message_end_text(assistant, visible.take()));
                    if !text.is_empty() {
                        if self.last_block_reply_text.as_deref() != Some(text.as_str())
                            && !self.is_messaging_duplicate(text)
                        {
                            self.last_block_reply_text = Some(text.clone());
                            self.emit_final_with_directives(text);
                        }
                        self.drop_streamed_block_text();
                    }
                }
            }
        }

        if should_emit_reasoning && !reasoning_first {
            self.emit_reasoning_block(&formatted_reasoning);
        }
        if self.options.reasoning_mode == ReasoningMode::Stream && !raw_thinking.is_empty() {
            let streamed = js_trim(&self.native_reasoning) == raw_thinking
                || js_trim(self.visible.reasoning()) == raw_thinking;
            if !streamed {
                self.streamed_reasoning = None;
                report_reasoning(
                    &mut self.streamed_reasoning,
                    &mut self.sink,
                    ReasoningSource::Native,
                    &raw_thinking,
                );
            }
        }

        // Step 7: a directive still held back goes out with the message.
        if self.options.block_reply_break == BlockReplyBreak::TextEnd && self.options.block_replies
        {
            self.emit_final_with_directives("");
        }
        if self.options.block_reply_break == BlockReplyBreak::MessageEnd
            && self.options.block_replies
        {
            self.flush_block_reply_buffer();
            self.sink.on_block_reply_flush();
        }

        // Step 8: per-message buffers (the markers that dedupe late text_end events stay).
        self.reset_text_buffers();
    }

    /// The safety send answered for the whole message, so the block buffer, the same message as
    /// the streaming filter saw it, is not flushed after it. The two forms differ where the
    /// final message differs from the stream, or around a backtick: an unclosed one hides a
    /// think tag from the streaming filter and not from the whole-message text. The streamed
    /// form becomes the last block text, so a late `text_end` repeating the stream is still
    /// recognized as sent.
    fn drop_streamed_block_text(&mut self) {
        let streamed = std::mem::take(&mut self.block_buffer);
        let streamed = js_trim_end(&streamed);
        if !streamed.is_empty() {
            set_reusing(&mut self.last_block_reply_text, streamed);
        }
    }

    /// The text `message_end` works with (OpenClaw's `text`): the message's visible text
    /// (`visible` when already computed) after the block-tag strip, or the last messaging-tool
    /// text for a silent reply after a messaging-tool send ("what I sent is the answer").
    fn message_end_text(&self, assistant: &AssistantMessage, visible: Option<String>) -> String {
        let visible =
            visible.unwrap_or_else(|| message_text::message_text(assistant, false).visible);
        let tag_options = TagFilterOptions {
            enforce_final_tag: self.options.enforce_final_tag,
        };
        let text = TagFilter::strip(&visible, tag_options);
        if js_trim(&text) == SILENT_REPLY_TOKEN
            && let Some(last) = self.messaging.sent_texts.last()
            && !js_trim(last).is_empty()
        {
            return js_trim(last).to_owned();
        }
        text
    }

    fn emit_reasoning_block(&mut self, formatted: &str) {
        self.last_reasoning_sent = Some(formatted.to_owned());
        self.deliver_block_reply(BlockReply {
            text: formatted.to_owned(),
            is_reasoning: true,
            assistant_message_index: self.assistant_message_index,
            ..BlockReply::default()
        });
    }

    /// OpenClaw `finalizeAssistantTexts`.
    fn finalize_assistant_texts(
        &mut self,
        text: &str,
        added_during_message: bool,
        chunker_has_buffered: bool,
    ) {
        if self.options.reasoning_mode == ReasoningMode::On
            && !text.is_empty()
            && !self.options.block_replies
        {
            // Without block replies the final text replaces what streaming collected, and
            // later chunks of this message must not add to it.
            if self.assistant_texts.len() > self.assistant_text_baseline {
                self.assistant_texts.truncate(self.assistant_text_baseline);
                self.record_assistant_text(text);
            } else {
                self.push_assistant_text(text);
            }
            self.suppress_block_chunks = true;
        } else if !added_during_message && !chunker_has_buffered && !text.is_empty() {
            // A non-streaming model (no text deltas) still contributes its text.
            self.push_assistant_text(text);
        }
        self.assistant_text_baseline = self.assistant_texts.len();
    }

    // ---- tools -----------------------------------------------------------------------------

    fn on_tool_start(&mut self, tool_call_id: &str, raw_name: &str, args: &Value) {
        // Keep message boundaries: what the assistant said before the tool goes out first.
        self.flush_block_reply_buffer();
        self.sink.on_block_reply_flush();

        let tool_name = normalize_tool_name(raw_name);
        let home = self.options.home_display.as_ref();
        let summary = ToolCallSummary::new(&tool_name, args, home);
        let started = StartedTool {
            summary,
            args: args.clone(),
        };
        let first_start = self
            .started_tools
            .insert(tool_call_id.to_owned(), started)
            .is_none();
        self.sink.on_agent_event(SubscriptionEvent::ToolStart {
            tool_name: &tool_name,
            tool_call_id,
            args,
        });
        if first_start {
            self.emit_tool_summary(tool_call_id, &tool_name);
        }

        // Messaging sends are pending until the tool succeeds.
        self.messaging.start(
            tool_call_id,
            &tool_name,
            args,
            &self.options.channel_messaging_tools,
        );
    }

    fn on_tool_end(
        &mut self,
        tool_call_id: &str,
        raw_name: &str,
        result: &AgentToolResult,
        is_error: bool,
    ) {
        let tool_name = normalize_tool_name(raw_name);
        let result_json = serde_json::to_value(result).unwrap_or(Value::Null);
        let is_tool_error = is_error || is_tool_result_error(&result_json);
        let StartedTool {
            summary,
            args: start_args,
        } = self.started_tools.remove(tool_call_id).unwrap_or_default();
        self.tool_metas.push(ToolMeta {
            tool_name: tool_name.clone(),
            meta: summary.meta.clone(),
        });

        if is_tool_error {
            self.last_tool_error = Some(LastToolError {
                tool_name: tool_name.clone(),
                meta: summary.meta.clone(),
                error: extract_tool_error_message(&result_json),
                mutating_action: summary.mutating_action,
                action_fingerprint: summary.action_fingerprint.clone(),
            });
        } else if let Some(error) = &self.last_tool_error {
            // An unresolved mutating failure survives unrelated successes.
            let resolved = !error.mutating_action
                || is_same_tool_mutation_action(
                    error,
                    &tool_name,
                    summary.meta.as_deref(),
                    summary.action_fingerprint.as_deref(),
                );
            if resolved {
                self.last_tool_error = None;
            }
        }
        if !is_tool_error && summary.mutating_action {
            self.replay_invalid = true;
            self.had_potential_side_effects = true;
        }

        self.messaging.end(
            tool_call_id,
            !is_tool_error,
            &tool_name,
            &start_args,
            &result_json,
            &self.options.channel_messaging_tools,
        );
        if !is_tool_error && is_cron_add(&tool_name, &start_args) {
            self.successful_cron_adds = self.successful_cron_adds.saturating_add(1);
        }

        self.sink.on_agent_event(SubscriptionEvent::ToolResult {
            tool_name: &tool_name,
            tool_call_id,
            meta: summary.meta.as_deref(),
            is_error: is_tool_error,
        });
        self.emit_tool_output(&tool_name, summary.meta.as_deref(), &result_json);
        self.queue_tool_media(&tool_name, &result_json, is_tool_error);
    }

    // ---- compaction and agent_end ----------------------------------------------------------

    fn on_compaction_end(&mut self, has_result: bool, aborted: bool, will_retry: bool) {
        let completed = has_result && !aborted;
        // Counted whether or not it retries (OpenClaw #38905).
        if completed {
            self.compaction_count = self.compaction_count.saturating_add(1);
        }
        self.compaction.compaction_ended(will_retry);
        if will_retry {
            self.reset_for_compaction_retry();
            self.liveness = LivenessState::Working;
        } else if !aborted {
            self.liveness = LivenessState::Working;
        }
        self.sink.on_agent_event(SubscriptionEvent::CompactionEnd {
            will_retry,
            completed,
            zero_assistant_usage: !will_retry,
        });
    }

    /// The retried request produces the answer again, so what this attempt collected is dropped.
    fn reset_for_compaction_retry(&mut self) {
        self.assistant_texts.clear();
        self.tool_metas.clear();
        self.started_tools.clear();
        self.last_tool_error = None;
        self.messaging = MessagingLedger::default();
        self.pending_tool_media.clear();
        self.successful_cron_adds = 0;
        // Side effects already happened and stay known; the replay marker starts over.
        self.replay_invalid = false;
        self.reset_message_state(0);
    }

    fn on_agent_end(&mut self) {
        let errored = self.last_assistant_stop_reason == Some(StopReason::Error);
        if errored {
            self.liveness = LivenessState::Blocked;
        } else if self.replay_invalid
            && self.assistant_texts.is_empty()
            && !self.did_send_via_messaging_tool()
            && self.successful_cron_adds == 0
        {
            self.liveness = LivenessState::Abandoned;
        }
        self.flush_block_reply_buffer();
        self.compaction.retry_ended();
        self.emit_orphaned_tool_media();
        self.sink.on_block_reply_flush();
        self.sink.on_agent_event(SubscriptionEvent::Lifecycle {
            phase: if errored {
                LifecyclePhase::Error
            } else {
                LifecyclePhase::End
            },
        });
    }
}

/// Reports reasoning when it grew since the last update of the same source. `streamed` holds
/// that source and the length reported, so only lengths are compared (no copies per delta).
fn report_reasoning<S: SubscriptionSink>(
    streamed: &mut Option<(ReasoningSource, usize)>,
    sink: &mut S,
    source: ReasoningSource,
    text: &str,
) {
    let trimmed = js_trim_end(text);
    if js_trim(trimmed).is_empty() {
        return;
    }
    let delta = match *streamed {
        Some((s, len)) if s == source && len == trimmed.len() => return,
        Some((s, len)) if s == source && len < trimmed.len() => {
            trimmed.get(len..).unwrap_or(trimmed)
        }
        _ => trimmed,
    };
    *streamed = Some((source, trimmed.len()));
    sink.on_reasoning(ReasoningUpdate::Stream {
        text: trimmed,
        delta,
    });
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TextEventKind {
    Start,
    Delta,
    End,
}

/// Stores `text` in `slot`, reusing the string already there.
fn set_reusing(slot: &mut Option<String>, text: &str) {
    match slot {
        Some(held) => {
            held.clear();
            held.push_str(text);
        }
        None => *slot = Some(text.to_owned()),
    }
}
