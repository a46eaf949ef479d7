//! No process a sandboxed `bash` call starts outlives it, on every way out and under each
//! backend (forced with `CLAWLOOP_SANDBOX_BACKEND`): the tool's timeout, SIGTERM of
//! clawloop (the turn is aborted), and clawloop itself SIGKILLed (nothing of it can clean
//! up, so the sandbox must notice its host is gone).

mod support;

use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use clawloop_testkit::ProviderScriptServer;
use serde_json::json;
use support::{Home, TestResult, live_processes_with, send_signal};

/// Hang guard: far longer than any of these steps takes.
const GUARD: Duration = Duration::from_secs(30);

/// A `sleep` no other test runs: its duration is unique to this process, backend and case.
fn unique_sleep(backend: &str, case: u32) -> String {
    let backend = u32::from(backend == "bwrap");
    format!("sleep 7{case}{backend}{}", std::process::id())
}

/// Starts `clawloop run` whose only tool call is `bash` with `command` (and `timeout` when
/// given), under `backend`; the second reply closes the turn.
fn start(
    server: &ProviderScriptServer,
    home: &Home,
    backend: &str,
    command: &str,
    timeout: Option<f64>,
) -> Result<Child, Box<dyn std::error::Error>> {
    let mut arguments = json!({ "command": command });
    if let Some(timeout) = timeout {
        arguments["timeout"] = json!(timeout);
    }
    server.begin_turn(vec![
        serde_json::from_value(json!({"reply": {"toolCalls": [
            {"id": "call_sleep", "name": "bash", "arguments": arguments}
        ]}}))?,
        serde_json::from_value(json!({"reply": {"text": "Done."}}))?,
    ]);
    Ok(home
        .command("run")
        .args(["-p", "wait"])
        .env("CLAWLOOP_SANDBOX_BACKEND", backend)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?)
}

/// Waits until a process whose command line holds `needle` runs.
async fn until_running(needle: &str) -> TestResult {
    let started = Instant::now();
    while live_processes_with(needle).is_empty() {
        assert!(started.elapsed() < GUARD, "`{needle}` never started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(())
}

/// Waits until no process whose command line holds `needle` is left.
async fn until_gone(needle: &str) -> TestResult {
    let started = Instant::now();
    while !live_processes_with(needle).is_empty() {
        assert!(
            started.elapsed() < GUARD,
            "`{needle}` outlived it: {:?}",
            live_processes_with(needle)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(())
}

/// The command under test: a background sleep, a daemon in its own session, and a
/// foreground sleep, all with `sleep`'s unique duration.
fn family(sleep: &str) -> String {
    format!("{sleep} & setsid {sleep} & {sleep}")
}

async fn killed_clawloop_leaves_nothing(backend: &str) -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    let sleep = unique_sleep(backend, 1);
    let mut child = start(&server, &home, backend, &family(&sleep), None)?;
    until_running(&sleep).await?;
    // Give the family a moment to be whole: all three started.
    let started = Instant::now();
    while live_processes_with(&sleep).len() < 3 && started.elapsed() < GUARD {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    send_signal("KILL", child.id())?;
    tokio::task::spawn_blocking(move || child.wait()).await??;
    until_gone(&sleep).await
}

async fn terminated_clawloop_leaves_nothing(backend: &str) -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    let sleep = unique_sleep(backend, 2);
    let child = start(&server, &home, backend, &family(&sleep), None)?;
    until_running(&sleep).await?;
    send_signal("TERM", child.id())?;
    let out = tokio::task::spawn_blocking(move || child.wait_with_output()).await??;
    assert_eq!(
        out.status.code(),
        Some(143),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    until_gone(&sleep).await
}

async fn a_timed_out_call_leaves_nothing(backend: &str) -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    let sleep = unique_sleep(backend, 3);
    let child = start(&server, &home, backend, &family(&sleep), Some(1.0))?;
    let out = tokio::task::spawn_blocking(move || child.wait_with_output()).await??;
    assert_eq!(
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).trim()
        ),
        (Some(0), "Done."),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = server.end_turn();
    until_gone(&sleep).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_of_clawloop_leaves_nothing_with_landlock() -> TestResult {
    killed_clawloop_leaves_nothing("landlock").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_of_clawloop_leaves_nothing_with_bwrap() -> TestResult {
    killed_clawloop_leaves_nothing("bwrap").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_of_clawloop_leaves_nothing_with_landlock() -> TestResult {
    terminated_clawloop_leaves_nothing("landlock").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_of_clawloop_leaves_nothing_with_bwrap() -> TestResult {
    terminated_clawloop_leaves_nothing("bwrap").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timed_out_call_leaves_nothing_with_landlock() -> TestResult {
    a_timed_out_call_leaves_nothing("landlock").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timed_out_call_leaves_nothing_with_bwrap() -> TestResult {
    a_timed_out_call_leaves_nothing("bwrap").await
}

async fn an_ended_call_leaves_nothing(backend: &str) -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    let sleep = unique_sleep(backend, 4);
    let command = format!("{sleep} & setsid {sleep} & echo started");
    let child = start(&server, &home, backend, &command, None)?;
    let out = tokio::task::spawn_blocking(move || child.wait_with_output()).await??;
    assert_eq!(
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).trim()
        ),
        (Some(0), "Done."),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = server.end_turn();
    until_gone(&sleep).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ended_call_leaves_nothing_with_landlock() -> TestResult {
    an_ended_call_leaves_nothing("landlock").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ended_call_leaves_nothing_with_bwrap() -> TestResult {
    an_ended_call_leaves_nothing("bwrap").await
}
