//! `session` runner: JSONL session files through `clawloop-session` (SPEC §5, pi-mono §3.3).
//!
//! The case's lines are written to a fresh file in a scratch directory, the file is opened as
//! a [`Transcript`], the ops run in order, and the state after the last op (or the first
//! error) is compared with the expect. `error` is a substring check; everything else follows
//! the comparer's rules.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use clawloop_core::message::AgentMessage;
use clawloop_session::{FsyncPolicy, SessionError, SessionOptions, Transcript};
use serde_json::{Map, Value, json};

use super::wrong_spec;
use crate::conformance::compare::{compare, render};
use crate::conformance::kind::Kind;
use crate::conformance::scenario::session::{SessionInput, SessionOp};
use crate::conformance::scenario::values::Line;
use crate::conformance::scenario::{Case, Spec};
use crate::conformance::shorthand::expand_message;
use crate::conformance::summary::summarize_all;

/// Runs a `session` case.
pub fn run(case: &Case) -> Result<(), String> {
    let Spec::Session(input, _) = &case.spec else {
        return Err(wrong_spec(case, Kind::Session));
    };
    let scratch = ScratchDir::new()?;
    let path = scratch.path.join("session.jsonl");
    fs::write(&path, file_bytes(input)?)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let actual = execute(&path, input);

    // `error` is a substring of the actual error (FORMAT.md); the rest compares as usual.
    let mut expect = case.expect.clone();
    if let Some(Value::String(want)) = expect.as_object_mut().and_then(|e| e.remove("error")) {
        match actual.get("error").and_then(Value::as_str) {
            Some(got) if got.contains(&want) => {}
            _ => {
                return Err(format!(
                    "expect.error: expected an error containing {want:?}, got {}",
                    render(actual.get("error"))
                ));
            }
        }
    }
    compare(&expect, &actual).map_err(|m| m.to_string())
}

/// The file content: each line (objects as one JSON line) followed by `\n`, except the last
/// when `noFinalNewline`.
fn file_bytes(input: &SessionInput) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let last = input.lines.len().saturating_sub(1);
    for (i, line) in input.lines.iter().enumerate() {
        match line {
            Line::Raw(s) => out.extend_from_slice(s.as_bytes()),
            Line::Object(o) => serde_json::to_writer(&mut out, o)
                .map_err(|e| format!("input.lines[{i}]: cannot serialize: {e}"))?,
        }
        if i != last || !input.no_final_newline.unwrap_or(false) {
            out.push(b'\n');
        }
    }
    Ok(out)
}

fn options() -> SessionOptions {
    // Durability against machine crashes is not what scenarios check; skip the fsyncs.
    SessionOptions {
        fsync: FsyncPolicy::Never,
        ..SessionOptions::default()
    }
}

/// Opens the file, runs the ops, and reports the resulting state (or the first error).
fn execute(path: &Path, input: &SessionInput) -> Value {
    let mut transcript = match Transcript::open(path, options()) {
        Ok(t) => t,
        Err(e) => return json!({ "error": e.to_string() }),
    };
    for (i, op) in input.ops.iter().flatten().enumerate() {
        let result = match op {
            SessionOp::Append { message } => {
                let expanded = expand_message(&message.0);
                match serde_json::from_value::<AgentMessage>(expanded) {
                    Ok(m) => transcript
                        .append_message(m)
                        .map(drop)
                        .map_err(|e| e.to_string()),
                    Err(e) => Err(format!("input.ops[{i}].message: not a pi message: {e}")),
                }
            }
            SessionOp::Branch { id } => transcript.branch(id).map_err(|e| e.to_string()),
            SessionOp::AppendCompaction {
                summary,
                first_kept_entry_id,
                tokens_before,
            } => match token_count(*tokens_before) {
                Some(tokens) => transcript
                    .append_compaction(summary, first_kept_entry_id, tokens, None, None)
                    .map(drop)
                    .map_err(|e: SessionError| e.to_string()),
                None => Err(format!(
                    "input.ops[{i}].tokensBefore: {tokens_before} is not a token count"
                )),
            },
            SessionOp::Reopen => {
                drop(transcript);
                match Transcript::open(path, options()) {
                    Ok(t) => {
                        transcript = t;
                        Ok(())
                    }
                    Err(e) => return json!({ "error": e.to_string() }),
                }
            }
        };
        if let Err(error) = result {
            return state(&transcript, path, Some(error));
        }
    }
    state(&transcript, path, None)
}

/// A non-negative integral number of tokens.
fn token_count(value: f64) -> Option<u64> {
    // Range-checked and integral, so the cast is exact.
    (value.is_finite() && value >= 0.0 && value.fract() == 0.0 && value <= 2f64.powi(53))
        .then_some(value as u64)
}

/// The facts `expect` may check, read from the open transcript and the file.
fn state(t: &Transcript, path: &Path, error: Option<String>) -> Value {
    let context = t.build_context();
    let messages: Vec<Value> = context
        .messages
        .iter()
        .map(|m| serde_json::to_value(m).unwrap_or(Value::Null))
        .collect();
    let mut out = Map::new();
    out.insert("error".into(), error.map_or(Value::Null, Value::from));
    out.insert(
        "leafId".into(),
        t.leaf_id().map_or(Value::Null, Value::from),
    );
    out.insert("messages".into(), summarize_all(&messages));
    out.insert("thinkingLevel".into(), Value::from(context.thinking_level));
    out.insert(
        "model".into(),
        context.model.map_or(
            Value::Null,
            |m| json!({ "provider": m.provider, "modelId": m.model_id }),
        ),
    );
    out.insert("entryCount".into(), Value::from(t.entries().len()));
    out.insert("skippedLines".into(), Value::from(t.report().skipped_lines));
    out.insert("version".into(), Value::from(t.version()));
    out.insert(
        "fileLinesValidJson".into(),
        Value::from(file_lines_valid_json(path)),
    );
    Value::Object(out)
}

/// Whether every line of the file parses as JSON (a missing or empty file has no bad line).
fn file_lines_valid_json(path: &Path) -> bool {
    let Ok(bytes) = fs::read(path) else {
        return !path.exists();
    };
    let body = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
    body.is_empty()
        || body
            .split(|b| *b == b'\n')
            .all(|line| serde_json::from_slice::<Value>(line).is_ok())
}

/// A private directory under the system temp dir, removed when dropped.
struct ScratchDir {
    path: PathBuf,
}

impl ScratchDir {
    fn new() -> Result<Self, String> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "clawloop-conformance-session-{}-{n}",
            std::process::id()
        ));
        // A leftover from a crashed earlier run with the same pid would hold stale files.
        let _ = fs::remove_dir_all(&path);
        fs::create_dir_all(&path)
            .map_err(|e| format!("cannot create scratch dir {}: {e}", path.display()))?;
        Ok(ScratchDir { path })
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        // Best effort: a leftover temp dir must not fail the case.
        let _ = fs::remove_dir_all(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::scenario::parse_case;
    use pretty_assertions::assert_eq;

    fn case(input: Value, expect: Value) -> Case {
        let raw = json!({"kind": "session", "name": "t", "input": input, "expect": expect});
        parse_case(&raw, Path::new(".")).unwrap()
    }

    #[test]
    fn empty_file_state() {
        let c = case(json!({"lines": []}), json!({"entryCount": 0}));
        let Spec::Session(input, _) = &c.spec else {
            panic!("not a session case")
        };
        let scratch = ScratchDir::new().unwrap();
        let path = scratch.path.join("s.jsonl");
        fs::write(&path, file_bytes(input).unwrap()).unwrap();
        assert_eq!(
            execute(&path, input),
            json!({"error": null, "leafId": null, "messages": [], "thinkingLevel": "off",
                "model": null, "entryCount": 0, "skippedLines": 0, "version": 3,
                "fileLinesValidJson": true})
        );
    }

    #[test]
    fn error_is_a_substring_check() {
        let lines =
            json!([{"type": "session", "version": 3, "id": "s", "timestamp": "t", "cwd": "/"}]);
        let ops = json!([{"op": "branch", "id": "deadbeef"}]);
        let ok = case(
            json!({"lines": lines, "ops": ops}),
            json!({"error": "deadbeef not"}),
        );
        assert_eq!(run(&ok), Ok(()));
        let bad = case(
            json!({"lines": lines, "ops": ops}),
            json!({"error": "other"}),
        );
        assert_eq!(
            run(&bad),
            Err("expect.error: expected an error containing \"other\", got \"Entry deadbeef not found\"".to_owned())
        );
        let none = case(json!({"lines": lines}), json!({"error": "x"}));
        assert_eq!(
            run(&none),
            Err("expect.error: expected an error containing \"x\", got null".to_owned())
        );
    }

    #[test]
    fn headerless_file_is_an_open_error() {
        let c = case(
            json!({"lines": ["hello"]}),
            json!({"error": "not a session file"}),
        );
        assert_eq!(run(&c), Ok(()));
    }

    #[test]
    fn no_final_newline_and_token_counts() {
        let c = case(
            json!({"lines": ["a", "b"], "noFinalNewline": true}),
            json!({"error": null}),
        );
        let Spec::Session(input, _) = &c.spec else {
            panic!("not a session case")
        };
        assert_eq!(file_bytes(input).unwrap(), b"a\nb");
        assert_eq!(token_count(12.0), Some(12));
        assert_eq!(token_count(-1.0), None);
        assert_eq!(token_count(1.5), None);
    }
}
