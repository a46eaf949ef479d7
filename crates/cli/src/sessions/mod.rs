//! `clawloop sessions list|show|export|fork|delete`: the sessions of one agent, from its
//! `sessions.json` and transcripts (SPEC §2, §10).

mod delete;
mod export;
mod fork;
mod list;
mod open;
pub(crate) mod relative_time;
mod render;
mod resolve;
mod show;

use std::process::ExitCode;

use clap::{Args, Subcommand};
use clawloop_session::{DEFAULT_AGENT_ID, SessionStore};

use crate::config::home_dir;
use crate::failure::{Failure, finish};

pub use resolve::resolve as resolve_target;

/// Arguments of `clawloop sessions`.
#[derive(Debug, Args)]
pub struct SessionsArgs {
    /// The agent whose sessions these are.
    #[arg(long, global = true, default_value = DEFAULT_AGENT_ID)]
    agent: String,
    #[command(subcommand)]
    command: SessionsCommand,
}

#[derive(Debug, Subcommand)]
enum SessionsCommand {
    /// List sessions, most recently updated first.
    List(list::ListArgs),
    /// Show a session's conversation.
    Show(show::ShowArgs),
    /// Write a session as Markdown or as its raw JSONL.
    Export(export::ExportArgs),
    /// Start a new session from a session's history, under a new key.
    Fork(fork::ForkArgs),
    /// Remove a session key; its transcript is kept, renamed.
    Delete(delete::DeleteArgs),
}

/// Runs `clawloop sessions …`.
pub fn main(args: SessionsArgs) -> ExitCode {
    finish(dispatch(args))
}

fn dispatch(args: SessionsArgs) -> Result<(), Failure> {
    let store = open_store(&args.agent)?;
    match args.command {
        SessionsCommand::List(list) => list::run(&store, &list),
        SessionsCommand::Show(show) => show::run(&store, &show),
        SessionsCommand::Export(export) => export::run(&store, &export),
        SessionsCommand::Fork(fork) => fork::run(&store, &fork),
        SessionsCommand::Delete(delete) => delete::run(&store, &delete),
    }
}

/// The session store of `agent` under the clawloop home.
pub fn open_store(agent: &str) -> Result<SessionStore, Failure> {
    let home = home_dir().map_err(|err| Failure::usage(err.to_string()))?;
    SessionStore::for_agent(&home, agent)
        .map_err(|err| Failure::usage(format!("--agent `{agent}`: {err}")))
}
