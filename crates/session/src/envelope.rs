//! Judging a line of a current-version file cheaply: `message` entries — nearly every line,
//! and nearly every byte — are read only as far as their envelope (`type`, `id`, `parentId`,
//! `timestamp`, `message.role`) and typed when first used; everything else is typed at once.
//!
//! Why: typing a message builds every string of it, several times over in the message types'
//! deserializers, which made opening a 100 MB session take seconds. The envelope is what the
//! tree and the leaf need; the context needs only the messages on the leaf's path.
//!
//! What the envelope checks — a JSON object (valid UTF-8) with a string `type` "message", a
//! string `id`, a `parentId` that is a string, `null` or absent, a string `timestamp` and a
//! `message` object with a string `role` — is everything a message entry needs except the
//! message's own fields. A line that passes and later turns out not to hold a message this
//! version can read is kept as [`SessionEntry::Other`] (see [`crate::entry_list`]) instead of
//! being skipped at open; pi keeps such lines too. Any line that does not pass goes through the
//! exact, eager path of [`crate::load`].

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

use crate::entry::SessionEntry;
use crate::scan::{Judged, RawLine};

/// A line of a current-version file, as kept.
pub(crate) enum Item {
    /// Typed while reading (boxed: most lines are messages, and the list of items should not
    /// be as wide as an entry).
    Typed(Box<SessionEntry>),
    /// A `message` entry typed on first use.
    Message {
        /// Its id.
        id: String,
        /// Its parent's id.
        parent_id: Option<String>,
        /// Whether its role is `assistant` (the context's model may come from it).
        assistant: bool,
        /// Where its line (without `\n`) starts in the file.
        start: usize,
        /// The line's length.
        len: usize,
    },
}

/// The fields of a `message` line the tree needs; the rest is skipped over unparsed.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(default, rename = "parentId", borrow)]
    parent_id: Option<Cow<'a, str>>,
    // Checked, not kept: a message entry without a string timestamp is unusable.
    #[serde(borrow)]
    #[allow(dead_code, reason = "read only to check that it is a string")]
    timestamp: Cow<'a, str>,
    #[serde(borrow)]
    message: Role<'a>,
}

#[derive(Deserialize)]
struct Role<'a> {
    #[serde(borrow)]
    role: Cow<'a, str>,
}

/// Judges one line of a current-version file.
pub(crate) fn judge(path: &std::path::Path, line: RawLine<'_>) -> Judged<Item> {
    // UTF-8 first: the envelope parse skips over the message without checking its strings,
    // and a line the full parse would reject as not JSON must not pass here.
    let Some(text) = line.text.or_else(|| std::str::from_utf8(line.content).ok()) else {
        return Judged::NotAnObject;
    };
    if let Ok(envelope) = serde_json::from_str::<Envelope>(text)
        && envelope.kind == "message"
    {
        return Judged::Keep(Item::Message {
            id: envelope.id.into_owned(),
            parent_id: envelope.parent_id.map(Cow::into_owned),
            assistant: envelope.message.role == "assistant",
            start: line.start,
            len: line.content.len(),
        });
    }
    let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(text) else {
        return Judged::NotAnObject;
    };
    match SessionEntry::from_object(obj) {
        Ok(entry) => Judged::Keep(Item::Typed(Box::new(entry))),
        Err(e) => {
            tracing::warn!(path = %path.display(), line = line.number, error = %e, "skipping unusable session entry");
            Judged::Unusable(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(text: &str) -> &'static str {
        let line = RawLine {
            content: text.as_bytes(),
            text: None,
            start: 7,
            number: 2,
        };
        match judge(std::path::Path::new("s.jsonl"), line) {
            Judged::Keep(Item::Message { .. }) => "lazy",
            Judged::Keep(Item::Typed(_)) => "typed",
            Judged::Unusable(_) => "unusable",
            Judged::NotAnObject => "not an object",
        }
    }

    #[test]
    fn message_envelopes_are_lazy_and_everything_else_exact() {
        let m = r#"{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":"x","timestamp":1}}"#;
        assert_eq!(judged(m), "lazy");
        let Judged::Keep(Item::Message {
            id,
            parent_id,
            assistant,
            start,
            len,
        }) = judge(
            std::path::Path::new("s"),
            RawLine {
                content: m.as_bytes(),
                text: Some(m),
                start: 7,
                number: 2,
            },
        )
        else {
            panic!("not lazy")
        };
        assert_eq!(
            (id.as_str(), parent_id, assistant, start, len),
            ("a", None, false, 7, m.len())
        );
        // Escaped strings, an absent parent, unknown fields: still lazy.
        assert_eq!(
            judged(
                r#"{"type":"message","id":"\u0061","timestamp":"t","x":[1],"message":{"role":"future"}}"#
            ),
            "lazy"
        );
        assert_eq!(
            judged(r#"{"type":"label","id":"l","parentId":"a","timestamp":"t","targetId":"a"}"#),
            "typed"
        );
        // Envelope faults fall back to the exact path, which skips them as before.
        for bad in [
            r#"{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":7}}"#,
            r#"{"type":"message","id":5,"parentId":null,"timestamp":"t","message":{"role":"user"}}"#,
            r#"{"type":"message","id":"a","parentId":3,"timestamp":"t","message":{"role":"user"}}"#,
            r#"{"type":"message","id":"a","parentId":null,"message":{"role":"user"}}"#,
        ] {
            assert_eq!(judged(bad), "unusable", "{bad}");
        }
        assert_eq!(judged("42"), "not an object");
        assert_eq!(judged(r#"{"type":"message","id":"a""#), "not an object");
        let invalid_utf8 = b"{\"type\":\"message\",\"id\":\"a\",\"timestamp\":\"t\",\"message\":{\"role\":\"user\",\"content\":\"\xff\"}}";
        let line = RawLine {
            content: invalid_utf8,
            text: None,
            start: 0,
            number: 2,
        };
        assert!(matches!(
            judge(std::path::Path::new("s"), line),
            Judged::NotAnObject
        ));
    }
}
