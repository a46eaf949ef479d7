//! What the host tells the helper process: which stage to run and the confinement plan. It
//! travels as one JSON argument (`<exe> __sandbox-exec <spec> -- <argv…>`), so the helper
//! needs nothing from the host's memory or environment.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The first argument that makes a binary act as the helper.
pub const HELPER_ARG: &str = "__sandbox-exec";

/// The line a probe prints when confinement worked.
pub(crate) const PROBE_OK: &str = "clawloop-sandbox-ok";

/// Which part of the confinement the helper applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Stage {
    /// Landlock backend: mount namespace for the frozen paths, Landlock, seccomp, then run
    /// the command as a child subreaper that kills every descendant when it ends.
    Landlock,
    /// Inside bubblewrap (which did the mounts and owns the pid namespace): seccomp, then
    /// exec the command.
    Inner,
}

/// The paths and switches of one confined command.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Plan {
    /// Whether the network stays usable.
    pub network: bool,
    /// Writable roots (canonical), empty in `read-only`.
    pub writable: Vec<PathBuf>,
    /// Neither readable nor writable (the clawloop home), canonical.
    pub hidden: Vec<PathBuf>,
    /// Bound onto themselves so they cannot be renamed or removed (`.git`).
    pub pinned: Vec<PathBuf>,
    /// Read-only although inside a writable root (`.git/hooks`, `.git/config`).
    pub frozen: Vec<PathBuf>,
}

/// The helper's instructions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Spec {
    /// What to apply.
    pub stage: Stage,
    /// Print [`PROBE_OK`] instead of running a command (the backend probe).
    #[serde(default)]
    pub probe: bool,
    /// The host's process id: in the Landlock stage it must be the helper's parent, and the
    /// helper kills the command once that process is gone (it may have been SIGKILLed, so
    /// nothing of it can clean up).
    pub host: u32,
    /// The confinement.
    pub plan: Plan,
}
