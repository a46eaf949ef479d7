//! `clawloop sessions show` names each step's entry id, the id `sessions fork --at` takes;
//! dim on a terminal.

mod support;

use std::process::{Command, Output, Stdio};

use clawloop_testkit::ProviderScriptServer;
use serde_json::{Value, json};
use support::pty::Pty;
use support::{Home, TestResult};

fn clawloop(home: &Home, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_clawloop"));
    command
        .args(args)
        .env("CLAWLOOP_HOME", home.home())
        .env("NO_COLOR", "1")
        .stdin(Stdio::null());
    command
}

async fn output(mut command: Command) -> std::io::Result<Output> {
    tokio::task::spawn_blocking(move || command.output())
        .await
        .map_err(std::io::Error::other)?
}

fn stdout(out: &Output) -> Result<String, String> {
    if out.status.code() != Some(0) {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    String::from_utf8(out.stdout.clone()).map_err(|e| e.to_string())
}

/// The ids ending the steps' first lines, in order.
fn shown_ids(page: &str) -> Vec<String> {
    page.lines()
        .filter(|line| !line.starts_with(' '))
        .filter_map(|line| line.rsplit_once(" · ").map(|(_, id)| id.to_owned()))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn show_lists_the_entry_ids_fork_takes() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    std::fs::write(home.workspace().join("note.txt"), "42\n")?;
    server.begin_turn(vec![
        serde_json::from_value(json!({"reply": {
            "text": "Reading.", "toolCalls": [{"name": "read", "arguments": {"path": "note.txt"}}]}}))?,
        serde_json::from_value(json!({"reply": {"text": "It says 42."}}))?,
    ]);
    let mut run = clawloop(
        &home,
        &["run", "--session-key", "ids", "read it", "--workspace"],
    );
    run.arg(home.workspace());
    stdout(&output(run).await?)?;
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());

    let page = stdout(&output(clawloop(&home, &["sessions", "show", "ids"])).await?)?;
    let file = page
        .lines()
        .find_map(|line| line.strip_prefix("file:"))
        .ok_or("no file line")?
        .trim();
    let message_ids: Vec<String> = std::fs::read_to_string(file)?
        .lines()
        .map(serde_json::from_str::<Value>)
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .filter(|entry| entry["type"] == "message")
        .filter_map(|entry| entry["id"].as_str().map(str::to_owned))
        .collect();
    let ids = shown_ids(&page);
    assert_eq!(ids.len(), 4, "{page}");
    assert_eq!(ids, message_ids, "{page}");

    // Forking at the first answer keeps the question and that answer.
    let fork = clawloop(
        &home,
        &["sessions", "fork", "ids", "--to", "early", "--at", &ids[1]],
    );
    stdout(&output(fork).await?)?;
    let forked = stdout(&output(clawloop(&home, &["sessions", "show", "early"])).await?)?;
    assert_eq!(shown_ids(&forked), ids[..2].to_vec(), "{forked}");
    assert!(
        forked.contains("  Reading.") && !forked.contains("It says 42."),
        "{forked}"
    );

    // On a terminal the ids are dim.
    let mut show = clawloop(&home, &["sessions", "show", "ids"]);
    show.env_remove("NO_COLOR").env("TERM", "xterm-256color");
    let (status, shown) = Pty::spawn(&mut show)?.finish()?;
    assert_eq!(status.code(), Some(0), "{shown:?}");
    assert!(
        shown.contains(&format!("user \u{1b}[2m· {}\u{1b}[0m", ids[0])),
        "{shown:?}"
    );
    Ok(())
}
