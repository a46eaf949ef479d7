//! Failures that used to look like success, through the real `clawloop run` against the
//! scripted server: timeouts, a model that calls tools forever, the coding prompt the CLI
//! sends instead of the chat gateway's, and turns that fail before any reply (a refusal, a
//! refused connection, a server error, an unknown model, a resting profile).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use clawloop_testkit::{ProviderScriptServer, ScriptedExchange};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// A clawloop home whose provider `acme` (models `m1`, `m2`) is the scripted server, with
/// `extra` appended to its config.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new(server: &ProviderScriptServer, extra: &str) -> Result<Home, Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        std::fs::create_dir_all(dir.path().join("home"))?;
        std::fs::create_dir_all(dir.path().join("workspace"))?;
        std::fs::write(
            dir.path().join("home/config.toml"),
            format!(
                r#"[agents.defaults]
{extra}

[agents.defaults.retry]
transientHttpRetryDelayMs = 0

[models.providers.acme]
api = "openai-completions"
baseUrl = "{}/v1"
apiKey = "sk-test"
models = [{{ id = "m1", contextWindow = 128000, maxTokens = 4096 }}, {{ id = "m2", contextWindow = 128000, maxTokens = 4096 }}]
"#,
                server.provider_url("acme")
            ),
        )?;
        Ok(Home { dir })
    }

    fn workspace(&self) -> PathBuf {
        self.dir.path().join("workspace")
    }

    /// Runs `clawloop run <args>` off the async runtime, so the server keeps answering.
    async fn run(&self, args: &[&str]) -> std::io::Result<Output> {
        self.run_with_stdin(args, String::new()).await
    }

    async fn run_with_stdin(&self, args: &[&str], stdin: String) -> std::io::Result<Output> {
        let home = self.dir.path().join("home");
        let workspace = self.workspace();
        let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
        tokio::task::spawn_blocking(move || run_child(&home, &workspace, &args, &stdin))
            .await
            .map_err(std::io::Error::other)?
    }

    /// Every transcript line of every session file, parsed.
    fn transcript_entries(&self) -> Result<Vec<Value>, Box<dyn std::error::Error>> {
        let dir = self.dir.path().join("home/agents/main/sessions");
        let mut entries = Vec::new();
        for file in std::fs::read_dir(dir)? {
            let path = file?.path();
            if path.extension().is_some_and(|e| e == "jsonl") {
                for line in std::fs::read_to_string(&path)?.lines() {
                    entries.push(serde_json::from_str(line)?);
                }
            }
        }
        Ok(entries)
    }
}

fn run_child(
    home: &Path,
    workspace: &Path,
    args: &[String],
    stdin: &str,
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
        // The child may refuse before reading it all; a closed pipe is its answer, not ours.
        let _ = pipe.write_all(stdin.as_bytes());
    }
    child.wait_with_output()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn exchanges(values: Vec<Value>) -> Result<Vec<ScriptedExchange>, serde_json::Error> {
    values.into_iter().map(serde_json::from_value).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_idle_timeout_after_partial_text_fails_the_turn() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(
        &server,
        "model = { primary = \"acme/m1\" }\nllm = { idleTimeoutSeconds = 0.5 }",
    )?;
    // The same-model retry after an idle timeout stalls as well.
    let stalled = json!({"reply": {
        "textChunks": ["Partial ", "answer ", "never finished"],
        "stallAfterChunks": 2, "stallMs": 20000}});
    server.begin_turn(exchanges(vec![
        stalled.clone(),
        json!({"optional": true, "reply": stalled["reply"].clone()}),
    ])?);
    let out = home.run(&["--print", "hi"]).await?;
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("LLM idle timeout") && stderr.contains("idleTimeoutSeconds"),
        "{stderr}"
    );
    // --print writes the answer, and a cut-short reply is none.
    assert_eq!(text(&out.stdout), "");
    server.end_turn();
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_whole_run_timeout_fails_and_never_falls_back() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(
        &server,
        "model = { primary = \"acme/m1\", fallbacks = [\"acme/m2\"] }\nllm = { idleTimeoutSeconds = 0 }",
    )?;
    server.begin_turn(exchanges(vec![
        json!({"expectRequest": {"model": "m1"}, "reply": {
            "textChunks": ["Half ", "an ", "answer"], "stallAfterChunks": 2, "stallMs": 20000}}),
        // Offered, and must stay unused: a run timeout is no reason to ask another model.
        json!({"optional": true, "expectRequest": {"model": "m2"}, "reply": {"text": "fallback answer"}}),
    ])?);
    let out = home.run(&["--print", "--timeout", "1", "hi"]).await?;
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("timed out"), "{stderr}");
    assert!(!text(&out.stdout).contains("fallback answer"));
    let turn = server.end_turn();
    let models: Vec<Option<String>> = turn.requests.iter().map(|r| r.model.clone()).collect();
    assert_eq!(models, [Some("m1".to_owned())]);
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_model_calling_tools_forever_stops_at_the_round_limit() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(
        &server,
        "model = { primary = \"acme/m1\" }\nmaxToolRounds = 3",
    )?;
    let call = |i: usize| json!({"reply": {"toolCalls": [{"id": format!("call_{i}"), "name": "ls", "arguments": {}}]}});
    server.begin_turn(exchanges((0..4).map(call).collect())?);
    let out = home.run(&["--print", "look around"]).await?;
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("3 tool rounds")
            && stderr.contains("--max-turns")
            && stderr.contains("agents.defaults.maxToolRounds"),
        "{stderr}"
    );
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    // The transcript stays valid: every call has its result.
    let entries = home.transcript_entries()?;
    let calls: Vec<String> = entries
        .iter()
        .filter(|e| e["message"]["role"] == "assistant")
        .flat_map(|e| {
            e["message"]["content"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter(|block| block["type"] == "toolCall")
        .filter_map(|block| block["id"].as_str().map(str::to_owned))
        .collect();
    let results: Vec<String> = entries
        .iter()
        .filter(|e| e["message"]["role"] == "toolResult")
        .filter_map(|e| e["message"]["toolCallId"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(calls.len(), 4);
    assert_eq!(results, calls);
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cli_sends_the_coding_prompt_with_the_projects_agents_md() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server, "model = { primary = \"acme/m1\" }")?;
    std::fs::write(home.workspace().join("AGENTS.md"), "Always run cargo fmt.")?;
    server.begin_turn(exchanges(vec![json!({
        "expectRequest": {
            "systemContains": [
                "expert coding assistant operating inside clawloop",
                "- read: Read file contents",
                "Always run cargo fmt.",
                "Answer like a pirate.",
                "Current working directory: "
            ],
            "systemNotContains": [
                "personal assistant", "Reply Tags", "routes to the source channel",
                "Group Chat Context"
            ]
        },
        "reply": {"text": "Arr."}})])?);
    let out = home
        .run(&[
            "--print",
            "--append-system-prompt",
            "Answer like a pirate.",
            "hi",
        ])
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
async fn a_session_keeps_the_model_the_user_chose() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server, "model = { primary = \"acme/m1\" }")?;
    let answered_by = |model: &str, text: &str| json!({"expectRequest": {"model": model}, "reply": {"text": text}});
    server.begin_turn(exchanges(vec![answered_by("m2", "first")])?);
    let out = home
        .run(&["--print", "--session-key", "k1", "--model", "acme/m2", "hi"])
        .await?;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    // The next turn names no model: it continues on the session's, not the primary.
    server.begin_turn(exchanges(vec![answered_by("m2", "second")])?);
    let out = home
        .run(&["--print", "--session-key", "k1", "again"])
        .await?;
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), "second\n".to_owned()),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    // Another session still starts on the primary.
    server.begin_turn(exchanges(vec![answered_by("m1", "third")])?);
    let out = home
        .run(&["--print", "--session-key", "k2", "hello"])
        .await?;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_prompt_larger_than_the_window_is_refused_and_the_session_is_untouched() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server, "model = { primary = \"acme/m1\" }")?;
    server.begin_turn(exchanges(vec![json!({"reply": {"text": "first"}})])?);
    let out = home.run(&["--print", "--session-key", "k1", "hi"]).await?;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    server.end_turn();
    let store = home
        .dir
        .path()
        .join("home/agents/main/sessions/sessions.json");
    let before_store: Value = serde_json::from_str(&std::fs::read_to_string(&store)?)?;
    let before_entries = home.transcript_entries()?;
    // 600 000 chars: ~150 000 tokens against a 128 000-token window.
    server.begin_turn(Vec::new());
    let out = home
        .run_with_stdin(
            &["--print", "--session-key", "k1", "-"],
            "x".repeat(600_000),
        )
        .await?;
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("too large")
            && stderr.contains("about 150")
            && stderr.contains("window is 128000 tokens"),
        "{stderr}"
    );
    let turn = server.end_turn();
    assert_eq!(turn.requests.len(), 0);
    let after_store: Value = serde_json::from_str(&std::fs::read_to_string(&store)?)?;
    assert_eq!(
        after_store["k1"]["sessionId"],
        before_store["k1"]["sessionId"]
    );
    assert_eq!(home.transcript_entries()?, before_entries);
    Ok(())
}

impl Home {
    /// Runs `clawloop <args>` (any subcommand) against this home.
    fn command(&self, args: &[&str]) -> std::io::Result<Output> {
        Command::new(env!("CARGO_BIN_EXE_clawloop"))
            .args(args)
            .env("CLAWLOOP_HOME", self.dir.path().join("home"))
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .output()
    }

    fn session_files(&self) -> Result<Vec<PathBuf>, Box<dyn std::error::Error>> {
        let dir = self.dir.path().join("home/agents/main/sessions");
        if !dir.exists() {
            return Ok(Vec::new());
        }
        let mut files = Vec::new();
        for file in std::fs::read_dir(dir)? {
            let path = file?.path();
            if path.extension().is_some_and(|e| e == "jsonl") {
                files.push(path);
            }
        }
        Ok(files)
    }
}

fn refusal() -> Value {
    json!({"reply": {"status": 401, "body": {"error": {"message": "invalid api key", "type": "authentication_error"}}}})
}

#[tokio::test(flavor = "multi_thread")]
async fn a_new_key_whose_turn_fails_before_a_reply_leaves_no_session_and_logs_why() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server, "model = { primary = \"acme/m1\" }")?;
    server.begin_turn(exchanges(vec![refusal()])?);
    let out = home
        .run(&["--print", "--session-key", "fresh", "hi"])
        .await?;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    server.end_turn();
    let list = home.command(&["sessions", "list", "--json"])?;
    assert_eq!(list.status.code(), Some(0), "{}", text(&list.stderr));
    assert!(
        !text(&list.stdout).contains("fresh"),
        "{}",
        text(&list.stdout)
    );
    assert_eq!(home.session_files()?, Vec::<PathBuf>::new());
    let logs = home.command(&["logs"])?;
    let logs = text(&logs.stdout);
    assert!(
        logs.contains("ERROR") && logs.contains("turn failed before a reply"),
        "{logs}"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_key_with_a_session_keeps_it_after_a_turn_that_fails_before_a_reply() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server, "model = { primary = \"acme/m1\" }")?;
    server.begin_turn(exchanges(vec![json!({"reply": {"text": "first"}})])?);
    let out = home.run(&["--print", "--session-key", "k1", "hi"]).await?;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    server.end_turn();
    let store = home
        .dir
        .path()
        .join("home/agents/main/sessions/sessions.json");
    let before: Value = serde_json::from_str(&std::fs::read_to_string(&store)?)?;
    server.begin_turn(exchanges(vec![refusal()])?);
    let out = home
        .run(&["--print", "--session-key", "k1", "again"])
        .await?;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    server.end_turn();
    let after: Value = serde_json::from_str(&std::fs::read_to_string(&store)?)?;
    assert_eq!(after["k1"]["sessionId"], before["k1"]["sessionId"]);
    assert_eq!(home.session_files()?.len(), 1);
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cooling_down_profile_says_until_when_and_how_to_reset_it() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server, "model = { primary = \"acme/m1\" }")?;
    let agent_dir = home.dir.path().join("home/agents/main/agent");
    std::fs::create_dir_all(&agent_dir)?;
    std::fs::write(
        agent_dir.join("auth-profiles.json"),
        json!({"version": 1, "profiles": {"acme:default": {"type": "api_key", "provider": "acme", "key": "sk-test"}}})
            .to_string(),
    )?;
    let limited = || json!({"optional": true, "reply": {"status": 429, "body": {"error": {"message": "rate limit exceeded", "type": "rate_limit_error"}}}});
    server.begin_turn(exchanges(vec![limited(), limited(), limited()])?);
    let out = home.run(&["--print", "hi"]).await?;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    server.end_turn();
    // The profile rests now: the next run asks no model and says what to do.
    server.begin_turn(Vec::new());
    let out = home.run(&["--print", "again"]).await?;
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(server.end_turn().requests.len(), 0, "{stderr}");
    assert_eq!(text(&out.stdout), "");
    let hint = stderr
        .lines()
        .find(|line| line.contains("cooling down"))
        .unwrap_or_default();
    assert!(
        hint.starts_with("clawloop: auth profile acme:default is cooling down until ")
            && hint.contains(" (in ")
            && hint.contains("`clawloop auth reset acme:default`"),
        "{stderr}"
    );
    Ok(())
}

/// Runs a first turn on key `k1`, then (after `before_second`) a second one that `failing`
/// makes fail before any reply; returns the second run's exit code, stdout and stderr, with the session's id.
async fn second_turn_fails(
    server: &ProviderScriptServer,
    home: &Home,
    failing: Vec<Value>,
    before_second: impl FnOnce() -> std::io::Result<()>,
) -> Result<(Option<i32>, String, String, String), Box<dyn std::error::Error>> {
    server.begin_turn(exchanges(vec![json!({"reply": {"text": "first"}})])?);
    let out = home.run(&["--print", "--session-key", "k1", "hi"]).await?;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    server.end_turn();
    let store: Value = serde_json::from_str(&std::fs::read_to_string(
        home.dir
            .path()
            .join("home/agents/main/sessions/sessions.json"),
    )?)?;
    let session_id = store["k1"]["sessionId"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    before_second()?;
    server.begin_turn(exchanges(failing)?);
    let out = home
        .run(&["--print", "--session-key", "k1", "again"])
        .await?;
    server.end_turn();
    // Every line of the transcript still parses.
    home.transcript_entries()?;
    Ok((
        out.status.code(),
        text(&out.stdout),
        text(&out.stderr),
        session_id,
    ))
}

/// Exit 1, nothing on stdout, the cause in the first `clawloop:` line, the session shown.
fn assert_failed_before_a_reply(
    (code, stdout, stderr, session_id): (Option<i32>, String, String, String),
    cause: &str,
) {
    assert_eq!((code, stdout.as_str()), (Some(1), ""), "{stderr}");
    let said: Vec<&str> = stderr
        .lines()
        .filter(|line| line.starts_with("clawloop: "))
        .collect();
    assert_eq!(said.len(), 1, "{stderr}");
    assert!(said[0].contains(cause), "{cause:?} not in {stderr}");
    assert!(!session_id.is_empty());
    assert!(
        stderr
            .lines()
            .any(|line| line.starts_with(&format!("session {session_id}; continue with: "))),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_connection_fails_before_a_reply_naming_the_endpoint() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server, "model = { primary = \"acme/m1\" }")?;
    // A port that was free a moment ago: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let config = home.dir.path().join("home/config.toml");
    let dead = format!("http://127.0.0.1:{port}/v1");
    let outcome = second_turn_fails(&server, &home, Vec::new(), || {
        let text = std::fs::read_to_string(&config)?;
        let live = text
            .lines()
            .find_map(|line| line.strip_prefix("baseUrl = \""))
            .and_then(|rest| rest.strip_suffix('"'))
            .unwrap_or_default()
            .to_owned();
        std::fs::write(&config, text.replace(&live, &dead))
    })
    .await?;
    assert_failed_before_a_reply(outcome, &format!("connection refused by {dead}"));
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_error_on_every_try_fails_before_a_reply() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server, "model = { primary = \"acme/m1\" }")?;
    let broken = || json!({"optional": true, "reply": {"status": 500, "body": {"error": {"message": "upstream exploded", "type": "server_error"}}}});
    let outcome = second_turn_fails(
        &server,
        &home,
        (0..6).map(|_| broken()).collect(),
        || Ok(()),
    )
    .await?;
    assert_failed_before_a_reply(outcome, "500 upstream exploded");
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_model_the_server_does_not_know_fails_before_a_reply_naming_it() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server, "model = { primary = \"acme/m1\" }")?;
    let unknown = || {
        json!({"optional": true, "reply": {"status": 404, "body": {"error": {
        "message": "The model `m1` does not exist or you do not have access to it.",
        "type": "invalid_request_error", "code": "model_not_found"}}}})
    };
    let outcome = second_turn_fails(&server, &home, (0..4).map(|_| unknown()).collect(), || {
        Ok(())
    })
    .await?;
    assert_failed_before_a_reply(outcome, "The model `m1` does not exist");
    Ok(())
}
