//! The `textSignature` of a Responses text block: which output message it came from.
//!
//! pi stores `{"v":1,"id":"msg_…","phase":…}` (older versions: the bare id) so that replaying the
//! text sends the same message id and phase back; OpenAI pairs reasoning items with the message
//! that follows them by these ids.

use serde_json::{Map, Value};

/// Longest message id OpenAI accepts in `input`.
pub const MAX_MESSAGE_ID_CHARS: usize = 64;

/// The message id and phase a text block was streamed with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextSignature {
    /// The output message id (`msg_…`).
    pub id: String,
    /// `commentary` or `final_answer` (newer models), when known.
    pub phase: Option<String>,
}

impl TextSignature {
    /// pi's `encodeTextSignatureV1`: `{"v":1,"id":…}` plus `"phase"` when there is one.
    pub fn encode(&self) -> String {
        let mut map = Map::new();
        map.insert("v".into(), Value::from(1));
        map.insert("id".into(), Value::from(self.id.clone()));
        if let Some(phase) = &self.phase {
            map.insert("phase".into(), Value::from(phase.clone()));
        }
        Value::Object(map).to_string()
    }

    /// pi's `parseTextSignature`: the v1 JSON form (a phase other than `commentary` or
    /// `final_answer` is dropped), else the legacy form where the whole string is the id.
    /// `None` for an empty signature.
    pub fn parse(signature: &str) -> Option<TextSignature> {
        if signature.is_empty() {
            return None;
        }
        if signature.starts_with('{')
            && let Ok(Value::Object(map)) = serde_json::from_str::<Value>(signature)
            && map.get("v") == Some(&Value::from(1))
            && let Some(id) = map.get("id").and_then(Value::as_str)
        {
            let phase = map
                .get("phase")
                .and_then(Value::as_str)
                .filter(|p| matches!(*p, "commentary" | "final_answer"))
                .map(str::to_owned);
            return Some(TextSignature {
                id: id.to_owned(),
                phase,
            });
        }
        Some(TextSignature {
            id: signature.to_owned(),
            phase: None,
        })
    }
}

/// The id to replay a text block under: its signature's id, `msg_<index>` without one, and
/// `msg_<shortHash>` when the id is longer than OpenAI allows (pi's rule).
pub fn replay_message_id(signature: Option<&TextSignature>, message_index: usize) -> String {
    match signature.map(|s| s.id.as_str()).filter(|id| !id.is_empty()) {
        None => format!("msg_{message_index}"),
        // JavaScript string length: UTF-16 code units.
        Some(id) if id.encode_utf16().count() > MAX_MESSAGE_ID_CHARS => {
            format!("msg_{}", short_hash(id))
        }
        Some(id) => id.to_owned(),
    }
}

/// pi's `shortHash`, shared with the tool-call id wrappers.
pub use crate::wrappers::short_hash;

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn short_hash_matches_pi() {
        // Reference values computed with pi's JavaScript implementation.
        assert_eq!(
            short_hash(&format!("msg_{}", "x".repeat(70))),
            "1f43gnm1wcb1pr"
        );
        assert_eq!(short_hash(""), "k4n83c7h0j2b");
        assert_eq!(short_hash("héllo😀"), "1olj6nu1frhbfw");
    }

    #[test]
    fn signatures_round_trip_and_parse_legacy_ids() {
        let sig = TextSignature {
            id: "msg_1".into(),
            phase: Some("commentary".into()),
        };
        assert_eq!(sig.encode(), r#"{"v":1,"id":"msg_1","phase":"commentary"}"#);
        assert_eq!(TextSignature::parse(&sig.encode()), Some(sig));
        assert_eq!(
            TextSignature::parse(r#"{"v":1,"id":"msg_2","phase":"other"}"#),
            Some(TextSignature {
                id: "msg_2".into(),
                phase: None
            })
        );
        assert_eq!(
            TextSignature::parse("msg_legacy"),
            Some(TextSignature {
                id: "msg_legacy".into(),
                phase: None
            })
        );
        assert_eq!(
            TextSignature::parse(r#"{"v":2}"#).map(|s| s.id),
            Some(r#"{"v":2}"#.to_owned())
        );
        assert_eq!(TextSignature::parse(""), None);
    }

    #[test]
    fn replay_ids() {
        assert_eq!(replay_message_id(None, 3), "msg_3");
        let long = TextSignature {
            id: format!("msg_{}", "x".repeat(70)),
            phase: None,
        };
        assert_eq!(replay_message_id(Some(&long), 0), "msg_1f43gnm1wcb1pr");
        let short = TextSignature {
            id: "msg_ok".into(),
            phase: None,
        };
        assert_eq!(replay_message_id(Some(&short), 0), "msg_ok");
    }
}
