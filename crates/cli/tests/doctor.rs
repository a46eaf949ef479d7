//! `clawloop doctor [--fix]` as a child process over real homes: files with real modes, a lock
//! file naming a dead process, a transcript written with the session crate, and `clawloop run`
//! against the providers crate's scripted server afterwards.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use clawloop_core::StopReason;
use clawloop_core::message::{AgentMessage, AssistantMessage, ContentBlock, ToolCall};
use clawloop_session::{SessionOptions, Transcript};
use clawloop_testkit::ProviderScriptServer;
use pretty_assertions::assert_eq;
use serde_json::json;

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// A pid no process can have: above Linux's largest `pid_max` (2^22).
const DEAD_PID: u32 = 4_194_304 + 29;

struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    /// A home whose config points `acme` at the scripted server, plus `extra` config text.
    fn new(server: &ProviderScriptServer, extra: &str) -> Result<Home, Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home)?;
        std::fs::create_dir_all(dir.path().join("workspace"))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o700))?;
        }
        std::fs::write(
            home.join("config.toml"),
            format!(
                r#"[agents.defaults.model]
primary = "acme/m1"

[agents.defaults.retry]
transientHttpRetryDelayMs = 0

[models.providers.acme]
api = "openai-completions"
baseUrl = "{}/v1"
models = [{{ id = "m1", contextWindow = 128000, maxTokens = 4096 }}]
{extra}"#,
                server.provider_url("acme")
            ),
        )?;
        Ok(Home { dir })
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn sessions(&self) -> PathBuf {
        self.home().join("agents").join("main").join("sessions")
    }

    async fn clawloop(&self, args: &[&str], stdin: &str) -> std::io::Result<Output> {
        let home = self.home();
        let workspace = self.dir.path().join("workspace");
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        let stdin = stdin.to_owned();
        tokio::task::spawn_blocking(move || run_child(&home, &workspace, &args, &stdin))
            .await
            .map_err(std::io::Error::other)?
    }
}

fn run_child(
    home: &Path,
    workspace: &Path,
    args: &[String],
    stdin: &str,
) -> std::io::Result<Output> {
    use std::io::Write;
    let mut command = Command::new(env!("CARGO_BIN_EXE_clawloop"));
    command.args(args);
    if args.first().map(String::as_str) == Some("run") {
        command.arg("--workspace").arg(workspace);
    }
    let mut child = command
        .env("CLAWLOOP_HOME", home)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    if let Some(mut pipe) = child.stdin.take() {
        pipe.write_all(stdin.as_bytes())?;
    }
    child.wait_with_output()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn marks(listing: &str) -> Vec<char> {
    listing.lines().filter_map(|l| l.chars().next()).collect()
}

fn reply(text: &str) -> Result<Vec<clawloop_testkit::ScriptedExchange>, serde_json::Error> {
    Ok(vec![serde_json::from_value(
        json!({"reply": {"text": text}}),
    )?])
}

/// A port on 127.0.0.1 nothing listens on (bound, then let go).
fn closed_port() -> std::io::Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.port())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_clean_home_passes_and_an_unreachable_provider_only_warns() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let port = closed_port()?;
    let home = Home::new(
        &server,
        &format!(
            "\n[models.providers.offline]\napi = \"openai-completions\"\nbaseUrl = \"http://127.0.0.1:{port}/v1\"\napiKey = \"k\"\n"
        ),
    )?;
    let added = home
        .clawloop(&["auth", "add", "acme"], "sk-doctor-secret\n")
        .await?;
    assert_eq!(added.status.code(), Some(0), "{}", text(&added.stderr));

    let out = home.clawloop(&["doctor"], "").await?;
    let listing = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{listing}{}", text(&out.stderr));
    assert!(!listing.contains("sk-doctor-secret"), "{listing}");
    let warnings: Vec<&str> = listing.lines().filter(|l| !l.starts_with('✓')).collect();
    assert_eq!(warnings.len(), 1, "{listing}");
    assert!(
        warnings[0].starts_with(&format!(
            "! provider offline: cannot connect to http://127.0.0.1:{port}/v1"
        )),
        "{listing}"
    );
    assert!(
        listing
            .lines()
            .any(|l| l == "✓ acme/m1: auth profile acme:default has a secret"),
        "{listing}"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_credential_fails() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server, "")?;
    let out = home.clawloop(&["doctor"], "").await?;
    let listing = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{listing}");
    assert!(
        listing.lines().any(
            |l| l == "✗ acme/m1: no credential for provider acme: run `clawloop auth add acme`"
        ),
        "{listing}"
    );
    Ok(())
}

/// `doctor`, `run` and `models list` agree on the model of a config without a primary.
#[tokio::test(flavor = "multi_thread")]
async fn without_a_primary_the_only_provider_s_first_model_is_checked_and_run() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server, "")?;
    let config = home.home().join("config.toml");
    let original = std::fs::read_to_string(&config)?;
    let without_primary = original.replace("primary = \"acme/m1\"\n", "");
    assert_ne!(without_primary, original);
    std::fs::write(
        &config,
        without_primary.replace(
            "models = [{ id = \"m1\"",
            "apiKey = \"sk-test\"\nmodels = [{ id = \"m2\" }, { id = \"m1\"",
        ),
    )?;
    let out = home.clawloop(&["doctor"], "").await?;
    let listing = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{listing}");
    let expected = [
        "✓ no primary model configured (agents.defaults.model.primary): runs use acme/m2, the first model of the only configured provider",
        "✓ acme/m2: provider acme has a key from models.providers apiKey in config.toml",
    ];
    for line in expected {
        assert!(listing.lines().any(|l| l == line), "{line:?} in {listing}");
    }

    let models = home
        .clawloop(&["models", "list", "--provider", "acme"], "")
        .await?;
    let table = text(&models.stdout);
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("acme/m2") && l.ends_with("  default")),
        "{table}"
    );

    server.begin_turn(reply("From m2.")?);
    let run = home.clawloop(&["run", "--print", "hello"], "").await?;
    assert_eq!(
        (run.status.code(), text(&run.stdout)),
        (Some(0), "From m2.\n".to_owned()),
        "{}",
        text(&run.stderr)
    );
    let models: Vec<Option<String>> = server.requests().iter().map(|r| r.model.clone()).collect();
    assert_eq!(models, vec![Some("m2".to_owned())]);
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn configured_models_nobody_knows_fail_naming_the_key_and_the_closest() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server, "")?;
    let out = home
        .clawloop(
            &[
                "--config",
                "agents.defaults.model.primary=acme/m9",
                "--config",
                "agents.defaults.model.fallbacks=[\"nope/x\"]",
                "doctor",
            ],
            "",
        )
        .await?;
    let listing = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{listing}");
    assert!(
        listing.lines().any(|l| l
            == "✗ agents.defaults.model.primary: model `acme/m9` is unknown: provider `acme` has no model `m9`; the closest known: acme/m1"),
        "{listing}"
    );
    assert!(
        listing.lines().any(|l| l.starts_with(
            "✗ agents.defaults.model.fallbacks: model `nope/x` is unknown: no provider `nope`"
        )),
        "{listing}"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn fix_repairs_modes_stale_locks_and_orphaned_tool_calls() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server, "")?;
    let added = home.clawloop(&["auth", "add", "acme"], "sk-acme\n").await?;
    assert_eq!(added.status.code(), Some(0), "{}", text(&added.stderr));
    server.begin_turn(reply("first answer")?);
    let first = home.clawloop(&["run", "--print", "hello"], "").await?;
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());

    // 1. The credentials file readable by everyone.
    let profiles = home.home().join("agents/main/agent/auth-profiles.json");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&profiles, std::fs::Permissions::from_mode(0o644))?;
    }
    // 2. A tool call a killed run left without a result.
    let transcripts: Vec<PathBuf> = std::fs::read_dir(home.sessions())?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    assert_eq!(transcripts.len(), 1, "{transcripts:?}");
    let transcript = transcripts[0].clone();
    {
        let mut t = Transcript::open_locked(&transcript, SessionOptions::default())?;
        let mut call =
            AssistantMessage::empty("openai-completions", "acme", "m1", 1_700_000_000_000);
        call.content.push(ContentBlock::ToolCall(ToolCall::new(
            "call_orphan",
            "read",
            json!({"path": "a.txt"}),
        )));
        call.stop_reason = StopReason::ToolUse;
        t.append_message(call)?;
        t.close()?;
    }
    // 3. The transcript's lock file, left by a process that is gone.
    let lock = transcript.with_extension("jsonl.lock");
    std::fs::write(
        &lock,
        format!("{{\"pid\":{DEAD_PID},\"createdAt\":\"2026-01-01T00:00:00.000Z\"}}"),
    )?;

    let found = home.clawloop(&["doctor"], "").await?;
    let listing = text(&found.stdout);
    // Warnings only: every run would still work.
    assert_eq!(found.status.code(), Some(0), "{listing}");
    let expected = [
        format!(
            "! auth file {} is mode 0644, open to group or others: `clawloop doctor --fix` sets 0600",
            profiles.display()
        ),
        format!(
            "! stale lock {} (its process {DEAD_PID} is gone): `clawloop doctor --fix` removes it",
            lock.display()
        ),
        format!(
            "! {} ends with 1 tool call(s) without results (call_orphan): `clawloop doctor --fix` answers them",
            transcript.display()
        ),
    ];
    for line in &expected {
        assert!(
            listing.lines().any(|l| l == line),
            "missing {line:?} in\n{listing}"
        );
    }
    assert_eq!(
        marks(&listing).iter().filter(|m| **m != '✓').count(),
        3,
        "{listing}"
    );

    let fixed = home.clawloop(&["doctor", "--fix"], "").await?;
    let listing = text(&fixed.stdout);
    assert_eq!(fixed.status.code(), Some(0), "{listing}");
    let expected = [
        format!(
            "✓ fixed: auth file {} was mode 0644, now 0600",
            profiles.display()
        ),
        format!(
            "✓ fixed: removed stale lock {} (its process {DEAD_PID} is gone)",
            lock.display()
        ),
        format!(
            "✓ fixed: answered 1 orphaned tool call(s) in {} (call_orphan)",
            transcript.display()
        ),
    ];
    for line in &expected {
        assert!(
            listing.lines().any(|l| l == line),
            "missing {line:?} in\n{listing}"
        );
    }
    assert!(!lock.exists());

    let again = home.clawloop(&["doctor"], "").await?;
    let listing = text(&again.stdout);
    assert_eq!(again.status.code(), Some(0), "{listing}");
    assert!(marks(&listing).iter().all(|m| *m == '✓'), "{listing}");

    // The repaired transcript opens, ends with the answer, and the next run continues it.
    let reopened = Transcript::open(&transcript, SessionOptions::default())?;
    let last = reopened.build_context().messages.last().cloned();
    assert!(
        matches!(&last, Some(AgentMessage::ToolResult(r)) if r.tool_call_id == "call_orphan" && r.is_error),
        "{last:?}"
    );
    drop(reopened);
    server.begin_turn(vec![serde_json::from_value(json!({
        "expectRequest": {"bodyContains": ["call_orphan", "second question"]},
        "reply": {"text": "second answer"}}))?]);
    let second = home
        .clawloop(&["run", "--print", "second question"], "")
        .await?;
    assert_eq!(
        (second.status.code(), text(&second.stdout)),
        (Some(0), "second answer\n".to_owned()),
        "{}",
        text(&second.stderr)
    );
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    Ok(())
}

/// `clawloop doctor`'s sandbox line with `CLAWLOOP_SANDBOX_BACKEND` set to `backend`.
fn sandbox_line(
    home: &Home,
    backend: &str,
) -> Result<(Option<i32>, String), Box<dyn std::error::Error>> {
    let out = Command::new(env!("CARGO_BIN_EXE_clawloop"))
        .arg("doctor")
        .env("CLAWLOOP_HOME", home.home())
        .env("NO_COLOR", "1")
        .env("CLAWLOOP_SANDBOX_BACKEND", backend)
        .stdin(Stdio::null())
        .output()?;
    let stdout = text(&out.stdout);
    let line = stdout
        .lines()
        .find(|line| line.contains("sandbox"))
        .ok_or_else(|| format!("no sandbox line in {stdout:?}"))?
        .to_owned();
    Ok((out.status.code(), line))
}

#[tokio::test]
async fn doctor_names_the_sandbox_backend_and_what_it_enforces() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(
        &server,
        "apiKey = \"sk-test\"\n\n[sandbox]\napproval = \"on-request\"\n",
    )?;
    let (_, line) = sandbox_line(&home, "landlock")?;
    assert!(
        line.starts_with("✓ sandbox: Landlock + seccomp, the helper as child subreaper: workspace-write, network on;"),
        "{line}"
    );
    assert!(line.contains("the clawloop home hidden"), "{line}");
    assert!(line.ends_with("; approval on-request"), "{line}");
    // bubblewrap, where it is installed: no network namespace while the network is on.
    let bwrap = Command::new("bwrap").arg("--version").output();
    if bwrap.is_ok_and(|out| out.status.success()) {
        let (_, line) = sandbox_line(&home, "bwrap")?;
        assert!(
            line.starts_with("✓ sandbox: bubblewrap (mount and pid namespaces) + seccomp: workspace-write, network on;"),
            "{line}"
        );
    }
    let (code, line) = sandbox_line(&home, "nonsense")?;
    assert_eq!(code, Some(1));
    assert_eq!(
        line,
        "✗ sandbox: CLAWLOOP_SANDBOX_BACKEND must be bwrap, landlock or auto, not `nonsense`"
    );
    Ok(())
}

#[tokio::test]
async fn doctor_warns_when_the_sandbox_is_off() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(
        &server,
        "apiKey = \"sk-test\"\n\n[sandbox]\nmode = \"off\"\n",
    )?;
    let (_, line) = sandbox_line(&home, "auto")?;
    assert_eq!(
        line,
        "! sandbox is off: bash commands run with your full rights"
    );
    Ok(())
}
