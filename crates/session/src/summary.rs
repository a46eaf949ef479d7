//! What a listing of `sessions.json` shows, read in one pass over the file: the fields a
//! listing needs are picked out of each record while everything else (OpenClaw's toggles,
//! delivery contexts, snapshots) is skipped without being built, so listing 10 000 sessions
//! costs one parse of the file and nothing more. Transcripts are never opened.

use std::collections::HashMap;
use std::fmt;
use std::io::ErrorKind;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;

use crate::error::SessionError;
use crate::store::SessionStore;

/// One session as a listing shows it (a subset of [`crate::SessionRecord`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionSummary {
    /// The session key.
    pub key: String,
    /// The session continuing it.
    pub session_id: String,
    /// Last activity, ms since the epoch (0 when unknown).
    pub updated_at: u64,
    /// The record's `sessionFile`, as written.
    pub session_file: Option<String>,
    /// Provider of the model last used.
    pub model_provider: Option<String>,
    /// Model last used.
    pub model: Option<String>,
    /// Messages in the context after the last turn, when recorded.
    pub message_count: Option<u64>,
    /// Tokens in the context after the last run.
    pub total_tokens: Option<u64>,
}

impl SessionStore {
    /// Every usable record as a [`SessionSummary`], most recently updated first (ties in file
    /// order), reading `sessions.json` only. A record without a string `sessionId` is skipped,
    /// as [`SessionStore::list`] skips it; a field of the wrong type reads as absent.
    pub fn list_summaries(&self) -> Result<Vec<SessionSummary>, SessionError> {
        let path = self.store_path();
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(SessionError::io(&path, "read", e)),
        };
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(Vec::new());
        }
        let invalid = |reason: String| SessionError::InvalidStore {
            path: path.clone(),
            reason,
        };
        let mut deserializer = serde_json::Deserializer::from_slice(&bytes);
        let mut sessions = Summaries
            .deserialize(&mut deserializer)
            .map_err(|e| invalid(format!("not a JSON object of sessions: {e}")))?;
        deserializer
            .end()
            .map_err(|e| invalid(format!("not JSON: {e}")))?;
        sessions.sort_by_key(|s| std::cmp::Reverse(s.updated_at));
        Ok(sessions)
    }
}

/// The whole store: an object of records, read entry by entry.
struct Summaries;

impl<'de> DeserializeSeed<'de> for Summaries {
    type Value = Vec<SessionSummary>;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Summaries {
    type Value = Vec<SessionSummary>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        // A repeated key is read as `JSON.parse` reads it: the last value wins, in the first
        // one's place (so an unusable last value removes the key).
        let mut slots: Vec<Option<SessionSummary>> = Vec::new();
        let mut seen: HashMap<String, usize> = HashMap::new();
        while let Some(key) = map.next_key::<String>()? {
            let record = map.next_value::<Record>()?.0.map(|summary| SessionSummary {
                key: key.clone(),
                ..summary
            });
            match seen.get(&key) {
                Some(&index) => slots[index] = record,
                None => {
                    seen.insert(key, slots.len());
                    slots.push(record);
                }
            }
        }
        Ok(slots.into_iter().flatten().collect())
    }
}

/// One record: `None` when it is unusable (not an object, or no string `sessionId`).
struct Record(Option<SessionSummary>);

impl<'de> Deserialize<'de> for Record {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(RecordVisitor)
    }
}

struct RecordVisitor;

impl<'de> Visitor<'de> for RecordVisitor {
    type Value = Record;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a session record")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Record, A::Error> {
        let mut summary = SessionSummary::default();
        let mut session_id = None;
        while let Some(field) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match field.as_ref() {
                "sessionId" => session_id = as_string(map.next_value()?),
                "updatedAt" => summary.updated_at = as_u64(map.next_value()?).unwrap_or(0),
                "sessionFile" => summary.session_file = as_string(map.next_value()?),
                "modelProvider" => summary.model_provider = as_string(map.next_value()?),
                "model" => summary.model = as_string(map.next_value()?),
                "messageCount" => summary.message_count = as_u64(map.next_value()?),
                "totalTokens" => summary.total_tokens = as_u64(map.next_value()?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Record(session_id.map(|id| SessionSummary {
            session_id: id,
            ..summary
        })))
    }

    // Anything but an object is an unusable record, skipped like `list` skips it.
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Record, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Record(None))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Record, E> {
        Ok(Record(None))
    }

    fn visit_i64<E>(self, _: i64) -> Result<Record, E> {
        Ok(Record(None))
    }

    fn visit_u64<E>(self, _: u64) -> Result<Record, E> {
        Ok(Record(None))
    }

    fn visit_f64<E>(self, _: f64) -> Result<Record, E> {
        Ok(Record(None))
    }

    fn visit_str<E>(self, _: &str) -> Result<Record, E> {
        Ok(Record(None))
    }

    fn visit_unit<E>(self) -> Result<Record, E> {
        Ok(Record(None))
    }
}

fn as_string(value: Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s),
        _ => None,
    }
}

/// A count or time as JavaScript writes it: an integer, or a float with no fraction.
fn as_u64(value: Value) -> Option<u64> {
    match value {
        Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 1.8e19)
                // The filter above keeps the value in u64's range with no fraction.
                .map(|f| f as u64)
        }),
        _ => None,
    }
}
