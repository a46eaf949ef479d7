//! `cargo xtask demo`: one whole agent turn of the real `clawloop` binary, with tool calls,
//! against the providers crate's scripted server on 127.0.0.1 — no key, no network.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use clawloop_testkit::{ProviderScriptServer, ScriptedExchange};
use serde_json::json;

use crate::conformance::discover;

/// The file the demo creates in its workspace and the model edits.
pub const DEMO_FILE: &str = "hello.txt";
/// The content of [`DEMO_FILE`] before the turn.
pub const ORIGINAL_TEXT: &str = "Helo, world!\n";
/// The content of [`DEMO_FILE`] after the model's `edit` call.
pub const EDITED_TEXT: &str = "Hello, world!\n";
/// The prompt the demo gives `clawloop run`.
pub const PROMPT: &str = "Look at the workspace and fix the greeting.";
/// The model's final answer.
pub const SUMMARY: &str = "Fixed the typo in hello.txt: \"Helo\" is now \"Hello\".";

/// What a finished demo turn left behind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The exit code of `clawloop run` (`None` when killed by a signal).
    pub exit_code: Option<i32>,
    /// [`DEMO_FILE`] after the turn.
    pub edited_file: String,
    /// The child's stdout when captured, empty when it went to the terminal.
    pub stdout: String,
}

/// Why the demo failed; the message says which step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DemoError(pub String);

impl fmt::Display for DemoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DemoError {}

fn fail<T>(step: &str, err: impl fmt::Display) -> Result<T, DemoError> {
    Err(DemoError(format!("{step}: {err}")))
}

/// `cargo xtask demo`: builds `clawloop`, runs the turn with its output on the terminal, and
/// returns the exit status (0 when the turn went as scripted).
pub fn run() -> u8 {
    let binary = match build_clawloop() {
        Ok(binary) => binary,
        Err(err) => {
            eprintln!("xtask demo: {err}");
            return 1;
        }
    };
    match run_demo(&binary, false) {
        Ok(outcome) if outcome.exit_code == Some(0) && outcome.edited_file == EDITED_TEXT => {
            println!("\n==> {DEMO_FILE} after the turn:\n{}", outcome.edited_file);
            println!("xtask demo: finished — a full agent turn (ls, read, edit, answer) ran");
            0
        }
        Ok(outcome) => {
            eprintln!(
                "xtask demo: clawloop exited with {:?}; {DEMO_FILE} is now {:?} (expected {:?})",
                outcome.exit_code, outcome.edited_file, EDITED_TEXT
            );
            1
        }
        Err(err) => {
            eprintln!("xtask demo: {err}");
            1
        }
    }
}

/// Builds the `clawloop` binary with `$CARGO` and returns its path, in the profile directory
/// of the running example (`cargo xtask` builds both into the same target directory and
/// profile).
fn build_clawloop() -> Result<PathBuf, DemoError> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    println!("==> building clawloop: {cargo} build -p clawloop");
    match Command::new(&cargo)
        .args(["build", "--quiet", "-p", "clawloop"])
        .current_dir(discover::workspace_root())
        .status()
    {
        Ok(s) if s.success() => {}
        Ok(s) => return fail("cargo build -p clawloop", format!("failed ({s})")),
        Err(e) => return fail(&format!("could not start `{cargo}`"), e),
    }
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => return fail("cannot locate the xtask binary", e),
    };
    let Some(profile_dir) = xtask::harness::profile_dir(&exe) else {
        return fail("cannot locate the target directory", exe.display());
    };
    let binary = profile_dir.join(binary_name());
    if binary.is_file() {
        Ok(binary)
    } else {
        fail("clawloop was built but is missing", binary.display())
    }
}

/// The file name of the `clawloop` binary on this platform.
pub fn binary_name() -> String {
    format!("clawloop{}", std::env::consts::EXE_SUFFIX)
}

/// The scripted exchange: `ls`, `read`, `edit`, then the summary. Each request after a tool
/// call must carry that tool's result, so a tool that did not run shows up as a mismatch.
pub fn script() -> Result<Vec<ScriptedExchange>, DemoError> {
    let steps = [
        json!({"reply": {
            "text": "Let me look at the workspace.",
            "toolCalls": [{"name": "ls", "arguments": {"path": "."}}]}}),
        json!({
            "expectRequest": {"bodyContains": [DEMO_FILE]},
            "reply": {
                "text": "There is a greeting file; reading it.",
                "toolCalls": [{"name": "read", "arguments": {"path": DEMO_FILE}}]}}),
        json!({
            "expectRequest": {"bodyContains": ["Helo, world!"]},
            "reply": {
                "text": "\"Helo\" is misspelled; fixing it.",
                "toolCalls": [{"name": "edit", "arguments": {
                    "path": DEMO_FILE, "oldText": "Helo", "newText": "Hello"}}]}}),
        json!({
            "expectRequest": {"bodyContains": [DEMO_FILE]},
            "reply": {"text": SUMMARY}}),
    ];
    steps
        .into_iter()
        .map(|step| serde_json::from_value(step).or_else(|e| fail("demo script", e)))
        .collect()
}

/// The demo's core: starts the scripted server, makes a temp workspace and home, runs
/// `binary run PROMPT` there (stdout captured when `capture`, else on the terminal) and
/// checks that the server saw exactly the scripted requests.
pub fn run_demo(binary: &Path, capture: bool) -> Result<Outcome, DemoError> {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return fail("cannot start the async runtime", e),
    };
    runtime.block_on(run_turn(binary.to_path_buf(), capture))
}

async fn run_turn(binary: PathBuf, capture: bool) -> Result<Outcome, DemoError> {
    let server = match ProviderScriptServer::start().await {
        Ok(server) => server,
        Err(e) => return fail("cannot start the scripted provider server", e),
    };
    let dir = match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(e) => return fail("cannot create a temp directory", e),
    };
    let home = dir.path().join("home");
    let workspace = dir.path().join("workspace");
    let file = workspace.join(DEMO_FILE);
    let setup = std::fs::create_dir_all(&home)
        .and_then(|()| std::fs::create_dir_all(&workspace))
        .and_then(|()| std::fs::write(&file, ORIGINAL_TEXT))
        .and_then(|()| std::fs::write(home.join("config.toml"), config(&server)));
    if let Err(e) = setup {
        return fail("cannot write the demo workspace and home", e);
    }
    server.begin_turn(script()?);
    println!(
        "==> clawloop run {PROMPT:?}  (workspace {})",
        workspace.display()
    );
    let child = {
        let (home, workspace) = (home.clone(), workspace.clone());
        tokio::task::spawn_blocking(move || run_child(&binary, &home, &workspace, capture))
    };
    // The child runs off the runtime so the scripted server keeps answering meanwhile.
    let output = match child.await {
        Ok(Ok(output)) => output,
        Ok(Err(e)) => return fail("cannot run clawloop", e),
        Err(e) => return fail("the clawloop runner task failed", e),
    };
    let problems = server.end_turn().problems();
    if !problems.is_empty() {
        return fail(
            "the scripted server saw unexpected requests",
            problems.join("; "),
        );
    }
    if server.remaining() != 0 {
        return fail(
            "the turn ended early",
            format!(
                "{} scripted replies were never requested",
                server.remaining()
            ),
        );
    }
    let edited_file = match std::fs::read_to_string(&file) {
        Ok(text) => text,
        Err(e) => return fail(&format!("cannot read {}", file.display()), e),
    };
    Ok(Outcome {
        exit_code: output.status.code(),
        edited_file,
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
    })
}

/// One `openai-completions` provider `demo` at the scripted server, with a literal key.
fn config(server: &ProviderScriptServer) -> String {
    format!(
        r#"[agents.defaults.model]
primary = "demo/demo-model"

[models.providers.demo]
api = "openai-completions"
baseUrl = "{}/v1"
apiKey = "demo-key"
models = [{{ id = "demo-model", contextWindow = 128000, maxTokens = 4096 }}]
"#,
        server.provider_url("demo")
    )
}

fn run_child(
    binary: &Path,
    home: &Path,
    workspace: &Path,
    capture: bool,
) -> std::io::Result<std::process::Output> {
    let stdout = if capture {
        Stdio::piped()
    } else {
        Stdio::inherit()
    };
    Command::new(binary)
        .arg("run")
        .arg("--workspace")
        .arg(workspace)
        .arg(PROMPT)
        .current_dir(workspace)
        .env("CLAWLOOP_HOME", home)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::inherit())
        .spawn()?
        .wait_with_output()
}
