//! Shared by the terminal tests: a clawloop home over the scripted server, and a child on a
//! pseudo-terminal.

#![allow(dead_code)]

pub mod pty;

use std::path::PathBuf;
use std::process::Command;

use clawloop_testkit::{ProviderScriptServer, ScriptedExchange};
use serde_json::{Value, json};

/// Errors of a test.
pub type TestResult = Result<(), Box<dyn std::error::Error>>;

/// A clawloop home whose config points provider `acme` (models `m1` and `m2`) at the server.
pub struct Home {
    /// Holds `home/` and `workspace/`.
    pub dir: tempfile::TempDir,
}

impl Home {
    /// A home and workspace for `server`.
    pub fn new(server: &ProviderScriptServer) -> Result<Home, Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        std::fs::create_dir_all(dir.path().join("home"))?;
        std::fs::create_dir_all(dir.path().join("workspace"))?;
        std::fs::write(
            dir.path().join("home/config.toml"),
            format!(
                r#"[agents.defaults.model]
primary = "acme/m1"

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

    /// The clawloop home.
    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// The workspace.
    pub fn workspace(&self) -> PathBuf {
        self.dir.path().join("workspace")
    }

    /// `clawloop <subcommand> --workspace <workspace>` in this home, with `NO_COLOR` set.
    pub fn command(&self, subcommand: &str) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_clawloop"));
        command
            .arg(subcommand)
            .arg("--workspace")
            .arg(self.workspace())
            .env("CLAWLOOP_HOME", self.home())
            .env("NO_COLOR", "1");
        command
    }

    /// The tool call ids the home's session transcript pairs with a result, in file order
    /// (every line must parse).
    pub fn tool_result_ids(&self) -> Result<Vec<Value>, Box<dyn std::error::Error>> {
        let sessions = self.home().join("agents/main/sessions");
        let transcript = std::fs::read_dir(&sessions)?
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .find(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
            .ok_or("no transcript")?;
        let entries = std::fs::read_to_string(&transcript)?
            .lines()
            .map(serde_json::from_str::<Value>)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(entries
            .iter()
            .filter(|entry| entry["message"]["role"] == "toolResult")
            .map(|entry| entry["message"]["toolCallId"].clone())
            .collect())
    }
}

/// Sends `signal` (a name such as `TERM`) to `pid` with kill(1).
pub fn send_signal(signal: &str, pid: u32) -> TestResult {
    let status = Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()?;
    assert!(status.success(), "kill -{signal} {pid} failed");
    Ok(())
}

/// A script of one reply with `text`.
pub fn reply(text: &str) -> Result<Vec<ScriptedExchange>, serde_json::Error> {
    Ok(vec![serde_json::from_value(
        json!({"reply": {"text": text}}),
    )?])
}

/// Processes whose command line holds `needle`, not counting zombies.
pub fn live_processes_with(needle: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let zombie = stat
                .rsplit_once(')')
                .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'));
            !zombie
                && String::from_utf8_lossy(&cmdline)
                    .replace('\0', " ")
                    .contains(needle)
        })
        .collect()
}
