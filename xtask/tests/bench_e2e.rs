//! The parts of `cargo xtask bench e2e` that run real processes and real HTTP: the floor
//! client against the scripted server and the measuring process around a real child.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use clawloop_testkit::{ProviderScriptServer, ScriptedExchange};
use pretty_assertions::assert_eq;
use serde_json::json;
use xtask::bench_e2e::floor_client;
use xtask::bench_e2e::measure::ChildUsage;
use xtask::bench_e2e::reaper;

fn exchange(value: serde_json::Value) -> ScriptedExchange {
    serde_json::from_value(value).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn floor_posts_each_body_and_reads_the_whole_stream() {
    let server = ProviderScriptServer::start().await.unwrap();
    server.begin_turn(vec![
        exchange(json!({"reply": {"textChunks": ["a", "b"]}})),
        exchange(json!({"expectRequest": {"bodyContains": ["second body"]},
                        "reply": {"text": "done"}})),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("1.json");
    let second = dir.path().join("2.json");
    let tool = dir.path().join("tool.txt");
    std::fs::write(&first, r#"{"model":"m","messages":[],"note":"first body"}"#).unwrap();
    std::fs::write(
        &second,
        r#"{"model":"m","messages":[],"note":"second body"}"#,
    )
    .unwrap();
    std::fs::write(&tool, "x").unwrap();
    let args: Vec<String> = vec![
        server.url().trim_start_matches("http://").to_owned(),
        "/p/acme/v1/chat/completions".to_owned(),
        first.display().to_string(),
        tool.display().to_string(),
        second.display().to_string(),
    ];
    let bytes = tokio::task::spawn_blocking(move || floor_client::run(&args))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    let bodies: Vec<String> = server
        .requests()
        .iter()
        .map(|r| String::from_utf8_lossy(&r.request.body).into_owned())
        .collect();
    assert_eq!(
        bodies,
        [
            r#"{"model":"m","messages":[],"note":"first body"}"#,
            r#"{"model":"m","messages":[],"note":"second body"}"#
        ]
    );
    assert!(bytes > 0);
    let missing = floor_client::run(&["127.0.0.1:1".to_owned(), "/".to_owned()]);
    assert!(missing.is_err());
}

#[test]
fn measuring_process_reports_its_childs_exit_and_usage() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("usage.json");
    let args: Vec<String> = [
        report.display().to_string(),
        "--".to_owned(),
        "sh".to_owned(),
        "-c".to_owned(),
        "exit 3".to_owned(),
    ]
    .into();
    reaper::run(&args).unwrap();
    let usage: ChildUsage = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(usage.code, Some(3));
    assert!(
        usage.spawn_ns > 0 && usage.spawn_ns <= usage.exit_ns,
        "{usage:?}"
    );
    assert!(usage.max_rss_kib > 0, "{usage:?}");

    let missing = reaper::run(&[
        report.display().to_string(),
        "--".to_owned(),
        "/nonexistent/bench-program".to_owned(),
    ]);
    assert!(missing.is_err(), "{missing:?}");
    assert!(reaper::run(&["r".to_owned(), "sh".to_owned()]).is_err());
}
