//! Golden files of every built-in tool's definition per schema dialect:
//! `tests/golden/<dialect>/<tool>.json`. Regenerate after an intended change with
//! `UPDATE_GOLDEN=1 cargo test -p clawloop-tools --test golden` and review the diff.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clawloop_core::tool::BoxFuture;
use clawloop_tools::builtins::{ALL_TOOLS, builtin_tools};
use clawloop_tools::message_tool::{MessageSink, OutgoingMessage};
use clawloop_tools::registry::ToolRegistry;
use clawloop_tools::schema::Dialect;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

struct NullSink;

impl MessageSink for NullSink {
    fn send<'a>(
        &'a self,
        _message: OutgoingMessage,
        _cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<Option<String>, String>> {
        Box::pin(async { Ok(None) })
    }
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn registry() -> ToolRegistry {
    ToolRegistry::from_tools(builtin_tools(Some(Arc::new(NullSink)))).unwrap()
}

#[test]
fn every_builtin_is_registered_once() {
    let registry = registry();
    let mut expected: Vec<&str> = ALL_TOOLS.to_vec();
    expected.push("message");
    assert_eq!(registry.names(), expected);
    let without_sink = ToolRegistry::from_tools(builtin_tools(None)).unwrap();
    assert_eq!(without_sink.names(), ALL_TOOLS.to_vec());
}

#[test]
fn definitions_match_golden_files() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let registry = registry();
    let mut mismatches = Vec::new();
    for dialect in Dialect::ALL {
        let dir = golden_dir().join(dialect.as_str());
        std::fs::create_dir_all(&dir).unwrap();
        let mut expected_files = BTreeSet::new();
        for definition in registry.definitions(dialect) {
            let file = dir.join(format!("{}.json", definition.name));
            expected_files.insert(file.clone());
            let actual = serde_json::to_string_pretty(&json!({
                "name": definition.name,
                "description": definition.description,
                "parameters": definition.parameters,
            }))
            .unwrap()
                + "\n";
            if update {
                std::fs::write(&file, &actual).unwrap();
                continue;
            }
            let golden = std::fs::read_to_string(&file).unwrap_or_default();
            if golden != actual {
                mismatches.push((file.display().to_string(), golden, actual));
            }
        }
        // No golden file may outlive its tool.
        let present: BTreeSet<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        if update {
            for stale in present.difference(&expected_files) {
                std::fs::remove_file(stale).unwrap();
            }
        } else {
            assert_eq!(
                present,
                expected_files,
                "golden files of {}",
                dialect.as_str()
            );
        }
    }
    for (file, golden, actual) in &mismatches {
        eprintln!("--- {file} (golden)\n{golden}\n+++ (actual)\n{actual}");
    }
    assert!(
        mismatches.is_empty(),
        "{} golden file(s) differ; rerun with UPDATE_GOLDEN=1 if the change is intended",
        mismatches.len()
    );
}

/// Walks every subschema, calling `visit` on each schema object.
fn walk(schema: &Value, visit: &mut dyn FnMut(&serde_json::Map<String, Value>)) {
    if let Value::Object(map) = schema {
        visit(map);
        for (key, child) in map {
            match key.as_str() {
                "properties" | "$defs" => {
                    if let Value::Object(children) = child {
                        children.values().for_each(|c| walk(c, visit));
                    }
                }
                "items" => walk(child, visit),
                "anyOf" | "oneOf" | "allOf" => {
                    if let Value::Array(children) = child {
                        children.iter().for_each(|c| walk(c, visit));
                    }
                }
                _ => {}
            }
        }
    }
}

#[test]
fn dialect_invariants_hold_for_every_builtin() {
    let registry = registry();
    for definition in registry.definitions(Dialect::OpenAiStrict) {
        walk(&definition.parameters, &mut |map| {
            if let Some(Value::Object(properties)) = map.get("properties") {
                let required: BTreeSet<&str> = map["required"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_str().unwrap())
                    .collect();
                let names: BTreeSet<&str> = properties.keys().map(String::as_str).collect();
                assert_eq!(
                    required, names,
                    "{}: all properties required",
                    definition.name
                );
                assert_eq!(map.get("additionalProperties"), Some(&Value::Bool(false)));
            }
        });
    }
    for definition in registry.definitions(Dialect::Gemini) {
        walk(&definition.parameters, &mut |map| {
            for key in map.keys() {
                assert!(
                    [
                        "type",
                        "description",
                        "enum",
                        "items",
                        "properties",
                        "required",
                        "anyOf",
                        "nullable"
                    ]
                    .contains(&key.as_str()),
                    "{}: Gemini keyword {key}",
                    definition.name
                );
            }
            if let Some(t) = map.get("type") {
                assert!(t.is_string(), "{}: one type per node", definition.name);
            }
        });
    }
    for definition in registry.definitions(Dialect::Plain) {
        assert!(definition.parameters.get("$schema").is_none());
        assert_eq!(definition.parameters["type"], "object");
        let tool = registry.get(&definition.name).unwrap();
        assert_eq!(
            &definition.parameters,
            tool.parameters(),
            "{}: plain dialect is the tool's own schema",
            definition.name
        );
    }
}
