//! A running `llama-server` on 127.0.0.1, stopped when dropped.

use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::outcome::{Failure, failed};

/// How long the server may take to load the model before `/health` answers 200.
const STARTUP_LIMIT: Duration = Duration::from_secs(300);

/// The model's context window, as configured for clawloop too.
pub const CONTEXT_WINDOW: u64 = 16384;

/// The server process and where it listens.
#[derive(Debug)]
pub struct LlamaServer {
    child: Child,
    addr: SocketAddr,
    log: PathBuf,
}

impl LlamaServer {
    /// Starts `binary` serving `model` with the Jinja chat `template` on a free port and waits
    /// until `/health` answers 200. Its output goes to `llama-server.log` next to the model.
    pub async fn start(binary: &Path, model: &Path, template: &Path) -> Result<Self, Failure> {
        let port = match TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).and_then(|l| l.local_addr()) {
            Ok(addr) => addr.port(),
            Err(err) => return failed(format!("cannot find a free port on 127.0.0.1: {err}")),
        };
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        let log = model.with_file_name("llama-server.log");
        let out = std::fs::File::create(&log).and_then(|f| Ok((f.try_clone()?, f)));
        let (stdout, stderr) = match out {
            Ok(files) => files,
            Err(err) => return failed(format!("cannot create {}: {err}", log.display())),
        };
        let child = Command::new(binary)
            .args(server_args(model, template, port))
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr)
            .spawn();
        let child = match child {
            Ok(child) => child,
            Err(err) => return failed(format!("cannot start {}: {err}", binary.display())),
        };
        let mut server = LlamaServer { child, addr, log };
        server.wait_healthy().await?;
        Ok(server)
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Its base URL.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    async fn wait_healthy(&mut self) -> Result<(), Failure> {
        let client = reqwest::Client::new();
        let health = format!("{}/health", self.url());
        let started = Instant::now();
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return failed(format!(
                    "llama-server exited during startup ({status}); see {}",
                    self.log.display()
                ));
            }
            // 503 while the model loads, 200 once it serves.
            if let Ok(response) = client.get(&health).send().await
                && response.status().is_success()
            {
                return Ok(());
            }
            if started.elapsed() > STARTUP_LIMIT {
                return failed(format!(
                    "llama-server did not become healthy within {STARTUP_LIMIT:?}; see {}",
                    self.log.display()
                ));
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `llama-server`'s arguments: the model, 127.0.0.1 only, the Jinja template (which renders
/// the tools and tool calls), one slot of the whole context, two threads, no web UI.
pub fn server_args(model: &Path, template: &Path, port: u16) -> Vec<String> {
    [
        "-m".to_owned(),
        model.display().to_string(),
        "--host".to_owned(),
        "127.0.0.1".to_owned(),
        "--port".to_owned(),
        port.to_string(),
        "--chat-template-file".to_owned(),
        template.display().to_string(),
        "--jinja".to_owned(),
        "--ctx-size".to_owned(),
        CONTEXT_WINDOW.to_string(),
        "--parallel".to_owned(),
        "1".to_owned(),
        "--threads".to_owned(),
        "2".to_owned(),
        "--no-webui".to_owned(),
    ]
    .into()
}
