//! `clawloop run` on a pseudo-terminal while the model streams slowly: the answer appears as
//! it arrives, and the spinner moves while nothing does.

mod support;

use std::collections::BTreeSet;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use clawloop_testkit::{ProviderScriptServer, ScriptedExchange};
use serde_json::{Value, json};
use support::pty::Pty;
use support::{Home, TestResult};

/// The spinner's frames, as `render::term` draws them.
const FRAMES: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

fn exchange(reply: Value) -> Result<ScriptedExchange, serde_json::Error> {
    serde_json::from_value(json!({ "reply": reply }))
}

/// `clawloop run <prompt>` in `home` on a pseudo-terminal, colors off.
fn spawn(home: &Home, prompt: &str) -> std::io::Result<Pty> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_clawloop"));
    command
        .args(["run", "--session-key", "stream", prompt, "--workspace"])
        .arg(home.workspace())
        .env("CLAWLOOP_HOME", home.home())
        .env("TERM", "xterm-256color")
        .env("NO_COLOR", "1");
    Pty::spawn(&mut command)
}

/// `clawloop run <args>` in `home` with stdout and stderr piped, off the async runtime so
/// the scripted server keeps answering.
async fn piped(home: &Home, args: &[&str]) -> std::io::Result<Output> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_clawloop"));
    command
        .args(["run", "--session-key", "stream", "--workspace"])
        .arg(home.workspace())
        .args(args)
        .env("CLAWLOOP_HOME", home.home())
        .stdin(Stdio::null());
    tokio::task::spawn_blocking(move || command.output())
        .await
        .map_err(std::io::Error::other)?
}

/// A one-paragraph answer of about 2 500 characters in 50-character deltas: longer than a
/// block (800 to 1 200 characters), so blocks end where a sentence does, on a space.
fn long_answer() -> (String, Vec<String>) {
    let text: String = (1..=90)
        .map(|n| format!("Sentence {n} of the answer. "))
        .collect::<String>()
        .trim_end()
        .to_owned();
    let chars: Vec<char> = text.chars().collect();
    let chunks = chars.chunks(50).map(|c| c.iter().collect()).collect();
    (text, chunks)
}

/// The distinct spinner frames in `text`.
fn frames(text: &str) -> BTreeSet<char> {
    text.chars().filter(|c| FRAMES.contains(c)).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_spinner_moves_while_the_model_reasons_and_the_server_stalls() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    // The reasoning arrives at once, the answer two seconds later: reasoning is not shown, so
    // until the answer only the spinner moves.
    server.begin_turn(vec![exchange(json!({
        "thinking": "Let me think.", "textChunks": ["Here it is."],
        "stallMs": 2000, "stallAfterChunks": 1}))?]);
    let mut pty = spawn(&home, "hello")?;
    pty.expect("Here it is.")?;
    let before_answer = pty.text();
    let (status, output) = pty.finish()?;
    assert_eq!(status.code(), Some(0), "{output:?}");
    let shown = frames(&before_answer);
    assert!(shown.len() >= 3, "frames {shown:?} in {before_answer:?}");
    assert!(!output.contains("Let me think."), "{output:?}");
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn the_spinner_comes_back_after_a_tool_result() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    std::fs::write(home.workspace().join("note.txt"), "42\n")?;
    server.begin_turn(vec![
        exchange(json!({"toolCalls": [{"name": "read", "arguments": {"path": "note.txt"}}]}))?,
        exchange(json!({"textChunks": ["It says 42."], "stallMs": 2000, "stallAfterChunks": 0}))?,
    ]);
    let mut pty = spawn(&home, "read the note")?;
    pty.expect("✓")?;
    let after_tool = pty.seen.len();
    pty.expect("It says 42.")?;
    let between = String::from_utf8_lossy(&pty.seen[after_tool..]).into_owned();
    let (status, output) = pty.finish()?;
    assert_eq!(status.code(), Some(0), "{output:?}");
    assert!(between.contains("thinking…"), "{between:?}");
    let shown = frames(&between);
    assert!(shown.len() >= 3, "frames {shown:?} in {between:?}");
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn the_first_words_are_on_screen_while_the_server_holds_the_rest() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(vec![exchange(json!({
        "textChunks": ["First words ", "and then ", "the rest."],
        "stallAfterChunks": 1, "stallMs": 3000}))?]);
    let mut pty = spawn(&home, "hello")?;
    pty.expect("First words")?;
    let seen_at = Instant::now();
    // The exchange is recorded once its last byte is written: it is still being answered.
    let still_held = server.timings().is_empty();
    let (status, output) = pty.finish()?;
    assert_eq!(status.code(), Some(0), "{output:?}");
    assert!(
        still_held,
        "the whole reply was sent before its first words showed"
    );
    assert!(
        output.contains("First words and then the rest.\r\n"),
        "{output:?}"
    );
    // The first chunk is written as soon as the request is read: from then to the screen.
    let received = server
        .timings()
        .first()
        .map(|t| t.received)
        .ok_or("no exchange")?;
    let latency = seen_at.saturating_duration_since(received);
    assert!(latency < Duration::from_millis(500), "{latency:?}");
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn piped_default_output_is_the_streamed_text_byte_for_byte() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    std::fs::write(home.workspace().join("note.txt"), "42\n")?;
    let (answer, chunks) = long_answer();
    server.begin_turn(vec![
        exchange(json!({"textChunks": ["Let me ", "look."],
            "toolCalls": [{"name": "read", "arguments": {"path": "note.txt"}}]}))?,
        exchange(json!({"textChunks": chunks}))?,
    ]);
    let out = piped(&home, &["read the note"]).await?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        String::from_utf8(out.stdout)?,
        format!("Let me look.\n{answer}\n")
    );
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn print_writes_the_final_message_exactly_as_the_model_wrote_it() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    std::fs::write(home.workspace().join("note.txt"), "42\n")?;
    let (answer, chunks) = long_answer();
    server.begin_turn(vec![
        exchange(json!({"text": "Let me look.",
            "toolCalls": [{"name": "read", "arguments": {"path": "note.txt"}}]}))?,
        exchange(json!({"textChunks": chunks}))?,
    ]);
    let out = piped(&home, &["--print", "read the note"]).await?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    // Only the final message, one newline after it.
    assert_eq!(String::from_utf8(out.stdout)?, format!("{answer}\n"));
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn the_spinner_moves_while_a_tool_runs() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(vec![
        exchange(json!({"toolCalls": [{"name": "bash", "arguments": {"command": "sleep 2"}}]}))?,
        exchange(json!({"text": "Slept."}))?,
    ]);
    let mut pty = spawn(&home, "sleep")?;
    pty.expect("▸ bash sleep 2")?;
    let started = pty.seen.len();
    pty.expect("✓")?;
    let running = String::from_utf8_lossy(&pty.seen[started..]).into_owned();
    let (status, output) = pty.finish()?;
    assert_eq!(status.code(), Some(0), "{output:?}");
    assert!(running.contains("running…"), "{running:?}");
    let shown = frames(&running);
    assert!(shown.len() >= 3, "frames {shown:?} in {running:?}");
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    Ok(())
}

/// A Chat Completions stream whose message has two text blocks with reasoning between them
/// (pi's decoder starts a new text block after a thinking block).
fn two_text_blocks() -> Result<ScriptedExchange, serde_json::Error> {
    let chunk = |delta: Value, finish: Value| {
        let chunk = json!({"id": "c", "object": "chat.completion.chunk", "created": 0,
            "model": "m1", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        format!("data: {chunk}\n\n")
    };
    let raw = [
        chunk(
            json!({"role": "assistant", "content": "First block."}),
            Value::Null,
        ),
        chunk(json!({"reasoning_content": "Now the second."}), Value::Null),
        chunk(json!({"content": "Second "}), Value::Null),
        chunk(json!({"content": "block."}), Value::Null),
        chunk(json!({}), json!("stop")),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat();
    exchange(json!({"raw": raw}))
}

#[tokio::test(flavor = "multi_thread")]
async fn print_writes_each_text_block_on_its_own_line() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(vec![two_text_blocks()?]);
    let out = piped(&home, &["--print", "two blocks"]).await?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        String::from_utf8(out.stdout)?,
        "First block.\nSecond block.\n"
    );
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());

    // The streamed answer shows the blocks the same way.
    server.begin_turn(vec![two_text_blocks()?]);
    let out = piped(&home, &["two blocks"]).await?;
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(out.stdout)?,
        "First block.\nSecond block.\n"
    );
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_silent_reply_split_across_deltas_never_reaches_the_terminal() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    // The second piece comes a second later: `NO_` alone would be on screen by then.
    server.begin_turn(vec![exchange(json!({
        "textChunks": ["NO_", "REPLY"], "stallAfterChunks": 1, "stallMs": 1000}))?]);
    let (status, output) = spawn(&home, "say nothing")?.finish()?;
    assert_eq!(status.code(), Some(0), "{output:?}");
    assert!(!output.contains("NO_"), "{output:?}");
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());

    server.begin_turn(vec![exchange(json!({"textChunks": ["NO", "_REPLY"]}))?]);
    let out = piped(&home, &["--print", "say nothing"]).await?;
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8(out.stdout)?, "");
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());

    // A message that only starts like the token is shown whole, the last piece included.
    server.begin_turn(vec![exchange(
        json!({"textChunks": ["No", " problem, ", "NO"]}),
    )?]);
    let (status, output) = spawn(&home, "say something")?.finish()?;
    assert_eq!(status.code(), Some(0), "{output:?}");
    assert!(output.contains("No problem, NO\r\n"), "{output:?}");
    server.begin_turn(vec![exchange(json!({"textChunks": ["N", "O"]}))?]);
    let out = piped(&home, &["--print", "say no"]).await?;
    assert_eq!(String::from_utf8(out.stdout)?, "NO\n");
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failed_tool_line_shows_a_bounded_start_of_a_huge_output_line() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    let command = "printf 'x%.0s' $(seq 1 20000); echo; exit 3";
    server.begin_turn(vec![
        exchange(json!({"toolCalls": [{"name": "bash", "arguments": {"command": command}}]}))?,
        exchange(json!({"text": "It failed."}))?,
    ]);
    let out = piped(&home, &["run it"]).await?;
    let stderr = String::from_utf8(out.stderr)?;
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let line = stderr
        .lines()
        .find(|line| line.starts_with('✗'))
        .ok_or_else(|| format!("no failed tool line in {stderr:?}"))?;
    assert_eq!(line, format!("✗ {}…", "x".repeat(160)));
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    Ok(())
}
