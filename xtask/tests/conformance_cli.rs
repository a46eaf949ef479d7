//! Runs the built `xtask` binary on scenario directories made for each test and checks its
//! exact output lines and exit status.

// The helpers below are test code too; clippy only exempts `#[test]` functions themselves.
#![allow(clippy::unwrap_used)]

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use tempfile::TempDir;

const XTASK: &str = env!("CARGO_BIN_EXE_xtask");

/// A classify case that holds for any correct classifier: a plain 429 is not a transient
/// HTTP status and says nothing about role ordering (reference §15.6).
const PASSING: &str = r#"{
  "kind": "classify",
  "name": "ok",
  "input": {"message": "429 Too Many Requests"},
  "expect": {"transientHttp": false, "roleOrdering": false}
}"#;

fn dir_with(files: &[(&str, &str)]) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    dir
}

fn run(args: &[&str]) -> Output {
    Command::new(XTASK).args(args).output().unwrap()
}

fn conformance(dir: &Path, extra: &[&str]) -> (Vec<String>, i32) {
    let d = dir.to_str().unwrap();
    let mut args = vec!["conformance", "--dir", d];
    args.extend_from_slice(extra);
    let out = run(&args);
    let text = String::from_utf8(out.stdout).unwrap();
    (
        text.lines().map(str::to_owned).collect(),
        out.status.code().unwrap(),
    )
}

fn file(dir: &Path, name: &str) -> String {
    dir.join(name).display().to_string()
}

#[test]
fn unknown_fields_and_kinds_fail_their_case_with_exit_1() {
    let dir = dir_with(&[
        ("a_pass.json", PASSING),
        (
            "b_top.json",
            r#"{"kind": "classify", "name": "top", "input": {"message": "x"},
                "expect": {"reason": null}, "bogus": 1}"#,
        ),
        (
            "c_expect.json",
            r#"{"kind": "classify", "name": "exp", "input": {"message": "x"},
                "expect": {"reasn": "auth"}}"#,
        ),
        (
            "d_kind.json",
            r#"{"kind": "frobnicate", "name": "k", "input": {}, "expect": {"x": 1}}"#,
        ),
        (
            "e_input.json",
            r#"{"kind": "guard", "name": "in", "input": {"modelContextWindow": "big"},
                "expect": {"tokens": 1}}"#,
        ),
    ]);
    let d = dir.path();
    let (lines, code) = conformance(d, &[]);
    assert_eq!(
        lines,
        [
            format!("PASS {}#ok", file(d, "a_pass.json")),
            format!(
                "FAIL {}#top: unknown field `bogus`, expected one of `kind`, `name`, `description`, `input`, `expect`",
                file(d, "b_top.json")
            ),
            format!(
                "FAIL {}#exp: expect.reasn: unknown field `reasn`, expected one of `reason`, `contextOverflow`, \
                 `likelyContextOverflow`, `transientHttp`, `roleOrdering`, `imageSizeMb`, `observedOverflowTokens`, `userText`",
                file(d, "c_expect.json")
            ),
            format!(
                "FAIL {}#k: kind: unknown kind \"frobnicate\", expected one of chunker, tags, classify, thinking, \
                 guard, history, truncate, auth, session, wire, subscribe, run",
                file(d, "d_kind.json")
            ),
            format!(
                "FAIL {}#in: input.modelContextWindow: invalid type: string \"big\", expected f64",
                file(d, "e_input.json")
            ),
            "1 passed, 4 failed".to_owned(),
        ]
    );
    assert_eq!(code, 1);
}

#[test]
fn malformed_json_names_line_and_column_with_exit_2() {
    let dir = dir_with(&[
        (
            "bad.json",
            "{\n  \"kind\": \"classify\",\n  \"name\": oops\n}",
        ),
        ("good.json", PASSING),
    ]);
    let d = dir.path();
    let (lines, code) = conformance(d, &[]);
    assert_eq!(
        lines,
        [
            format!(
                "FAIL {}: invalid JSON: expected value at line 3 column 11",
                file(d, "bad.json")
            ),
            format!("PASS {}#ok", file(d, "good.json")),
            "1 passed, 1 failed".to_owned(),
        ]
    );
    assert_eq!(code, 2);
}

#[test]
fn duplicate_keys_are_a_parse_error() {
    let dir = dir_with(&[(
        "dup.json",
        "{\"kind\": \"classify\", \"name\": \"a\",\n \"name\": \"b\", \"input\": {}, \"expect\": {}}",
    )]);
    let (lines, code) = conformance(dir.path(), &[]);
    assert_eq!(
        lines[0],
        format!(
            "FAIL {}: invalid JSON: duplicate key `name` at line 2 column 7",
            file(dir.path(), "dup.json")
        )
    );
    assert_eq!(code, 2);
}

#[test]
fn cases_wrapper_with_an_extra_key_is_unusable() {
    let wrapped = format!(r#"{{"cases": [{PASSING}], "version": 1}}"#);
    let dir = dir_with(&[("wrapped.json", &wrapped)]);
    let d = dir.path();
    let (lines, code) = conformance(d, &[]);
    assert_eq!(
        lines,
        [
            format!(
                "FAIL {}: a {{\"cases\": [...]}} file may hold no other field, found `version`",
                file(d, "wrapped.json")
            ),
            "0 passed, 1 failed".to_owned(),
        ]
    );
    assert_eq!(code, 2);
}

#[test]
fn wrapped_cases_run_in_order_and_duplicate_names_fail() {
    let wrapped = format!(r#"{{"cases": [{PASSING}, {PASSING}]}}"#);
    let dir = dir_with(&[("sub/w.json", &wrapped)]);
    let d = dir.path();
    let (lines, code) = conformance(d, &[]);
    let f = file(d, "sub/w.json");
    assert_eq!(
        lines,
        [
            format!("PASS {f}#ok"),
            format!("FAIL {f}#ok: duplicate name \"ok\" (also cases[0])"),
            "1 passed, 1 failed".to_owned(),
        ]
    );
    assert_eq!(code, 1);
}

#[test]
fn every_kind_runs_once_parsed_and_a_bad_case_fails_alone() {
    let dir = dir_with(&[
        (
            "s1.json",
            r#"{"kind": "run", "name": "s", "input": {"config": {}, "turns": [{"prompt": "hi", "responses": [], "expect": {"requests": 0}}]}}"#,
        ),
        (
            "s2.json",
            r#"{"kind": "session", "name": "t", "input": {"lines": [], "ops": [{"op": "reopen", "x": 1}]},
                "expect": {"entryCount": 0}}"#,
        ),
    ]);
    let d = dir.path();
    let (lines, code) = conformance(d, &[]);
    assert_eq!(
        lines,
        [
            // No model is configured, so the turn ends without a request, as expected.
            format!("PASS {}#s", file(d, "s1.json")),
            format!(
                "FAIL {}#t: input.ops[0].x: unknown field `x`, expected `op`",
                file(d, "s2.json")
            ),
            "1 passed, 1 failed".to_owned(),
        ]
    );
    assert_eq!(code, 1);
}

#[test]
fn kind_and_filter_select_cases() {
    let dir = dir_with(&[
        ("a.json", PASSING),
        (
            "b.json",
            r#"{"kind": "session", "name": "s", "input": {"lines": []}, "expect": {"entryCount": 1}}"#,
        ),
    ]);
    let d = dir.path();
    let (lines, code) = conformance(d, &["--kind", "classify,thinking"]);
    assert_eq!(
        lines,
        [
            format!("PASS {}#ok", file(d, "a.json")),
            "1 passed, 0 failed".to_owned()
        ]
    );
    assert_eq!(code, 0);
    let (lines, code) = conformance(d, &["--filter", "b.json#s"]);
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1], "0 passed, 1 failed");
    assert_eq!(code, 1);
    let (lines, _) = conformance(d, &["--filter", "nothing-matches"]);
    assert_eq!(lines, ["0 passed, 0 failed"]);
}

#[test]
fn json_output_follows_each_line() {
    let dir = dir_with(&[("a.json", PASSING)]);
    let d = dir.path();
    let (lines, code) = conformance(d, &["--json"]);
    assert_eq!(lines.len(), 3);
    let obj: serde_json::Value = serde_json::from_str(&lines[1]).unwrap();
    assert_eq!(
        obj,
        serde_json::json!({"file": file(d, "a.json"), "name": "ok", "pass": true, "error": null})
    );
    assert_eq!(lines[2], "1 passed, 0 failed");
    assert_eq!(code, 0);
}

#[test]
fn failing_expectation_reports_path_and_values() {
    let dir = dir_with(&[(
        "f.json",
        r#"{"kind": "classify", "name": "f", "input": {"message": "429 Too Many Requests"},
            "expect": {"transientHttp": true}}"#,
    )]);
    let (lines, code) = conformance(dir.path(), &[]);
    assert_eq!(
        lines[0],
        format!(
            "FAIL {}#f: expect.transientHttp: expected true, got false",
            file(dir.path(), "f.json")
        )
    );
    assert_eq!(code, 1);
}

#[test]
fn missing_dir_is_unusable() {
    let (lines, code) = conformance(Path::new("/no/such/scenario/dir"), &[]);
    assert_eq!(
        lines,
        [
            "FAIL /no/such/scenario/dir: no such directory",
            "0 passed, 1 failed"
        ]
    );
    assert_eq!(code, 2);
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["conformance", "--kind", "nope"][..],
        &["conformance", "--dir"],
        &["frobnicate"],
        &["help"],
        &[],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains("usage: cargo xtask"), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn default_dirs_finish_with_a_summary() {
    let out = run(&["conformance", "--kind", "classify"]);
    let text = String::from_utf8(out.stdout).unwrap();
    let last = text.lines().last().unwrap_or_default();
    let parts: Vec<&str> = last.split(' ').collect();
    assert_eq!(parts.len(), 4, "{last}");
    assert!(
        parts[0].parse::<u32>().is_ok() && parts[2].parse::<u32>().is_ok(),
        "{last}"
    );
    assert_eq!((parts[1], parts[3]), ("passed,", "failed"));
    assert!(matches!(out.status.code(), Some(0 | 1)));
}
