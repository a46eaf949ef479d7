//! `clawloop run` on a pseudo-terminal: the spinner, colored tool lines and the last line; and
//! with `NO_COLOR` not one escape code.

mod support;

use std::process::Command;

use clawloop_testkit::ProviderScriptServer;
use serde_json::json;
use support::pty::Pty;
use support::{Home, TestResult};

/// The first spinner frame.
const SPINNER: &str = "⠋ thinking…";

async fn tool_round(no_color: bool) -> Result<(i32, String), Box<dyn std::error::Error>> {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    std::fs::write(home.workspace().join("note.txt"), "the note says 42\n")?;
    server.begin_turn(vec![
        serde_json::from_value(json!({"reply": {
            "toolCalls": [{"name": "read", "arguments": {"path": "note.txt"}}]}}))?,
        serde_json::from_value(json!({"reply": {
            "text": "It says 42.", "usage": {"input": 50, "output": 4}}}))?,
    ]);
    let mut command = Command::new(env!("CARGO_BIN_EXE_clawloop"));
    command
        .args([
            "run",
            "--session-key",
            "tty",
            "read the note",
            "--workspace",
        ])
        .arg(home.workspace())
        .env("CLAWLOOP_HOME", home.home())
        .env("TERM", "xterm-256color")
        .env_remove("NO_COLOR");
    if no_color {
        command.env("NO_COLOR", "1");
    }
    let mut pty = Pty::spawn(&mut command)?;
    let (status, output) = pty.finish()?;
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    Ok((status.code().unwrap_or(-1), output))
}

/// The output without escape codes, lines split on the terminal's `\r\n`.
fn plain_lines(output: &str) -> Vec<String> {
    let mut plain = String::new();
    let mut chars = output.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            plain.push(c);
        }
    }
    plain
        .split("\r\n")
        .map(|line| {
            // What a terminal shows: the text after the last carriage return.
            let shown = line.rsplit('\r').next().unwrap_or_default();
            shown.trim_end().to_owned()
        })
        .filter(|line| !line.is_empty())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_terminal_gets_spinner_colored_tool_lines_and_the_last_line() -> TestResult {
    let (code, output) = tool_round(false).await?;
    assert_eq!(code, 0, "{output:?}");
    assert!(output.contains(SPINNER), "{output:?}");
    // The tool line's marker in cyan, the check in green.
    assert!(output.contains("\u{1b}[36m▸"), "{output:?}");
    assert!(output.contains("\u{1b}[32m✓ "), "{output:?}");
    let lines = plain_lines(&output);
    let at = |needle: &str| lines.iter().position(|line| line.starts_with(needle));
    let (tool, done, answer) = (at("▸ read from note.txt"), at("✓ "), at("It says 42."));
    assert!(tool.is_some() && tool < done && done < answer, "{lines:#?}");
    let last = lines.last().cloned().unwrap_or_default();
    assert!(
        last.starts_with("50 in · 4 out tokens · ")
            && last.ends_with("continue with: clawloop run --session-key tty <PROMPT>"),
        "{lines:#?}"
    );
    // The spinner is erased: no shown line keeps it.
    assert!(
        !lines.iter().any(|line| line.contains("thinking…")),
        "{lines:#?}"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn no_color_means_not_one_escape_code() -> TestResult {
    let (code, output) = tool_round(true).await?;
    assert_eq!(code, 0, "{output:?}");
    assert!(!output.contains('\u{1b}'), "{output:?}");
    assert!(output.contains(SPINNER), "{output:?}");
    let lines = plain_lines(&output);
    assert!(
        lines.iter().any(|line| line == "▸ read from note.txt"),
        "{lines:#?}"
    );
    Ok(())
}
