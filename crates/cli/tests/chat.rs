//! `clawloop chat` through the real binary: piped lines (one turn each, slash commands in
//! between) and a session on a pseudo-terminal.

mod support;

use std::io::Write;
use std::process::{Command, Output, Stdio};

use clawloop_providers::scripted_server::ProviderScriptServer;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use support::pty::Pty;
use support::{Home, TestResult, reply};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `clawloop chat` with `lines` piped on stdin.
async fn chat_piped(home: &Home, lines: &str) -> std::io::Result<Output> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_clawloop"));
    command
        .arg("chat")
        .arg("--workspace")
        .arg(home.workspace())
        .env("CLAWLOOP_HOME", home.home())
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let lines = lines.to_owned();
    tokio::task::spawn_blocking(move || {
        let mut child = command.spawn()?;
        if let Some(mut pipe) = child.stdin.take() {
            pipe.write_all(lines.as_bytes())?;
        }
        child.wait_with_output()
    })
    .await
    .map_err(std::io::Error::other)?
}

fn session_id_of(home: &Home, key: &str) -> Result<String, Box<dyn std::error::Error>> {
    let store: Value = serde_json::from_str(&std::fs::read_to_string(
        home.home().join("agents/main/sessions/sessions.json"),
    )?)?;
    Ok(store[key]["sessionId"]
        .as_str()
        .ok_or("no session id")?
        .to_owned())
}

#[tokio::test(flavor = "multi_thread")]
async fn piped_lines_are_turns_of_one_session_with_commands_between() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(vec![
        serde_json::from_value(json!({"reply": {"text": "First answer."}}))?,
        serde_json::from_value(json!({
            "expectRequest": {"bodyContains": ["first question", "First answer.", "second question"]},
            "reply": {"text": "Second answer."}}))?,
        serde_json::from_value(json!({"reply": {"text": "Third answer."}}))?,
    ]);
    let out = chat_piped(
        &home,
        "first question\nsecond question\n/session\n/model acme/m2\n/bogus\nthird question\n/quit\nnever sent\n",
    )
    .await?;
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let id = session_id_of(&home, "main")?;
    let file = home.home().join(format!("agents/main/sessions/{id}.jsonl"));
    assert_eq!(
        stdout,
        format!(
            "First answer.\nSecond answer.\nkey: main\nid: {id}\nfile: {}\nmodel: acme/m2\nThird answer.\n",
            file.display()
        )
    );
    assert!(file.is_file());
    assert!(
        stderr
            .lines()
            .any(|line| line == "clawloop: unknown command /bogus (try /help)"),
        "{stderr}"
    );
    let report = server.end_turn();
    assert_eq!(report.problems(), Vec::<String>::new());
    let models: Vec<Option<String>> = server.requests().iter().map(|r| r.model.clone()).collect();
    assert_eq!(
        models,
        vec![Some("m1".into()), Some("m1".into()), Some("m2".into())]
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn new_in_chat_starts_a_fresh_session() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(vec![
        serde_json::from_value(json!({"reply": {"text": "Noted."}}))?,
        serde_json::from_value(json!({"reply": {"text": "Fresh."}}))?,
    ]);
    let out = chat_piped(&home, "remember pears\n/new\nwhat did I say\n").await?;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let id = session_id_of(&home, "main")?;
    assert_eq!(
        text(&out.stdout),
        format!("Noted.\nnew session {id}\nFresh.\n")
    );
    let last = server
        .requests()
        .last()
        .map(|r| r.body_text().into_owned())
        .unwrap_or_default();
    assert!(!last.contains("remember pears"), "{last}");
    Ok(())
}

fn chat_on_pty(home: &Home) -> std::io::Result<Pty> {
    Pty::spawn(
        Command::new(env!("CARGO_BIN_EXE_clawloop"))
            .arg("chat")
            .arg("--workspace")
            .arg(home.workspace())
            .env("CLAWLOOP_HOME", home.home())
            .env("TERM", "xterm-256color")
            .env_remove("NO_COLOR"),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn a_terminal_chat_streams_the_answer_and_prompts_again() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(reply("Hi there, human.")?);
    let mut pty = chat_on_pty(&home)?;
    pty.expect("› ")?;
    pty.send("hello\r")?;
    pty.expect("Hi there, human.")?;
    pty.expect("› ")?;
    pty.send("/quit\r")?;
    let (status, output) = pty.finish()?;
    assert_eq!(status.code(), Some(0), "{output:?}");
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    let history = home.home().join("history");
    assert!(
        std::fs::read_to_string(&history)?.contains("hello"),
        "the history keeps typed lines"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&history)?.permissions().mode() & 0o777,
            0o600
        );
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_clears_a_typed_line_and_exits_130_at_an_empty_prompt() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(reply("Hello.")?);
    let mut pty = chat_on_pty(&home)?;
    pty.expect("› ")?;
    pty.send("half a thought")?;
    pty.expect("half a thought")?;
    pty.send("\u{3}")?;
    pty.send("hi\r")?;
    pty.expect("Hello.")?;
    pty.expect("› ")?;
    pty.send("\u{3}")?;
    let (status, output) = pty.finish()?;
    assert_eq!(status.code(), Some(130), "{output:?}");
    let sent: Vec<Option<String>> = server
        .requests()
        .iter()
        .map(|r| r.last_user_text())
        .collect();
    assert_eq!(sent, vec![Some("hi".to_owned())]);
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_during_a_turn_aborts_it_and_the_chat_goes_on() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(vec![
        serde_json::from_value(json!({"reply": {"text": "never seen", "stallMs": 600_000}}))?,
        serde_json::from_value(json!({
            "expectRequest": {"bodyContains": ["slow question", "after that"]},
            "reply": {"text": "Back."}}))?,
    ]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_clawloop"))
        .arg("chat")
        .arg("--workspace")
        .arg(home.workspace())
        .env("CLAWLOOP_HOME", home.home())
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    if let Some(mut pipe) = child.stdin.take() {
        pipe.write_all(b"slow question\nafter that\n")?;
    }
    // Waits for the request, not for a time: the signal must land while the turn runs.
    while server.requests().is_empty() {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()?;
    assert!(status.success());
    let out = tokio::task::spawn_blocking(move || child.wait_with_output()).await??;
    let stderr = text(&out.stderr);
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), "Back.\n".to_owned()),
        "{stderr}"
    );
    assert!(
        stderr
            .lines()
            .any(|line| line == "clawloop: turn interrupted"),
        "{stderr}"
    );
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn compact_in_chat_summarizes_the_session() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    // Keep almost nothing recent, so the first exchanges are summarized.
    let config = home.home().join("config.toml");
    let text_config = std::fs::read_to_string(&config)?;
    std::fs::write(
        &config,
        format!("{text_config}\n[agents.defaults.compaction]\nkeepRecentTokens = 1\n"),
    )?;
    server.begin_turn(vec![
        serde_json::from_value(json!({"reply": {"text": "First answer."}}))?,
        serde_json::from_value(json!({"reply": {"text": "Second answer."}}))?,
        // The history, then the prefix of the turn the cut point splits, are summarized.
        serde_json::from_value(json!({
            "expectRequest": {"bodyContains": ["first question"]},
            "reply": {"text": "SUMMARY OF IT ALL"}}))?,
        serde_json::from_value(json!({"reply": {"text": "TURN PREFIX"}}))?,
        serde_json::from_value(json!({
            "expectRequest": {"bodyContains": ["SUMMARY OF IT ALL", "third question"]},
            "reply": {"text": "Third answer."}}))?,
    ]);
    let out = chat_piped(
        &home,
        "first question\nsecond question\n/compact\nthird question\n",
    )
    .await?;
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{stdout}");
    assert_eq!(
        (lines[0], lines[1], lines[3]),
        ("First answer.", "Second answer.", "Third answer.")
    );
    assert!(lines[2].starts_with("session compacted"), "{stdout}");
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    Ok(())
}
