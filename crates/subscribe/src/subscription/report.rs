//! What a finished subscription tells the runner (OpenClaw reads these from the subscription
//! handle after the attempt): one value instead of a copy per accessor.

use clawloop_core::Usage;
use std::collections::BTreeSet;

use super::{LivenessState, MessagingToolTarget, Subscription};
use crate::sink::SubscriptionSink;
use crate::tool_meta::{LastToolError, ToolMeta};
use crate::usage_accumulator::UsageTotals;

/// The subscription's results after a run: the texts for the final payloads, tool outcomes,
/// messaging-tool sends, usage and liveness.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SubscriptionReport {
    /// Texts of the run's replies, in order (the final payload texts).
    pub assistant_texts: Vec<String>,
    /// Finished tool calls, in completion order.
    pub tool_metas: Vec<ToolMeta>,
    /// The unresolved tool failure, if any.
    pub last_tool_error: Option<LastToolError>,
    /// Texts messaging tools sent successfully (at most the 200 most recent).
    pub messaging_tool_sent_texts: Vec<String>,
    /// Media messaging tools sent successfully.
    pub messaging_tool_sent_media_urls: Vec<String>,
    /// Recipients messaging tools sent to successfully.
    pub messaging_tool_sent_targets: Vec<MessagingToolTarget>,
    /// Usage summed over the run's assistant messages; `None` when all zero.
    pub usage_totals: Option<UsageTotals>,
    /// The latest model call's usage.
    pub last_call_usage: Option<Usage>,
    /// Keys ([`block_reply_payload_key`](super::block_reply_payload_key)) of every block
    /// delivered as a block reply, so final payloads repeating one are dropped.
    pub directly_sent_block_keys: BTreeSet<String>,
    /// Some action may have changed the world.
    pub had_potential_side_effects: bool,
    /// A successful mutating action happened, so replaying the run is unsafe.
    pub replay_invalid: bool,
    /// The run's liveness.
    pub liveness: LivenessState,
}

impl SubscriptionReport {
    /// `true` when a messaging tool sent text (the final reply is then usually redundant).
    pub fn did_send_via_messaging_tool(&self) -> bool {
        !self.messaging_tool_sent_texts.is_empty()
    }
}

impl<S: SubscriptionSink> Subscription<S> {
    /// The results so far, as one value (the runner takes it once the run ended).
    pub fn report(&self) -> SubscriptionReport {
        SubscriptionReport {
            assistant_texts: self.assistant_texts().to_vec(),
            tool_metas: self.tool_metas().to_vec(),
            last_tool_error: self.last_tool_error().cloned(),
            messaging_tool_sent_texts: self.messaging_tool_sent_texts().to_vec(),
            messaging_tool_sent_media_urls: self.messaging_tool_sent_media_urls().to_vec(),
            messaging_tool_sent_targets: self.messaging_tool_sent_targets().to_vec(),
            usage_totals: self.usage_totals(),
            last_call_usage: self.last_call_usage().cloned(),
            directly_sent_block_keys: self.directly_sent_block_keys().clone(),
            had_potential_side_effects: self.had_potential_side_effects(),
            replay_invalid: self.replay_invalid(),
            liveness: self.liveness(),
        }
    }
}
