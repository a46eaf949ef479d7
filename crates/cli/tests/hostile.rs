//! The real `clawloop` binary against hostile input: configs no request could use, endpoints
//! that refuse connections, models that send huge tool-call arguments, and tools that print
//! hundreds of megabytes.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use pretty_assertions::assert_eq;

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// A temporary clawloop home and workspace.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn with_config(config: &str) -> Result<Home, Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        std::fs::create_dir_all(dir.path().join("home"))?;
        std::fs::create_dir_all(dir.path().join("workspace"))?;
        std::fs::write(dir.path().join("home").join("config.toml"), config)?;
        Ok(Home { dir })
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn workspace(&self) -> PathBuf {
        self.dir.path().join("workspace")
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_clawloop"));
        command
            .args(args)
            .env("CLAWLOOP_HOME", self.home())
            .env("NO_COLOR", "1")
            .current_dir(self.workspace())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for name in [
            "CLAWLOOP_CONFIG",
            "CLAWLOOP_MODEL",
            "CLAWLOOP_THINKING",
            "CLAWLOOP_TIMEOUT",
            "CLAWLOOP_LOG",
        ] {
            command.env_remove(name);
        }
        command
    }

    /// Runs off the async runtime, so a scripted server keeps answering meanwhile.
    async fn run(&self, args: &[&str]) -> std::io::Result<Output> {
        let mut command = self.command(args);
        tokio::task::spawn_blocking(move || command.output())
            .await
            .map_err(std::io::Error::other)?
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A config whose only provider `acme` has `api` and `baseUrl` as given.
fn provider_config(api: &str, base_url: &str) -> String {
    format!(
        r#"[agents.defaults.model]
primary = "acme/m1"

[agents.defaults.retry]
transientHttpRetryDelayMs = 0

[models.providers.acme]
api = "{api}"
baseUrl = "{base_url}"
apiKey = "sk-test"
models = [{{ id = "m1", contextWindow = 128000, maxTokens = 4096 }}]
"#
    )
}

fn config_file(home: &Home) -> String {
    home.home().join("config.toml").display().to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unusable_api_or_base_url_is_a_config_error_in_every_command() -> TestResult {
    let rows = [
        (
            "openai",
            "http://127.0.0.1:9/v1",
            "models.providers.acme.api",
            "unknown api \"openai\"; expected one of openai-completions, openai-responses, anthropic-messages, google-generative-ai, ollama",
        ),
        (
            "openai-completions",
            "not a url",
            "models.providers.acme.baseUrl",
            "\"not a url\" is not an http(s) URL: it must start with http:// or https://",
        ),
        (
            "openai-completions",
            "ftp://x",
            "models.providers.acme.baseUrl",
            "\"ftp://x\" is not an http(s) URL: it must start with http:// or https://",
        ),
        (
            "openai-completions",
            "http://",
            "models.providers.acme.baseUrl",
            "\"http://\" is not a valid URL: empty host",
        ),
    ];
    for (api, base_url, key, why) in rows {
        let home = Home::with_config(&provider_config(api, base_url))?;
        let expected = format!("{}: key `{key}`: {why}", config_file(&home));
        for args in [
            &["run", "--print", "hi"][..],
            &["config", "show"][..],
            &["doctor"][..],
        ] {
            let out = home.run(args).await?;
            let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
            assert_eq!(out.status.code(), Some(2), "{args:?} {base_url}: {all}");
            assert!(all.contains(&expected), "{args:?}: {all}");
            assert!(!all.contains("panicked"), "{all}");
        }
        assert!(
            !home.home().join("agents").exists(),
            "no session for a refused config"
        );
    }
    Ok(())
}

/// Every file under `dir`, concatenated (the transcripts and logs a run left).
fn all_files(dir: &std::path::Path) -> String {
    let mut out = String::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.push_str(&all_files(&path));
        } else if let Ok(bytes) = std::fs::read(&path) {
            out.push_str(&text(&bytes));
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_connection_names_the_endpoint_and_no_secret() -> TestResult {
    for base_url in [
        "http://127.0.0.1:1/v1",
        "http://127.0.0.1:1/v1?token=sk-query",
    ] {
        let home = Home::with_config(&provider_config("openai-completions", base_url))?;
        let out = home.run(&["run", "--print", "hi"]).await?;
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains("connection refused by http://127.0.0.1:1/v1"),
            "{stderr}"
        );
        let left = format!(
            "{stderr}{}{}",
            all_files(&home.home().join("agents")),
            all_files(&home.home().join("logs"))
        );
        assert!(left.contains("http://127.0.0.1:1/v1"), "{left}");
        assert!(!left.contains("sk-query"), "{left}");
        assert!(!left.contains("sk-test"), "{left}");
    }
    Ok(())
}

/// The largest peak RSS, in MiB, of any child this test process reaped so far.
fn children_peak_rss_mib() -> Result<i64, nix::Error> {
    let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)?;
    // Linux reports ru_maxrss in KiB.
    Ok(usage.max_rss() / 1024)
}

/// An OpenAI chat-completions SSE body: one `read` call whose arguments are `payload_mib`
/// MiB, streamed in 64 KiB deltas as a runaway model would. (`read`, not `write`: how a
/// failed write is reported is another matter than the bound.)
fn huge_tool_call_stream(payload_mib: usize) -> String {
    let frame = |delta: serde_json::Value| {
        format!(
            "data: {}\n\n",
            serde_json::json!({"id": "c", "object": "chat.completion.chunk", "choices": [delta]})
        )
    };
    let call = |arguments: &str| {
        serde_json::json!({"index": 0, "delta": {"tool_calls": [
            {"index": 0, "function": {"arguments": arguments}}]}})
    };
    let mut body = frame(serde_json::json!({"index": 0, "delta": {"tool_calls": [
        {"index": 0, "id": "call_big", "type": "function",
         "function": {"name": "read", "arguments": "{\"path\":\"big.txt\",\"content\":\""}}]}}));
    let chunk = "x".repeat(64 * 1024);
    for _ in 0..payload_mib * 16 {
        body.push_str(&frame(call(&chunk)));
    }
    body.push_str(&frame(call("\"}")));
    body.push_str(&frame(
        serde_json::json!({"index": 0, "delta": {}, "finish_reason": "tool_calls"}),
    ));
    body.push_str("data: [DONE]\n\n");
    body
}

#[tokio::test(flavor = "multi_thread")]
async fn huge_tool_call_arguments_become_a_tool_error_in_bounded_memory() -> TestResult {
    use clawloop_testkit::ProviderScriptServer;
    let server = ProviderScriptServer::start().await?;
    let base_url = format!("{}/v1", server.provider_url("acme"));
    let home = Home::with_config(&provider_config("openai-completions", &base_url))?;
    server.begin_turn(vec![
        serde_json::from_value(serde_json::json!({"reply": {
            "raw": huge_tool_call_stream(50), "contentType": "text/event-stream"}}))?,
        serde_json::from_value(serde_json::json!({
            "expectRequest": {"bodyContains": ["tool call arguments exceed 4194304 bytes"]},
            "reply": {"text": "I will write it in parts."}}))?,
    ]);
    std::fs::write(home.workspace().join("big.txt"), "never read")?;
    let out = home.run(&["run", "--print", "read the file"]).await?;
    let stderr = text(&out.stderr);
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), "I will write it in parts.\n".to_owned()),
        "{stderr}"
    );
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    let transcript = all_files(&home.home().join("agents"));
    assert!(!transcript.contains("never read"), "the call never ran");
    assert!(
        transcript.contains("\"isError\":true")
            && transcript.contains("tool call arguments exceed 4194304 bytes (52428831 received)"),
        "{}",
        &transcript[..transcript.len().min(4000)]
    );
    let peak = children_peak_rss_mib()?;
    assert!(
        peak < 150,
        "peak RSS {peak} MiB for a 50 MiB argument stream"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_flood_of_bash_output_keeps_json_updates_small() -> TestResult {
    use clawloop_testkit::ProviderScriptServer;
    let server = ProviderScriptServer::start().await?;
    let base_url = format!("{}/v1", server.provider_url("acme"));
    let home = Home::with_config(&provider_config("openai-completions", &base_url))?;
    server.begin_turn(vec![
        serde_json::from_value(serde_json::json!({"reply": {"toolCalls": [
            {"id": "call_flood", "name": "bash",
             "arguments": {"command": "yes 0123456789abcdef | head -c 200000000; echo; echo END"}}]}}))?,
        serde_json::from_value(serde_json::json!({
            "expectRequest": {"bodyContains": ["END"]},
            "reply": {"text": "That was a lot."}}))?,
    ]);
    let out = home.run(&["run", "--json", "flood"]).await?;
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    let stdout = text(&out.stdout);
    let updates: Vec<&str> = stdout
        .lines()
        .filter(|line| line.contains("\"tool_execution_update\""))
        .collect();
    assert!(!updates.is_empty(), "the flood was reported while it ran");
    let largest = updates.iter().map(|line| line.len()).max().unwrap_or(0);
    assert!(largest < 32 * 1024, "an update of {largest} bytes");
    assert!(
        out.stdout.len() < 4 * 1024 * 1024,
        "--json wrote {} bytes for {} updates",
        out.stdout.len(),
        updates.len()
    );
    assert!(
        stdout.contains("That was a lot."),
        "{}",
        &stdout[stdout.len().saturating_sub(2000)..]
    );
    Ok(())
}
