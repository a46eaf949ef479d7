//! `clawloop auth list|add|remove|reset` (SPEC §10): the agent's auth profiles in
//! `<home>/agents/<agentId>/agent/auth-profiles.json` and their state in `auth-state.json`,
//! read and written through the runner's [`FileAuthStore`](clawloop_runner::auth::FileAuthStore)
//! (atomic, 0600, locked across processes). No command ever prints a secret.

mod add;
mod context;
mod key_input;
mod list;
mod local_time;
mod remove;
mod reset;
mod source;

use std::process::ExitCode;

use crate::render::sanitize::for_stdout;
use clap::{Args, Subcommand};

pub use crate::failure::Failure;
pub use context::{AuthContext, agent_dir, now_ms};
pub use local_time::format_local_ms;

/// Arguments of `clawloop auth`.
#[derive(Debug, Args)]
pub struct AuthArgs {
    #[command(subcommand)]
    command: AuthCommand,
}

#[derive(Debug, Subcommand)]
enum AuthCommand {
    /// List the auth profiles, where their secrets come from and whether they rest.
    List(list::ListArgs),
    /// Add an API-key profile: key from stdin, an env variable or a command, never argv.
    Add(add::AddArgs),
    /// Remove a profile and its state.
    Remove(remove::RemoveArgs),
    /// Clear cooldowns, disabled windows and error counts (last-used times stay).
    Reset(reset::ResetArgs),
}

/// Writes `text` and a newline to stdout; a closed stdout (`| head`) is not an error, the
/// command has done its work.
pub fn say(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", for_stdout(text)).and_then(|()| out.flush());
}

/// Runs `clawloop auth …`.
pub fn main(args: AuthArgs) -> ExitCode {
    let result = match args.command {
        AuthCommand::List(args) => list::run(&args),
        AuthCommand::Add(args) => add::run(&args),
        AuthCommand::Remove(args) => remove::run(&args),
        AuthCommand::Reset(args) => reset::run(&args),
    };
    crate::failure::finish(result)
}
