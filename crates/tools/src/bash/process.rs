//! A shell command in its own process group, with stdout and stderr on one pipe.
//!
//! The group lets an abort or a timeout kill the command *and everything it started* with one
//! `kill(-pgid, SIGKILL)` (pi's `killProcessTree`). Both output streams share one pipe so the
//! text reads in the order it was written, as in a terminal.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};

use clawloop_core::sandbox::{ConfinedCommand, StopBy};
use rustix::process::{Pid, Signal, kill_process, kill_process_group};
use tokio::net::unix::pipe::Receiver;
use tokio::process::{Child, Command};

/// What runs the command: pi's `getShellConfig` without settings — `/bin/bash` if present,
/// else `bash` on `PATH`, else `sh` — always with `-c`.
pub(crate) fn default_shell(env: &BTreeMap<String, String>) -> PathBuf {
    let bin_bash = Path::new("/bin/bash");
    if bin_bash.is_file() {
        return bin_bash.to_owned();
    }
    // The overlay's PATH is the one the command will see, so it decides.
    let path: Option<OsString> = env
        .get("PATH")
        .map(OsString::from)
        .or_else(|| std::env::var_os("PATH"));
    if let Some(path) = path {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join("bash");
            if candidate.is_file() {
                return candidate;
            }
        }
    }
    PathBuf::from("sh")
}

/// A running command. Dropping it before [`ProcessGroup::wait`] returned kills the group, so a
/// tool call whose future is dropped leaves nothing behind.
#[derive(Debug)]
pub(crate) struct ProcessGroup {
    child: Child,
    /// The group id, which is the shell's pid (`process_group(0)`).
    pgid: Option<Pid>,
    /// Set once the shell was reaped: its pid may then belong to someone else.
    reaped: bool,
    /// How to stop it: a sandbox helper is asked (SIGTERM) to kill what it confines.
    stop: StopBy,
}

impl ProcessGroup {
    /// Starts `shell -c command` in `cwd` with `env` over the inherited environment, as the
    /// leader of a new process group. Returns the group and the read end of its output pipe.
    pub(crate) fn spawn(
        shell: &Path,
        command: &str,
        cwd: &Path,
        env: &BTreeMap<String, String>,
    ) -> io::Result<(ProcessGroup, Receiver)> {
        let mut cmd = Command::new(shell);
        cmd.arg("-c").arg(command).current_dir(cwd).envs(env);
        Self::start(cmd, StopBy::KillGroup)
    }

    /// Starts what a sandbox made of the command: exactly its environment, its way to stop.
    pub(crate) fn spawn_confined(
        confined: &ConfinedCommand,
    ) -> io::Result<(ProcessGroup, Receiver)> {
        let mut cmd = Command::new(&confined.program);
        cmd.args(&confined.args)
            .current_dir(&confined.cwd)
            .env_clear()
            .envs(confined.env.iter().map(|(name, value)| (name, value)));
        Self::start(cmd, confined.stop)
    }

    /// Spawns `cmd` with stdout and stderr on one pipe, as the leader of a new group.
    fn start(mut cmd: Command, stop: StopBy) -> io::Result<(ProcessGroup, Receiver)> {
        let (reader, writer) = io::pipe()?;
        let stderr_writer = writer.try_clone()?;
        cmd.stdin(Stdio::null())
            .stdout(writer)
            .stderr(stderr_writer)
            .process_group(0)
            .kill_on_drop(false);
        let child = cmd.spawn()?;
        // The command holds the parent's copies of the write end; until they are closed the
        // pipe never reports end of file.
        drop(cmd);
        let pgid = child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .and_then(Pid::from_raw);
        // Built before anything else can fail, so an error below still kills the command.
        let group = ProcessGroup {
            child,
            pgid,
            reaped: false,
            stop,
        };
        let receiver = Receiver::from_owned_fd(OwnedFd::from(reader))?;
        Ok((group, receiver))
    }

    /// SIGKILL to every process of the group (SIGTERM to a sandbox helper, which then kills
    /// everything it confines). Sent only while the shell is unreaped: its zombie keeps the
    /// id from being reused, so the signal cannot reach a stranger.
    pub(crate) fn kill(&mut self) {
        if self.reaped {
            return;
        }
        if let Some(pgid) = self.pgid {
            // `Pid::INIT` would mean "every process we may signal"; a child is never pid 1,
            // but the check costs nothing.
            if pgid != Pid::INIT {
                // ESRCH (the group is already gone) is the only expected failure.
                let _ = match self.stop {
                    StopBy::KillGroup => kill_process_group(pgid, Signal::KILL),
                    StopBy::TerminateLeader => kill_process(pgid, Signal::TERM),
                };
            }
        }
    }

    /// Waits for the shell to exit. Cancel-safe (tokio's `Child::wait`).
    pub(crate) async fn wait(&mut self) -> io::Result<ExitStatus> {
        let status = self.child.wait().await?;
        self.reaped = true;
        Ok(status)
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn bash_is_preferred() {
        let shell = default_shell(&BTreeMap::new());
        assert!(shell.ends_with("bash") || shell == Path::new("sh"));
    }

    #[tokio::test]
    async fn output_of_both_streams_arrives_in_order() {
        use tokio::io::AsyncReadExt;
        let (mut group, mut pipe) = ProcessGroup::spawn(
            Path::new("/bin/sh"),
            "echo out; echo err >&2; echo out2",
            Path::new("/"),
            &BTreeMap::new(),
        )
        .unwrap();
        let mut text = String::new();
        pipe.read_to_string(&mut text).await.unwrap();
        let status = group.wait().await.unwrap();
        assert_eq!(
            (text.as_str(), status.code()),
            ("out\nerr\nout2\n", Some(0))
        );
    }
}
