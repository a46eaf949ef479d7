//! `clawloop-sandbox`: confines the `bash` tool's commands to a
//! [`SandboxPolicy`](clawloop_core::sandbox::SandboxPolicy) on Linux.
//!
//! [`LinuxSandbox`] implements the core
//! [`CommandSandbox`](clawloop_core::sandbox::CommandSandbox) seam. Confinement happens in a
//! helper process, never in the host: the tool spawns `<exe> __sandbox-exec <spec> -- <argv…>`
//! (the Landlock backend) or `bwrap … -- <exe> __sandbox-exec …` (bubblewrap), and the
//! binary's `main` must call [`exec_if_requested`] first so that it can act as that helper.
//!
//! What every mode but `off` enforces:
//! - writes only in the writable roots (`workspace-write`: the workspace, `$TMPDIR`, `/tmp`,
//!   the configured roots; `read-only`: none), `.git/hooks` and `.git/config` read-only and
//!   `.git` not replaceable;
//! - the clawloop home neither readable nor writable (with Landlock its file *names* stay
//!   listable, see `landlock_rules`);
//! - `ptrace`, `process_vm_readv/writev` and `io_uring` denied; with the network off every
//!   socket call except on Unix sockets denied (bubblewrap also gives an empty network
//!   namespace);
//! - provider keys dropped from the environment;
//! - no process of the command outlives it (pid namespace, or the helper as child subreaper).
//!
//! What it does not stop: reading anything else the user can read (`~/.ssh` included) and,
//! with the network on, sending it anywhere; a repository the command creates itself with
//! `git init` has no frozen hooks; with Landlock alone, Unix sockets the user can reach
//! (a Docker socket, a D-Bus session bus) stay reachable, and a process that escapes into
//! another session is still killed only through the subreaper.
//!
//! # Example
//!
//! ```no_run
//! use std::sync::Arc;
//! use clawloop_core::sandbox::{SandboxMode, SandboxPolicy, ToolSandbox};
//!
//! fn main() {
//!     clawloop_sandbox::exec_if_requested();
//!     let sandbox = ToolSandbox::new(
//!         Arc::new(clawloop_sandbox::LinuxSandbox::new()),
//!         SandboxPolicy::new(SandboxMode::WorkspaceWrite),
//!     );
//!     // Put `sandbox` in the tool context (`ToolContext::sandbox`) or the runner's TurnEnv.
//!     # drop(sandbox);
//! }
//! ```

mod bwrap;
mod denial;
mod helper;
mod landlock_rules;
mod mounts;
mod plan;
mod probe;
mod seccomp;
mod spec;

pub use denial::denial_note;
pub use helper::exec_if_requested;
pub use probe::{Backend, LinuxSandbox};
pub use spec::HELPER_ARG;
