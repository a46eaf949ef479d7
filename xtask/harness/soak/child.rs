//! One `clawloop run` process of the soak: started with its output in files, watched for its
//! peak RSS, interrupted or killed when its fate says so.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// What the soak does to a process while it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// Left alone.
    Normal,
    /// SIGINT after the delay.
    Interrupt(Duration),
    /// SIGKILL after the delay (a short one lands before the turn, between turns).
    Kill(Duration),
}

/// A running `clawloop run`.
pub struct RunningTurn {
    /// Turn number.
    pub turn: u64,
    /// The session key.
    pub key: String,
    /// The prompt.
    pub prompt: String,
    /// What happens to it.
    pub fate: Fate,
    /// When it started.
    pub started: Instant,
    /// Peak RSS (VmHWM) seen, in KiB.
    pub peak_rss_kib: u64,
    signalled: bool,
    child: Child,
    stdout: PathBuf,
    stderr: PathBuf,
}

/// How a turn ended.
#[derive(Debug, Clone)]
pub struct FinishedTurn {
    /// Turn number.
    pub turn: u64,
    /// The session key.
    pub key: String,
    /// The prompt.
    pub prompt: String,
    /// Its exit status.
    pub status: ExitStatus,
    /// Its stdout.
    pub stdout: String,
    /// Its stderr.
    pub stderr: String,
    /// When it started, relative to the soak's start.
    pub started_after: Duration,
    /// Peak RSS in KiB (0 when never sampled).
    pub peak_rss_kib: u64,
}

/// The paths and settings every turn shares.
pub struct Launcher {
    /// The release `clawloop` binary.
    pub binary: PathBuf,
    /// `$CLAWLOOP_HOME`.
    pub home: PathBuf,
    /// The workspace.
    pub workspace: PathBuf,
    /// Where each turn's stdout and stderr go.
    pub scratch: PathBuf,
}

impl Launcher {
    /// Starts `clawloop run --print` for `prompt` on `key`, in a fresh session for the key
    /// (`--new`) when `new_session`.
    pub fn start(
        &self,
        turn: u64,
        key: &str,
        prompt: &str,
        fate: Fate,
        new_session: bool,
    ) -> std::io::Result<RunningTurn> {
        let stdout = self.scratch.join(format!("turn-{turn}.out"));
        let stderr = self.scratch.join(format!("turn-{turn}.err"));
        let mut command = Command::new(&self.binary);
        command.args(["run", "--print", "--session-key", key]);
        if new_session {
            command.arg("--new");
        }
        let child = command
            .arg("--workspace")
            .arg(&self.workspace)
            .arg(prompt)
            .env("CLAWLOOP_HOME", &self.home)
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(File::create(&stdout)?)
            .stderr(File::create(&stderr)?)
            .spawn()?;
        Ok(RunningTurn {
            turn,
            key: key.to_owned(),
            prompt: prompt.to_owned(),
            fate,
            started: Instant::now(),
            peak_rss_kib: 0,
            signalled: false,
            child,
            stdout,
            stderr,
        })
    }
}

impl RunningTurn {
    /// Samples RSS, sends the fate's signal when due, and returns the end when it ended.
    pub fn poll(&mut self, soak_start: Instant) -> std::io::Result<Option<FinishedTurn>> {
        if let Some(status) = self.child.try_wait()? {
            return self.finish(status, soak_start).map(Some);
        }
        if let Some(kib) = peak_rss_kib(self.child.id()) {
            self.peak_rss_kib = self.peak_rss_kib.max(kib);
        }
        let elapsed = self.started.elapsed();
        match self.fate {
            Fate::Interrupt(after) if !self.signalled && elapsed >= after => {
                self.signalled = true;
                // std has no SIGINT; `kill -INT` is everywhere the soak runs (Unix).
                let _ = Command::new("kill")
                    .args(["-INT", &self.child.id().to_string()])
                    .status();
            }
            Fate::Kill(after) if !self.signalled && elapsed >= after => {
                self.signalled = true;
                let _ = self.child.kill();
            }
            _ => {}
        }
        Ok(None)
    }

    /// Waits for the end (after the soak's time is up).
    pub fn wait(mut self, soak_start: Instant) -> std::io::Result<FinishedTurn> {
        let status = self.child.wait()?;
        self.finish(status, soak_start)
    }

    fn finish(&mut self, status: ExitStatus, soak_start: Instant) -> std::io::Result<FinishedTurn> {
        Ok(FinishedTurn {
            turn: self.turn,
            key: self.key.clone(),
            prompt: self.prompt.clone(),
            status,
            stdout: read_lossy(&self.stdout)?,
            stderr: read_lossy(&self.stderr)?,
            started_after: self.started.saturating_duration_since(soak_start),
            peak_rss_kib: self.peak_rss_kib,
        })
    }
}

fn read_lossy(path: &Path) -> std::io::Result<String> {
    Ok(String::from_utf8_lossy(&std::fs::read(path)?).into_owned())
}

/// `VmHWM` (peak resident set) of `pid` in KiB, from `/proc` (Linux); `None` elsewhere or
/// once the process is gone.
fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
