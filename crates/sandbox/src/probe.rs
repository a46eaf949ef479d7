//! [`LinuxSandbox`]: picks a backend once (probing it for real, cached in the value) and
//! turns commands into helper invocations.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use clawloop_core::sandbox::{
    CommandOutcome, CommandSandbox, ConfinedCommand, SandboxCommand, SandboxError, SandboxPolicy,
    StopBy,
};

use crate::spec::{HELPER_ARG, PROBE_OK, Plan, Spec, Stage};
use crate::{bwrap, denial, helper, plan};

/// The environment variable that forces a backend (`landlock` or `bwrap`).
pub const BACKEND_ENV: &str = "CLAWLOOP_SANDBOX_BACKEND";

/// A way to confine commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// bubblewrap's namespaces plus the helper's seccomp filter.
    Bwrap,
    /// Landlock plus seccomp in the helper, which stays as the command's subreaper.
    Landlock,
}

impl Backend {
    /// The name `CLAWLOOP_SANDBOX_BACKEND` and `doctor` use.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Bwrap => "bwrap",
            Backend::Landlock => "landlock",
        }
    }
}

/// The Linux [`CommandSandbox`]: Landlock + seccomp, or bubblewrap when it works. Probing
/// happens on first use and is cached in this value; nothing about the host process changes.
#[derive(Debug)]
pub struct LinuxSandbox {
    /// The helper executable; `None` when this process's `main` does not run the helper.
    helper: Option<PathBuf>,
    /// The helper is this very program (its `main` runs the helper): Landlock is then probed
    /// in process, without running the helper once more.
    helper_is_self: bool,
    /// The backend forced by the builder or [`BACKEND_ENV`]; an unreadable value is kept as
    /// the error every call reports.
    forced: Result<Option<Backend>, String>,
    probed: OnceLock<Result<Backend, Vec<String>>>,
}

impl Default for LinuxSandbox {
    fn default() -> Self {
        Self::new()
    }
}

impl LinuxSandbox {
    /// This process's own executable as the helper (its `main` must have called
    /// [`exec_if_requested`](crate::exec_if_requested), else every command is refused), the
    /// backend forced by `CLAWLOOP_SANDBOX_BACKEND` when set.
    pub fn new() -> Self {
        let helper = if helper::main_calls_helper() {
            std::env::current_exe().ok()
        } else {
            None
        };
        let forced = match std::env::var(BACKEND_ENV).as_deref() {
            Err(_) | Ok("" | "auto") => Ok(None),
            Ok("bwrap") => Ok(Some(Backend::Bwrap)),
            Ok("landlock") => Ok(Some(Backend::Landlock)),
            Ok(other) => Err(format!(
                "sandbox: {BACKEND_ENV} must be bwrap, landlock or auto, not `{other}`"
            )),
        };
        LinuxSandbox {
            helper_is_self: helper.is_some(),
            helper,
            forced,
            probed: OnceLock::new(),
        }
    }

    /// Uses `helper` (a binary whose `main` calls `exec_if_requested` first) as the helper.
    pub fn with_helper(mut self, helper: impl Into<PathBuf>) -> Self {
        self.helper = Some(helper.into());
        self.helper_is_self = false;
        self
    }

    /// Uses `backend` only (no fallback to the other).
    pub fn with_backend(mut self, backend: Backend) -> Self {
        self.forced = Ok(Some(backend));
        self
    }

    /// The backend in use, probed on the first call.
    pub fn backend(&self, policy: &SandboxPolicy) -> Result<Backend, SandboxError> {
        let forced = self.forced.clone().map_err(SandboxError)?;
        let helper = self.helper.as_deref().ok_or_else(|| {
            SandboxError(
                "sandbox: this program does not call clawloop_sandbox::exec_if_requested() \
                 first in main, so commands cannot be confined; call it, or use --sandbox off"
                    .to_owned(),
            )
        })?;
        let probed = self
            .probed
            .get_or_init(|| probe(helper, self.helper_is_self, forced));
        probed.clone().map_err(|reasons| {
            let wanted = match forced {
                Some(backend) => format!("the {} backend", backend.name()),
                None => "bubblewrap or Landlock".to_owned(),
            };
            let which = if forced.is_some() {
                "it does not work"
            } else {
                "neither works"
            };
            SandboxError(format!(
                "sandbox: {} needs {wanted}; {which} here\n  {}\n  install bubblewrap \
                 / allow user namespaces, or use --sandbox off",
                policy.mode,
                reasons.join("\n  ")
            ))
        })
    }

    fn helper_path(&self) -> Result<&Path, SandboxError> {
        self.helper
            .as_deref()
            .ok_or_else(|| SandboxError("sandbox: no helper executable".to_owned()))
    }
}

impl CommandSandbox for LinuxSandbox {
    fn confine(
        &self,
        command: &SandboxCommand,
        policy: &SandboxPolicy,
    ) -> Result<ConfinedCommand, SandboxError> {
        let backend = self.backend(policy)?;
        let helper = self.helper_path()?;
        let env = environment(&command.env, policy);
        let tmpdir = env
            .iter()
            .find(|(name, _)| name == "TMPDIR")
            .map(|(_, value)| PathBuf::from(value));
        let plan = plan::plan(command, policy, tmpdir.as_deref())?;
        let stage = match backend {
            Backend::Bwrap => Stage::Inner,
            Backend::Landlock => Stage::Landlock,
        };
        let mut helper_args = helper_args(stage, false, &plan)?;
        helper_args.push(command.program.clone().into_os_string());
        helper_args.extend(command.args.iter().cloned());
        let (program, args, stop) = match backend {
            Backend::Landlock => (helper.to_owned(), helper_args, StopBy::TerminateLeader),
            Backend::Bwrap => {
                let mut args = bwrap::args(&plan, &command.cwd);
                args.push(helper.as_os_str().to_owned());
                args.extend(helper_args);
                (PathBuf::from("bwrap"), args, StopBy::KillGroup)
            }
        };
        Ok(ConfinedCommand {
            program,
            args,
            cwd: command.cwd.clone(),
            env,
            stop,
        })
    }

    fn denial_note(&self, outcome: &CommandOutcome<'_>, policy: &SandboxPolicy) -> Option<String> {
        let mut writable = vec![
            "the workspace".to_owned(),
            "$TMPDIR".to_owned(),
            "/tmp".to_owned(),
        ];
        writable.extend(
            policy
                .writable_roots
                .iter()
                .map(|p| p.display().to_string()),
        );
        denial::denial_note(outcome, policy, &writable)
    }

    fn describe(&self, policy: &SandboxPolicy) -> Result<String, SandboxError> {
        let backend = self.backend(policy)?;
        let how = match backend {
            // The network namespace comes only with the network off (the loopback then too).
            Backend::Bwrap if policy.network => "bubblewrap (mount and pid namespaces) + seccomp",
            Backend::Bwrap => "bubblewrap (mount, pid and network namespaces) + seccomp",
            Backend::Landlock => "Landlock + seccomp, the helper as child subreaper",
        };
        let network = if policy.network { "on" } else { "off" };
        Ok(format!(
            "{how}: {mode}, network {network}; the clawloop home hidden, .git/hooks and \
             .git/config read-only, ptrace/process_vm/io_uring/mount denied, provider keys dropped \
             from the environment, no process outlives its command",
            mode = policy.mode
        ))
    }
}

/// `<HELPER_ARG> <spec> --`, ready for the command's argv.
fn helper_args(stage: Stage, probe: bool, plan: &Plan) -> Result<Vec<OsString>, SandboxError> {
    let spec = Spec {
        stage,
        probe,
        host: std::process::id(),
        plan: plan.clone(),
    };
    let json = serde_json::to_string(&spec)
        .map_err(|err| SandboxError(format!("sandbox: a path is not UTF-8 ({err})")))?;
    Ok(vec![HELPER_ARG.into(), json.into(), "--".into()])
}

/// The command's whole environment: the host's with the overlay on top, minus what looks
/// like a secret, plus `CLAWLOOP_SANDBOX` (and `CLAWLOOP_SANDBOX_NETWORK_DISABLED=1`).
fn environment(
    overlay: &BTreeMap<String, String>,
    policy: &SandboxPolicy,
) -> Vec<(OsString, OsString)> {
    let mut env: BTreeMap<OsString, OsString> = std::env::vars_os().collect();
    env.extend(overlay.iter().map(|(k, v)| (k.into(), v.into())));
    env.retain(|name, _| policy.keeps_env(&name.to_string_lossy()));
    env.insert("CLAWLOOP_SANDBOX".into(), policy.mode.as_str().into());
    if policy.network {
        env.remove(std::ffi::OsStr::new("CLAWLOOP_SANDBOX_NETWORK_DISABLED"));
    } else {
        env.insert("CLAWLOOP_SANDBOX_NETWORK_DISABLED".into(), "1".into());
    }
    env.into_iter().collect()
}

/// Tries the backends (only `forced`, when set): the first that confines a real probe wins.
fn probe(
    helper: &Path,
    helper_is_self: bool,
    forced: Option<Backend>,
) -> Result<Backend, Vec<String>> {
    let order = match forced {
        Some(backend) => vec![backend],
        None => vec![Backend::Bwrap, Backend::Landlock],
    };
    let mut reasons = Vec::new();
    for backend in order {
        let probed = match backend {
            Backend::Landlock if helper_is_self => landlock_here(helper),
            _ => probe_one(helper, backend),
        };
        match probed {
            Ok(()) => return Ok(backend),
            Err(reason) => reasons.push(format!("{}: {reason}", backend.name())),
        }
    }
    Err(reasons)
}

/// Whether the Landlock backend can work, asked of the kernel from this process (nothing
/// here is restricted: a ruleset is created and dropped, `/proc/self/status` is read): the
/// ABI answers and seccomp filters are built in, and the helper (this program) is still on
/// disk. Running the helper's probe instead costs one more start of this program per process,
/// 2 ms wall on the bench machine, for what these checks already tell. Should the helper
/// fail anyway, it refuses to run the command and says why: the call still fails closed.
fn landlock_here(helper: &Path) -> Result<(), String> {
    use landlock::{ABI, Access, AccessFs, CompatLevel, Compatible, Ruleset, RulesetAttr};
    Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(ABI::V1))
        .and_then(|ruleset| ruleset.create())
        .map_err(|err| format!("landlock: {err}"))?;
    let status = std::fs::read_to_string("/proc/self/status")
        .map_err(|err| format!("seccomp: cannot read /proc/self/status: {err}"))?;
    if !status
        .lines()
        .any(|line| line.starts_with("Seccomp_filters:"))
    {
        return Err("seccomp: this kernel has no seccomp filters".to_owned());
    }
    if !helper.is_file() {
        return Err(format!("the helper {} is gone", helper.display()));
    }
    Ok(())
}

/// Runs the helper's probe under `backend` with the network off (the setup most likely to
/// fail: bwrap's loopback needs user namespaces with netlink rights).
fn probe_one(helper: &Path, backend: Backend) -> Result<(), String> {
    let plan = Plan::default();
    let mut command = match backend {
        Backend::Bwrap => {
            let mut command = Command::new("bwrap");
            command.args(bwrap::args(&plan, Path::new("/"))).arg(helper);
            command
        }
        Backend::Landlock => Command::new(helper),
    };
    let stage = match backend {
        Backend::Bwrap => Stage::Inner,
        Backend::Landlock => Stage::Landlock,
    };
    let args = helper_args(stage, true, &plan).map_err(|err| err.0)?;
    let output = command
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|err| match err.kind() {
            std::io::ErrorKind::NotFound if backend == Backend::Bwrap => "not installed".to_owned(),
            _ => err.to_string(),
        })?;
    if output.status.success() && String::from_utf8_lossy(&output.stdout).trim() == PROBE_OK {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let reason = stderr
        .lines()
        .map(|line| line.trim_start_matches("clawloop sandbox: "))
        .find(|line| !line.trim().is_empty())
        .unwrap_or("the helper did not answer (its main must call exec_if_requested first)");
    Err(reason.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn landlock_is_probed_here_without_running_the_helper() {
        // This machine kind has Landlock (ABI 7) and seccomp filters.
        let this = std::env::current_exe().unwrap();
        assert_eq!(landlock_here(&this), Ok(()));
        assert_eq!(
            landlock_here(Path::new("/nonexistent/clawloop")),
            Err("the helper /nonexistent/clawloop is gone".to_owned())
        );
    }
}
