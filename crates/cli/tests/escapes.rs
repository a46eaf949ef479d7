//! Control sequences from a model, a tool argument and a tool's output: shown visibly on a
//! terminal (`run`, `sessions show`, `sessions export`), written byte for byte when piped.

mod support;

use std::process::{Command, Stdio};

use clawloop_testkit::{ProviderScriptServer, ScriptedExchange};
use serde_json::json;
use support::pty::Pty;
use support::{Home, TestResult};

/// A clipboard write (OSC 52), a title change (OSC 0) and a screen clear.
const HOSTILE: &str = "\u{1b}]52;c;aGk=\u{7} \u{1b}]0;pwned\u{7} \u{1b}[2J";
/// The same, as a terminal shows it.
const SHOWN: &str = "^[]52;c;aGk=^G ^[]0;pwned^G ^[[2J";

/// The model says `HOSTILE`, runs a bash command whose argument holds a title change and
/// whose output (the command fails) is all three, then says `HOSTILE` again.
fn script() -> Result<Vec<ScriptedExchange>, serde_json::Error> {
    let command =
        "printf '\\033]52;c;aGk=\\007 \\033]0;pwned\\007 \\033[2J\\n'; exit 3 # \u{1b}]0;arg\u{7}";
    Ok(vec![
        serde_json::from_value(json!({"reply": {
            "text": format!("Before {HOSTILE}"),
            "toolCalls": [{"name": "bash", "arguments": {"command": command}}]}}))?,
        serde_json::from_value(json!({"reply": {"text": format!("After {HOSTILE}")}}))?,
    ])
}

fn clawloop(home: &Home, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_clawloop"));
    command
        .args(args)
        .env("CLAWLOOP_HOME", home.home())
        .env("NO_COLOR", "1")
        .env("TERM", "xterm-256color");
    command
}

fn run_args(home: &Home) -> Vec<String> {
    ["run", "--session-key", "esc", "go", "--workspace"]
        .iter()
        .map(|arg| (*arg).to_owned())
        .chain([home.workspace().display().to_string()])
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_terminal_never_gets_the_model_or_tool_escapes() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(script()?);
    let args = run_args(&home);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut pty = Pty::spawn(&mut clawloop(&home, &args))?;
    let (status, output) = pty.finish()?;
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    assert_eq!(status.code(), Some(0), "{output:?}");
    // Colors are off: not one escape code may reach the terminal.
    assert!(!output.contains('\u{1b}'), "{output:?}");
    for shown in [
        format!("Before {SHOWN}"),
        format!("After {SHOWN}"),
        "# ^[]0;arg^G".to_owned(),
        format!("✗ {SHOWN}"),
    ] {
        assert!(output.contains(&shown), "no {shown:?} in {output:?}");
    }

    let mut pty = Pty::spawn(&mut clawloop(&home, &["sessions", "show", "esc"]))?;
    let (status, output) = pty.finish()?;
    assert_eq!(status.code(), Some(0), "{output:?}");
    assert!(!output.contains('\u{1b}'), "{output:?}");
    assert!(output.contains(&format!("After {SHOWN}")), "{output:?}");

    for format in ["md", "jsonl"] {
        let mut export = clawloop(&home, &["sessions", "export", "esc", "--format", format]);
        let (status, output) = Pty::spawn(&mut export)?.finish()?;
        assert_eq!(status.code(), Some(0), "{output:?}");
        assert!(!output.contains('\u{1b}'), "{format}: {output:?}");
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn piped_output_keeps_the_bytes() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(script()?);
    let mut command = clawloop(&home, &[]);
    command.args(run_args(&home)).stdin(Stdio::null());
    let out = tokio::task::spawn_blocking(move || command.output()).await??;
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        String::from_utf8(out.stdout)?,
        format!("Before {HOSTILE}\nAfter {HOSTILE}\n")
    );
    assert!(stderr.contains(&format!("✗ {HOSTILE}")), "{stderr:?}");

    let mut command = clawloop(&home, &["sessions", "show", "esc"]);
    command.stdin(Stdio::null());
    let out = command.output()?;
    assert!(
        String::from_utf8(out.stdout)?.contains(&format!("After {HOSTILE}")),
        "sessions show piped changed the text"
    );
    Ok(())
}

#[test]
fn a_failure_quoting_control_characters_is_neutralized_on_a_terminal() -> TestResult {
    let home = tempfile::tempdir()?;
    let mut show = Command::new(env!("CARGO_BIN_EXE_clawloop"));
    show.args(["sessions", "show", "\u{1b}]0;pwned\u{7}"])
        .env("CLAWLOOP_HOME", home.path())
        .env("NO_COLOR", "1");
    let (status, output) = Pty::spawn(&mut show)?.finish()?;
    assert_eq!(status.code(), Some(2), "{output:?}");
    assert!(
        output.starts_with("clawloop: ") && output.contains("^[]0;pwned^G"),
        "{output:?}"
    );
    assert!(!output.contains('\u{1b}'), "{output:?}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn bidirectional_overrides_are_shown_where_they_would_reorder_text() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    // A right-to-left override makes `exe.txt` read as `txt.exe`; an isolate pair hides
    // where a comment ends.
    let command = "printf 'out\\342\\200\\256put\\n'; exit 3 # \u{2067}done\u{2069}";
    server.begin_turn(vec![
        serde_json::from_value(json!({"reply": {
            "text": "Open a\u{202E}exe.txt",
            "toolCalls": [{"name": "bash", "arguments": {"command": command}}]}}))?,
        serde_json::from_value(json!({"reply": {"text": "Marks\u{200F}\u{061C} end"}}))?,
    ]);
    let args = run_args(&home);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut pty = Pty::spawn(&mut clawloop(&home, &args))?;
    let (status, output) = pty.finish()?;
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    assert_eq!(status.code(), Some(0), "{output:?}");
    for hidden in ['\u{202E}', '\u{2067}', '\u{2069}', '\u{200F}', '\u{061C}'] {
        assert!(!output.contains(hidden), "{hidden:?} in {output:?}");
    }
    for shown in [
        "Open a<U+202E>exe.txt",
        "# <U+2067>done<U+2069>",
        "✗ out<U+202E>put",
        "Marks<U+200F><U+061C> end",
    ] {
        assert!(output.contains(shown), "no {shown:?} in {output:?}");
    }
    Ok(())
}

/// A title change, as a file may hold it, and how a terminal shows it.
const TITLE: (&str, &str) = ("\u{1b}]0;pwned\u{7}", "^[]0;pwned^G");

/// `clawloop <args>` with `home` on a pseudo-terminal: its status and what it showed.
fn on_terminal(
    home: &std::path::Path,
    args: &[&str],
) -> Result<(std::process::ExitStatus, String), Box<dyn std::error::Error>> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_clawloop"));
    command
        .args(args)
        .env("CLAWLOOP_HOME", home)
        .env("NO_COLOR", "1");
    Ok(Pty::spawn(&mut command)?.finish()?)
}

#[test]
fn sessions_list_shows_keys_and_models_from_the_store_visibly() -> TestResult {
    let dir = tempfile::tempdir()?;
    let sessions = dir.path().join("agents/main/sessions");
    std::fs::create_dir_all(&sessions)?;
    let (title, shown) = TITLE;
    let store = json!({
        format!("key{title}"): {"sessionId": "00000000-aaaa-4bbb-8ccc-dddddddddddd",
            "updatedAt": 1_000, "modelProvider": "acme", "model": "m\u{202E}1\u{1b}[2J"},
    });
    std::fs::write(sessions.join("sessions.json"), serde_json::to_vec(&store)?)?;
    let (status, output) = on_terminal(dir.path(), &["sessions", "list"])?;
    assert_eq!(status.code(), Some(0), "{output:?}");
    assert!(!output.contains('\u{1b}'), "{output:?}");
    assert!(!output.contains('\u{202E}'), "{output:?}");
    assert!(output.contains(&format!("key{shown}")), "{output:?}");
    assert!(output.contains("acme/m<U+202E>1^[[2J"), "{output:?}");

    let piped = Command::new(env!("CARGO_BIN_EXE_clawloop"))
        .args(["sessions", "list"])
        .env("CLAWLOOP_HOME", dir.path())
        .stdin(Stdio::null())
        .output()?;
    assert!(String::from_utf8(piped.stdout)?.contains(&format!("key{title}")));
    Ok(())
}

#[test]
fn logs_show_quoted_escapes_visibly_on_a_terminal_and_keep_the_bytes_piped() -> TestResult {
    let dir = tempfile::tempdir()?;
    let logs = dir.path().join("logs");
    std::fs::create_dir_all(&logs)?;
    let (title, shown) = TITLE;
    let line = format!("WARN provider said: {title} and a\u{202E}b\n");
    std::fs::write(logs.join("clawloop.2099-01-01.log"), &line)?;
    let (status, output) = on_terminal(dir.path(), &["logs"])?;
    assert_eq!(status.code(), Some(0), "{output:?}");
    assert!(!output.contains('\u{1b}'), "{output:?}");
    assert!(
        output.contains(&format!("provider said: {shown} and a<U+202E>b\r\n")),
        "{output:?}"
    );

    let piped = Command::new(env!("CARGO_BIN_EXE_clawloop"))
        .arg("logs")
        .env("CLAWLOOP_HOME", dir.path())
        .stdin(Stdio::null())
        .output()?;
    assert_eq!(String::from_utf8(piped.stdout)?, line);
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn the_resume_picker_shows_first_messages_visibly() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(vec![serde_json::from_value(
        json!({"reply": {"text": "Looked."}}),
    )?]);
    let (title, _) = TITLE;
    let mut first = clawloop(&home, &["run", "--session-key", "pick", "--workspace"]);
    first
        .arg(home.workspace())
        .arg(format!("look at {title}\u{202E}"))
        .stdin(Stdio::null());
    let out = tokio::task::spawn_blocking(move || first.output()).await??;
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());

    let mut resume = clawloop(&home, &["run", "-r", "next", "--workspace"]);
    resume.arg(home.workspace());
    let mut pty = Pty::spawn(&mut resume)?;
    pty.expect("Resume which session?")?;
    pty.send("none\r")?;
    let (status, output) = pty.finish()?;
    assert_eq!(status.code(), Some(2), "{output:?}");
    assert!(!output.contains('\u{1b}'), "{output:?}");
    assert!(!output.contains('\u{202E}'), "{output:?}");
    // The picker keeps only printable text of a first message; what is left of it here is
    // the override, which must show.
    let row = output
        .lines()
        .find(|line| line.contains("pick"))
        .ok_or("no picker row")?;
    assert!(row.ends_with("]0;pwned<U+202E>"), "{row:?}");
    Ok(())
}

#[test]
fn a_usage_error_quoting_an_argument_is_neutralized_on_a_terminal() -> TestResult {
    let home = tempfile::tempdir()?;
    let (title, _) = TITLE;
    let (status, output) = on_terminal(home.path(), &[&format!("bad{title}\u{202E}")])?;
    assert_eq!(status.code(), Some(2), "{output:?}");
    assert!(!output.contains('\u{1b}'), "{output:?}");
    assert!(!output.contains('\u{202E}'), "{output:?}");
    assert!(output.contains("<U+202E>"), "{output:?}");
    assert!(output.contains("Usage:"), "{output:?}");

    // An ordinary usage error keeps clap's own rendering.
    let (status, output) = on_terminal(home.path(), &["nosuchcommand"])?;
    assert_eq!(status.code(), Some(2), "{output:?}");
    assert!(output.contains("'nosuchcommand'"), "{output:?}");
    let (status, output) = on_terminal(home.path(), &["--version"])?;
    assert_eq!(status.code(), Some(0), "{output:?}");
    assert!(output.starts_with("clawloop "), "{output:?}");
    Ok(())
}
