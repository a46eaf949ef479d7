//! `clawloop chat` through the real binary: piped lines (one turn each, slash commands in
//! between) and a session on a pseudo-terminal.

mod support;

use std::io::Write;
use std::process::{Command, Output, Stdio};

use clawloop_testkit::ProviderScriptServer;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use support::pty::Pty;
use support::{Home, TestResult, reply};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `clawloop chat` with `lines` piped on stdin.
async fn chat_piped(home: &Home, lines: &str) -> std::io::Result<Output> {
    chat_piped_with(home, &[], lines).await
}

/// `clawloop chat <args>` with `lines` piped on stdin.
async fn chat_piped_with(home: &Home, args: &[&str], lines: &str) -> std::io::Result<Output> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_clawloop"));
    command
        .arg("chat")
        .args(args)
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

/// Changed with issue 21: one Ctrl-C at an empty prompt only warns; the second exits 130.
#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_clears_a_typed_line_and_exits_130_when_pressed_twice_at_an_empty_prompt()
-> TestResult {
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
    pty.expect("press Ctrl-C again to exit")?;
    pty.expect("› ")?;
    // A line in between disarms it: this Ctrl-C warns again instead of exiting.
    pty.send("/help\r")?;
    pty.expect("/quit")?;
    pty.expect("› ")?;
    pty.send("\u{3}")?;
    pty.expect("press Ctrl-C again to exit")?;
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
    let mut child = home
        .command("chat")
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
    support::send_signal("INT", child.id())?;
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
async fn compact_in_chat_summarizes_with_the_chat_s_model() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    let config = home.home().join("config.toml");
    let text_config = std::fs::read_to_string(&config)?;
    std::fs::write(
        &config,
        format!("{text_config}\n[agents.defaults.compaction]\nkeepRecentTokens = 1\n"),
    )?;
    server.begin_turn(vec![
        serde_json::from_value(json!({"reply": {"text": "First answer."}}))?,
        serde_json::from_value(json!({"reply": {"text": "Second answer."}}))?,
        serde_json::from_value(json!({"reply": {"text": "SUMMARY"}}))?,
        serde_json::from_value(json!({"reply": {"text": "PREFIX"}}))?,
    ]);
    let out = chat_piped(
        &home,
        "/model acme/m2\nfirst question\nsecond question\n/compact\n",
    )
    .await?;
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout
            .lines()
            .last()
            .is_some_and(|l| l.starts_with("session compacted")),
        "{stdout}"
    );
    let models: Vec<Option<String>> = server.requests().iter().map(|r| r.model.clone()).collect();
    assert!(models.len() >= 3, "{models:?}");
    assert!(
        models.iter().all(|m| m.as_deref() == Some("m2")),
        "{models:?}"
    );
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

#[tokio::test(flavor = "multi_thread")]
async fn a_terminal_chat_opens_with_model_session_workspace_and_help() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(reply("Hi.")?);
    let mut pty = chat_on_pty(&home)?;
    pty.expect("acme/m1 · thinking off")?;
    pty.expect("session main · new session")?;
    pty.expect(&format!("workspace {}", home.workspace().display()))?;
    pty.expect("/help for commands")?;
    pty.expect("› ")?;
    pty.send("hello\r")?;
    pty.expect("Hi.")?;
    pty.expect("› ")?;
    pty.send("\u{4}")?;
    let (status, output) = pty.finish()?;
    assert_eq!(status.code(), Some(0), "{output:?}");

    // Opened again, the key continues its session: the banner names it.
    let id = session_id_of(&home, "main")?;
    let mut pty = chat_on_pty(&home)?;
    pty.expect(&format!("session main · {id}"))?;
    pty.expect("› ")?;
    pty.send("\u{4}")?;
    let (status, output) = pty.finish()?;
    assert_eq!(status.code(), Some(0), "{output:?}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn piped_chat_keeps_the_banner_off_stdout() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(reply("Only this.")?);
    let out = chat_piped(&home, "hello\n").await?;
    let stderr = text(&out.stderr);
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), "Only this.\n".to_owned()),
        "{stderr}"
    );
    assert!(
        stderr
            .lines()
            .any(|l| l.ends_with("acme/m1 · thinking off")),
        "{stderr}"
    );
    assert!(!stderr.contains("/help for commands"), "{stderr}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn model_lists_the_choices_refuses_unknown_models_and_switches_to_known_ones() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(reply("From m2.")?);
    let out = chat_piped(
        &home,
        "/model\n/model nope/x\n/model acme/m3\n/model m1\n/model acme/m2\n/model\nhi\n",
    )
    .await?;
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    // Other providers show up too when the environment holds their keys: only acme's line and
    // the order of the output are pinned.
    let lines: Vec<&str> = stdout.lines().collect();
    let at = |needle: &str| lines.iter().position(|l| *l == needle);
    let first = at("model: acme/m1").ok_or(format!("no first listing: {stdout}"))?;
    let switched = at("model: acme/m2").ok_or(format!("no switch: {stdout}"))?;
    let second = lines
        .iter()
        .rposition(|l| *l == "model: acme/m2")
        .ok_or("no second listing")?;
    assert!(first < switched && switched < second, "{stdout}");
    let acme_line = |from: usize| {
        lines[from..]
            .iter()
            .find(|l| l.trim_start().starts_with("acme "))
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
    };
    assert_eq!(acme_line(first).as_deref(), Some("acme m1 (current), m2"));
    assert_eq!(acme_line(second).as_deref(), Some("acme m1, m2 (current)"));
    assert_eq!(lines.last(), Some(&"From m2."), "{stdout}");
    let refusals: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("clawloop: /model"))
        .collect();
    assert_eq!(refusals.len(), 3, "{stderr}");
    assert_eq!(
        refusals[2],
        "clawloop: /model `m1`: expected `provider/model`, e.g. `openai/gpt-4o`; known: acme/m1"
    );
    assert!(
        refusals[0].starts_with(
            "clawloop: /model `nope/x` is unknown: no provider `nope` is built in or configured; the closest known: "
        ),
        "{stderr}"
    );
    assert!(
        refusals[1].starts_with(
            "clawloop: /model `acme/m3` is unknown: provider `acme` has no model `m3`; the closest known: acme/m1, acme/m2"
        ),
        "{stderr}"
    );
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    let models: Vec<Option<String>> = server.requests().iter().map(|r| r.model.clone()).collect();
    assert_eq!(models, vec![Some("m2".to_owned())]);
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn clawloop_alone_chats_on_a_terminal_and_prints_the_help_elsewhere() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(reply("Bare hello.")?);
    let mut pty = Pty::spawn(
        Command::new(env!("CARGO_BIN_EXE_clawloop"))
            .current_dir(home.workspace())
            .env("CLAWLOOP_HOME", home.home())
            .env("TERM", "xterm-256color"),
    )?;
    pty.expect("session main · new session")?;
    pty.expect("› ")?;
    pty.send("hello\r")?;
    pty.expect("Bare hello.")?;
    pty.expect("› ")?;
    pty.send("\u{4}")?;
    let (status, output) = pty.finish()?;
    assert_eq!(status.code(), Some(0), "{output:?}");
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());

    let out = Command::new(env!("CARGO_BIN_EXE_clawloop"))
        .current_dir(home.workspace())
        .env("CLAWLOOP_HOME", home.home())
        .stdin(Stdio::null())
        .output()?;
    let stderr = text(&out.stderr);
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(2), String::new())
    );
    assert!(
        stderr.contains("Usage: clawloop [OPTIONS] [COMMAND]"),
        "{stderr}"
    );
    assert!(stderr.contains("chat "), "{stderr}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn chat_continues_the_workspace_s_latest_session_by_id_or_starts_fresh() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(vec![
        serde_json::from_value(json!({"reply": {"text": "One."}}))?,
        serde_json::from_value(json!({
            "expectRequest": {"bodyContains": ["pears are green", "what colour"]},
            "reply": {"text": "Green."}}))?,
        serde_json::from_value(json!({"reply": {"text": "Fresh."}}))?,
        serde_json::from_value(json!({
            "expectRequest": {"bodyContains": ["new start", "by id"]},
            "reply": {"text": "By id."}}))?,
    ]);
    let first = chat_piped_with(&home, &["--session-key", "other"], "pears are green\n").await?;
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let old_id = session_id_of(&home, "other")?;

    let continued = chat_piped_with(&home, &["-c"], "what colour\n").await?;
    let stderr = text(&continued.stderr);
    assert_eq!(
        (continued.status.code(), text(&continued.stdout)),
        (Some(0), "Green.\n".to_owned()),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("session other · {old_id}")),
        "{stderr}"
    );

    let fresh = chat_piped_with(&home, &["--session-key", "other", "--new"], "new start\n").await?;
    assert_eq!(fresh.status.code(), Some(0), "{}", text(&fresh.stderr));
    let new_id = session_id_of(&home, "other")?;
    assert_ne!(new_id, old_id);
    let fresh_request = server
        .requests()
        .get(2)
        .map(|r| r.body_text().into_owned())
        .unwrap_or_default();
    assert!(
        !fresh_request.contains("pears are green"),
        "{fresh_request}"
    );

    let by_id = chat_piped_with(&home, &["--session", &new_id[..8]], "by id\n").await?;
    assert_eq!(
        (by_id.status.code(), text(&by_id.stdout)),
        (Some(0), "By id.\n".to_owned()),
        "{}",
        text(&by_id.stderr)
    );
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn clawloop_dash_c_alone_continues_the_latest_session_in_chat() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(vec![
        serde_json::from_value(json!({"reply": {"text": "Noted."}}))?,
        serde_json::from_value(json!({
            "expectRequest": {"bodyContains": ["plums are purple", "and plums"]},
            "reply": {"text": "Purple."}}))?,
    ]);
    let first = chat_piped_with(&home, &["--session-key", "fruit"], "plums are purple\n").await?;
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let bare = |args: &'static [&'static str], lines: &'static str| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_clawloop"));
        command
            .args(args)
            .current_dir(home.workspace())
            .env("CLAWLOOP_HOME", home.home())
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        tokio::task::spawn_blocking(move || {
            let mut child = command.spawn()?;
            if let Some(mut pipe) = child.stdin.take() {
                pipe.write_all(lines.as_bytes())?;
            }
            child.wait_with_output()
        })
    };
    let out = bare(&["-c"], "and plums\n").await??;
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), "Purple.\n".to_owned()),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());

    let misplaced = bare(&["-c", "run", "hi"], "").await??;
    assert_eq!(misplaced.status.code(), Some(2));
    assert_eq!(
        text(&misplaced.stderr),
        "clawloop: -c before a command starts chat; put it after the command, e.g. `clawloop run -c`\n"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn the_banner_warns_when_the_model_s_provider_has_no_key() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    let warning =
        "no API key for acme: run `clawloop auth add acme` or set its environment variable";
    let with_key = chat_piped(&home, "").await?;
    assert!(
        !text(&with_key.stderr).contains(warning),
        "{}",
        text(&with_key.stderr)
    );

    let config = home.home().join("config.toml");
    let original = std::fs::read_to_string(&config)?;
    let keyless = original.replace("apiKey = \"sk-test\"\n", "");
    assert_ne!(keyless, original);
    std::fs::write(&config, keyless)?;
    let out = chat_piped(&home, "").await?;
    let stderr = text(&out.stderr);
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), String::new()),
        "{stderr}"
    );
    assert!(stderr.lines().any(|l| l == warning), "{stderr}");

    // Switching to such a model says it too; with a key, neither does.
    let switched = chat_piped(&home, "/model acme/m2\n").await?;
    assert_eq!(text(&switched.stdout), "model: acme/m2\n");
    let stderr = text(&switched.stderr);
    assert_eq!(
        stderr.matches(warning).count(),
        2,
        "banner and switch: {stderr}"
    );
    std::fs::write(&config, &original)?;
    let switched = chat_piped(&home, "/model acme/m2\n").await?;
    assert_eq!(text(&switched.stdout), "model: acme/m2\n");
    let stderr = text(&switched.stderr);
    assert!(!stderr.contains(warning), "{stderr}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hostile_session_key_is_shown_neutralized_on_a_terminal() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    let mut pty = Pty::spawn(
        Command::new(env!("CARGO_BIN_EXE_clawloop"))
            .args(["chat", "--session-key", "k\u{1b}]0;pwned\u{7}"])
            .arg("--workspace")
            .arg(home.workspace())
            .env("CLAWLOOP_HOME", home.home())
            .env("TERM", "xterm-256color")
            .env("NO_COLOR", "1"),
    )?;
    pty.expect("session k^[]0;pwned^G · new session")?;
    pty.expect("› ")?;
    pty.send("/session\r")?;
    pty.expect("key: k^[]0;pwned^G")?;
    pty.expect("› ")?;
    pty.send("\u{4}")?;
    let (status, output) = pty.finish()?;
    assert_eq!(status.code(), Some(0), "{output:?}");
    assert!(!output.contains("\u{1b}]0;pwned"), "{output:?}");
    Ok(())
}

/// The terminal's Ctrl-C during a turn is a SIGINT to the foreground process (the test's
/// pseudo-terminal is no controlling terminal, so the signal is sent as the terminal would).
#[tokio::test(flavor = "multi_thread")]
async fn on_a_terminal_an_interrupt_during_a_turn_aborts_it_and_prompts_again() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(vec![
        serde_json::from_value(json!({"reply": {"text": "never seen", "stallMs": 600_000}}))?,
        serde_json::from_value(json!({
            "expectRequest": {"bodyContains": ["slow question", "after that"]},
            "reply": {"text": "Back again."}}))?,
    ]);
    let mut pty = chat_on_pty(&home)?;
    pty.expect("› ")?;
    pty.send("slow question\r")?;
    // Waits for the request, not for a time: the signal must land while the turn runs.
    while server.requests().is_empty() {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    support::send_signal("INT", pty.id())?;
    pty.expect("turn interrupted")?;
    pty.expect("› ")?;
    pty.send("after that\r")?;
    pty.expect("Back again.")?;
    pty.expect("› ")?;
    pty.send("\u{4}")?;
    let (status, output) = pty.finish()?;
    assert_eq!(status.code(), Some(0), "{output:?}");
    assert!(!output.contains("press Ctrl-C again"), "{output:?}");
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_model_chosen_in_chat_is_the_session_s_next_time() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(vec![
        serde_json::from_value(json!({"reply": {"text": "On m2."}}))?,
        serde_json::from_value(json!({"reply": {"text": "Still m2."}}))?,
    ]);
    let first = chat_piped(&home, "/model acme/m2\n/think high\nhello\n").await?;
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let again = chat_piped(&home, "/model\nand again\n").await?;
    let (stdout, stderr) = (text(&again.stdout), text(&again.stderr));
    assert_eq!(again.status.code(), Some(0), "{stderr}");
    assert!(
        stderr
            .lines()
            .any(|l| l.ends_with("acme/m2 · thinking high")),
        "{stderr}"
    );
    assert!(stdout.starts_with("model: acme/m2\n"), "{stdout}");
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    let models: Vec<Option<String>> = server.requests().iter().map(|r| r.model.clone()).collect();
    assert_eq!(models, vec![Some("m2".to_owned()), Some("m2".to_owned())]);
    Ok(())
}
