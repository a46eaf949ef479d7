//! The soak's fixtures: the release binary, the provider server on its own thread, and a
//! home whose config points two providers (four API keys) at it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use clawloop_testkit::{ProviderRuleServer, ReplyRule};
use serde_json::json;

/// The idle timeout the soak's config sets, in seconds.
pub const IDLE_TIMEOUT_SECONDS: u64 = 1;
/// How long an injected stall holds a body back: beyond the idle timeout.
pub const STALL_MS: u64 = 2_500;

/// Builds `clawloop` in release mode with `$CARGO`; its path.
pub fn build_release() -> Result<PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    println!("==> building clawloop: {cargo} build --release -p clawloop");
    match Command::new(&cargo)
        .args(["build", "--quiet", "--release", "-p", "clawloop"])
        .current_dir(crate::conformance::discover::workspace_root())
        .status()
    {
        Ok(s) if s.success() => {}
        Ok(s) => return Err(format!("cargo build --release -p clawloop failed ({s})")),
        Err(e) => return Err(format!("could not start `{cargo}`: {e}")),
    }
    let binary = super::release_dir().join(crate::demo::binary_name());
    if binary.is_file() {
        Ok(binary)
    } else {
        Err(format!(
            "clawloop was built but {} is missing",
            binary.display()
        ))
    }
}

/// The provider server, served on a thread of its own (the driver loop is blocking).
pub struct Server {
    /// `http://127.0.0.1:<port>`.
    pub url: String,
    stop: Arc<AtomicBool>,
    requests: Arc<AtomicUsize>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    /// Starts `rule` on a current-thread runtime on a new thread.
    pub fn start(rule: impl ReplyRule) -> Result<Server, String> {
        let stop = Arc::new(AtomicBool::new(false));
        let requests = Arc::new(AtomicUsize::new(0));
        let (tx, rx) = mpsc::channel();
        let (thread_stop, thread_requests) = (Arc::clone(&stop), Arc::clone(&requests));
        let thread = std::thread::spawn(move || {
            let runtime = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(runtime) => runtime,
                Err(e) => {
                    let _ = tx.send(Err(format!("cannot start a runtime: {e}")));
                    return;
                }
            };
            runtime.block_on(async move {
                let server = match ProviderRuleServer::start(rule).await {
                    Ok(server) => server,
                    Err(e) => {
                        let _ = tx.send(Err(format!("cannot start the provider server: {e}")));
                        return;
                    }
                };
                let _ = tx.send(Ok(server.url()));
                while !thread_stop.load(Ordering::Relaxed) {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    thread_requests.store(server.exchanges().len(), Ordering::Relaxed);
                }
            });
        });
        let url = rx
            .recv()
            .map_err(|_| "the provider server thread ended".to_owned())??;
        Ok(Server {
            url,
            stop,
            requests,
            thread: Some(thread),
        })
    }

    /// Requests answered so far.
    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::Relaxed)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The API keys of provider `acme`'s three auth profiles.
pub const PROFILE_KEYS: [&str; 3] = [
    "sk-soak-profile-1",
    "sk-soak-profile-2",
    "sk-soak-profile-3",
];

/// Writes `config.toml` (primary `acme/m1` with three auth profiles, fallback `beta/m1` with
/// a config key, a short idle timeout) and makes the workspace and scratch directories.
pub fn write_home(home: &Path, workspace: &Path, scratch: &Path, url: &str) -> Result<(), String> {
    let agent = home.join("agents/main/agent");
    for dir in [&agent, &workspace.to_path_buf(), &scratch.to_path_buf()] {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let config = format!(
        r#"[agents.defaults]
timeoutSeconds = 60

[agents.defaults.model]
primary = "acme/m1"
fallbacks = ["beta/m1"]

[agents.defaults.llm]
idleTimeoutSeconds = {IDLE_TIMEOUT_SECONDS}

[agents.defaults.retry]
transientHttpRetryDelayMs = 50

[models.providers.acme]
api = "openai-completions"
baseUrl = "{url}/p/acme/v1"
models = [{{ id = "m1", contextWindow = 128000, maxTokens = 4096 }}]

[models.providers.beta]
api = "openai-completions"
baseUrl = "{url}/p/beta/v1"
apiKey = "sk-soak-config"
models = [{{ id = "m1", contextWindow = 128000, maxTokens = 4096 }}]
"#
    );
    write(&home.join("config.toml"), &config)?;
    let profiles: serde_json::Map<String, serde_json::Value> = PROFILE_KEYS
        .iter()
        .enumerate()
        .map(|(i, key)| {
            (
                format!("acme:p{}", i + 1),
                json!({"type": "api_key", "provider": "acme", "key": key}),
            )
        })
        .collect();
    write(
        &agent.join("auth-profiles.json"),
        &json!({"version": 1, "profiles": profiles}).to_string(),
    )
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}
