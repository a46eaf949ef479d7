//! What messaging tools sent (OpenClaw's `messagingToolSent*` lists and their `pending*`
//! maps): a send is pending from its tool call's start and counts only once the call
//! succeeded, because suppressing a reply for a send that then failed would lose the message.

use clawloop_core::js_text::js_trim;
use serde_json::Value;
use std::collections::HashMap;

use super::MessagingToolTarget;
use crate::messaging_dedupe::{
    MAX_MESSAGING_SENT_ENTRIES, is_messaging_tool_duplicate_normalized,
    normalize_text_for_comparison,
};
use crate::tool_meta::{is_messaging_send, messaging_media_urls, messaging_target, messaging_text};

/// Committed sends (each list capped at the most recent [`MAX_MESSAGING_SENT_ENTRIES`]) and the
/// sends of calls still running, by tool call id.
#[derive(Debug, Default)]
pub(super) struct MessagingLedger {
    pub(super) sent_texts: Vec<String>,
    /// `sent_texts` normalized for the duplicate test, computed once per send.
    sent_normalized: Vec<String>,
    pub(super) sent_targets: Vec<MessagingToolTarget>,
    pub(super) sent_media_urls: Vec<String>,
    pending_texts: HashMap<String, String>,
    pending_targets: HashMap<String, MessagingToolTarget>,
    pending_media: HashMap<String, Vec<String>>,
}

impl MessagingLedger {
    /// Notes what a starting call would send, when it is a messaging send.
    pub(super) fn start(
        &mut self,
        tool_call_id: &str,
        tool_name: &str,
        args: &Value,
        channel_tools: &[String],
    ) {
        if !is_messaging_send(tool_name, args, channel_tools) {
            return;
        }
        if let Some(to) = messaging_target(tool_name, args) {
            let provider = ["provider", "channel"]
                .iter()
                .find_map(|k| args.get(*k).and_then(Value::as_str))
                .map(js_trim)
                .filter(|s| !s.is_empty())
                .map_or_else(|| tool_name.to_owned(), str::to_lowercase);
            let account_id = args
                .get("accountId")
                .and_then(Value::as_str)
                .map(js_trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned);
            self.pending_targets.insert(
                tool_call_id.to_owned(),
                MessagingToolTarget {
                    tool: tool_name.to_owned(),
                    provider,
                    account_id,
                    to,
                },
            );
        }
        if let Some(text) = messaging_text(args) {
            self.pending_texts
                .insert(tool_call_id.to_owned(), text.to_owned());
        }
        let media = messaging_media_urls(args);
        if !media.is_empty() {
            self.pending_media.insert(tool_call_id.to_owned(), media);
        }
    }

    /// Ends a call: its pending send is committed when it succeeded (with media its result
    /// reports), dropped otherwise.
    pub(super) fn end(
        &mut self,
        tool_call_id: &str,
        succeeded: bool,
        tool_name: &str,
        start_args: &Value,
        result: &Value,
        channel_tools: &[String],
    ) {
        let pending_text = self.pending_texts.remove(tool_call_id);
        let pending_target = self.pending_targets.remove(tool_call_id);
        let pending_media = self.pending_media.remove(tool_call_id).unwrap_or_default();
        if !succeeded {
            return;
        }
        if let Some(text) = pending_text {
            self.sent_normalized
                .push(normalize_text_for_comparison(&text));
            self.sent_texts.push(text);
        }
        if let Some(target) = pending_target {
            self.sent_targets.push(target);
        }
        let is_send =
            !pending_media.is_empty() || is_messaging_send(tool_name, start_args, channel_tools);
        if is_send {
            let mut media = pending_media;
            for url in messaging_media_urls(result).into_iter().chain(
                result
                    .get("details")
                    .map(messaging_media_urls)
                    .unwrap_or_default(),
            ) {
                if !media.contains(&url) {
                    media.push(url);
                }
            }
            self.sent_media_urls.extend(media);
        }
        self.keep_recent();
    }

    /// Whether `text` repeats something a messaging tool sent.
    pub(super) fn is_duplicate(&self, text: &str) -> bool {
        // Nothing sent, nothing to duplicate: skip normalizing the text.
        !self.sent_normalized.is_empty()
            && is_messaging_tool_duplicate_normalized(
                &normalize_text_for_comparison(text),
                &self.sent_normalized,
            )
    }

    fn keep_recent(&mut self) {
        fn keep_recent<T>(v: &mut Vec<T>) {
            if v.len() > MAX_MESSAGING_SENT_ENTRIES {
                let overflow = v.len() - MAX_MESSAGING_SENT_ENTRIES;
                v.drain(..overflow);
            }
        }
        keep_recent(&mut self.sent_texts);
        keep_recent(&mut self.sent_normalized);
        keep_recent(&mut self.sent_targets);
        keep_recent(&mut self.sent_media_urls);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn send_args(text: &str) -> Value {
        json!({"action": "send", "target": "team", "message": text, "accountId": " a1 "})
    }

    #[test]
    fn a_send_counts_only_once_its_call_succeeded() {
        let mut ledger = MessagingLedger::default();
        let args = send_args("The nightly build finished.");
        ledger.start("ok", "message", &args, &[]);
        ledger.start("bad", "message", &send_args("Never sent."), &[]);
        assert!(!ledger.is_duplicate("The nightly build finished."));

        ledger.end("bad", false, "message", &args, &Value::Null, &[]);
        ledger.end("ok", true, "message", &args, &Value::Null, &[]);
        assert_eq!(ledger.sent_texts, ["The nightly build finished."]);
        assert_eq!(ledger.sent_targets.len(), 1);
        assert_eq!(ledger.sent_targets[0].to, "team");
        assert_eq!(ledger.sent_targets[0].account_id.as_deref(), Some("a1"));
        assert!(ledger.is_duplicate("the nightly   build finished."));
        assert!(!ledger.is_duplicate("Never sent."));
    }

    #[test]
    fn committed_sends_keep_only_the_most_recent() {
        let mut ledger = MessagingLedger::default();
        for i in 0..MAX_MESSAGING_SENT_ENTRIES + 5 {
            let args = send_args(&format!("Message number {i}."));
            let id = i.to_string();
            ledger.start(&id, "message", &args, &[]);
            ledger.end(&id, true, "message", &args, &Value::Null, &[]);
        }
        assert_eq!(ledger.sent_texts.len(), MAX_MESSAGING_SENT_ENTRIES);
        assert_eq!(ledger.sent_texts[0], "Message number 5.");
        assert_eq!(ledger.sent_targets.len(), MAX_MESSAGING_SENT_ENTRIES);
        assert!(!ledger.is_duplicate("Message number 4."));
    }
}
