//! Approvals through the real binary: `--approval on-request` asks y/N on a pseudo-terminal
//! before a command leaves the sandbox (y runs it outside, n tells the model it was denied,
//! Ctrl-C stops the turn with 130, and the terminal's modes come back each time); off a
//! terminal the request is denied unless `--yes`; `--approval always` asks every call; a bad
//! policy is a usage error.

mod support;

use std::process::Stdio;

use clawloop_testkit::{ProviderScriptServer, ScriptedExchange};
use rustix::termios::LocalModes;
use serde_json::json;
use support::pty::Pty;
use support::{Home, TestResult};

/// Shows whether the command ran in the sandbox (`CLAWLOOP_SANDBOX` is set inside it).
const SHOW: &str = "echo where=${CLAWLOOP_SANDBOX:-outside}";

fn script(
    arguments: serde_json::Value,
    result_contains: &str,
) -> Result<Vec<ScriptedExchange>, serde_json::Error> {
    Ok(vec![
        serde_json::from_value(json!({"reply": {
            "toolCalls": [{"name": "bash", "arguments": arguments}]}}))?,
        serde_json::from_value(json!({
            "expectRequest": {"bodyContains": [result_contains]},
            "reply": {"text": "Done."}}))?,
    ])
}

fn asking_out() -> serde_json::Value {
    json!({"command": SHOW, "sandbox": "off"})
}

/// `clawloop run --approval on-request` on a pseudo-terminal, answering the prompt with `key`.
async fn answered_on_a_terminal(
    key: &str,
    result_contains: &str,
) -> Result<(i32, String), Box<dyn std::error::Error>> {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(script(asking_out(), result_contains)?);
    let mut command = home.command("run");
    command.args(["--approval", "on-request", "fetch it"]);
    let mut pty = Pty::spawn(&mut command)?;
    pty.expect("bash wants to run outside the sandbox, in ")?;
    pty.expect(&format!("  {SHOW}"))?;
    pty.expect("Allow? [y/N] ")?;
    let modes = pty.termios()?.local_modes;
    assert!(
        !modes.contains(LocalModes::ECHO),
        "echo is off while asking"
    );
    pty.send(key)?;
    let (status, output) = pty.finish()?;
    let restored = pty.termios()?.local_modes;
    assert!(
        restored.contains(LocalModes::ICANON | LocalModes::ECHO | LocalModes::ISIG),
        "{restored:?}"
    );
    if key != "\u{3}" {
        assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    }
    Ok((status.code().unwrap_or(-1), output))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn y_on_the_terminal_runs_the_command_outside_the_sandbox() -> TestResult {
    let (code, output) = answered_on_a_terminal("y", "where=outside").await?;
    assert_eq!(code, 0, "{output}");
    assert!(output.contains("Allow? [y/N] y"), "{output}");
    assert!(output.contains("Done."), "{output}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn any_other_key_denies_and_the_model_reads_it() -> TestResult {
    let (code, output) =
        answered_on_a_terminal("\r", "Command not run: the user denied it").await?;
    assert_eq!(code, 0, "{output}");
    assert!(output.contains("Allow? [y/N] n"), "{output}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_at_the_prompt_stops_the_turn() -> TestResult {
    let (code, output) = answered_on_a_terminal("\u{3}", "unused").await?;
    assert_eq!(code, 130, "{output}");
    assert!(output.contains("Allow? [y/N] ^C"), "{output}");
    Ok(())
}

/// `clawloop run` with stdin from nowhere and `args`; the model runs `arguments`.
async fn piped(
    args: &[&str],
    arguments: serde_json::Value,
    result_contains: &str,
) -> Result<std::process::Output, Box<dyn std::error::Error>> {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(script(arguments, result_contains)?);
    let output = home
        .command("run")
        .args(args)
        .arg("fetch it")
        .stdin(Stdio::null())
        .output()?;
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    Ok(output)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn off_a_terminal_the_request_is_denied_unless_yes() -> TestResult {
    let denied = piped(
        &["--approval", "on-request"],
        asking_out(),
        "Command not run: there is no terminal to ask the user on",
    )
    .await?;
    assert_eq!(denied.status.code(), Some(0));
    let approved = piped(
        &["--approval", "on-request", "--yes"],
        asking_out(),
        "where=outside",
    )
    .await?;
    assert_eq!(approved.status.code(), Some(0));
    assert_eq!(String::from_utf8(approved.stdout)?.trim_end(), "Done.");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn always_asks_even_for_a_sandboxed_command() -> TestResult {
    let denied = piped(
        &["--approval", "always"],
        json!({"command": SHOW}),
        "Command not run: there is no terminal",
    )
    .await?;
    assert_eq!(denied.status.code(), Some(0));
    let approved = piped(
        &["--approval", "always", "--yes"],
        json!({"command": SHOW}),
        "where=workspace-write",
    )
    .await?;
    assert_eq!(approved.status.code(), Some(0));
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn by_default_the_model_cannot_leave_the_sandbox() -> TestResult {
    let refused = piped(
        &["--yes"],
        asking_out(),
        "Refused: this session cannot run commands outside the sandbox",
    )
    .await?;
    assert_eq!(refused.status.code(), Some(0));
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_policy_is_a_usage_error_on_the_command_line_and_in_the_config() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    let flag = home
        .command("run")
        .args(["--approval", "ask", "hi"])
        .output()?;
    assert_eq!(flag.status.code(), Some(2));
    let stderr = String::from_utf8(flag.stderr)?;
    assert!(
        stderr.contains("unknown approval policy `ask` (expected never, on-request or always)"),
        "{stderr}"
    );
    let config = home.home().join("config.toml");
    let mut text = std::fs::read_to_string(&config)?;
    text.push_str("\n[sandbox]\napproval = \"sometimes\"\n");
    std::fs::write(&config, text)?;
    let configured = home
        .command("run")
        .arg("hi")
        .stdin(Stdio::null())
        .output()?;
    assert_eq!(configured.status.code(), Some(2));
    let stderr = String::from_utf8(configured.stderr)?;
    assert!(stderr.contains("sandbox.approval"), "{stderr}");
    assert!(
        stderr.contains("unknown approval policy `sometimes`"),
        "{stderr}"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_asks_between_its_prompts_and_the_next_line_arrives_whole() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    let mut exchanges = script(asking_out(), "where=outside")?;
    exchanges.push(serde_json::from_value(json!({
        "expectRequest": {"lastUserTextContains": "second question"},
        "reply": {"text": "Again."}}))?);
    server.begin_turn(exchanges);
    let mut command = home.command("chat");
    command.args(["--approval", "on-request"]);
    let mut pty = Pty::spawn(&mut command)?;
    pty.expect("› ")?;
    pty.send("fetch it\r")?;
    pty.expect("Allow? [y/N] ")?;
    pty.send("y")?;
    pty.expect("Done.")?;
    pty.expect("› ")?;
    pty.send("second question\r")?;
    pty.expect("Again.")?;
    pty.expect("› ")?;
    pty.send("\u{4}")?;
    let (status, output) = pty.finish()?;
    assert_eq!(status.code(), Some(0), "{output:?}");
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_at_the_prompt_stops_the_turn_and_restores_the_terminal() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(script(asking_out(), "unused")?);
    let mut command = home.command("run");
    command.args(["--approval", "on-request", "fetch it"]);
    let mut pty = Pty::spawn(&mut command)?;
    pty.expect("Allow? [y/N] ")?;
    support::send_signal("TERM", pty.id())?;
    let (status, output) = pty.finish()?;
    assert_eq!(status.code(), Some(143), "{output}");
    let restored = pty.termios()?.local_modes;
    assert!(
        restored.contains(LocalModes::ICANON | LocalModes::ECHO | LocalModes::ISIG),
        "{restored:?}"
    );
    // The command never ran, and the transcript pairs the call with a result.
    assert!(!output.contains("where=outside"), "{output}");
    assert!(
        output.contains("Allow? [y/N] \r\n"),
        "the prompt's line ends: {output:?}"
    );
    assert_eq!(home.tool_result_ids()?.len(), 1);
    Ok(())
}
