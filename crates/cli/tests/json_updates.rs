//! `clawloop run --json` while a tool reports progress: at most one `tool_execution_update`
//! per call every 100 ms, and the last one, with the whole output so far, before the call's
//! `tool_execution_end`.

mod support;

use std::process::{Command, Stdio};
use std::time::Instant;

use clawloop_testkit::ProviderScriptServer;
use serde_json::{Value, json};
use support::{Home, TestResult};

#[tokio::test(flavor = "multi_thread")]
async fn tool_updates_are_throttled_and_the_last_one_is_kept() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    // Forty lines 20 ms apart: the bash tool reports each as it comes.
    let command = "for i in $(seq 1 40); do echo line $i; sleep 0.02; done";
    server.begin_turn(vec![
        serde_json::from_value(json!({"reply": {
            "toolCalls": [{"name": "bash", "arguments": {"command": command}}]}}))?,
        serde_json::from_value(json!({"reply": {"text": "Counted."}}))?,
    ]);
    let mut run = Command::new(env!("CARGO_BIN_EXE_clawloop"));
    run.args(["run", "--json", "count", "--workspace"])
        .arg(home.workspace())
        .env("CLAWLOOP_HOME", home.home())
        .stdin(Stdio::null());
    let started = Instant::now();
    let out = tokio::task::spawn_blocking(move || run.output()).await??;
    let elapsed = started.elapsed();
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let events: Vec<Value> = String::from_utf8(out.stdout)?
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    let kind = |event: &Value| event["type"].as_str().unwrap_or_default().to_owned();
    let updates: Vec<&Value> = events
        .iter()
        .filter(|e| kind(e) == "tool_execution_update")
        .collect();
    // However slow the machine, the run took `elapsed`: one update per 100 ms of it at most
    // (plus the first one and the last one before the end).
    let bound = elapsed.as_millis() / 100 + 2;
    assert!(
        !updates.is_empty() && updates.len() as u128 <= bound,
        "{} updates in {elapsed:?}",
        updates.len()
    );
    let end = events
        .iter()
        .position(|e| kind(e) == "tool_execution_end")
        .ok_or("no tool_execution_end")?;
    let last_update = events[..end]
        .iter()
        .rposition(|e| kind(e) == "tool_execution_update")
        .ok_or("no update before the end")?;
    let last_text = events[last_update]["partialResult"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(last_text.contains("line 40"), "{last_text:?}");
    Ok(())
}
