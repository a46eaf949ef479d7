//! The sandbox seam: how a tool that runs commands (`bash`) gets them confined.
//!
//! A [`CommandSandbox`] turns a command (program, arguments, cwd, environment overlay) plus a
//! [`SandboxPolicy`] into a [`ConfinedCommand`]: what to spawn instead, with the environment
//! the command may see and how to stop it. The confinement is applied in the child (a helper
//! process), never in the host. `clawloop-sandbox` implements the trait with Landlock +
//! seccomp or bubblewrap; an embedder may supply its own.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;

/// How much of the system a sandboxed command may change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SandboxMode {
    /// No sandbox: the command runs with the user's full rights (pi's behavior).
    Off,
    /// Nothing on disk is writable (except `/dev/null` and the like).
    ReadOnly,
    /// The workspace, `$TMPDIR`, `/tmp` and the configured writable roots are writable.
    #[default]
    WorkspaceWrite,
}

impl SandboxMode {
    /// The config spelling: `off`, `read-only` or `workspace-write`.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::Off => "off",
            SandboxMode::ReadOnly => "read-only",
            SandboxMode::WorkspaceWrite => "workspace-write",
        }
    }
}

impl fmt::Display for SandboxMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A sandbox mode string that is none of the three.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown sandbox mode `{0}` (expected off, read-only or workspace-write)")]
pub struct UnknownSandboxMode(pub String);

impl FromStr for SandboxMode {
    type Err = UnknownSandboxMode;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "off" => Ok(SandboxMode::Off),
            "read-only" => Ok(SandboxMode::ReadOnly),
            "workspace-write" => Ok(SandboxMode::WorkspaceWrite),
            other => Err(UnknownSandboxMode(other.to_owned())),
        }
    }
}

/// What a sandboxed command may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxPolicy {
    /// Which writes are allowed; [`SandboxMode::Off`] disables the whole policy.
    pub mode: SandboxMode,
    /// Whether the command may use the network (Unix sockets always work).
    pub network: bool,
    /// Writable in `workspace-write` besides the workspace, `$TMPDIR` and `/tmp`.
    pub writable_roots: Vec<PathBuf>,
    /// Environment variables kept although their names look like secrets.
    pub env_passthrough: Vec<String>,
    /// Variables always dropped from the command's environment (the configured `apiKey`
    /// variables), whatever their names.
    pub secret_env: Vec<String>,
    /// Paths the command can neither read nor write: the clawloop home (auth files, config
    /// with keys, every session's transcript).
    pub protected: Vec<PathBuf>,
}

impl SandboxPolicy {
    /// A policy of `mode` with the network on and nothing else configured.
    pub fn new(mode: SandboxMode) -> Self {
        SandboxPolicy {
            mode,
            network: true,
            writable_roots: Vec::new(),
            env_passthrough: Vec::new(),
            secret_env: Vec::new(),
            protected: Vec::new(),
        }
    }

    /// Whether the environment variable `name` is kept for the command: not a configured key
    /// variable, and no `KEY`, `SECRET` or `TOKEN` in its name (codex's default shell
    /// environment policy), unless `env_passthrough` names it.
    pub fn keeps_env(&self, name: &str) -> bool {
        if self.env_passthrough.iter().any(|kept| kept == name) {
            return true;
        }
        if self.secret_env.iter().any(|secret| secret == name) {
            return false;
        }
        let upper = name.to_ascii_uppercase();
        !["KEY", "SECRET", "TOKEN"]
            .iter()
            .any(|word| upper.contains(word))
    }
}

impl Default for SandboxPolicy {
    fn default() -> Self {
        SandboxPolicy::new(SandboxMode::default())
    }
}

/// A command to confine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxCommand {
    /// The program (the shell).
    pub program: PathBuf,
    /// Its arguments (`-c`, the command text).
    pub args: Vec<OsString>,
    /// Where it runs.
    pub cwd: PathBuf,
    /// The workspace root (writable in `workspace-write`; its `.git` is protected).
    pub workspace_root: PathBuf,
    /// Variables set over the host's environment (the tool context's overlay).
    pub env: BTreeMap<String, String>,
}

/// How the caller stops a confined command early (abort, timeout, dropped call).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopBy {
    /// SIGKILL to the process group the caller spawned the program in.
    KillGroup,
    /// SIGTERM to the spawned program alone: it kills everything the command started, then
    /// exits. The program must not be put in the same group as the command.
    TerminateLeader,
}

/// What to spawn in place of a [`SandboxCommand`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfinedCommand {
    /// The program to spawn (a helper, or `bwrap`).
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Its working directory.
    pub cwd: PathBuf,
    /// The whole environment: spawn with a cleared environment and exactly these variables.
    pub env: Vec<(OsString, OsString)>,
    /// How to stop it early.
    pub stop: StopBy,
}

/// How a confined command ended, for [`CommandSandbox::denial_note`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandOutcome<'a> {
    /// The exit code, when it exited.
    pub code: Option<i32>,
    /// The signal that killed it, when one did.
    pub signal: Option<i32>,
    /// The end of its output (stdout and stderr interleaved).
    pub output_tail: &'a str,
}

/// The sandbox cannot run the command: no backend works, the helper is missing, or the
/// policy cannot be set up here. The text is one sentence (or a sentence and its reasons)
/// naming the fix; the tool call fails closed with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SandboxError(pub String);

/// Confines commands to a [`SandboxPolicy`]. Implementations hold no process-global state
/// and never restrict the calling process.
pub trait CommandSandbox: Send + Sync + fmt::Debug {
    /// What to spawn to run `command` under `policy` (never called with
    /// [`SandboxMode::Off`]). An error means the command must not run at all.
    fn confine(
        &self,
        command: &SandboxCommand,
        policy: &SandboxPolicy,
    ) -> Result<ConfinedCommand, SandboxError>;

    /// The last line for the command's result when its failure looks like the sandbox's
    /// doing (`[clawloop sandbox: …]`), so the model does not retry blindly.
    fn denial_note(&self, outcome: &CommandOutcome<'_>, policy: &SandboxPolicy) -> Option<String>;

    /// The backend in use and what it enforces, for `clawloop doctor`; an error when none
    /// works.
    fn describe(&self, policy: &SandboxPolicy) -> Result<String, SandboxError>;
}

/// The sandbox a tool context carries: the implementation and the policy of this turn.
#[derive(Debug, Clone)]
pub struct ToolSandbox {
    /// The implementation.
    pub sandbox: Arc<dyn CommandSandbox>,
    /// What commands may do.
    pub policy: SandboxPolicy,
}

impl ToolSandbox {
    /// `sandbox` enforcing `policy`.
    pub fn new(sandbox: Arc<dyn CommandSandbox>, policy: SandboxPolicy) -> Self {
        ToolSandbox { sandbox, policy }
    }

    /// Whether commands run confined at all (the mode is not `off`).
    pub fn is_active(&self) -> bool {
        self.policy.mode != SandboxMode::Off
    }

    /// Whether the file tools must refuse to write.
    pub fn is_read_only(&self) -> bool {
        self.policy.mode == SandboxMode::ReadOnly
    }
}

impl PartialEq for ToolSandbox {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::addr_eq(Arc::as_ptr(&self.sandbox), Arc::as_ptr(&other.sandbox))
            && self.policy == other.policy
    }
}

impl Eq for ToolSandbox {}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn modes_parse_from_their_config_spelling() {
        for mode in [
            SandboxMode::Off,
            SandboxMode::ReadOnly,
            SandboxMode::WorkspaceWrite,
        ] {
            assert_eq!(mode.as_str().parse::<SandboxMode>(), Ok(mode));
        }
        assert_eq!(
            "readonly".parse::<SandboxMode>().unwrap_err().to_string(),
            "unknown sandbox mode `readonly` (expected off, read-only or workspace-write)"
        );
    }

    #[test]
    fn secret_looking_variables_are_dropped_unless_passed_through() {
        let mut policy = SandboxPolicy::new(SandboxMode::WorkspaceWrite);
        policy.secret_env = vec!["MY_PROVIDER".into()];
        policy.env_passthrough = vec!["GITHUB_TOKEN".into()];
        let table = [
            ("PATH", true),
            ("HOME", true),
            ("OPENAI_API_KEY", false),
            ("aws_secret_access_key", false),
            ("NPM_TOKEN", false),
            ("MONKEY", false),
            ("MY_PROVIDER", false),
            ("GITHUB_TOKEN", true),
        ];
        for (name, kept) in table {
            assert_eq!(policy.keeps_env(name), kept, "{name}");
        }
    }
}
