//! What a turn returns (seed 001's `AgentRunLoopResult`) and the run result inside it.

use std::collections::BTreeSet;

use clawloop_subscribe::MessagingToolTarget;

use crate::auth::cooldown::CooldownEnd;

use crate::payloads::{
    AgentMeta, PayloadInput, ReplyPayload, RunMeta, RunUsage, TerminalSignals, build_run_payloads,
    incomplete_turn_payload, partial_timeout_payload, timeout_payload,
};
use crate::run::{RunEnding, RunOutcome};

/// A run's answer: the payloads for the user and the meta for the caller.
#[derive(Debug, Clone, PartialEq)]
pub struct RunResult {
    /// What the user sees, in order.
    pub payloads: Vec<ReplyPayload>,
    /// Duration, model, usage, stop reason, errors.
    pub meta: RunMeta,
    /// Whether a messaging tool sent something.
    pub did_send_via_messaging_tool: bool,
    /// Texts messaging tools sent.
    pub messaging_tool_sent_texts: Vec<String>,
    /// Media messaging tools sent.
    pub messaging_tool_sent_media_urls: Vec<String>,
    /// Where messaging tools sent.
    pub messaging_tool_sent_targets: Vec<MessagingToolTarget>,
}

impl RunResult {
    /// Payloads and meta from a run's outcome (reference §4.7 and §7).
    pub fn from_outcome(outcome: &RunOutcome) -> Self {
        let last = outcome.last_attempt().cloned().unwrap_or_default();
        let mut usage = RunUsage::new();
        for attempt in &outcome.attempts {
            usage.record_attempt(attempt);
        }
        let agent_meta = AgentMeta::new(
            &last,
            &outcome.provider,
            &outcome.model,
            &usage,
            outcome.compaction_count,
        );
        let (payloads, meta) = match &outcome.ending {
            RunEnding::ErrorPayload {
                text,
                kind,
                message,
            } => (
                vec![ReplyPayload::error(text.clone())],
                RunMeta::error(
                    &last,
                    agent_meta,
                    outcome.duration_ms,
                    *kind,
                    message.clone(),
                ),
            ),
            RunEnding::Completed => {
                let input = PayloadInput {
                    provider: Some(&outcome.provider),
                    model: Some(&outcome.model),
                    ..PayloadInput::from_attempt(&last)
                };
                let mut payloads = build_run_payloads(&input);
                let signals = TerminalSignals::from_attempt(&last);
                if let Some(timeout) = timeout_payload(&last, payloads.len()) {
                    payloads = vec![timeout];
                } else if let Some(timeout) = partial_timeout_payload(&last, payloads.len()) {
                    // The partial text stays for the caller to show; the timeout is the error.
                    payloads.retain(|p| !p.is_error);
                    payloads.push(timeout);
                }
                let incomplete = incomplete_turn_payload(&last, payloads.len(), &signals);
                let incomplete_turn = incomplete.is_some();
                if let Some(incomplete) = incomplete {
                    payloads = vec![incomplete];
                }
                let meta = RunMeta::terminal(
                    &last,
                    agent_meta,
                    outcome.duration_ms,
                    payloads.len(),
                    &signals,
                    incomplete_turn,
                );
                (payloads, meta)
            }
        };
        RunResult {
            payloads,
            meta,
            did_send_via_messaging_tool: last.subscription.did_send_via_messaging_tool(),
            messaging_tool_sent_texts: last.subscription.messaging_tool_sent_texts.clone(),
            messaging_tool_sent_media_urls: last
                .subscription
                .messaging_tool_sent_media_urls
                .clone(),
            messaging_tool_sent_targets: last.subscription.messaging_tool_sent_targets.clone(),
        }
    }

    /// The text of every payload that is not an error, joined.
    pub fn reply_text(&self) -> String {
        self.payloads
            .iter()
            .filter(|p| !p.is_error)
            .filter_map(|p| p.text.as_deref())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// A turn that produced a run result.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnSuccess {
    /// The run's result.
    pub run_result: RunResult,
    /// The provider that answered, when a fallback model did.
    pub fallback_provider: Option<String>,
    /// The model that answered, when a fallback model did.
    pub fallback_model: Option<String>,
    /// Whether a compaction completed during the turn.
    pub auto_compaction_completed: bool,
    /// Keys of block replies already delivered.
    pub directly_sent_block_keys: BTreeSet<String>,
    /// The session the turn ran in.
    pub session_id: String,
}

/// The turn's answer (seed 001): a run result for the caller to deliver, or one final payload.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentRunLoopResult {
    /// The run finished; its payloads are the reply.
    Success(Box<TurnSuccess>),
    /// The turn ended with one user-facing payload (an error text, a reset notice).
    Final {
        /// The payload.
        payload: ReplyPayload,
        /// The session the turn ran in, when one was bound.
        session_id: Option<String>,
        /// Every profile of the model's provider rested, so no model was asked: which one is
        /// usable again first, and when (a caller tells the user how long, or how to clear it).
        cooling_down: Option<CooldownEnd>,
    },
}
