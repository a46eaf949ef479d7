//! One CLI process: started as the leader of its own process group, fed its stdin, read to
//! the end under a no-output watchdog and an overall timeout, and killed — with everything it
//! started — on cancel, timeout, or when the caller drops the run.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;
use std::pin::pin;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use rustix::process::{Pid, Signal, kill_process_group};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};
use tokio::time::{Instant, sleep, sleep_until};
use tokio_util::sync::CancellationToken;

/// Bytes of stderr kept for the error message (the tail: a CLI's last words explain it).
const STDERR_TAIL_BYTES: usize = 64 * 1024;

/// What to start.
#[derive(Debug, Clone)]
pub(crate) struct Launch<'a> {
    pub program: &'a str,
    pub args: &'a [String],
    pub cwd: &'a Path,
    pub env_remove: &'a [String],
    pub env_set: &'a BTreeMap<String, String>,
    pub stdin: Option<&'a str>,
}

/// The limits of one run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// No stdout byte for this long kills the group.
    pub no_output: Duration,
    /// The whole run's limit.
    pub overall: Option<Duration>,
    /// More stdout than this kills the group.
    pub max_stdout_bytes: usize,
}

/// How the run ended.
#[derive(Debug)]
pub(crate) enum Ending {
    /// The CLI exited by itself.
    Exited(ExitStatus),
    /// The watchdog fired.
    NoOutput,
    /// The overall timeout fired.
    TimedOut,
    /// `cancel` fired.
    Aborted,
    /// stdout passed the limit.
    OutputTooLarge,
}

/// What the run produced.
#[derive(Debug)]
pub(crate) struct Outcome {
    pub ending: Ending,
    pub stdout: Vec<u8>,
    pub stderr_tail: Vec<u8>,
}

/// A started process group. Dropping it before the leader was reaped kills the group, so a
/// run whose future is dropped leaves nothing behind; tokio reaps the killed leader.
struct Group {
    child: Child,
    pgid: Option<Pid>,
    reaped: bool,
}

impl Group {
    /// SIGKILL to the whole group, only while the leader is unreaped: its zombie keeps the id
    /// from being reused, so the signal cannot reach a stranger.
    fn kill(&mut self) {
        if self.reaped {
            return;
        }
        if let Some(pgid) = self.pgid
            && pgid != Pid::INIT
        {
            // ESRCH (the group is already gone) is the only expected failure.
            let _ = kill_process_group(pgid, Signal::KILL);
        }
    }

    /// Kills the group and reaps the leader, so no zombie outlives the run.
    async fn kill_and_reap(&mut self) {
        self.kill();
        if !self.reaped && self.child.wait().await.is_ok() {
            self.reaped = true;
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Keeps the last `cap` bytes written to it.
struct Tail {
    bytes: Vec<u8>,
    cap: usize,
}

impl Tail {
    fn push(&mut self, chunk: &[u8]) {
        self.bytes.extend_from_slice(chunk);
        // Trim in batches so each byte is moved O(1) times on average.
        if self.bytes.len() > 2 * self.cap {
            let cut = self.bytes.len() - self.cap;
            self.bytes.drain(..cut);
        }
    }

    fn into_bytes(mut self) -> Vec<u8> {
        if self.bytes.len() > self.cap {
            let cut = self.bytes.len() - self.cap;
            self.bytes.drain(..cut);
        }
        self.bytes
    }
}

/// Reads one chunk, or never resolves once the pipe is closed (so `select!` can keep polling
/// a finished pipe without spinning).
async fn read_chunk<R: AsyncRead + Unpin>(pipe: &mut Option<R>, buf: &mut [u8]) -> usize {
    match pipe {
        Some(reader) => reader.read(buf).await.unwrap_or(0),
        None => std::future::pending().await,
    }
}

/// A started CLI, not yet read.
pub(crate) struct Running {
    group: Group,
    stdout: Option<ChildStdout>,
    stderr: Option<ChildStderr>,
    stdin: Option<(ChildStdin, Vec<u8>)>,
}

/// Starts `launch` as the leader of a new process group.
pub(crate) fn spawn(launch: Launch<'_>) -> io::Result<Running> {
    let mut command = Command::new(launch.program);
    command
        .args(launch.args)
        .current_dir(launch.cwd)
        .stdin(if launch.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(false);
    for name in launch.env_remove {
        command.env_remove(name);
    }
    command.envs(launch.env_set);
    let child = command.spawn()?;
    let pgid = child
        .id()
        .and_then(|id| i32::try_from(id).ok())
        .and_then(Pid::from_raw);
    // Built before anything else can fail, so every later exit path kills the group.
    let mut group = Group {
        child,
        pgid,
        reaped: false,
    };
    let stdout = group.child.stdout.take();
    let stderr = group.child.stderr.take();
    let stdin = match (group.child.stdin.take(), launch.stdin) {
        (Some(pipe), Some(text)) => Some((pipe, text.as_bytes().to_vec())),
        _ => None,
    };
    Ok(Running {
        group,
        stdout,
        stderr,
        stdin,
    })
}

impl Running {
    /// Feeds stdin, reads the output to its end under `limits`, and reaps the leader. Any
    /// ending but the CLI's own exit kills the whole group first.
    pub(crate) async fn finish(self, limits: Limits, cancel: &CancellationToken) -> Outcome {
        let Running {
            mut group,
            mut stdout,
            mut stderr,
            stdin,
        } = self;
        let mut feeding = stdin.is_some();
        // A CLI that exits without reading its stdin breaks the pipe: that is its business,
        // the answer is judged by its output and exit status.
        let mut feed = pin!(async move {
            if let Some((mut pipe, bytes)) = stdin {
                let _ = pipe.write_all(&bytes).await;
                let _ = pipe.shutdown().await;
            }
        });
        let mut out = Vec::new();
        let mut err = Tail {
            bytes: Vec::new(),
            cap: STDERR_TAIL_BYTES,
        };
        let mut out_buf = vec![0u8; 16 * 1024];
        let mut err_buf = vec![0u8; 8 * 1024];
        let mut watchdog = pin!(sleep(limits.no_output));
        let overall_deadline = limits.overall.map(|d| Instant::now() + d);
        let mut overall = pin!(async move {
            match overall_deadline {
                Some(deadline) => sleep_until(deadline).await,
                None => std::future::pending().await,
            }
        });
        let mut status: Option<ExitStatus> = None;

        let ending = loop {
            if status.is_some() && stdout.is_none() && stderr.is_none() {
                break None;
            }
            tokio::select! {
                biased;
                () = cancel.cancelled() => break Some(Ending::Aborted),
                () = &mut overall => break Some(Ending::TimedOut),
                n = read_chunk(&mut stdout, &mut out_buf) => {
                    if n == 0 {
                        stdout = None;
                    } else {
                        out.extend_from_slice(&out_buf[..n]);
                        watchdog.as_mut().reset(Instant::now() + limits.no_output);
                        if out.len() > limits.max_stdout_bytes {
                            break Some(Ending::OutputTooLarge);
                        }
                    }
                }
                n = read_chunk(&mut stderr, &mut err_buf) => {
                    if n == 0 {
                        stderr = None;
                    } else {
                        err.push(&err_buf[..n]);
                    }
                }
                () = &mut feed, if feeding => feeding = false,
                result = group.child.wait(), if status.is_none() => {
                    match result {
                        Ok(exit) => {
                            group.reaped = true;
                            status = Some(exit);
                        }
                        // The leader cannot be waited for: nothing more can be learned.
                        Err(_) => break Some(Ending::Aborted),
                    }
                }
                () = &mut watchdog => {
                    // After the leader exited, silence only means a leftover process still
                    // holds the pipe open: the output is complete.
                    if status.is_some() {
                        break None;
                    }
                    break Some(Ending::NoOutput);
                }
            }
        };
        let ending = match (ending, status) {
            (None, Some(exit)) => Ending::Exited(exit),
            (Some(ending), _) => {
                group.kill_and_reap().await;
                ending
            }
            // The loop only ends without an ending once the leader exited.
            (None, None) => {
                group.kill_and_reap().await;
                Ending::Aborted
            }
        };
        Outcome {
            ending,
            stdout: out,
            stderr_tail: err.into_bytes(),
        }
    }
}
