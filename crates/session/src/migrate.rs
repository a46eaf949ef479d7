//! Version migrations of a loaded file, in place (pi-mono §3.3.7).
//!
//! They work on the raw JSON of the lines, before typing, exactly as pi's
//! `migrateToCurrentVersion` does on its parsed objects: v1 → v2 gives every entry an id and
//! chains them linearly (turning a compaction's `firstKeptEntryIndex` into
//! `firstKeptEntryId`), v2 → v3 renames the `hookMessage` role to `custom`. The caller
//! rewrites the file when anything changed.

use std::collections::HashSet;

use serde_json::Value;

use clawloop_core::message::JsonObject;

use crate::header::CURRENT_SESSION_VERSION;
use crate::id::unique_entry_id;

/// The version a header declares; a header without a numeric `version` is v1.
pub(crate) fn declared_version(header: &JsonObject) -> u64 {
    header.get("version").and_then(Value::as_u64).unwrap_or(1)
}

/// Migrates `header` and `entries` (file order, header excluded) to the current version.
///
/// Returns the version migrated from, or `None` when the file was already current (or newer)
/// and nothing was touched.
pub(crate) fn migrate(header: &mut JsonObject, entries: &mut [&mut JsonObject]) -> Option<u64> {
    let from = declared_version(header);
    if from >= u64::from(CURRENT_SESSION_VERSION) {
        return None;
    }
    if from < 2 {
        v1_to_v2(entries);
    }
    v2_to_v3(entries);
    header.insert("version".into(), Value::from(CURRENT_SESSION_VERSION));
    Some(from)
}

fn v1_to_v2(entries: &mut [&mut JsonObject]) {
    let mut ids: HashSet<String> = HashSet::new();
    let mut prev: Option<String> = None;
    for at in 0..entries.len() {
        let id = unique_entry_id(|candidate| ids.contains(candidate));
        ids.insert(id.clone());
        // `firstKeptEntryIndex` counts the header as index 0. pi reads the target's id while
        // migrating in order (after giving the compaction its own), so a target later in the
        // file has no id yet and the field ends up absent; the same happens here.
        let is_compaction = entries[at].get("type").and_then(Value::as_str) == Some("compaction");
        let index = entries[at]
            .get("firstKeptEntryIndex")
            .and_then(Value::as_f64)
            .filter(|_| is_compaction);
        // A non-integral or out-of-range index finds no entry, like `entries[1.5]` in JS.
        let target = index
            .filter(|i| i.fract() == 0.0 && *i >= 1.0 && *i <= at as f64 + 1.0)
            .map(|i| i as usize - 1);
        let kept_id = match target {
            Some(i) if i == at => Some(Value::from(id.clone())),
            Some(i) => entries[i].get("id").cloned(),
            None => None,
        };
        let entry = &mut *entries[at];
        entry.insert("id".into(), Value::from(id.clone()));
        entry.insert("parentId".into(), prev.map_or(Value::Null, Value::from));
        if index.is_some() {
            entry.shift_remove("firstKeptEntryIndex");
            if let Some(kept) = kept_id {
                entry.insert("firstKeptEntryId".into(), kept);
            }
        }
        prev = Some(id);
    }
}

fn v2_to_v3(entries: &mut [&mut JsonObject]) {
    for entry in entries.iter_mut() {
        if entry.get("type").and_then(Value::as_str) != Some("message") {
            continue;
        }
        if let Some(Value::Object(message)) = entry.get_mut("message")
            && message.get("role").and_then(Value::as_str) == Some("hookMessage")
        {
            message.insert("role".into(), Value::from("custom"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn objects(values: Vec<Value>) -> Vec<JsonObject> {
        values
            .into_iter()
            .map(|v| match v {
                Value::Object(m) => m,
                other => panic!("not an object: {other}"),
            })
            .collect()
    }

    fn run(header: Value, entries: Vec<Value>) -> (Option<u64>, Value, Vec<JsonObject>) {
        let mut header = objects(vec![header]).remove(0);
        let mut entries = objects(entries);
        let mut refs: Vec<&mut JsonObject> = entries.iter_mut().collect();
        let from = migrate(&mut header, &mut refs);
        (from, Value::Object(header), entries)
    }

    #[test]
    fn v1_gets_chained_short_ids_and_index_becomes_id() {
        let (from, header, entries) = run(
            json!({"type": "session", "id": "s", "timestamp": "t", "cwd": "/"}),
            vec![
                json!({"type": "message", "timestamp": "t", "message": {"role": "user", "content": "a", "timestamp": 1}}),
                json!({"type": "message", "timestamp": "t", "message": {"role": "hookMessage", "customType": "h", "content": "x", "display": true, "timestamp": 2}}),
                json!({"type": "compaction", "timestamp": "t", "summary": "S", "firstKeptEntryIndex": 2, "tokensBefore": 9}),
                json!({"type": "compaction", "timestamp": "t", "summary": "S", "firstKeptEntryIndex": 9, "tokensBefore": 9}),
            ],
        );
        assert_eq!(from, Some(1));
        assert_eq!(
            header,
            json!({"type": "session", "id": "s", "timestamp": "t", "cwd": "/", "version": 3})
        );
        let ids: Vec<&str> = entries.iter().map(|e| e["id"].as_str().unwrap()).collect();
        assert!(ids.iter().all(|id| id.len() == 8));
        assert_eq!(entries[0]["parentId"], Value::Null);
        for i in 1..entries.len() {
            assert_eq!(entries[i]["parentId"], json!(ids[i - 1]));
        }
        assert_eq!(entries[1]["message"]["role"], "custom");
        assert_eq!(entries[2]["firstKeptEntryId"], json!(ids[1]));
        assert!(!entries[2].contains_key("firstKeptEntryIndex"));
        assert!(!entries[3].contains_key("firstKeptEntryId"));
        assert!(!entries[3].contains_key("firstKeptEntryIndex"));
    }

    #[test]
    fn v2_keeps_ids_and_renames_hook_messages() {
        let entry = json!({"type": "message", "id": "abcd0123", "parentId": null, "timestamp": "t",
            "message": {"role": "hookMessage", "customType": "h", "content": "x", "display": true, "timestamp": 2}});
        let (from, header, entries) = run(
            json!({"type": "session", "version": 2, "id": "s", "timestamp": "t", "cwd": "/"}),
            vec![entry.clone()],
        );
        assert_eq!(from, Some(2));
        assert_eq!(header["version"], 3);
        let mut expected = entry;
        expected["message"]["role"] = json!("custom");
        assert_eq!(Value::Object(entries[0].clone()), expected);
    }

    #[test]
    fn current_and_newer_files_are_untouched() {
        for version in [3, 4] {
            let header = json!({"type": "session", "version": version, "id": "s"});
            let entry = json!({"type": "message", "id": "x", "message": {"role": "hookMessage"}});
            let (from, h, entries) = run(header.clone(), vec![entry.clone()]);
            assert_eq!(from, None);
            assert_eq!((h, Value::Object(entries[0].clone())), (header, entry));
        }
    }
}
