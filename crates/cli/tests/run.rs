//! `clawloop run` as a child process against the providers crate's scripted server.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use clawloop_testkit::ProviderScriptServer;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// A clawloop home whose config points provider `acme` at the scripted server.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new(server: &ProviderScriptServer) -> Result<Home, Box<dyn std::error::Error>> {
        let home = Home::empty()?;
        home.write_config(&format!(
            r#"[agents.defaults.model]
primary = "acme/m1"

[agents.defaults.retry]
transientHttpRetryDelayMs = 0

[models.providers.acme]
api = "openai-completions"
baseUrl = "{}/v1"
apiKey = "sk-test"
models = [{{ id = "m1", contextWindow = 128000, maxTokens = 4096 }}]
"#,
            server.provider_url("acme")
        ))?;
        Ok(home)
    }

    fn empty() -> Result<Home, Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        std::fs::create_dir_all(dir.path().join("home"))?;
        std::fs::create_dir_all(dir.path().join("workspace"))?;
        Ok(Home { dir })
    }

    fn config_path(&self) -> PathBuf {
        self.dir.path().join("home").join("config.toml")
    }

    fn write_config(&self, text: &str) -> std::io::Result<()> {
        std::fs::write(self.config_path(), text)
    }

    /// Runs `clawloop run <args>` with this home, off the async runtime so the scripted
    /// server keeps answering while the child waits on it.
    async fn run(&self, args: &[&str], stdin: Option<&str>) -> std::io::Result<Output> {
        let home = self.dir.path().join("home");
        let workspace = self.dir.path().join("workspace");
        let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
        let stdin = stdin.map(str::to_owned);
        tokio::task::spawn_blocking(move || run_child(&home, &workspace, &args, stdin))
            .await
            .map_err(std::io::Error::other)?
    }
}

fn run_child(
    home: &Path,
    workspace: &Path,
    args: &[String],
    stdin: Option<String>,
) -> std::io::Result<Output> {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_clawloop"))
        .arg("run")
        .arg("--workspace")
        .arg(workspace)
        .args(args)
        .env("CLAWLOOP_HOME", home)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    if let Some(mut pipe) = child.stdin.take() {
        pipe.write_all(stdin.unwrap_or_default().as_bytes())?;
    }
    child.wait_with_output()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn reply(text: &str) -> Result<Vec<clawloop_testkit::ScriptedExchange>, serde_json::Error> {
    Ok(vec![serde_json::from_value(
        json!({"reply": {"text": text}}),
    )?])
}

#[tokio::test(flavor = "multi_thread")]
async fn print_writes_only_the_final_reply() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(reply("Hello there.")?);
    let out = home.run(&["--print", "hi"], None).await?;
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), "Hello there.\n".to_owned()),
        "stderr: {}",
        text(&out.stderr)
    );
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn prompt_comes_from_stdin_with_a_dash() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(vec![serde_json::from_value(json!({
        "expectRequest": {"bodyContains": ["piped question"]},
        "reply": {"text": "piped answer"}}))?]);
    let out = home
        .run(&["--print", "-"], Some("piped question\n"))
        .await?;
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), "piped answer\n".to_owned()),
        "stderr: {}",
        text(&out.stderr)
    );
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn default_output_prints_the_reply_and_how_to_continue() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(reply("Default answer.")?);
    let out = home.run(&["--session-key", "work", "hi"], None).await?;
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), "Default answer.\n".to_owned())
    );
    let stderr = text(&out.stderr);
    let last = stderr.lines().last().unwrap_or_default();
    let id = session_id_of(&home, "work")?;
    assert!(
        last.contains(&format!(" · session {id}; "))
            && last.ends_with("continue with: clawloop run --session-key work <PROMPT>"),
        "{stderr}"
    );
    assert!(
        !stderr.contains('\u{1b}'),
        "escape codes off a terminal: {stderr:?}"
    );
    Ok(())
}

/// The session id `key` points at in `sessions.json`.
fn session_id_of(home: &Home, key: &str) -> Result<String, Box<dyn std::error::Error>> {
    let store: Value = serde_json::from_str(&std::fs::read_to_string(
        home.dir
            .path()
            .join("home/agents/main/sessions/sessions.json"),
    )?)?;
    Ok(store[key]["sessionId"]
        .as_str()
        .ok_or("no session id")?
        .to_owned())
}

#[tokio::test(flavor = "multi_thread")]
async fn json_is_pi_json_mode_header_then_events() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(reply("Json answer.")?);
    let out = home.run(&["--json", "hi"], None).await?;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let lines: Vec<Value> = stdout
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    let types: Vec<&str> = lines
        .iter()
        .filter_map(|line| line.get("type").and_then(Value::as_str))
        .collect();
    assert_eq!(types.len(), lines.len(), "every line has a type");
    assert_eq!(types.first(), Some(&"session"));
    assert_eq!(types.get(1), Some(&"agent_start"));
    assert_eq!(types.last(), Some(&"agent_end"));
    // The header is the session file's first line, byte for byte.
    let id = session_id_of(&home, "main")?;
    let file = home
        .dir
        .path()
        .join(format!("home/agents/main/sessions/{id}.jsonl"));
    let on_disk = std::fs::read_to_string(file)?;
    assert_eq!(stdout.lines().next(), on_disk.lines().next());
    assert_eq!(
        (lines[0]["version"].clone(), lines[0]["id"].clone()),
        (json!(3), json!(id))
    );
    assert_eq!(
        lines[0]["cwd"],
        json!(home.dir.path().join("workspace").display().to_string())
    );
    let deltas: String = lines
        .iter()
        .filter(|line| line["type"] == "message_update")
        .filter(|line| line["assistantMessageEvent"]["type"] == "text_delta")
        .filter_map(|line| line["assistantMessageEvent"]["delta"].as_str())
        .collect();
    assert_eq!(deltas, "Json answer.");
    let update = lines
        .iter()
        .rfind(|line| line["assistantMessageEvent"]["type"] == "text_delta")
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        update["message"]["content"],
        json!([{"type": "text", "text": "Json answer."}])
    );
    assert!(!types.contains(&"turn_result"), "{types:?}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bad_config_value_exits_2_naming_file_and_key() -> TestResult {
    let home = Home::empty()?;
    home.write_config("[agents.defaults]\nmaxConcurrent = \"lots\"\n")?;
    let out = home.run(&["hi"], None).await?;
    let stderr = text(&out.stderr);
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(2), String::new())
    );
    let expected = format!(
        "clawloop: {}: key `agents.defaults.maxConcurrent`: ",
        home.config_path().display()
    );
    assert!(stderr.starts_with(&expected), "{stderr}");

    home.write_config("[agents.defaults\n")?;
    let out = home.run(&["hi"], None).await?;
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr.starts_with(&format!(
            "clawloop: {} is not valid TOML: ",
            home.config_path().display()
        )),
        "{stderr}"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn usage_errors_exit_2() -> TestResult {
    let home = Home::empty()?;
    let out = home.run(&["--thinking", "loud", "hi"], None).await?;
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("loud"), "{}", text(&out.stderr));
    let out = home.run(&["--model", "no-slash", "hi"], None).await?;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("provider/model"),
        "{}",
        text(&out.stderr)
    );
    let out = home.run(&["-"], Some("  \n")).await?;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("the prompt is empty"),
        "{}",
        text(&out.stderr)
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn an_auth_failure_exits_1_with_the_user_text() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(vec![serde_json::from_value(json!({"reply": {
        "status": 401,
        "body": {"error": {"message": "Incorrect API key provided"}}}}))?]);
    let out = home.run(&["--print", "hi"], None).await?;
    let stderr = text(&out.stderr);
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(1), String::new()),
        "{stderr}"
    );
    assert!(stderr.contains("Incorrect API key provided"), "{stderr}");
    assert!(
        !stderr.contains("Some(") && !stderr.contains("{ "),
        "a Debug dump: {stderr}"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn the_same_session_key_continues_the_transcript() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(reply("The first answer.")?);
    let first = home
        .run(&["--print", "--session-key", "s1", "first question"], None)
        .await?;
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());

    server.begin_turn(vec![serde_json::from_value(json!({
        "expectRequest": {"bodyContains": ["first question", "The first answer.", "second question"]},
        "reply": {"text": "The second answer."}}))?]);
    let second = home
        .run(&["--print", "--session-key", "s1", "second question"], None)
        .await?;
    assert_eq!(
        (second.status.code(), text(&second.stdout)),
        (Some(0), "The second answer.\n".to_owned()),
        "{}",
        text(&second.stderr)
    );
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());

    // Another key starts fresh.
    server.begin_turn(reply("Fresh.")?);
    let other = home
        .run(&["--print", "--session-key", "s2", "third"], None)
        .await?;
    assert_eq!(other.status.code(), Some(0));
    let requests = server.requests();
    let body = requests
        .last()
        .map(|r| r.body_text().into_owned())
        .unwrap_or_default();
    assert!(!body.contains("first question"), "{body}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_exits_130_and_leaves_the_session_usable() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    // The model never answers while the test interrupts the run.
    server.begin_turn(vec![serde_json::from_value(json!({"reply": {
        "text": "never seen", "stallMs": 600_000}}))?]);
    let child = Command::new(env!("CARGO_BIN_EXE_clawloop"))
        .args([
            "run",
            "--print",
            "--session-key",
            "int",
            "slow question",
            "--workspace",
        ])
        .arg(home.dir.path().join("workspace"))
        .env("CLAWLOOP_HOME", home.dir.path().join("home"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    // Waits for the request, not for a time: the signal must land while the turn runs.
    while server.requests().is_empty() {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()?;
    assert!(status.success());
    let out = tokio::task::spawn_blocking(move || child.wait_with_output()).await??;
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(130), String::new()),
        "{}",
        text(&out.stderr)
    );
    let _ = server.end_turn();

    server.begin_turn(reply("Back again.")?);
    let again = home
        .run(&["--print", "--session-key", "int", "again"], None)
        .await?;
    assert_eq!(
        (again.status.code(), text(&again.stdout)),
        (Some(0), "Back again.\n".to_owned()),
        "{}",
        text(&again.stderr)
    );
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn default_output_streams_each_block_before_and_after_a_tool() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    std::fs::write(
        home.dir.path().join("workspace").join("note.txt"),
        "the note says 42\n",
    )?;
    server.begin_turn(vec![
        serde_json::from_value(json!({"reply": {
            "text": "Let me read the note.",
            "toolCalls": [{"name": "read", "arguments": {"path": "note.txt"}}]}}))?,
        serde_json::from_value(json!({
            "expectRequest": {"bodyContains": ["the note says 42"]},
            "reply": {"text": "The note says 42."}}))?,
    ]);
    let out = home.run(&["read the note"], None).await?;
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (
            Some(0),
            "Let me read the note.\nThe note says 42.\n".to_owned()
        ),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn append_system_prompt_reaches_the_model() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(vec![serde_json::from_value(json!({
        "expectRequest": {"systemContains": ["Answer like a pirate."]},
        "reply": {"text": "Arr."}}))?]);
    let out = home
        .run(
            &[
                "--print",
                "--append-system-prompt",
                "Answer like a pirate.",
                "--timeout",
                "60",
                "hi",
            ],
            None,
        )
        .await?;
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), "Arr.\n".to_owned()),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_silent_reply_prints_nothing() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(reply("NO_REPLY")?);
    let out = home.run(&["--print", "hi"], None).await?;
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), String::new()),
        "{}",
        text(&out.stderr)
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn tool_activity_lines_go_to_stderr_with_the_last_line() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    std::fs::create_dir_all(home.dir.path().join("workspace/src"))?;
    std::fs::write(
        home.dir.path().join("workspace/src/main.rs"),
        "fn main() {}\n",
    )?;
    let missing = home.dir.path().join("workspace/gone.txt");
    server.begin_turn(vec![
        serde_json::from_value(json!({"reply": {
            "toolCalls": [{"name": "read", "arguments": {
                "path": home.dir.path().join("workspace/src/main.rs")}}]}}))?,
        serde_json::from_value(json!({"reply": {
            "toolCalls": [{"name": "read", "arguments": {"path": missing}}]}}))?,
        serde_json::from_value(json!({"reply": {
            "text": "Read it.", "usage": {"input": 120, "output": 7}}}))?,
    ]);
    let out = home.run(&["read main"], None).await?;
    let stderr = text(&out.stderr);
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), "Read it.\n".to_owned()),
        "{stderr}"
    );
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.first(), Some(&"▸ read from src/main.rs"), "{stderr}");
    let ok = lines.get(1).copied().unwrap_or_default();
    assert!(ok.starts_with("✓ ") && ok.ends_with(" ms"), "{stderr}");
    assert_eq!(lines.get(2), Some(&"▸ read from gone.txt"), "{stderr}");
    let failed = lines.get(3).copied().unwrap_or_default();
    assert!(
        failed.starts_with("✗ ") && failed.contains("gone.txt") && !failed.contains('\n'),
        "{stderr}"
    );
    let last = lines.last().copied().unwrap_or_default();
    assert!(last.starts_with("120 in · 7 out tokens · "), "{stderr}");
    assert!(
        !stderr.contains('\u{1b}') && !stderr.contains('\r'),
        "no spinner or colors off a terminal: {stderr:?}"
    );
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn new_starts_a_fresh_session_and_keeps_the_old_one() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(reply("First.")?);
    let out = home
        .run(&["--print", "--session-key", "k", "remember apples"], None)
        .await?;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let old = session_id_of(&home, "k")?;
    let _ = server.end_turn();

    server.begin_turn(reply("Fresh start.")?);
    let out = home
        .run(
            &["--print", "--new", "--session-key", "k", "hello again"],
            None,
        )
        .await?;
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), "Fresh start.\n".to_owned()),
        "{}",
        text(&out.stderr)
    );
    let new = session_id_of(&home, "k")?;
    assert_ne!(new, old);
    let body = server
        .requests()
        .last()
        .map(|r| r.body_text().into_owned())
        .unwrap_or_default();
    assert!(!body.contains("remember apples"), "{body}");
    let sessions = home.dir.path().join("home/agents/main/sessions");
    assert!(sessions.join(format!("{old}.jsonl")).is_file());
    assert!(sessions.join(format!("{new}.jsonl")).is_file());
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn session_continues_a_session_by_its_id() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(reply("Noted.")?);
    let out = home
        .run(
            &["--print", "--session-key", "notes", "the code is 7311"],
            None,
        )
        .await?;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let id = session_id_of(&home, "notes")?;
    let _ = server.end_turn();

    server.begin_turn(vec![serde_json::from_value(json!({
        "expectRequest": {"bodyContains": ["the code is 7311", "what was the code"]},
        "reply": {"text": "7311."}}))?]);
    let out = home
        .run(
            &["--print", "--session", &id[..8], "what was the code"],
            None,
        )
        .await?;
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), "7311.\n".to_owned()),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());

    let out = home
        .run(&["--session", "0000dead-beef", "hi"], None)
        .await?;
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with("clawloop: --session 0000dead-beef: no session with this id"),
        "{stderr}"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn image_goes_to_the_model_as_an_image_part() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    // The model must take images, or the runner leaves them out of the request.
    let config = std::fs::read_to_string(home.config_path())?.replace(
        "maxTokens = 4096 }",
        "maxTokens = 4096, input = [\"text\", \"image\"] }",
    );
    home.write_config(&config)?;
    let png = home.dir.path().join("dot.png");
    // A 1×1 PNG's signature and header: the dimensions are checked, the pixels are not.
    std::fs::write(
        &png,
        b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0",
    )?;
    server.begin_turn(reply("A dot.")?);
    let png_arg = png.display().to_string();
    let out = home
        .run(&["--print", "--image", &png_arg, "what is this"], None)
        .await?;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let body = server
        .requests()
        .last()
        .and_then(|r| r.json.clone())
        .unwrap_or_default();
    let parts = body["messages"]
        .as_array()
        .and_then(|m| m.iter().rfind(|m| m["role"] == "user"))
        .map(|m| m["content"].clone())
        .unwrap_or_default();
    let image = parts
        .as_array()
        .and_then(|p| p.iter().find(|p| p["type"] == "image_url"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        image["image_url"]["url"],
        json!("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAA="),
        "{body}"
    );

    let text_file = home.dir.path().join("notes.txt");
    std::fs::write(&text_file, "just text")?;
    for (path, why) in [
        (
            text_file.display().to_string(),
            "not a PNG, JPEG, GIF or WebP image",
        ),
        ("/nonexistent/x.png".to_owned(), "cannot read it"),
    ] {
        let out = home.run(&["--image", &path, "hi"], None).await?;
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.starts_with(&format!("clawloop: --image {path}: {why}")),
            "{stderr}"
        );
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn tools_and_no_tools_limit_what_the_model_is_offered() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    server.begin_turn(reply("Fine.")?);
    let out = home.run(&["--print", "hi"], None).await?;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let all = server
        .requests()
        .last()
        .map(|r| r.tool_names())
        .unwrap_or_default();
    assert!(all.len() > 2 && all.contains(&"bash".to_owned()), "{all:?}");

    server.begin_turn(reply("Fine.")?);
    let out = home.run(&["--print", "--no-tools", "hi"], None).await?;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let request = server.requests().last().cloned().ok_or("no request")?;
    assert_eq!(request.tool_names(), Vec::<String>::new());
    assert!(
        request
            .json
            .as_ref()
            .is_some_and(|body| body.get("tools").is_none()),
        "{}",
        request.body_text()
    );

    server.begin_turn(reply("Fine.")?);
    let out = home
        .run(&["--print", "--tools", "read,ls", "hi"], None)
        .await?;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let mut names = server
        .requests()
        .last()
        .map(|r| r.tool_names())
        .unwrap_or_default();
    names.sort();
    assert_eq!(names, vec!["ls".to_owned(), "read".to_owned()]);

    let out = home.run(&["--tools", "read,teleport", "hi"], None).await?;
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with("clawloop: --tools: there is no built-in tool `teleport`"),
        "{stderr}"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn the_last_line_prices_the_run_when_the_model_has_prices() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    let config = std::fs::read_to_string(home.config_path())?.replace(
        "maxTokens = 4096 }",
        "maxTokens = 4096, cost = { input = 3.0, output = 15.0 } }",
    );
    home.write_config(&config)?;
    server.begin_turn(vec![serde_json::from_value(json!({"reply": {
        "text": "Priced.", "usage": {"input": 2000, "output": 100}}}))?]);
    let out = home.run(&["hi"], None).await?;
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let last = stderr.lines().last().unwrap_or_default();
    // 2000 × $3/M + 100 × $15/M = $0.0075.
    assert!(
        last.starts_with("2000 in · 100 out tokens · $0.0075 · "),
        "{stderr}"
    );
    Ok(())
}

#[test]
fn a_missing_api_key_names_the_environment_variable() -> TestResult {
    let home = Home::empty()?;
    let out = Command::new(env!("CARGO_BIN_EXE_clawloop"))
        .args(["run", "--print", "--model", "openai/gpt-4o-mini", "hi"])
        .arg("--workspace")
        .arg(home.dir.path().join("workspace"))
        .env("CLAWLOOP_HOME", home.dir.path().join("home"))
        .env("NO_COLOR", "1")
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::null())
        .output()?;
    let stderr = text(&out.stderr);
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(1), String::new()),
        "{stderr}"
    );
    assert!(
        stderr.contains("No API key resolved for provider \"openai\""),
        "the runner's text: {stderr}"
    );
    assert!(
        stderr.contains("set OPENAI_API_KEY in the environment"),
        "the hint names the variable: {stderr}"
    );
    Ok(())
}
