//! The first line of a session file (pi-mono §3.3.1).

use serde::{Deserialize, Serialize};

use clawloop_core::message::JsonObject;

use crate::tagged::extra_without_type;

/// The session format version this crate writes (pi's `CURRENT_SESSION_VERSION`).
pub const CURRENT_SESSION_VERSION: u32 = 3;

extra_without_type!(extra_session, "session");

/// `{"type":"session","version":3,"id":…,"timestamp":…,"cwd":…,"parentSession"?:…}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "session", rename_all = "camelCase")]
pub struct SessionHeader {
    /// Format version; v1 headers have none and read as 1.
    #[serde(default = "version_one")]
    pub version: u32,
    /// Session id (a UUID v4).
    pub id: String,
    /// Creation time, ISO-8601 (`2025-12-08T22:41:05.306Z`).
    #[serde(default)]
    pub timestamp: String,
    /// Working directory of the session.
    #[serde(default)]
    pub cwd: String,
    /// Path of the session file this one was forked or branched from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_session: Option<String>,
    /// Fields this version does not know (v1's `provider`, `modelId`, …), kept verbatim.
    #[serde(flatten, deserialize_with = "extra_session")]
    pub extra: JsonObject,
}

fn version_one() -> u32 {
    1
}

impl SessionHeader {
    /// A current-version header.
    pub fn new(
        id: impl Into<String>,
        timestamp: impl Into<String>,
        cwd: impl Into<String>,
    ) -> Self {
        SessionHeader {
            version: CURRENT_SESSION_VERSION,
            id: id.into(),
            timestamp: timestamp.into(),
            cwd: cwd.into(),
            parent_session: None,
            extra: JsonObject::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn pi_header_round_trips_byte_for_byte() {
        for raw in [
            r#"{"type":"session","version":3,"id":"7baf6ab4-8382-4401-b310-aee1e107968d","timestamp":"2026-11-21T22:38:43.851Z","cwd":"/home/user/proj"}"#,
            r#"{"type":"session","version":3,"id":"x","timestamp":"t","cwd":"/","parentSession":"/s/a.jsonl","future":[1]}"#,
        ] {
            let h: SessionHeader = serde_json::from_str(raw).unwrap();
            assert_eq!(serde_json::to_string(&h).unwrap(), raw);
        }
    }

    #[test]
    fn v1_header_reads_as_version_one() {
        let h: SessionHeader =
            serde_json::from_str(r#"{"type":"session","id":"x","provider":"anthropic"}"#).unwrap();
        let mut expected = SessionHeader::new("x", "", "");
        expected.version = 1;
        expected.extra.insert("provider".into(), "anthropic".into());
        assert_eq!(h, expected);
    }
}
