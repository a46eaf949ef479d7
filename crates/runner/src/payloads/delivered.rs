//! Final payloads the user already received another way (OpenClaw `buildReplyPayloads`
//! dedupe): through a messaging tool, or as block replies streamed during the run.

use std::collections::BTreeSet;

use clawloop_core::js_text::js_trim;
use clawloop_subscribe::block_reply_payload_key;
use clawloop_subscribe::messaging_dedupe::{
    is_messaging_tool_duplicate, normalize_text_for_comparison,
};

use super::reply_payload::ReplyPayload;
use crate::attempt::AttemptResult;

/// What was already delivered during the run.
#[derive(Debug, Clone, Copy, Default)]
pub struct DeliveredEvidence<'a> {
    /// Texts messaging tools sent.
    pub messaging_tool_sent_texts: &'a [String],
    /// Media messaging tools sent.
    pub messaging_tool_sent_media_urls: &'a [String],
    /// Keys ([`block_reply_payload_key`]) of the block replies delivered while streaming.
    pub directly_sent_block_keys: Option<&'a BTreeSet<String>>,
    /// A messaging tool already answered the conversation the run replies to (OpenClaw
    /// `shouldSuppressMessagingToolReplies`; the caller matches the targets): only error
    /// payloads are still sent.
    pub replied_via_messaging_tool: bool,
}

impl<'a> DeliveredEvidence<'a> {
    /// The attempt's evidence; whether a messaging tool answered the originating conversation
    /// is the caller's to set.
    pub fn from_attempt(attempt: &'a AttemptResult) -> Self {
        DeliveredEvidence {
            messaging_tool_sent_texts: &attempt.subscription.messaging_tool_sent_texts,
            messaging_tool_sent_media_urls: &attempt.subscription.messaging_tool_sent_media_urls,
            directly_sent_block_keys: Some(&attempt.subscription.directly_sent_block_keys),
            replied_via_messaging_tool: false,
        }
    }
}

/// Drops what the user already has, in OpenClaw's order:
///
/// 1. when a messaging tool answered the conversation, every payload but the errors;
/// 2. media a messaging tool sent, from each payload (`file://` URLs compared as paths);
/// 3. text-only payloads that repeat a messaging-tool text (normalized containment, at least
///    10 chars — a payload with media stays for its media);
/// 4. payloads identical (trimmed text and media) to a block reply streamed during the run.
///
/// Payloads left with neither text nor media after step 2 are dropped.
pub fn drop_delivered_payloads(
    payloads: Vec<ReplyPayload>,
    evidence: &DeliveredEvidence<'_>,
) -> Vec<ReplyPayload> {
    let sent_media: BTreeSet<String> = evidence
        .messaging_tool_sent_media_urls
        .iter()
        .map(|url| normalize_media_for_dedupe(url))
        .filter(|url| !url.is_empty())
        .collect();
    let sent_texts: Vec<String> = evidence
        .messaging_tool_sent_texts
        .iter()
        .map(|text| normalize_text_for_comparison(text))
        .collect();
    payloads
        .into_iter()
        .filter(|p| !evidence.replied_via_messaging_tool || p.is_error)
        .filter_map(|mut p| {
            if sent_media.is_empty() {
                return Some(p);
            }
            let before = p.media_urls.len();
            p.media_urls
                .retain(|url| !sent_media.contains(&normalize_media_for_dedupe(url)));
            (before == p.media_urls.len() || p.has_content()).then_some(p)
        })
        .filter(|p| {
            !p.media_urls.is_empty()
                || !is_messaging_tool_duplicate(p.text.as_deref().unwrap_or(""), &sent_texts)
        })
        .filter(|p| {
            evidence.directly_sent_block_keys.is_none_or(|keys| {
                !keys.contains(&block_reply_payload_key(
                    p.text.as_deref().unwrap_or(""),
                    &p.media_urls,
                ))
            })
        })
        .collect()
}

/// A media reference as compared for dedupe: trimmed, and a `file://` URL reduced to its
/// percent-decoded path.
fn normalize_media_for_dedupe(value: &str) -> String {
    let trimmed = js_trim(value);
    let Some(rest) = strip_prefix_ignore_ascii_case(trimmed, "file://") else {
        return trimmed.to_owned();
    };
    // `file://host/path` names `/path`; query and fragment are not part of the path.
    let path = match rest.find('/') {
        Some(0) => rest,
        Some(at) => &rest[at..],
        None => return rest.to_owned(),
    };
    let path = path.split(['?', '#']).next().unwrap_or(path);
    percent_decode(path).unwrap_or_else(|| rest.to_owned())
}

fn strip_prefix_ignore_ascii_case<'t>(text: &'t str, prefix: &str) -> Option<&'t str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

/// `decodeURIComponent`: `None` for a malformed escape or bytes that are not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn file_urls_compare_as_decoded_paths() {
        let rows = [
            (" /tmp/a.png ", "/tmp/a.png"),
            ("file:///tmp/a%20b.png", "/tmp/a b.png"),
            ("FILE://localhost/tmp/x.png?v=1", "/tmp/x.png"),
            ("file:///tmp/bad%zz.png", "/tmp/bad%zz.png"),
            ("https://x.test/a.png", "https://x.test/a.png"),
        ];
        for (input, expected) in rows {
            assert_eq!(normalize_media_for_dedupe(input), expected, "{input}");
        }
    }
}
