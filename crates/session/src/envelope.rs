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
//!
//! Lines that are typed whole (older files, migrated and rewritten; whole-file rewrites) go
//! through [`type_object`], which applies the same rule to a parsed object, so a migration's
//! rewrite never turns a line skipped on one open into an entry on the next, nor the reverse.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;

use clawloop_core::message::JsonObject;

use crate::entry::SessionEntry;
use crate::entry_id::EntryId;
use crate::scan::{Judged, RawLine};

/// A line of a current-version file, as kept.
pub(crate) enum Item {
    /// Typed while reading (boxed: most lines are messages, and the list of items should not
    /// be as wide as an entry).
    Typed(Box<SessionEntry>),
    /// A `message` entry typed on first use.
    Message {
        /// Its id.
        id: EntryId,
        /// Its parent's id.
        parent_id: Option<EntryId>,
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
    message: Role,
}

/// The `message` object, as far as its role. Read by hand because a derived struct also
/// accepts a JSON array (fields by position), and a `message` that is not an object is not a
/// message.
struct Role {
    /// Whether the role is `assistant` (the only role the tree needs to know).
    assistant: bool,
}

impl<'de> Deserialize<'de> for Role {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct RoleVisitor;
        impl<'de> Visitor<'de> for RoleVisitor {
            type Value = Role;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a message object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Role, A::Error> {
                let mut role: Option<bool> = None;
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    if key == "role" {
                        if role.is_some() {
                            return Err(de::Error::duplicate_field("role"));
                        }
                        role = Some(map.next_value::<Cow<'de, str>>()? == "assistant");
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                role.map(|assistant| Role { assistant })
                    .ok_or_else(|| de::Error::missing_field("role"))
            }
        }
        deserializer.deserialize_map(RoleVisitor)
    }
}

/// Whether `text` holds a JSON object rather than some other value: the derived envelope
/// would also read an array, field by field.
fn is_object_text(text: &str) -> bool {
    text.trim_start_matches([' ', '\t', '\n', '\r'])
        .starts_with('{')
}

/// Types one parsed line as a current-version file's reader keeps it: an entry, or — for an
/// object with a sound message envelope whose message this version cannot read —
/// [`SessionEntry::Other`], exactly as the lazy reader ends up keeping that line. `Err` for a
/// line that reader skips.
pub(crate) fn type_object(obj: JsonObject) -> Result<SessionEntry, serde_json::Error> {
    let sound_envelope = has_message_envelope(&obj);
    match SessionEntry::from_object(obj) {
        Ok(entry) => Ok(entry),
        Err(e) if sound_envelope.is_some() => {
            tracing::warn!(error = %e, "session entry cannot be read; keeping it as an unknown entry");
            sound_envelope.ok_or(e)
        }
        Err(e) => Err(e),
    }
}

/// The object itself as [`SessionEntry::Other`] when it passes the envelope check of
/// [`judge`] (see the module documentation), else `None`. Cloned only for a message entry.
fn has_message_envelope(obj: &JsonObject) -> Option<SessionEntry> {
    let is_str = |key: &str| obj.get(key).is_some_and(Value::is_string);
    let sound = obj.get("type").and_then(Value::as_str) == Some("message")
        && is_str("id")
        && matches!(
            obj.get("parentId"),
            None | Some(Value::Null | Value::String(_))
        )
        && is_str("timestamp")
        && obj
            .get("message")
            .and_then(Value::as_object)
            .is_some_and(|m| m.get("role").is_some_and(Value::is_string));
    sound.then(|| SessionEntry::Other(obj.clone()))
}

/// Judges one line of a current-version file.
pub(crate) fn judge(path: &std::path::Path, line: RawLine<'_>) -> Judged<Item> {
    // UTF-8 first: the envelope parse skips over the message without checking its strings,
    // and a line the full parse would reject as not JSON must not pass here.
    let Some(text) = line.text.or_else(|| std::str::from_utf8(line.content).ok()) else {
        return Judged::NotAnObject;
    };
    if is_object_text(text)
        && let Ok(envelope) = serde_json::from_str::<Envelope>(text)
        && envelope.kind == "message"
    {
        return Judged::Keep(Item::Message {
            id: EntryId::from(&*envelope.id),
            parent_id: envelope.parent_id.as_deref().map(EntryId::from),
            assistant: envelope.message.assistant,
            start: line.start,
            len: line.content.len(),
        });
    }
    let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(text) else {
        return Judged::NotAnObject;
    };
    // The envelope is only a fast path: whatever it turns down (a duplicated key, say) is
    // judged by the rule every other reader uses.
    match type_object(obj) {
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
