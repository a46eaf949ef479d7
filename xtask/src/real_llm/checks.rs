//! The checks: `clawloop run` (release build) against the local model, asserting the
//! protocol (what the proxy saw), the `--json` events and the transcript — never the
//! model's words, which a 135M model chooses freely.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Instant;

use clawloop_session::{SessionOptions, SessionStore, Transcript};
use serde_json::Value;

use super::config::{TOOL_MODEL, config_toml};
use super::outcome::{Failure, failed};
use super::proxy::{Recorded, RecordingProxy};
use crate::conformance::discover;

/// The file the tool-call turn asks the model to read.
const NOTE_FILE: &str = "notes.txt";
/// The few-shot example of the tool-call turn, in the chat template's tool-call syntax.
const FEW_SHOT: &str = "You answer requests to read a file by calling the read tool with \
    the file's path. Example:\nuser: Read the file todo.txt.\nassistant: <tool_call>\n\
    {\"name\": \"read\", \"arguments\": {\"path\": \"todo.txt\"}}\n</tool_call>";
/// The whole run's limit for each `clawloop run`, in seconds.
const TURN_TIMEOUT: &str = "600";

/// Builds the release `clawloop` binary and returns its path.
pub fn build_clawloop() -> Result<PathBuf, Failure> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let root = discover::workspace_root();
    let started = Instant::now();
    println!("==> building clawloop: {cargo} build --release -p clawloop");
    match Command::new(&cargo)
        .args(["build", "--quiet", "--release", "-p", "clawloop"])
        .current_dir(&root)
        .status()
    {
        Ok(s) if s.success() => {}
        Ok(s) => return failed(format!("cargo build --release -p clawloop failed ({s})")),
        Err(e) => return failed(format!("could not start `{cargo}`: {e}")),
    }
    println!("==> clawloop built in {:.0?}", started.elapsed());
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|dir| {
            if dir.is_relative() {
                root.join(dir)
            } else {
                dir
            }
        })
        .unwrap_or_else(|| root.join("target"));
    let binary = target
        .join("release")
        .join(format!("clawloop{}", std::env::consts::EXE_SUFFIX));
    if binary.is_file() {
        Ok(binary)
    } else {
        failed(format!(
            "clawloop was built but {} is missing",
            binary.display()
        ))
    }
}

/// The temp home and workspace of the checks.
struct Scene {
    binary: PathBuf,
    home: PathBuf,
    workspace: PathBuf,
}

impl Scene {
    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.binary);
        command
            .arg("run")
            .arg("--workspace")
            .arg(&self.workspace)
            .args(["--timeout", TURN_TIMEOUT])
            .args(args)
            .current_dir(&self.workspace)
            .env("CLAWLOOP_HOME", &self.home)
            .env("NO_COLOR", "1")
            .stdin(Stdio::null());
        command
    }

    /// Runs `clawloop run ARGS` off the runtime, so the proxy keeps relaying meanwhile.
    async fn run(&self, args: &[&str]) -> Result<Output, String> {
        let mut command = self.command(args);
        command.stdout(Stdio::piped()).stderr(Stdio::piped());
        tokio::task::spawn_blocking(move || command.output())
            .await
            .map_err(|e| format!("the clawloop task failed: {e}"))?
            .map_err(|e| format!("cannot run clawloop: {e}"))
    }

    /// The roles of the session's context messages (from the transcript, opened with the
    /// session crate) and the messages themselves as JSON.
    fn session(&self, key: &str) -> Result<Vec<Value>, String> {
        let sessions = self.home.join("agents/main/sessions");
        let record = SessionStore::new(&sessions)
            .find_by_key(key)
            .map_err(|e| format!("cannot read the session index: {e}"))?
            .ok_or_else(|| format!("no session for key {key:?}"))?;
        let path = record.transcript_path(&sessions);
        let transcript = Transcript::open(&path, SessionOptions::default())
            .map_err(|e| format!("the transcript {} does not open: {e}", path.display()))?;
        let report = transcript.report();
        if report.skipped_lines != 0 || report.torn_line.is_some() {
            return Err(format!(
                "the transcript {} has {} unusable lines",
                path.display(),
                report.skipped_lines
            ));
        }
        transcript
            .build_context()
            .messages
            .iter()
            .map(|m| serde_json::to_value(m).map_err(|e| e.to_string()))
            .collect()
    }
}

fn roles(messages: &[Value]) -> Vec<&str> {
    messages
        .iter()
        .map(|m| m["role"].as_str().unwrap_or("?"))
        .collect()
}

/// The text of an assistant message (its text blocks joined).
fn text_of(message: &Value) -> String {
    message["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter(|b| b["type"] == "text")
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("")
        })
        .unwrap_or_default()
}

/// Every string inside a JSON value.
fn strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// Whether a request's `messages` carry `text` (in one of its strings).
fn carries(request: &Recorded, text: &str) -> bool {
    let mut all = Vec::new();
    strings(&request.body["messages"], &mut all);
    all.iter().any(|s| s.contains(text.trim()))
}

fn exit_line(out: &Output) -> String {
    format!(
        "exit {:?}; stderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).trim()
    )
}

/// The `--json` events of a run.
fn events(stdout: &[u8]) -> Result<Vec<Value>, String> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            serde_json::from_str(l).map_err(|e| format!("a --json line is not JSON ({e}): {l}"))
        })
        .collect()
}

/// pi's JSON mode: the session header first, then the agent's events up to `agent_end`, then
/// at most the session's own checks that follow it (pi runs its compaction check after
/// `agent_end`, so `auto_compaction_start`/`_end` may come last; with this model's 16 384-token
/// window under the 20 000-token reserve floor they do on every turn).
fn runs_from_header_to_agent_end(types: &[&str]) -> bool {
    let Some(end) = types.iter().rposition(|t| *t == "agent_end") else {
        return false;
    };
    types.first() == Some(&"session")
        && types[end + 1..]
            .iter()
            .all(|t| matches!(*t, "auto_compaction_start" | "auto_compaction_end"))
}

/// The PASS/FAIL lines so far.
#[derive(Default)]
struct Report {
    failed: usize,
}

impl Report {
    fn record(&mut self, name: &str, started: Instant, result: Result<String, String>) {
        let took = started.elapsed();
        match result {
            Ok(detail) => println!("PASS {name} ({took:.1?}): {detail}"),
            Err(why) => {
                self.failed += 1;
                println!("FAIL {name} ({took:.1?}): {why}");
            }
        }
    }
}

/// Runs the four checks against `proxy`; `Ok(true)` when all passed.
pub async fn run_all(binary: &Path, proxy: &RecordingProxy, keep: bool) -> Result<bool, Failure> {
    let dir = match tempfile::Builder::new()
        .prefix("clawloop-real-llm-")
        .tempdir()
    {
        Ok(dir) => dir,
        Err(e) => return failed(format!("cannot create a temp directory: {e}")),
    };
    let scene = Scene {
        binary: binary.to_path_buf(),
        home: dir.path().join("home"),
        workspace: dir.path().join("workspace"),
    };
    let setup = std::fs::create_dir_all(&scene.home)
        .and_then(|()| std::fs::create_dir_all(&scene.workspace))
        .and_then(|()| {
            std::fs::write(
                scene.workspace.join(NOTE_FILE),
                "The launch code is 4242.\n",
            )
        })
        .and_then(|()| std::fs::write(scene.home.join("config.toml"), config_toml(&proxy.url())));
    if let Err(e) = setup {
        return failed(format!("cannot write the temp home and workspace: {e}"));
    }
    let mut report = Report::default();
    let started = Instant::now();
    report.record("text turn", started, text_turn(&scene, proxy).await);
    let started = Instant::now();
    report.record("second turn", started, second_turn(&scene, proxy).await);
    let started = Instant::now();
    report.record("tool-call turn", started, tool_turn(&scene, proxy).await);
    let started = Instant::now();
    report.record("interrupt", started, interrupt(&scene).await);
    if keep {
        let kept = dir.keep();
        println!("==> kept the home and workspace in {}", kept.display());
    }
    Ok(report.failed == 0)
}

/// `--print`: exit 0, a reply on stdout, one streamed request answering the prompt, and a
/// transcript of user then assistant.
async fn text_turn(scene: &Scene, proxy: &RecordingProxy) -> Result<String, String> {
    let before = proxy.requests().len();
    let out = scene
        .run(&[
            "--print",
            "--session-key",
            "real-text",
            "Say hello in one short sentence.",
        ])
        .await?;
    if out.status.code() != Some(0) {
        return Err(exit_line(&out));
    }
    if String::from_utf8_lossy(&out.stdout).trim().is_empty() {
        return Err("--print printed no reply".to_owned());
    }
    let requests = &proxy.requests()[before..];
    let first = requests.first().ok_or("the model was never called")?;
    if first.path != "/v1/chat/completions" || first.body["stream"] != Value::Bool(true) {
        return Err(format!(
            "unexpected request {} {}",
            first.path, first.body["stream"]
        ));
    }
    if first.body.get("tool_choice").is_some() {
        return Err("a tool_choice was sent for a model without one".to_owned());
    }
    let messages = scene.session("real-text")?;
    let roles = roles(&messages);
    if roles.first() != Some(&"user") || roles.last() != Some(&"assistant") {
        return Err(format!("transcript roles {roles:?}"));
    }
    Ok(format!(
        "{} request(s); transcript {roles:?}",
        requests.len()
    ))
}

/// The same session again: the first request carries the first exchange, and the transcript
/// holds both.
async fn second_turn(scene: &Scene, proxy: &RecordingProxy) -> Result<String, String> {
    let earlier = scene.session("real-text")?;
    let first_prompt = "Say hello in one short sentence.";
    let first_reply = earlier
        .iter()
        .rev()
        .find(|m| m["role"] == "assistant")
        .map(text_of)
        .unwrap_or_default();
    let before = proxy.requests().len();
    let out = scene
        .run(&["--print", "--session-key", "real-text", "Now say goodbye."])
        .await?;
    if out.status.code() != Some(0) {
        return Err(exit_line(&out));
    }
    let requests = &proxy.requests()[before..];
    let first = requests.first().ok_or("the model was never called")?;
    if !carries(first, first_prompt) || !carries(first, "Now say goodbye.") {
        return Err("the second request does not carry both prompts".to_owned());
    }
    if !first_reply.trim().is_empty() && !carries(first, &first_reply) {
        return Err("the second request does not carry the first reply".to_owned());
    }
    let messages = scene.session("real-text")?;
    let roles = roles(&messages);
    let users = roles.iter().filter(|r| **r == "user").count();
    if users != 2 || roles.len() <= earlier.len() || roles.last() != Some(&"assistant") {
        return Err(format!("transcript roles {roles:?}"));
    }
    Ok(format!("transcript {roles:?}"))
}

/// `--json` with the tool-forcing model: a `tool_execution_start` event, `tool_choice:
/// "required"` on the first request only, and a tool result in the transcript.
async fn tool_turn(scene: &Scene, proxy: &RecordingProxy) -> Result<String, String> {
    let before = proxy.requests().len();
    let prompt = format!("Read the file {NOTE_FILE}.");
    let out = scene
        .run(&[
            "--json",
            "--model",
            TOOL_MODEL,
            "--session-key",
            "real-tool",
            "--append-system-prompt",
            FEW_SHOT,
            &prompt,
        ])
        .await?;
    let events = events(&out.stdout)?;
    let types: Vec<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
    let started: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "tool_execution_start")
        .filter_map(|e| e["toolName"].as_str())
        .collect();
    if started.is_empty() {
        return Err(format!(
            "no tool_execution_start event ({}); events {types:?}",
            exit_line(&out)
        ));
    }
    if !runs_from_header_to_agent_end(&types) {
        return Err(format!(
            "the events do not run from the session header to agent_end: {types:?}"
        ));
    }
    let requests = &proxy.requests()[before..];
    let choices: Vec<Value> = requests
        .iter()
        .map(|r| r.body.get("tool_choice").cloned().unwrap_or(Value::Null))
        .collect();
    if choices.first() != Some(&Value::from("required"))
        || choices.iter().skip(1).any(|c| !c.is_null())
    {
        return Err(format!(
            "tool_choice per request {choices:?}; expected \"required\" then none"
        ));
    }
    let messages = scene.session("real-tool")?;
    let roles = roles(&messages);
    if !roles.contains(&"toolResult") {
        return Err(format!("no toolResult in the transcript {roles:?}"));
    }
    Ok(format!(
        "tools {started:?}; tool_choice {choices:?}; transcript {roles:?}; {}",
        exit_line(&out)
    ))
}

/// `--json` on a long answer, SIGINT after the first `message_update`: exit 130, the events
/// begin with the session header, and the transcript opens valid.
async fn interrupt(scene: &Scene) -> Result<String, String> {
    let mut command = scene.command(&[
        "--json",
        "--session-key",
        "real-abort",
        "Write a long story about a lighthouse keeper, in at least ten paragraphs.",
    ]);
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    let run =
        tokio::task::spawn_blocking(move || -> Result<(Option<i32>, Vec<Value>, bool), String> {
            let mut child = command
                .spawn()
                .map_err(|e| format!("cannot run clawloop: {e}"))?;
            let stdout = child.stdout.take().ok_or("no stdout pipe")?;
            let mut lines = Vec::new();
            let mut signalled = false;
            for line in BufReader::new(stdout).lines() {
                let line = line.map_err(|e| format!("cannot read clawloop's stdout: {e}"))?;
                let event: Value = serde_json::from_str(&line)
                    .map_err(|e| format!("a --json line is not JSON ({e}): {line}"))?;
                if !signalled && event["type"] == "message_update" {
                    signalled = Command::new("kill")
                        .args(["-INT", &child.id().to_string()])
                        .status()
                        .is_ok_and(|s| s.success());
                }
                lines.push(event);
            }
            let status = child
                .wait()
                .map_err(|e| format!("cannot wait for clawloop: {e}"))?;
            Ok((status.code(), lines, signalled))
        });
    let (code, events, signalled) = run
        .await
        .map_err(|e| format!("the clawloop task failed: {e}"))??;
    let types: Vec<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
    if !signalled {
        return Err(format!(
            "no message_update arrived to interrupt; exit {code:?}, events {types:?}"
        ));
    }
    if code != Some(130) {
        return Err(format!("exit {code:?} after SIGINT, expected 130"));
    }
    if types.first() != Some(&"session") {
        return Err(format!(
            "the first line is not the session header: {types:?}"
        ));
    }
    let messages = scene.session("real-abort")?;
    let roles = roles(&messages);
    if roles.first() != Some(&"user") {
        return Err(format!("transcript roles {roles:?}"));
    }
    let stop = messages
        .iter()
        .rev()
        .find(|m| m["role"] == "assistant")
        .map(|m| m["stopReason"].clone());
    Ok(format!(
        "exit 130 after {} events; transcript {roles:?}, last assistant stopReason {}",
        events.len(),
        stop.unwrap_or(Value::Null)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn json_events_end_with_agent_end_or_the_compaction_after_it() {
        use super::runs_from_header_to_agent_end as runs;
        assert!(runs(&["session", "agent_start", "agent_end"]));
        assert!(runs(&[
            "session",
            "agent_start",
            "agent_end",
            "auto_compaction_start",
            "auto_compaction_end"
        ]));
        assert!(!runs(&["agent_start", "agent_end"]));
        assert!(!runs(&["session", "agent_start", "turn_end"]));
        assert!(!runs(&["session", "agent_end", "message_start"]));
    }

    #[test]
    fn a_request_carries_text_in_any_message_shape() {
        let request = Recorded {
            path: "/v1/chat/completions".to_owned(),
            body: json!({"messages": [
                {"role": "user", "content": "Say hello."},
                {"role": "assistant", "content": [{"type": "text", "text": "Hello there!"}]},
            ]}),
        };
        assert!(carries(&request, "Say hello."));
        assert!(carries(&request, " Hello there! "));
        assert!(!carries(&request, "goodbye"));
        assert_eq!(
            text_of(&json!({"content": [{"type": "text", "text": "a"},
                {"type": "toolCall"}, {"type": "text", "text": "b"}]})),
            "ab"
        );
    }
}
