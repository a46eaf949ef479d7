//! `clawloop`: the command-line interface (SPEC §10).
//!
//! Loads `<home>/config.toml`, wires the runner's HTTP providers, session store and built-in
//! tools over the clawloop home (SPEC §2), and runs turns from a terminal or a script.

mod auth;
mod config;
mod doctor;
mod output;
mod run;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Exit code of a usage or configuration error.
pub const EXIT_USAGE: u8 = 2;

/// Run LLM agent turns from a terminal or a script.
#[derive(Debug, Parser)]
#[command(name = "clawloop", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run one turn: send a message to a session and print the reply.
    Run(run::RunArgs),
    /// Manage auth profiles: list, add, remove, reset.
    Auth(auth::AuthArgs),
    /// Check the config, credentials, permissions, providers, locks and transcripts.
    Doctor(doctor::DoctorArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // clap prints the usage error (exit 2) or the help/version text (exit 0) itself.
        Err(err) => err.exit(),
    };
    match cli.command {
        Command::Run(args) => run::main(args),
        Command::Auth(args) => auth::main(args),
        Command::Doctor(args) => doctor::main(args),
    }
}
