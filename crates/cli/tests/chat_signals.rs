//! SIGTERM and SIGHUP in `clawloop chat`, through the real binary against the scripted
//! server: during a turn they abort it as Ctrl-C does and then end the chat (143/129); at
//! the prompt they end it at once.

mod support;

use std::process::Stdio;
use std::time::{Duration, Instant};

use clawloop_testkit::ProviderScriptServer;
use pretty_assertions::assert_eq;
use serde_json::json;
use support::pty::Pty;
use support::{Home, TestResult, live_processes_with, send_signal};

/// A hang guard, never an assertion on time.
const GUARD: Duration = Duration::from_secs(30);

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_during_a_piped_chat_turn_aborts_it_cleanly_and_exits_143() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    let sleep = "43.5";
    server.begin_turn(vec![serde_json::from_value(
        json!({"reply": {"toolCalls": [
            {"id": "call_sleep", "name": "bash", "arguments": {"command": format!("sleep {sleep}")}}
        ]}}),
    )?]);
    let mut child = home
        .command("chat")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    // A second line that must never become a turn: the chat ends with the signal. The pipe
    // stays open so the chat cannot end by reaching its end.
    let mut pipe = child.stdin.take().ok_or("no stdin")?;
    std::io::Write::write_all(&mut pipe, b"wait\nafter the signal\n")?;
    let started = Instant::now();
    while live_processes_with(&format!("sleep {sleep}")).is_empty() {
        assert!(started.elapsed() < GUARD, "the bash tool never started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    send_signal("TERM", child.id())?;
    let out = tokio::task::spawn_blocking(move || child.wait_with_output()).await??;
    drop(pipe);
    assert_eq!(out.status.code(), Some(143), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("clawloop: terminated (SIGTERM)"),
        "{}",
        text(&out.stderr)
    );
    let _ = server.end_turn();
    assert_eq!(server.requests().len(), 1, "no turn after the signal");

    let started = Instant::now();
    while !live_processes_with(&format!("sleep {sleep}")).is_empty() {
        assert!(started.elapsed() < GUARD, "the sleep outlived clawloop");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(home.tool_result_ids()?, [json!("call_sleep")]);
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn sighup_at_an_idle_terminal_prompt_exits_129() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    let mut pty = Pty::spawn(home.command("chat").env("TERM", "xterm-256color"))?;
    pty.expect("› ")?;
    send_signal("HUP", pty.id())?;
    let (status, output) = pty.finish()?;
    assert_eq!(status.code(), Some(129), "{output:?}");
    assert!(server.requests().is_empty());
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_at_the_terminal_prompt_gives_the_terminal_back_in_cooked_mode() -> TestResult {
    use rustix::termios::LocalModes;
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    let mut pty = Pty::spawn(home.command("chat").env("TERM", "xterm-256color"))?;
    pty.expect("› ")?;
    // The line editor reads in raw mode: no echo, no line discipline.
    let raw = pty.termios()?.local_modes;
    assert!(
        !raw.contains(LocalModes::ECHO | LocalModes::ICANON),
        "{raw:?}"
    );
    send_signal("TERM", pty.id())?;
    let (status, output) = pty.finish()?;
    assert_eq!(status.code(), Some(143), "{output:?}");
    let after = pty.termios()?.local_modes;
    assert!(
        after.contains(LocalModes::ECHO | LocalModes::ICANON),
        "{after:?}"
    );
    Ok(())
}
