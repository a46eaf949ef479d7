//! The summary requests of a compaction (pi 0.58.3's `compact`, `generateSummary`,
//! `generateTurnPrefixSummary`), plus the seed's chunked path for a history one request
//! cannot take.
//!
//! Each request goes through the compactor's `Arc<dyn LlmStream>` and is collected to its
//! final message: system prompt [`SUMMARIZATION_SYSTEM_PROMPT`], one user message with the
//! prompt, `maxTokens` `floor(0.8 * reserve)` for the history (reasoning `high` when the model
//! reasons) and `floor(0.5 * reserve)` for a split turn's prefix (no reasoning). The answer's
//! text blocks are joined with `"\n"`.

use std::future::poll_fn;

use serde_json::Map;
use tokio_util::sync::CancellationToken;

use clawloop_core::message::{
    AssistantMessage, ContentBlock, JsonObject, Message, UserContent, UserMessage,
};
use clawloop_core::provider::{AssistantEventStream, ensure_terminal};
use clawloop_core::stream_event::{AssistantMessageEvent, STREAM_ENDED_BEFORE_COMPLETION};
use clawloop_core::{BoxFuture, CompactionResult, Context, StopReason, ThinkLevel};

use super::Compactor;
use super::chunk::{
    ConversationBlock, conversation_blocks, oversized_limit, parts_needed, split_by_token_share,
    text_tokens, total_tokens, truncate_oversized, within_margin,
};
use super::error::CompactionError;
use super::prepare::CompactionPreparation;
use super::prompts::{
    NO_PRIOR_HISTORY, SPLIT_TURN_SEPARATOR, SUMMARIZATION_SYSTEM_PROMPT, history_prompt,
    merge_focus, turn_prefix_prompt,
};
use super::serialize::{join_blocks, serialize_message};
use super::settings::CompactionSettings;

/// How deep the chunked path may split and merge before it sends what it has: each level at
/// least halves the input, so real histories never get here; it bounds a model whose
/// summaries do not shrink.
const MAX_CHUNK_DEPTH: u32 = 4;

/// pi's text when a failed response carries no message.
const UNKNOWN_ERROR: &str = "Unknown error";

/// Which of the two summaries a request produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SummaryKind {
    /// The summarized history (first or update prompt).
    History,
    /// The beginning of a split turn.
    TurnPrefix,
}

impl SummaryKind {
    fn prompt(self, conversation: &str, previous: Option<&str>, focus: Option<&str>) -> String {
        match self {
            SummaryKind::History => history_prompt(conversation, previous, focus),
            SummaryKind::TurnPrefix => turn_prefix_prompt(conversation, focus),
        }
    }

    fn max_tokens(self, settings: &CompactionSettings) -> u64 {
        match self {
            SummaryKind::History => settings.history_max_tokens(),
            SummaryKind::TurnPrefix => settings.turn_prefix_max_tokens(),
        }
    }

    fn failure(self, message: String) -> CompactionError {
        match self {
            SummaryKind::History => CompactionError::SummarizationFailed(message),
            SummaryKind::TurnPrefix => CompactionError::TurnPrefixSummarizationFailed(message),
        }
    }
}

/// One summarization stage: the same kind, previous summary and focus for every request in it.
#[derive(Clone, Copy)]
struct Stage<'a> {
    kind: SummaryKind,
    previous: Option<&'a str>,
    focus: Option<&'a str>,
    settings: &'a CompactionSettings,
    cancel: &'a CancellationToken,
}

impl Compactor {
    /// Summarizes a prepared compaction (pi's `compact`): the history summary — or, for a
    /// split turn, the history summary (`"No prior history."` when there is none) and the
    /// turn-prefix summary concurrently, joined with `\n\n---\n\n**Turn Context (split
    /// turn):**\n\n` — followed by the file lists; `details` = `{readFiles, modifiedFiles}`.
    ///
    /// No safety timeout here: [`Compactor::compact`] adds it, and the check that there is
    /// anything to summarize.
    pub async fn summarize(
        &self,
        preparation: &CompactionPreparation,
        custom_instructions: Option<&str>,
        cancel: &CancellationToken,
    ) -> Result<CompactionResult, CompactionError> {
        let settings = &preparation.settings;
        let history = Stage {
            kind: SummaryKind::History,
            previous: preparation.previous_summary.as_deref(),
            focus: custom_instructions.filter(|s| !s.is_empty()),
            settings,
            cancel,
        };
        let history_blocks = conversation_blocks(&preparation.messages_to_summarize);
        let mut summary =
            if preparation.is_split_turn && !preparation.turn_prefix_messages.is_empty() {
                let prefix = Stage {
                    kind: SummaryKind::TurnPrefix,
                    previous: None,
                    focus: None,
                    settings,
                    cancel,
                };
                let history_summary = async {
                    if preparation.messages_to_summarize.is_empty() {
                        Ok(NO_PRIOR_HISTORY.to_owned())
                    } else {
                        self.summarize_blocks(history, history_blocks, 0).await
                    }
                };
                let prefix_summary = self.summarize_blocks(
                    prefix,
                    conversation_blocks(&preparation.turn_prefix_messages),
                    0,
                );
                let (history_summary, prefix_summary) =
                    tokio::try_join!(history_summary, prefix_summary)?;
                format!("{history_summary}{SPLIT_TURN_SEPARATOR}{prefix_summary}")
            } else {
                self.summarize_blocks(history, history_blocks, 0).await?
            };

        let lists = preparation.file_ops.file_lists();
        summary.push_str(&lists.format());
        Ok(CompactionResult {
            summary,
            first_kept_entry_id: preparation.first_kept_entry_id.clone(),
            tokens_before: preparation.tokens_before,
            details: Some(lists.to_details()),
            extra: Map::new(),
        })
    }

    /// Estimated conversation tokens one request of `stage` can carry: the context window
    /// minus the answer's `maxTokens`, less the safety margin, less the system prompt and the
    /// prompt around the conversation.
    fn conversation_room(&self, stage: Stage<'_>) -> u64 {
        let frame = stage.kind.prompt("", stage.previous, stage.focus);
        let fixed = text_tokens(SUMMARIZATION_SYSTEM_PROMPT) + text_tokens(&frame);
        within_margin(
            self.context_window()
                .saturating_sub(stage.kind.max_tokens(stage.settings)),
        )
        .saturating_sub(fixed)
    }

    /// One request when the conversation fits; otherwise the chunked path: oversized messages
    /// truncated, the rest split by token share, each part summarized on its own (no previous
    /// summary), and the partial summaries merged by a request with the stage's previous
    /// summary and the merge instructions as focus. Parts and merges that still do not fit
    /// are split again.
    fn summarize_blocks<'a>(
        &'a self,
        stage: Stage<'a>,
        blocks: Vec<ConversationBlock>,
        depth: u32,
    ) -> BoxFuture<'a, Result<String, CompactionError>> {
        Box::pin(async move {
            let room = self.conversation_room(stage);
            if total_tokens(&blocks) <= room || depth >= MAX_CHUNK_DEPTH {
                return self
                    .request(stage, &join_blocks(blocks.iter().map(|b| &b.text)))
                    .await;
            }
            let blocks = truncate_oversized(blocks, oversized_limit(self.context_window(), room));
            let total = total_tokens(&blocks);
            if total <= room || blocks.len() < 2 {
                return self
                    .request(stage, &join_blocks(blocks.iter().map(|b| &b.text)))
                    .await;
            }

            let merge_focus = merge_focus(stage.focus);
            let part_stage = Stage {
                previous: None,
                ..stage
            };
            let parts = split_by_token_share(
                blocks,
                parts_needed(total, self.conversation_room(part_stage), usize::MAX),
            );
            let mut partials = Vec::with_capacity(parts.len());
            for part in parts {
                let partial = self.summarize_blocks(part_stage, part, depth + 1).await?;
                partials.push(partial_summary_block(partial));
            }
            let merge_stage = Stage {
                focus: Some(&merge_focus),
                ..stage
            };
            self.summarize_blocks(merge_stage, partials, depth + 1)
                .await
        })
    }

    /// Sends one summary request and returns the answer's text.
    async fn request(
        &self,
        stage: Stage<'_>,
        conversation: &str,
    ) -> Result<String, CompactionError> {
        let prompt = stage.kind.prompt(conversation, stage.previous, stage.focus);
        let now = self.clock.now_ms();
        let context = Context {
            system_prompt: Some(SUMMARIZATION_SYSTEM_PROMPT.to_owned()),
            messages: vec![Message::User(UserMessage {
                content: UserContent::Blocks(vec![ContentBlock::text(prompt)]),
                timestamp: now,
                extra: JsonObject::new(),
            })],
            tools: Vec::new(),
        };
        let mut options = self.stream_options.clone();
        options.max_tokens = Some(stage.kind.max_tokens(stage.settings));
        options.reasoning = (stage.kind == SummaryKind::History && self.model.reasoning)
            .then_some(ThinkLevel::High);
        options.cancel = stage.cancel.clone();
        let stream = ensure_terminal(
            self.provider.stream(&self.model, &context, options),
            AssistantMessage::for_model(&self.model, now),
        );
        drop(context);
        let answer = final_message(stream).await;
        match answer.stop_reason {
            StopReason::Error => Err(stage.kind.failure(error_text(answer))),
            StopReason::Aborted if stage.cancel.is_cancelled() => Err(CompactionError::Cancelled),
            // A provider that gave up on its own left no summary to keep.
            StopReason::Aborted => Err(stage.kind.failure(error_text(answer))),
            StopReason::Stop | StopReason::Length | StopReason::ToolUse => Ok(answer
                .content
                .iter()
                .filter_map(ContentBlock::as_text)
                .collect::<Vec<_>>()
                .join("\n")),
        }
    }
}

/// A partial summary as the merge request reads it: a user message (OpenClaw passes them as
/// user messages), so `[User]: <summary>`.
fn partial_summary_block(summary: String) -> ConversationBlock {
    let message = Message::User(UserMessage {
        content: UserContent::Text(summary),
        timestamp: 0,
        extra: JsonObject::new(),
    });
    ConversationBlock::from_message(&message).unwrap_or_else(|| ConversationBlock {
        text: serialize_message(&message),
        tokens: 0,
        follows_previous: false,
    })
}

fn error_text(answer: AssistantMessage) -> String {
    answer
        .error_message
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| UNKNOWN_ERROR.to_owned())
}

/// Reads a stream to its terminal event and returns the final message.
async fn final_message(mut stream: AssistantEventStream) -> AssistantMessage {
    while let Some(event) = poll_fn(|cx| stream.as_mut().poll_next(cx)).await {
        match event {
            AssistantMessageEvent::Done { message, .. } => return *message,
            AssistantMessageEvent::Error { error, .. } => return *error,
            _ => {}
        }
    }
    // `ensure_terminal` always ends with a terminal event; this only guards the type.
    let mut failed = AssistantMessage::empty("", "", "", 0);
    failed.stop_reason = StopReason::Error;
    failed.error_message = Some(STREAM_ENDED_BEFORE_COMPLETION.to_owned());
    failed
}
