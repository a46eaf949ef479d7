//! What a turn with a failed tool call ends as: the model's answer when it recovered (the
//! warning on stderr, exit 0), a failure when the error is all there is (exit 1).

mod support;

use std::process::{Command, Output, Stdio};

use clawloop_testkit::{ProviderScriptServer, ScriptedExchange};
use serde_json::{Value, json};
use support::{Home, TestResult};

fn exchange(reply: Value) -> Result<ScriptedExchange, serde_json::Error> {
    serde_json::from_value(json!({ "reply": reply }))
}

/// An `edit` whose `oldText` is not in the file: the tool refuses it.
fn refused_edit() -> Result<ScriptedExchange, serde_json::Error> {
    exchange(json!({"toolCalls": [{"name": "edit", "arguments": {
        "path": "note.txt", "oldText": "not in the file", "newText": "x"}}]}))
}

async fn print_run(home: &Home) -> std::io::Result<Output> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_clawloop"));
    command
        .args(["run", "--print", "fix the note", "--workspace"])
        .arg(home.workspace())
        .env("CLAWLOOP_HOME", home.home())
        .stdin(Stdio::null());
    tokio::task::spawn_blocking(move || command.output())
        .await
        .map_err(std::io::Error::other)?
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_edit_the_model_recovers_from_is_the_answer_with_a_warning() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    std::fs::write(home.workspace().join("note.txt"), "hello\n")?;
    server.begin_turn(vec![
        refused_edit()?,
        exchange(json!({"text": "That text is not in note.txt; I left it unchanged."}))?,
    ]);
    let out = print_run(&home).await?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    assert_eq!(
        (out.status.code(), String::from_utf8(out.stdout)?),
        (
            Some(0),
            "That text is not in note.txt; I left it unchanged.\n".to_owned()
        ),
        "{stderr}"
    );
    assert!(
        stderr.starts_with("clawloop: ⚠️") && stderr.contains("failed"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(home.workspace().join("note.txt"))?,
        "hello\n"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_edit_with_no_answer_fails() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    std::fs::write(home.workspace().join("note.txt"), "hello\n")?;
    server.begin_turn(vec![refused_edit()?, exchange(json!({"text": ""}))?]);
    let out = print_run(&home).await?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    assert_eq!(
        (out.status.code(), String::from_utf8(out.stdout)?),
        (Some(1), String::new()),
        "{stderr}"
    );
    assert!(stderr.contains("failed"), "{stderr}");
    Ok(())
}
