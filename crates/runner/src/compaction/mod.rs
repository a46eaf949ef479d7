//! Compaction (SPEC §8.7): replacing old history with a model-written summary so a session
//! keeps fitting its context window.
//!
//! pi 0.58.3's algorithm (pi-mono §3.5): [`prepare_compaction`] picks a cut that keeps about
//! `keepRecentTokens` of recent history and never separates a tool call from its result
//! ([`cut`]); the part before the cut is serialized ([`serialize`]) and summarized with pi's
//! prompts ([`prompts`]); a cut inside a turn also summarizes the turn's beginning; the files
//! read and modified are appended. A history one request cannot take is summarized in parts
//! and merged (the seed's chunked summarization, [`chunk`]).
//!
//! [`Compactor::compact`] is the whole operation under the safety timeout, abortable by a
//! `CancellationToken`; [`Compactor::compact_transcript`] also prepares from and appends to an
//! open transcript. The agent session calls it for auto compaction, `/compact` directly.
//!
//! # Example
//!
//! ```
//! use std::sync::Arc;
//! use clawloop_core::message::{AssistantMessage, ContentBlock, UserMessage};
//! use clawloop_core::provider::stream_of;
//! use clawloop_core::{AssistantMessageBuilder, Context, Model, StopReason, StreamOptions};
//! use clawloop_runner::compaction::{CompactionSettings, Compactor};
//! use clawloop_session::{SessionOptions, Transcript};
//! use tokio_util::sync::CancellationToken;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let model: Model = serde_json::from_value(serde_json::json!({
//!     "id": "m", "api": "ollama", "provider": "ollama", "contextWindow": 100000, "maxTokens": 4096
//! }))?;
//! // A provider that always answers "SUMMARY".
//! let provider = Arc::new(|model: &Model, _: &Context, _: StreamOptions| {
//!     let mut answer = AssistantMessageBuilder::new(AssistantMessage::for_model(model, 0));
//!     answer.message_mut().content.push(ContentBlock::text("SUMMARY"));
//!     stream_of(vec![answer.finish(StopReason::Stop)])
//! });
//!
//! let dir = tempfile::tempdir()?;
//! let mut transcript = Transcript::open(dir.path().join("s.jsonl"), SessionOptions::default())?;
//! for turn in ["first question", "second question"] {
//!     transcript.append_message(UserMessage::text(turn, 1))?;
//!     let mut reply = AssistantMessage::for_model(&model, 2);
//!     reply.content.push(ContentBlock::text("an answer"));
//!     transcript.append_message(reply)?;
//! }
//!
//! // Keep only the last turn verbatim.
//! let settings = CompactionSettings { keep_recent_tokens: 5, ..CompactionSettings::default() };
//! let compactor = Compactor::new(provider, model).with_settings(settings);
//! let outcome = compactor
//!     .compact_transcript(&mut transcript, None, &CancellationToken::new())
//!     .await?;
//! assert_eq!(outcome.result().map(|r| r.summary.as_str()), Some("SUMMARY"));
//! let context = transcript.build_context();
//! assert_eq!(context.messages.len(), 3); // the summary, then the last turn
//! # Ok(())
//! # }
//! ```

pub mod chunk;
pub mod cut;
pub mod error;
pub mod file_ops;
pub mod prepare;
pub mod prompts;
pub mod serialize;
pub mod settings;
pub mod summarize;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use clawloop_core::clock::{Clock, SystemClock};
use clawloop_core::{CompactionResult, LlmStream, Model, StreamOptions};
use clawloop_session::Transcript;

pub use chunk::{ConversationBlock, split_by_token_share};
pub use cut::{CutPoint, find_cut_point, find_turn_start_index, find_valid_cut_points};
pub use error::CompactionError;
pub use file_ops::{FileLists, FileOperations};
pub use prepare::{CompactionPreparation, entry_message, prepare_compaction};
pub use serialize::{serialize_conversation, serialize_message};
pub use settings::{CompactionSettings, DEFAULT_COMPACTION_TIMEOUT, compaction_timeout};

/// The reason of a compaction that had nothing to summarize (OpenClaw's text).
pub const NOTHING_TO_SUMMARIZE: &str = "no real conversation messages";

/// What a compaction did.
#[derive(Debug, Clone, PartialEq)]
pub enum CompactionOutcome {
    /// The history was summarized (and, through a transcript, the summary appended).
    Compacted(CompactionResult),
    /// Nothing was summarized and no request was made (`compacted: false`).
    NotCompacted {
        /// Why not (e.g. [`NOTHING_TO_SUMMARIZE`]).
        reason: String,
    },
}

impl CompactionOutcome {
    /// Whether the history was summarized.
    pub fn compacted(&self) -> bool {
        matches!(self, CompactionOutcome::Compacted(_))
    }

    /// The result of a compaction that happened.
    pub fn result(&self) -> Option<&CompactionResult> {
        match self {
            CompactionOutcome::Compacted(result) => Some(result),
            CompactionOutcome::NotCompacted { .. } => None,
        }
    }

    /// Why nothing was compacted.
    pub fn reason(&self) -> Option<&str> {
        match self {
            CompactionOutcome::Compacted(_) => None,
            CompactionOutcome::NotCompacted { reason } => Some(reason),
        }
    }
}

/// Runs compactions with one model through one provider.
#[derive(Clone)]
pub struct Compactor {
    provider: Arc<dyn LlmStream>,
    model: Model,
    stream_options: StreamOptions,
    settings: CompactionSettings,
    timeout: Duration,
    context_window: Option<u64>,
    clock: Arc<dyn Clock>,
}

impl fmt::Debug for Compactor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Compactor")
            .field("model", &self.model.id)
            .field("stream_options", &self.stream_options)
            .field("settings", &self.settings)
            .field("timeout", &self.timeout)
            .field("context_window", &self.context_window())
            .finish_non_exhaustive()
    }
}

impl Compactor {
    /// A compactor with pi's default settings and the seed's 300 s safety timeout.
    pub fn new(provider: Arc<dyn LlmStream>, model: Model) -> Self {
        Compactor {
            provider,
            model,
            stream_options: StreamOptions::default(),
            settings: CompactionSettings::default(),
            timeout: DEFAULT_COMPACTION_TIMEOUT,
            context_window: None,
            clock: Arc::new(SystemClock),
        }
    }

    /// The compaction settings (`reserveTokens`, `keepRecentTokens`).
    pub fn with_settings(mut self, settings: CompactionSettings) -> Self {
        self.settings = settings;
        self
    }

    /// The safety timeout of one whole compaction (`agents.defaults.compaction.timeoutSeconds`).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Options every summary request starts from (API key, headers, session id, …);
    /// `max_tokens`, `reasoning` and `cancel` are set per request.
    pub fn with_stream_options(mut self, options: StreamOptions) -> Self {
        self.stream_options = options;
        self
    }

    /// The context window the chunked path plans with, when it differs from the model's
    /// (the runner's resolved window, reference §12).
    pub fn with_context_window(mut self, tokens: u64) -> Self {
        self.context_window = Some(tokens);
        self
    }

    /// The clock that stamps the summary requests' user messages.
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// The settings in use.
    pub fn settings(&self) -> &CompactionSettings {
        &self.settings
    }

    /// The context window the chunked path plans with.
    pub fn context_window(&self) -> u64 {
        self.context_window.unwrap_or(self.model.context_window)
    }

    /// Compacts a prepared branch: [`Compactor::summarize`] under the safety timeout.
    ///
    /// When no message before the cut carries conversation text, no request is made and the
    /// outcome is [`CompactionOutcome::NotCompacted`]. Cancelling `cancel` ends it with
    /// [`CompactionError::Cancelled`] and the timeout with [`CompactionError::TimedOut`]; both
    /// cancel the requests in flight.
    pub async fn compact(
        &self,
        preparation: &CompactionPreparation,
        custom_instructions: Option<&str>,
        cancel: &CancellationToken,
    ) -> Result<CompactionOutcome, CompactionError> {
        if !preparation.has_conversation() {
            return Ok(CompactionOutcome::NotCompacted {
                reason: NOTHING_TO_SUMMARIZE.to_owned(),
            });
        }
        if cancel.is_cancelled() {
            return Err(CompactionError::Cancelled);
        }
        // Requests get their own token so a timeout can close them without cancelling the
        // caller's; dropping the guard closes whatever is still open on every way out.
        let requests = cancel.child_token();
        let _close_requests = requests.clone().drop_guard();
        let summarize = tokio::time::timeout(
            self.timeout,
            self.summarize(preparation, custom_instructions, &requests),
        );
        let result = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(CompactionError::Cancelled),
            finished = summarize => match finished {
                Ok(result) => result?,
                Err(_elapsed) => {
                    return Err(CompactionError::TimedOut {
                        timeout_ms: self.timeout.as_millis(),
                    });
                }
            },
        };
        if cancel.is_cancelled() {
            return Err(CompactionError::Cancelled);
        }
        Ok(CompactionOutcome::Compacted(result))
    }

    /// Compacts the branch at the transcript's leaf and appends the summary
    /// ([`append_compaction`]); afterwards `build_context` starts with the summary followed
    /// by the kept messages.
    ///
    /// Errors: `Already compacted` when the leaf is a compaction, `Nothing to compact (session
    /// too small)` for an empty branch, then those of [`Compactor::compact`] and of the
    /// append. Nothing is written unless the compaction succeeded.
    pub async fn compact_transcript(
        &self,
        transcript: &mut Transcript,
        custom_instructions: Option<&str>,
        cancel: &CancellationToken,
    ) -> Result<CompactionOutcome, CompactionError> {
        let Some(leaf) = transcript.leaf_id().map(str::to_owned) else {
            return Err(CompactionError::NothingToCompact);
        };
        let preparation = prepare_compaction(
            &transcript.branch_path_since_compaction(&leaf),
            &self.settings,
        )?;
        match self
            .compact(&preparation, custom_instructions, cancel)
            .await?
        {
            CompactionOutcome::Compacted(result) => Ok(CompactionOutcome::Compacted(
                append_compaction(transcript, result)?,
            )),
            not_compacted @ CompactionOutcome::NotCompacted { .. } => Ok(not_compacted),
        }
    }
}

/// Appends a compaction result to an open transcript as pi does (`appendCompaction(summary,
/// firstKeptEntryId, tokensBefore, details, fromHook = false)`) and returns it.
pub fn append_compaction(
    transcript: &mut Transcript,
    result: CompactionResult,
) -> Result<CompactionResult, CompactionError> {
    transcript.append_compaction(
        result.summary.clone(),
        result.first_kept_entry_id.clone(),
        result.tokens_before,
        result.details.clone(),
        Some(false),
    )?;
    Ok(result)
}
