//! The entry types of a session file (pi-mono §3.3.2–§3.3.3).
//!
//! Every struct writes its keys in the order pi writes them (most start with `type, id,
//! parentId, timestamp`; `custom` and `custom_message` put their own fields first), omits
//! absent optional fields as `JSON.stringify` omits `undefined`, and keeps fields this version
//! does not know in `extra`. An entry of an unknown `type` is kept verbatim as
//! [`SessionEntry::Other`] so newer files lose nothing.

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use clawloop_core::message::{AgentMessage, JsonObject, UserContent};

use crate::tagged::{extra_without_type, present};

extra_without_type!(extra_message, "message");
extra_without_type!(extra_thinking_level_change, "thinking_level_change");
extra_without_type!(extra_model_change, "model_change");
extra_without_type!(extra_compaction, "compaction");
extra_without_type!(extra_branch_summary, "branch_summary");
extra_without_type!(extra_custom, "custom");
extra_without_type!(extra_custom_message, "custom_message");
extra_without_type!(extra_label, "label");
extra_without_type!(extra_session_info, "session_info");

/// A conversation message (`type: "message"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "message", rename_all = "camelCase")]
pub struct MessageEntry {
    /// Entry id (8 hex digits).
    pub id: String,
    /// The leaf when this was appended; `None` (`null`) for a root.
    pub parent_id: Option<String>,
    /// ISO-8601 time of the append.
    pub timestamp: String,
    /// The message.
    pub message: AgentMessage,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten, deserialize_with = "extra_message")]
    pub extra: JsonObject,
}

/// A change of the thinking level (`type: "thinking_level_change"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename = "thinking_level_change",
    rename_all = "camelCase"
)]
pub struct ThinkingLevelChangeEntry {
    /// Entry id.
    pub id: String,
    /// Parent entry id.
    pub parent_id: Option<String>,
    /// ISO-8601 time.
    pub timestamp: String,
    /// The new level as written (`off`, `low`, …); kept as a string so a level this version
    /// does not know still opens.
    pub thinking_level: String,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten, deserialize_with = "extra_thinking_level_change")]
    pub extra: JsonObject,
}

/// A change of model (`type: "model_change"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "model_change", rename_all = "camelCase")]
pub struct ModelChangeEntry {
    /// Entry id.
    pub id: String,
    /// Parent entry id.
    pub parent_id: Option<String>,
    /// ISO-8601 time.
    pub timestamp: String,
    /// Provider id.
    pub provider: String,
    /// Model id.
    pub model_id: String,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten, deserialize_with = "extra_model_change")]
    pub extra: JsonObject,
}

/// A compaction: history before it is replaced by `summary` (`type: "compaction"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "compaction", rename_all = "camelCase")]
pub struct CompactionEntry {
    /// Entry id.
    pub id: String,
    /// Parent entry id.
    pub parent_id: Option<String>,
    /// ISO-8601 time.
    pub timestamp: String,
    /// The summary of the compacted history.
    pub summary: String,
    /// The first entry kept after the summary. Empty only for a v1 compaction whose index
    /// pointed past itself (pi leaves it undefined then); such a compaction keeps nothing.
    #[serde(default)]
    pub first_kept_entry_id: String,
    /// Context tokens before the compaction.
    pub tokens_before: u64,
    /// `{readFiles, modifiedFiles}` for pi's own compactions, anything for an extension's.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub details: Option<Value>,
    /// `true` when an extension produced it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_hook: Option<bool>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten, deserialize_with = "extra_compaction")]
    pub extra: JsonObject,
}

/// The summary of a branch the conversation left (`type: "branch_summary"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "branch_summary", rename_all = "camelCase")]
pub struct BranchSummaryEntry {
    /// Entry id.
    pub id: String,
    /// Parent entry id (where the conversation continues from).
    pub parent_id: Option<String>,
    /// ISO-8601 time.
    pub timestamp: String,
    /// The entry the summary was attached at, or `"root"`.
    pub from_id: String,
    /// The summary; an empty one adds nothing to the context.
    pub summary: String,
    /// `{readFiles, modifiedFiles}` for pi's own summaries.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub details: Option<Value>,
    /// `true` when an extension produced it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_hook: Option<bool>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten, deserialize_with = "extra_branch_summary")]
    pub extra: JsonObject,
}

/// Extension state, never part of the model's context (`type: "custom"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "custom", rename_all = "camelCase")]
pub struct CustomEntry {
    /// The extension's entry type.
    pub custom_type: String,
    /// The extension's data.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub data: Option<Value>,
    /// Entry id.
    pub id: String,
    /// Parent entry id.
    pub parent_id: Option<String>,
    /// ISO-8601 time.
    pub timestamp: String,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten, deserialize_with = "extra_custom")]
    pub extra: JsonObject,
}

/// A message an extension injected; the model sees it as a user message
/// (`type: "custom_message"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "custom_message", rename_all = "camelCase")]
pub struct CustomMessageEntry {
    /// The extension's message type.
    pub custom_type: String,
    /// A string or text and image blocks.
    pub content: UserContent,
    /// Whether the UI shows it.
    pub display: bool,
    /// Extension data; never sent to the model.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub details: Option<Value>,
    /// Entry id.
    pub id: String,
    /// Parent entry id.
    pub parent_id: Option<String>,
    /// ISO-8601 time.
    pub timestamp: String,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten, deserialize_with = "extra_custom_message")]
    pub extra: JsonObject,
}

/// A label on another entry (`type: "label"`); the latest one per target wins.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "label", rename_all = "camelCase")]
pub struct LabelEntry {
    /// Entry id.
    pub id: String,
    /// Parent entry id.
    pub parent_id: Option<String>,
    /// ISO-8601 time.
    pub timestamp: String,
    /// The labelled entry.
    pub target_id: String,
    /// The label; absent or empty clears it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten, deserialize_with = "extra_label")]
    pub extra: JsonObject,
}

/// Session metadata (`type: "session_info"`); the latest name wins.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "session_info", rename_all = "camelCase")]
pub struct SessionInfoEntry {
    /// Entry id.
    pub id: String,
    /// Parent entry id.
    pub parent_id: Option<String>,
    /// ISO-8601 time.
    pub timestamp: String,
    /// The session's display name (trimmed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten, deserialize_with = "extra_session_info")]
    pub extra: JsonObject,
}

/// One entry of the session tree, discriminated by `type`.
#[derive(Debug, Clone, PartialEq)]
#[allow(
    clippy::large_enum_variant,
    reason = "nearly every entry is a message, so boxing it would cost an allocation per entry and save nothing"
)]
pub enum SessionEntry {
    /// `message`.
    Message(MessageEntry),
    /// `thinking_level_change`.
    ThinkingLevelChange(ThinkingLevelChangeEntry),
    /// `model_change`.
    ModelChange(ModelChangeEntry),
    /// `compaction`.
    Compaction(CompactionEntry),
    /// `branch_summary`.
    BranchSummary(BranchSummaryEntry),
    /// `custom`.
    Custom(CustomEntry),
    /// `custom_message`.
    CustomMessage(CustomMessageEntry),
    /// `label`.
    Label(LabelEntry),
    /// `session_info`.
    SessionInfo(SessionInfoEntry),
    /// An entry of a type this version does not know, unchanged. It has a string `id` and
    /// takes part in the tree, but never in the context.
    Other(JsonObject),
}

impl SessionEntry {
    /// The entry's id.
    pub fn id(&self) -> &str {
        match self {
            SessionEntry::Message(e) => &e.id,
            SessionEntry::ThinkingLevelChange(e) => &e.id,
            SessionEntry::ModelChange(e) => &e.id,
            SessionEntry::Compaction(e) => &e.id,
            SessionEntry::BranchSummary(e) => &e.id,
            SessionEntry::Custom(e) => &e.id,
            SessionEntry::CustomMessage(e) => &e.id,
            SessionEntry::Label(e) => &e.id,
            SessionEntry::SessionInfo(e) => &e.id,
            SessionEntry::Other(map) => map.get("id").and_then(Value::as_str).unwrap_or(""),
        }
    }

    /// The parent's id; `None` for a root.
    pub fn parent_id(&self) -> Option<&str> {
        match self {
            SessionEntry::Message(e) => e.parent_id.as_deref(),
            SessionEntry::ThinkingLevelChange(e) => e.parent_id.as_deref(),
            SessionEntry::ModelChange(e) => e.parent_id.as_deref(),
            SessionEntry::Compaction(e) => e.parent_id.as_deref(),
            SessionEntry::BranchSummary(e) => e.parent_id.as_deref(),
            SessionEntry::Custom(e) => e.parent_id.as_deref(),
            SessionEntry::CustomMessage(e) => e.parent_id.as_deref(),
            SessionEntry::Label(e) => e.parent_id.as_deref(),
            SessionEntry::SessionInfo(e) => e.parent_id.as_deref(),
            SessionEntry::Other(map) => map.get("parentId").and_then(Value::as_str),
        }
    }

    /// The ISO-8601 time of the entry (`""` for an unknown entry without one).
    pub fn timestamp(&self) -> &str {
        match self {
            SessionEntry::Message(e) => &e.timestamp,
            SessionEntry::ThinkingLevelChange(e) => &e.timestamp,
            SessionEntry::ModelChange(e) => &e.timestamp,
            SessionEntry::Compaction(e) => &e.timestamp,
            SessionEntry::BranchSummary(e) => &e.timestamp,
            SessionEntry::Custom(e) => &e.timestamp,
            SessionEntry::CustomMessage(e) => &e.timestamp,
            SessionEntry::Label(e) => &e.timestamp,
            SessionEntry::SessionInfo(e) => &e.timestamp,
            SessionEntry::Other(map) => map.get("timestamp").and_then(Value::as_str).unwrap_or(""),
        }
    }

    /// The entry's time in Unix milliseconds, as JavaScript's `new Date(timestamp).getTime()`
    /// reads it ([`crate::time::parse_iso`]); `None` where that gives `NaN` (a missing or
    /// malformed timestamp) or a time before 1970.
    pub fn timestamp_ms(&self) -> Option<u64> {
        crate::time::parse_iso(self.timestamp())
    }

    /// The wire `type`.
    pub fn type_name(&self) -> &str {
        match self {
            SessionEntry::Message(_) => "message",
            SessionEntry::ThinkingLevelChange(_) => "thinking_level_change",
            SessionEntry::ModelChange(_) => "model_change",
            SessionEntry::Compaction(_) => "compaction",
            SessionEntry::BranchSummary(_) => "branch_summary",
            SessionEntry::Custom(_) => "custom",
            SessionEntry::CustomMessage(_) => "custom_message",
            SessionEntry::Label(_) => "label",
            SessionEntry::SessionInfo(_) => "session_info",
            SessionEntry::Other(map) => map.get("type").and_then(Value::as_str).unwrap_or(""),
        }
    }

    /// The message of a `message` entry.
    pub fn as_message(&self) -> Option<&AgentMessage> {
        match self {
            SessionEntry::Message(e) => Some(&e.message),
            _ => None,
        }
    }

    /// Whether this is a `message` entry holding an assistant message (what ends pi's
    /// deferred first write).
    pub fn is_assistant_message(&self) -> bool {
        matches!(self, SessionEntry::Message(e) if matches!(e.message, AgentMessage::Assistant(_)))
    }

    /// Reads an entry from a JSON object, dispatching on `type`.
    ///
    /// Errors for a missing or non-string `type`, for a known type whose fields do not fit,
    /// and for an unknown type without a string `id` (it could not take part in the tree).
    /// A session header is not an entry.
    pub fn from_object(map: JsonObject) -> Result<Self, serde_json::Error> {
        enum Kind {
            Message,
            ThinkingLevelChange,
            ModelChange,
            Compaction,
            BranchSummary,
            Custom,
            CustomMessage,
            Label,
            SessionInfo,
        }
        let kind = match map.get("type") {
            None => return Err(de::Error::missing_field("type")),
            Some(Value::String(t)) => match t.as_str() {
                "message" => Kind::Message,
                "thinking_level_change" => Kind::ThinkingLevelChange,
                "model_change" => Kind::ModelChange,
                "compaction" => Kind::Compaction,
                "branch_summary" => Kind::BranchSummary,
                "custom" => Kind::Custom,
                "custom_message" => Kind::CustomMessage,
                "label" => Kind::Label,
                "session_info" => Kind::SessionInfo,
                "session" => {
                    return Err(de::Error::custom("a session header is not an entry"));
                }
                _ if map.get("id").is_some_and(Value::is_string) => {
                    return Ok(SessionEntry::Other(map));
                }
                other => {
                    return Err(de::Error::custom(format!(
                        "entry of type {other:?} has no string id"
                    )));
                }
            },
            Some(other) => {
                return Err(de::Error::custom(format!(
                    "entry type must be a string, found {other}"
                )));
            }
        };
        let value = Value::Object(map);
        Ok(match kind {
            Kind::Message => SessionEntry::Message(MessageEntry::deserialize(value)?),
            Kind::ThinkingLevelChange => {
                SessionEntry::ThinkingLevelChange(ThinkingLevelChangeEntry::deserialize(value)?)
            }
            Kind::ModelChange => SessionEntry::ModelChange(ModelChangeEntry::deserialize(value)?),
            Kind::Compaction => SessionEntry::Compaction(CompactionEntry::deserialize(value)?),
            Kind::BranchSummary => {
                SessionEntry::BranchSummary(BranchSummaryEntry::deserialize(value)?)
            }
            Kind::Custom => SessionEntry::Custom(CustomEntry::deserialize(value)?),
            Kind::CustomMessage => {
                SessionEntry::CustomMessage(CustomMessageEntry::deserialize(value)?)
            }
            Kind::Label => SessionEntry::Label(LabelEntry::deserialize(value)?),
            Kind::SessionInfo => SessionEntry::SessionInfo(SessionInfoEntry::deserialize(value)?),
        })
    }
}

impl Serialize for SessionEntry {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            SessionEntry::Message(e) => e.serialize(s),
            SessionEntry::ThinkingLevelChange(e) => e.serialize(s),
            SessionEntry::ModelChange(e) => e.serialize(s),
            SessionEntry::Compaction(e) => e.serialize(s),
            SessionEntry::BranchSummary(e) => e.serialize(s),
            SessionEntry::Custom(e) => e.serialize(s),
            SessionEntry::CustomMessage(e) => e.serialize(s),
            SessionEntry::Label(e) => e.serialize(s),
            SessionEntry::SessionInfo(e) => e.serialize(s),
            SessionEntry::Other(map) => map.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for SessionEntry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        SessionEntry::from_object(JsonObject::deserialize(d)?).map_err(de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn round_trip(raw: &str) -> String {
        let entry: SessionEntry = serde_json::from_str(raw).unwrap();
        serde_json::to_string(&entry).unwrap()
    }

    #[test]
    fn every_type_round_trips_with_pi_key_order_and_unknown_fields() {
        for raw in [
            r#"{"type":"thinking_level_change","id":"a","parentId":null,"timestamp":"t","thinkingLevel":"ultra","x":1}"#,
            r#"{"type":"model_change","id":"a","parentId":"p","timestamp":"t","provider":"p","modelId":"m","x":{"y":[]}}"#,
            r#"{"type":"compaction","id":"a","parentId":"p","timestamp":"t","summary":"S","firstKeptEntryId":"k","tokensBefore":5}"#,
            r#"{"type":"compaction","id":"a","parentId":"p","timestamp":"t","summary":"S","firstKeptEntryId":"k","tokensBefore":5,"details":null,"fromHook":true}"#,
            r#"{"type":"branch_summary","id":"a","parentId":null,"timestamp":"t","fromId":"root","summary":""}"#,
            r#"{"type":"custom","customType":"c","id":"a","parentId":"p","timestamp":"t"}"#,
            r#"{"type":"custom","customType":"c","data":null,"id":"a","parentId":"p","timestamp":"t"}"#,
            r#"{"type":"custom_message","customType":"c","content":[{"type":"text","text":"x"}],"display":false,"details":{"k":1},"id":"a","parentId":"p","timestamp":"t"}"#,
            r#"{"type":"label","id":"a","parentId":"p","timestamp":"t","targetId":"b"}"#,
            r#"{"type":"session_info","id":"a","parentId":"p","timestamp":"t"}"#,
            r#"{"type":"future_thing","id":"a","parentId":"p","timestamp":"t","payload":[1,2.5]}"#,
        ] {
            assert_eq!(round_trip(raw), raw);
        }
    }

    #[test]
    fn costs_in_shortest_round_trip_form_survive_byte_for_byte() {
        // JS prints 10 / 1e6 * 120 as 0.0012000000000000001; a parser that is one ulp off
        // would write the line back as 0.0012.
        let raw = r#"{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"assistant","content":[],"api":"openai-responses","provider":"openai","model":"gpt-5","usage":{"input":3400,"output":120,"cacheRead":0,"cacheWrite":0,"totalTokens":3520,"cost":{"input":0.00425,"output":0.0012000000000000001,"cacheRead":0,"cacheWrite":0,"total":0.00545}},"stopReason":"stop","timestamp":1767225607000}}"#;
        assert_eq!(round_trip(raw), raw);
    }

    #[test]
    fn accessors_cover_known_and_unknown_types() {
        let e: SessionEntry = serde_json::from_value(
            json!({"type": "future_thing", "id": "a", "parentId": "p", "timestamp": "t"}),
        )
        .unwrap();
        assert_eq!(
            (e.id(), e.parent_id(), e.timestamp(), e.type_name()),
            ("a", Some("p"), "t", "future_thing")
        );
        let e: SessionEntry = serde_json::from_value(json!({"type": "label", "id": "l",
            "parentId": null, "timestamp": "t", "targetId": "a", "label": "x"}))
        .unwrap();
        assert_eq!((e.id(), e.parent_id(), e.type_name()), ("l", None, "label"));
        assert!(!e.is_assistant_message());
        assert_eq!(e.as_message(), None);
    }

    #[test]
    fn unusable_objects_are_errors_not_panics() {
        for bad in [
            json!({"id": "a"}),
            json!({"type": 3, "id": "a"}),
            json!({"type": "future_thing"}),
            json!({"type": "session", "id": "a"}),
            json!({"type": "message", "id": "a", "parentId": null, "timestamp": "t"}),
            json!({"type": "message", "id": "a", "parentId": null, "timestamp": "t", "message": {"role": 5}}),
            json!({"type": "compaction", "id": "a", "parentId": null, "timestamp": "t", "summary": "s", "tokensBefore": -1}),
            json!({"type": "label", "id": 7, "parentId": null, "timestamp": "t", "targetId": "b"}),
        ] {
            assert!(
                serde_json::from_value::<SessionEntry>(bad.clone()).is_err(),
                "{bad}"
            );
        }
    }
}
