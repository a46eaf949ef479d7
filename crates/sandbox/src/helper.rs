//! The helper process: the same binary, started as `<exe> __sandbox-exec <spec> -- <argv…>`,
//! confines itself and then runs the command. The host process is never restricted.
//!
//! In the Landlock stage it stays as the command's parent, a child subreaper: every process
//! the command leaves behind (`sleep 100 &`, a double-forked daemon) is re-parented to it and
//! killed when the command ends, when the helper gets SIGTERM (the tool's abort), or when the
//! host process is gone (SIGKILLed: it can clean nothing up). The host is watched through a
//! pidfd, not `PR_SET_PDEATHSIG`: that signal fires when the *thread* that spawned the helper
//! exits, which in a thread pool can be long before the host does.

use std::ffi::OsString;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};

use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::signal::{SigSet, Signal, kill};
use nix::sys::signalfd::{SfdFlags, SignalFd};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;

use crate::spec::{HELPER_ARG, PROBE_OK, Spec, Stage};
use crate::{landlock_rules, mounts, seccomp};

/// Exit code of a helper that could not set up the confinement (the shell's "cannot
/// execute"); its stderr says why.
const SETUP_FAILED: i32 = 126;

/// Set when this process's `main` called [`exec_if_requested`]: only then can its own
/// executable serve as the helper. A fact about the binary, not a restriction.
static MAIN_CALLS_HELPER: AtomicBool = AtomicBool::new(false);

/// Call first in `main`: when this process was started as the sandbox helper, confine it,
/// run the command and exit with its status (never returns); otherwise return at once.
///
/// A binary whose `main` does not call this cannot serve as the helper, and
/// [`LinuxSandbox::new`](crate::LinuxSandbox::new) then refuses to confine anything.
pub fn exec_if_requested() {
    let mut args = std::env::args_os();
    if args.nth(1).as_deref() != Some(HELPER_ARG.as_ref()) {
        MAIN_CALLS_HELPER.store(true, Ordering::Relaxed);
        return;
    }
    let code = match run(args.collect()) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("clawloop sandbox: {message}");
            SETUP_FAILED
        }
    };
    std::process::exit(code);
}

/// Whether `main` called [`exec_if_requested`].
pub(crate) fn main_calls_helper() -> bool {
    MAIN_CALLS_HELPER.load(Ordering::Relaxed)
}

/// The helper's work: parse, confine, run.
fn run(args: Vec<OsString>) -> Result<i32, String> {
    let mut args = args.into_iter();
    let spec = args
        .next()
        .and_then(|text| serde_json::from_str::<Spec>(&text.to_string_lossy()).ok())
        .ok_or("the helper's instructions are missing or unreadable")?;
    if args.next().as_deref() != Some("--".as_ref()) {
        return Err("the helper's command is missing".to_owned());
    }
    let argv: Vec<OsString> = args.collect();
    nix::sys::prctl::set_no_new_privs().map_err(|err| format!("no_new_privs: {err}"))?;
    match spec.stage {
        Stage::Landlock => {
            let host = watch_host(spec.host)?;
            nix::sys::prctl::set_child_subreaper(true)
                .map_err(|err| format!("child subreaper: {err}"))?;
            let masked = mounts::freeze(&spec.plan)?;
            landlock_rules::restrict(&spec.plan, &masked)?;
            seccomp::install(spec.plan.network)?;
            if spec.probe {
                println!("{PROBE_OK}");
                return Ok(0);
            }
            supervise(&argv, &host)
        }
        Stage::Inner => {
            seccomp::install(spec.plan.network)?;
            if spec.probe {
                println!("{PROBE_OK}");
                return Ok(0);
            }
            let (program, rest) = argv.split_first().ok_or("the helper's command is empty")?;
            let err = Command::new(program).args(rest).exec();
            Err(format!(
                "cannot run {}: {err}",
                Path::new(program).display()
            ))
        }
    }
}

/// A pidfd of the host, which must be this process's parent: a helper whose host died before
/// it got here has been re-parented, and then refuses to run anything.
fn watch_host(host: u32) -> Result<OwnedFd, String> {
    let gone = || "the clawloop process that started this command is gone".to_owned();
    let pid = i32::try_from(host)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
        .ok_or_else(gone)?;
    let fd = rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty())
        .map_err(|_| gone())?;
    // Checked after opening: had the host died in between, the parent would be another now.
    if rustix::process::getppid() != Some(pid) {
        return Err(gone());
    }
    Ok(fd)
}

/// Runs the command as a child and waits; on SIGTERM/SIGINT/SIGHUP, once the host is gone, or
/// once the command itself exited, kills every remaining descendant. Returns the command's
/// exit code (a command killed by a signal makes the helper die of the same signal).
fn supervise(argv: &[OsString], host: &OwnedFd) -> Result<i32, String> {
    let (program, rest) = argv.split_first().ok_or("the helper's command is empty")?;
    let mut signals = SigSet::empty();
    for signal in [
        Signal::SIGCHLD,
        Signal::SIGTERM,
        Signal::SIGINT,
        Signal::SIGHUP,
    ] {
        signals.add(signal);
    }
    // Blocked here and read from a signalfd; the child starts with an empty mask (std resets
    // it before exec) and does not inherit the descriptor (close-on-exec).
    signals
        .thread_block()
        .map_err(|err| format!("signal mask: {err}"))?;
    let signal_fd = SignalFd::with_flags(&signals, SfdFlags::SFD_CLOEXEC)
        .map_err(|err| format!("signalfd: {err}"))?;
    let child = Command::new(program)
        .args(rest)
        .process_group(0)
        .spawn()
        .map_err(|err| format!("cannot run {}: {err}", Path::new(program).display()))?;
    let child = Pid::from_raw(i32::try_from(child.id()).map_err(|err| err.to_string())?);
    loop {
        let event = next_event(&signal_fd, host);
        match event {
            Event::Signal(Signal::SIGCHLD) => {
                if let Some(status) = reap_until(child) {
                    kill_descendants(child);
                    return Ok(finish(status));
                }
            }
            Event::Signal(signal) => {
                kill_descendants(child);
                return Ok(128 + signal as i32);
            }
            Event::HostGone => {
                kill_descendants(child);
                return Ok(128 + Signal::SIGKILL as i32);
            }
            Event::Nothing => {}
        }
    }
}

/// What woke the supervisor.
enum Event {
    /// A blocked signal arrived.
    Signal(Signal),
    /// The host process exited (or its pidfd cannot be watched any more).
    HostGone,
    /// A spurious wake-up (EINTR, a signal already taken).
    Nothing,
}

/// Waits for a signal or the host's exit. An unusable poll counts as the host being gone:
/// the supervisor must never keep a command running that nothing watches.
fn next_event(signal_fd: &SignalFd, host: &OwnedFd) -> Event {
    let mut fds = [
        PollFd::new(signal_fd.as_fd(), PollFlags::POLLIN),
        PollFd::new(host.as_fd(), PollFlags::POLLIN),
    ];
    match poll(&mut fds, PollTimeout::NONE) {
        Ok(_) => {}
        Err(Errno::EINTR) => return Event::Nothing,
        Err(_) => return Event::HostGone,
    }
    let ready = |fd: &PollFd| fd.revents().is_some_and(|flags| !flags.is_empty());
    if ready(&fds[1]) {
        return Event::HostGone;
    }
    match signal_fd.read_signal() {
        Ok(Some(info)) => i32::try_from(info.ssi_signo)
            .ok()
            .and_then(|number| Signal::try_from(number).ok())
            .map_or(Event::Nothing, Event::Signal),
        Ok(None) | Err(Errno::EINTR | Errno::EAGAIN) => Event::Nothing,
        Err(_) => Event::HostGone,
    }
}

/// Reaps every exited child without blocking; the command's status once it is among them.
fn reap_until(command: Pid) -> Option<WaitStatus> {
    let mut found = None;
    loop {
        match waitpid(None, Some(WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::StillAlive) | Err(_) => return found,
            Ok(status) if status.pid() == Some(command) => found = Some(status),
            Ok(_) => {}
        }
    }
}

/// SIGKILL to the command's group and to every child of the helper, repeated as the dead
/// ones' children are re-parented here, until none is left.
fn kill_descendants(command: Pid) {
    let _ = kill(Pid::from_raw(-command.as_raw()), Signal::SIGKILL);
    loop {
        for pid in children() {
            let _ = kill(pid, Signal::SIGKILL);
        }
        match waitpid(None, None) {
            Ok(_) | Err(Errno::EINTR) => continue,
            Err(_) => return,
        }
    }
}

/// The helper's children (`/proc/self/task/<pid>/children`; the helper has one thread).
fn children() -> Vec<Pid> {
    let path = format!("/proc/self/task/{}/children", std::process::id());
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|pid| pid.parse().ok())
        .map(Pid::from_raw)
        .collect()
}

/// The helper's own exit for the command's status.
fn finish(status: WaitStatus) -> i32 {
    match status {
        WaitStatus::Exited(_, code) => code,
        WaitStatus::Signaled(_, signal, _) => {
            // Dying of the same signal keeps "killed by a signal" visible to the caller.
            let mut set = SigSet::empty();
            set.add(signal);
            let _ = set.thread_unblock();
            let _ = nix::sys::signal::raise(signal);
            128 + signal as i32
        }
        _ => SETUP_FAILED,
    }
}
