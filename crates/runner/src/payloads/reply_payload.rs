//! One reply of a run (OpenClaw `ReplyPayload`): text and/or media, with its delivery hints.

use serde::ser::{Serialize, SerializeMap, Serializer};

/// One reply the run hands to the channel.
///
/// Serialized in OpenClaw's shape: `text`, `mediaUrl` (the first media), `mediaUrls`,
/// `replyToId`, then the flags `replyToTag`, `replyToCurrent`, `audioAsVoice`, `isError`,
/// `isReasoning`; absent values and `false` flags are left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplyPayload {
    /// The text, trimmed; `None` for a media-only reply.
    pub text: Option<String>,
    /// Media to attach (paths or URLs), in order.
    pub media_urls: Vec<String>,
    /// The message to thread the reply under.
    pub reply_to_id: Option<String>,
    /// A reply-to tag was present in the text.
    pub reply_to_tag: bool,
    /// `[[reply_to_current]]` was present in the text.
    pub reply_to_current: bool,
    /// Send attached audio as a voice message.
    pub audio_as_voice: bool,
    /// The reply reports a failure.
    pub is_error: bool,
    /// The reply is the model's reasoning, not its answer.
    pub is_reasoning: bool,
}

impl ReplyPayload {
    /// A plain text reply.
    pub fn text(text: impl Into<String>) -> Self {
        ReplyPayload {
            text: Some(text.into()),
            ..ReplyPayload::default()
        }
    }

    /// A text reply that reports a failure (`isError: true`).
    pub fn error(text: impl Into<String>) -> Self {
        ReplyPayload {
            is_error: true,
            ..ReplyPayload::text(text)
        }
    }

    /// The first media (OpenClaw `mediaUrl`).
    pub fn media_url(&self) -> Option<&str> {
        self.media_urls.first().map(String::as_str)
    }

    /// Whether there is anything to send: text or media.
    pub fn has_content(&self) -> bool {
        self.text.as_deref().is_some_and(|t| !t.is_empty()) || !self.media_urls.is_empty()
    }
}

impl Serialize for ReplyPayload {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        if let Some(text) = &self.text {
            map.serialize_entry("text", text)?;
        }
        if let Some(first) = self.media_url() {
            map.serialize_entry("mediaUrl", first)?;
            map.serialize_entry("mediaUrls", &self.media_urls)?;
        }
        if let Some(id) = &self.reply_to_id {
            map.serialize_entry("replyToId", id)?;
        }
        let flags = [
            ("replyToTag", self.reply_to_tag),
            ("replyToCurrent", self.reply_to_current),
            ("audioAsVoice", self.audio_as_voice),
            ("isError", self.is_error),
            ("isReasoning", self.is_reasoning),
        ];
        for (name, set) in flags {
            if set {
                map.serialize_entry(name, &true)?;
            }
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn serializes_in_openclaw_shape_without_false_flags() {
        let payload = ReplyPayload {
            text: Some("Here.".into()),
            media_urls: vec!["/tmp/a.png".into(), "/tmp/b.png".into()],
            reply_to_id: Some("m1".into()),
            reply_to_tag: true,
            audio_as_voice: true,
            ..ReplyPayload::default()
        };
        assert_eq!(
            serde_json::to_value(&payload).unwrap(),
            serde_json::json!({
                "text": "Here.",
                "mediaUrl": "/tmp/a.png",
                "mediaUrls": ["/tmp/a.png", "/tmp/b.png"],
                "replyToId": "m1",
                "replyToTag": true,
                "audioAsVoice": true,
            })
        );
        assert_eq!(
            serde_json::to_string(&ReplyPayload::error("boom")).unwrap(),
            r#"{"text":"boom","isError":true}"#
        );
    }
}
