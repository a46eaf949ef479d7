//! pi's and codex's command-line habits on `clawloop run`, through the real binary against the
//! scripted server: `-p`, `-c/--continue`, `-r/--resume`, `@file`, piped stdin with a prompt,
//! image limits, the workspace check, and SIGTERM/SIGHUP.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use clawloop_testkit::ProviderScriptServer;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use support::pty::Pty;
use support::{Home, TestResult, live_processes_with, reply, send_signal};

/// A hang guard, never an assertion on time.
const GUARD: Duration = Duration::from_secs(30);

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `clawloop run --workspace <workspace> <args>` with this home.
fn run_command(home: &Home, workspace: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_clawloop"));
    command
        .arg("run")
        .arg("--workspace")
        .arg(workspace)
        .args(args)
        .env("CLAWLOOP_HOME", home.home())
        .env("NO_COLOR", "1");
    command
}

/// Runs `command` with `stdin` piped to it, off the async runtime so the scripted server keeps
/// answering.
async fn output(mut command: Command, stdin: &str) -> std::io::Result<Output> {
    let stdin = stdin.to_owned();
    tokio::task::spawn_blocking(move || {
        use std::io::Write;
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        if let Some(mut pipe) = child.stdin.take() {
            pipe.write_all(stdin.as_bytes())?;
        }
        child.wait_with_output()
    })
    .await
    .map_err(std::io::Error::other)?
}

async fn run_in(home: &Home, workspace: &Path, args: &[&str]) -> std::io::Result<Output> {
    output(run_command(home, workspace, args), "").await
}

/// The text of the last user message of the last request.
fn last_user_content(server: &ProviderScriptServer) -> Value {
    let body = server
        .requests()
        .last()
        .and_then(|r| r.json.clone())
        .unwrap_or_default();
    body["messages"]
        .as_array()
        .and_then(|m| m.iter().rfind(|m| m["role"] == "user"))
        .map(|m| m["content"].clone())
        .unwrap_or_default()
}

/// The text parts of the last request's last user message, joined.
fn last_user_text(server: &ProviderScriptServer) -> String {
    match last_user_content(server) {
        Value::String(text) => text,
        Value::Array(parts) => parts
            .iter()
            .filter_map(|part| part["text"].as_str())
            .collect(),
        _ => String::new(),
    }
}

fn last_body(server: &ProviderScriptServer) -> String {
    server
        .requests()
        .last()
        .map(|r| r.body_text().into_owned())
        .unwrap_or_default()
}

/// A PNG's signature and header of `width`×`height`, and nothing else.
fn png_header(width: u32, height: u32) -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    bytes.extend(width.to_be_bytes());
    bytes.extend(height.to_be_bytes());
    bytes.extend([8, 6, 0, 0, 0]);
    bytes
}

/// Lets the configured models take images.
fn accept_images(home: &Home) -> std::io::Result<()> {
    let path = home.home().join("config.toml");
    let config = std::fs::read_to_string(&path)?.replace(
        "maxTokens = 4096 }",
        "maxTokens = 4096, input = [\"text\", \"image\"] }",
    );
    std::fs::write(path, config)
}

#[tokio::test(flavor = "multi_thread")]
async fn dash_p_prints_only_the_reply() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(reply("Hello there.")?);
    let out = run_in(&home, &home.workspace(), &["-p", "hi"]).await?;
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), "Hello there.\n".to_owned()),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    Ok(())
}

/// Three sessions: `older` and `newer` in the home's workspace, `elsewhere` (the newest of
/// all) in another directory.
async fn three_sessions(
    server: &ProviderScriptServer,
    home: &Home,
) -> Result<PathBuf, Box<dyn std::error::Error>> {
    let other = home.dir.path().join("other");
    std::fs::create_dir_all(&other)?;
    for (key, workspace, question) in [
        ("older", home.workspace(), "alpha question"),
        ("newer", home.workspace(), "gamma question"),
        ("elsewhere", other.clone(), "beta question"),
    ] {
        server.begin_turn(reply("ok")?);
        let out = run_in(home, &workspace, &["-p", "--session-key", key, question]).await?;
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(server.end_turn().problems(), Vec::<String>::new());
        // updatedAt is in milliseconds: keep the order unambiguous.
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    Ok(other)
}

#[tokio::test(flavor = "multi_thread")]
async fn continue_takes_the_workspaces_most_recent_session() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    three_sessions(&server, &home).await?;

    for flag in ["-c", "--continue"] {
        server.begin_turn(reply("continued")?);
        let out = run_in(&home, &home.workspace(), &["-p", flag, "and then?"]).await?;
        assert_eq!(
            (out.status.code(), text(&out.stdout)),
            (Some(0), "continued\n".to_owned()),
            "{}",
            text(&out.stderr)
        );
        assert_eq!(server.end_turn().problems(), Vec::<String>::new());
        let body = last_body(&server);
        assert!(body.contains("gamma question"), "{body}");
        assert!(!body.contains("beta question"), "{body}");
        assert!(!body.contains("alpha question"), "{body}");
    }

    // A workspace without sessions starts a fresh one, as pi does.
    let empty = home.dir.path().join("empty");
    std::fs::create_dir_all(&empty)?;
    server.begin_turn(reply("fresh")?);
    let out = run_in(&home, &empty, &["-p", "-c", "first here"]).await?;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    assert_eq!(last_user_text(&server), "first here");
    let body = last_body(&server);
    assert!(!body.contains("question"), "{body}");
    // …and the next -c there continues it.
    server.begin_turn(reply("again")?);
    let out = run_in(&home, &empty, &["-p", "-c", "second here"]).await?;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(last_body(&server).contains("first here"));

    let out = run_in(&home, &home.workspace(), &["-c", "--session", "abc", "x"]).await?;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn resume_off_a_terminal_lists_the_workspaces_sessions_and_exits_2() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    three_sessions(&server, &home).await?;
    let out = run_in(&home, &home.workspace(), &["-r", "hi"]).await?;
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let rows: Vec<Vec<&str>> = stdout
        .lines()
        .map(|line| line.split_whitespace().collect())
        .collect();
    let picked: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|row| (row[0], row[2], row[row.len() - 2]))
        .collect();
    assert_eq!(
        picked,
        [("1", "newer", "gamma"), ("2", "older", "alpha")],
        "{stdout}"
    );
    assert_eq!(
        stderr,
        "clawloop: --resume needs a terminal to pick from: pass --session ID with an id above\n"
    );
    assert!(server.requests().len() == 3, "no turn ran");
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn resume_on_a_terminal_continues_the_session_picked_by_number() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    three_sessions(&server, &home).await?;
    server.begin_turn(reply("resumed")?);
    let mut command = run_command(&home, &home.workspace(), &["-p", "-r", "and then?"]);
    command.env("TERM", "xterm-256color");
    let mut pty = Pty::spawn(&mut command)?;
    pty.expect("Resume which session? [1-2]")?;
    let listed = pty.text();
    assert!(listed.contains("gamma question"), "{listed}");
    pty.send("2\r")?;
    let (status, output) = pty.finish()?;
    assert_eq!(status.code(), Some(0), "{output}");
    assert!(output.contains("resumed"), "{output}");
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    let body = last_body(&server);
    assert!(body.contains("alpha question"), "{body}");
    assert!(!body.contains("gamma question"), "{body}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn at_file_arguments_inline_text_and_attach_images() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    accept_images(&home)?;
    let workspace = home.workspace();
    std::fs::create_dir_all(workspace.join("src"))?;
    std::fs::write(workspace.join("src/notes.txt"), "line one\n")?;
    std::fs::write(workspace.join("dot.png"), png_header(1, 1))?;
    std::fs::write(workspace.join("empty.txt"), "")?;
    server.begin_turn(reply("Summarized.")?);
    let out = run_in(
        &home,
        &workspace,
        &[
            "-p",
            "@src/notes.txt",
            "@empty.txt",
            "@dot.png",
            "sum",
            "it",
            "up",
        ],
    )
    .await?;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    let content = last_user_content(&server);
    let ws = workspace.display();
    assert_eq!(
        content[0]["text"],
        json!(format!(
            "<file name=\"{ws}/src/notes.txt\">\nline one\n\n</file>\n\
             <file name=\"{ws}/dot.png\"></file>\nsum it up"
        )),
        "{content}"
    );
    assert_eq!(content[1]["type"], json!("image_url"), "{content}");

    // An address, a bare `@` and a quoted prompt that starts with `@` are words.
    server.begin_turn(reply("Noted.")?);
    let out = run_in(
        &home,
        &workspace,
        &["-p", "@", "mail me@example.com", "@team what now"],
    )
    .await?;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        last_user_text(&server),
        "@ mail me@example.com @team what now"
    );

    let out = run_in(&home, &workspace, &["@missing.txt", "hi"]).await?;
    assert_eq!(
        (out.status.code(), text(&out.stderr)),
        (
            Some(2),
            format!("clawloop: @missing.txt: there is no file at {ws}/missing.txt\n")
        )
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_file_alone_is_the_prompt_on_a_terminal() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    std::fs::write(home.workspace().join("task.md"), "rename foo to bar")?;
    server.begin_turn(vec![serde_json::from_value(json!({
        "expectRequest": {"bodyContains": ["rename foo to bar"]},
        "reply": {"text": "Renamed."}}))?]);
    let mut command = run_command(&home, &home.workspace(), &["-p", "@task.md"]);
    command.env("TERM", "xterm-256color");
    let mut pty = Pty::spawn(&mut command)?;
    let (status, output) = pty.finish()?;
    assert_eq!(status.code(), Some(0), "{output}");
    assert!(output.contains("Renamed."), "{output}");
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn piped_stdin_comes_before_the_prompt() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(reply("It failed.")?);
    let command = run_command(&home, &home.workspace(), &["-p", "explain this"]);
    let out = output(command, "error: boom").await?;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(last_user_text(&server), "error: boom\nexplain this");
    // An empty pipe adds nothing.
    server.begin_turn(reply("Hi.")?);
    let out = run_in(&home, &home.workspace(), &["-p", "hi"]).await?;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(last_user_text(&server), "hi");
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn images_over_the_size_or_dimension_limit_are_refused_unread() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    accept_images(&home)?;
    let workspace = home.workspace();
    // 50 MB with a PNG header: sparse, so it costs no disk; refused from its metadata.
    let big = workspace.join("big.png");
    let file = std::fs::File::create(&big)?;
    std::io::Write::write_all(&mut &file, &png_header(10, 10))?;
    file.set_len(50 * 1024 * 1024)?;
    std::fs::write(workspace.join("wide.png"), png_header(9000, 10))?;
    let big_arg = big.display().to_string();
    let cases = [
        (
            vec!["--image", big_arg.as_str(), "hi"],
            format!(
                "clawloop: --image {big_arg}: the file is 50 MB, over the 20 MB limit for an \
                 image or file\n"
            ),
        ),
        (
            vec!["@big.png", "hi"],
            "clawloop: @big.png: the file is 50 MB, over the 20 MB limit for an image or file\n"
                .to_owned(),
        ),
        (
            vec!["@wide.png", "hi"],
            "clawloop: @wide.png: the image is 9000×10 pixels, over the limit of 8000 pixels \
             per side\n"
                .to_owned(),
        ),
    ];
    for (args, expected) in cases {
        let out = run_in(&home, &workspace, &args).await?;
        assert_eq!(
            (out.status.code(), text(&out.stderr)),
            (Some(2), expected),
            "{args:?}"
        );
    }
    assert!(server.requests().is_empty());
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_workspace_must_be_an_existing_directory() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    let file = home.dir.path().join("plain.txt");
    std::fs::write(&file, "x")?;
    let missing = home.dir.path().join("nonexistent");
    for (workspace, why) in [(&missing, "no such directory"), (&file, "not a directory")] {
        let out = run_in(&home, workspace, &["hi"]).await?;
        assert_eq!(
            (out.status.code(), text(&out.stderr)),
            (
                Some(2),
                format!("clawloop: --workspace {}: {why}\n", workspace.display())
            )
        );
    }
    assert!(!missing.exists(), "the workspace was created");
    assert!(server.requests().is_empty());
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_relative_workspace_is_resolved_once() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    let work = home.dir.path().join("work");
    std::fs::create_dir_all(&work)?;
    std::fs::write(work.join("hello.txt"), "hello from work\n")?;
    server.begin_turn(vec![
        serde_json::from_value(json!({"reply": {"toolCalls": [
            {"name": "read", "arguments": {"path": "hello.txt"}},
            {"name": "write", "arguments": {"path": "out.txt", "content": "written"}}]}}))?,
        serde_json::from_value(json!({
            "expectRequest": {"bodyContains": ["hello from work"]},
            "reply": {"text": "Done."}}))?,
    ]);
    let mut command = run_command(&home, Path::new("work"), &["-p", "copy it"]);
    command.current_dir(home.dir.path());
    let out = output(command, "").await?;
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), "Done.\n".to_owned()),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    assert_eq!(std::fs::read_to_string(work.join("out.txt"))?, "written");
    assert!(!work.join("work").exists());
    Ok(())
}

/// A turn whose bash tool runs `sleep <unique>` gets `signal`: the exit code, a transcript
/// that pairs the call with a result and parses, and no sleep left behind.
async fn a_signal_stops_the_turn_cleanly(signal: &str, code: i32, sleep: &str) -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(vec![serde_json::from_value(
        json!({"reply": {"toolCalls": [
            {"id": "call_sleep", "name": "bash", "arguments": {"command": format!("sleep {sleep}")}}
        ]}}),
    )?]);
    let child = run_command(
        &home,
        &home.workspace(),
        &["-p", "--session-key", "sig", "wait"],
    )
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()?;
    // Waits for the sleep, not for a time: the signal must land while the tool runs.
    let started = Instant::now();
    while live_processes_with(&format!("sleep {sleep}")).is_empty() {
        assert!(started.elapsed() < GUARD, "the bash tool never started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    send_signal(signal, child.id())?;
    let out = tokio::task::spawn_blocking(move || child.wait_with_output()).await??;
    assert_eq!(out.status.code(), Some(code), "{}", text(&out.stderr));
    let _ = server.end_turn();

    let started = Instant::now();
    while !live_processes_with(&format!("sleep {sleep}")).is_empty() {
        assert!(started.elapsed() < GUARD, "the sleep outlived clawloop");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(home.tool_result_ids()?, [json!("call_sleep")]);
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_aborts_the_turn_and_exits_143() -> TestResult {
    a_signal_stops_the_turn_cleanly("TERM", 143, "41.5").await
}

#[tokio::test(flavor = "multi_thread")]
async fn sighup_aborts_the_turn_and_exits_129() -> TestResult {
    a_signal_stops_the_turn_cleanly("HUP", 129, "42.5").await
}

#[tokio::test(flavor = "multi_thread")]
async fn system_prompt_replaces_the_generated_prompt() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(reply("Arr.")?);
    let out = run_in(
        &home,
        &home.workspace(),
        &["-p", "--system-prompt", "You are a terse pirate.", "hi"],
    )
    .await?;
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), "Arr.\n".to_owned()),
        "{}",
        text(&out.stderr)
    );
    let body = server
        .requests()
        .last()
        .and_then(|r| r.json.clone())
        .unwrap_or_default();
    let system = body["messages"][0]["content"].to_string();
    assert!(system.starts_with("\"You are a terse pirate."), "{system}");
    assert!(!system.contains("expert coding assistant"), "{system}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn max_turns_ends_a_turn_that_keeps_calling_tools() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    let calls_a_tool = || {
        serde_json::from_value(json!({"reply": {"toolCalls": [
            {"name": "ls", "arguments": {}}]}}))
    };
    server.begin_turn(vec![calls_a_tool()?, calls_a_tool()?, calls_a_tool()?]);
    let out = run_in(
        &home,
        &home.workspace(),
        &["-p", "--max-turns", "2", "loop"],
    )
    .await?;
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with("clawloop: The turn stopped after 2 tool rounds"),
        "{stderr}"
    );
    assert_eq!(server.requests().len(), 3);
    Ok(())
}
