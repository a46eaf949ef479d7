//! `clawloop`: the command-line interface (SPEC §10).
//!
//! Loads `<home>/config.toml`, wires the runner's HTTP providers, session store and built-in
//! tools over the clawloop home (SPEC §2), and runs turns from a terminal or a script.

mod approval;
mod async_runtime;
mod auth;
mod chat;
mod compact;
mod completions;
mod config;
mod continue_pick;
mod doctor;
mod env_setup;
mod exit_code;
mod failure;
mod hints;
mod image_size;
mod images;
mod logging;
mod logs;
mod model_choice;
mod models;
mod prompt_input;
mod render;
mod run;
mod session_pick;
mod sessions;
mod shell_word;
mod signals;
mod turn_driver;

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

use exit_code::EXIT_USAGE;

/// Run LLM agent turns from a terminal or a script.
#[derive(Debug, Parser)]
#[command(name = "clawloop", version, about)]
struct Cli {
    /// Set a config key for this command, over the file and the environment: a dotted key and
    /// a TOML value (a bare word is a string), e.g. `--config agents.defaults.timeoutSeconds=30`.
    #[arg(long = "config", global = true, value_name = "KEY=VALUE")]
    config_overrides: Vec<String>,
    #[command(flatten)]
    bare: chat::BareArgs,
    /// Without one, `chat` on a terminal (as pi and codex start their session), else the help.
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run one turn: send a message to a session and print the reply.
    Run(run::RunArgs),
    /// Talk with the model: many turns in one session, with slash commands.
    Chat(chat::ChatArgs),
    /// Show where the config file is, the effective configuration, or write a starter file.
    Config(config::command::ConfigArgs),
    /// Print the newest log file of `<home>/logs/`.
    Logs(logs::LogsArgs),
    /// Print a shell completion script.
    Completions(completions::CompletionsArgs),
    /// List, show, export, fork or delete sessions.
    Sessions(sessions::SessionsArgs),
    /// List models: the built-in catalog and the config's, with their limits and keys.
    Models(models::ModelsArgs),
    /// Compact a session now: summarize its older history to free context.
    Compact(compact::CompactArgs),
    /// Manage auth profiles: list, add, remove, reset.
    Auth(auth::AuthArgs),
    /// Check the config, credentials, permissions, providers, locks and transcripts.
    Doctor(doctor::DoctorArgs),
}

impl Command {
    /// The command's name in the log, for commands that write logs.
    fn log_name(&self) -> Option<&'static str> {
        match self {
            Command::Run(_) => Some("run"),
            Command::Chat(_) => Some("chat"),
            Command::Compact(_) => Some("compact"),
            Command::Config(_)
            | Command::Logs(_)
            | Command::Completions(_)
            | Command::Sessions(_)
            | Command::Models(_)
            | Command::Auth(_)
            | Command::Doctor(_) => None,
        }
    }
}

fn main() -> ExitCode {
    // When started as the sandbox's helper, this confines itself, runs the command and exits.
    clawloop_sandbox::exec_if_requested();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // The usage error (exit 2) or the help/version text (exit 0), as clap writes it.
        Err(err) => return render::clap_error::report(&err),
    };
    config::set_overrides(cli.config_overrides);
    if cli.command.is_some()
        && let Some(flag) = cli.bare.given()
    {
        eprintln!(
            "clawloop: {flag} before a command starts chat; put it after the command, e.g. `clawloop run {flag}`"
        );
        return ExitCode::from(EXIT_USAGE);
    }
    let Some(command) = cli.command.or_else(|| cli.bare.chat().map(Command::Chat)) else {
        // As clap's missing-subcommand error did: the help on stderr, exit 2.
        eprint!("{}", Cli::command().render_help());
        return ExitCode::from(EXIT_USAGE);
    };
    // Held to the end: dropping it flushes the log's last lines.
    let _log = command.log_name().and_then(logging::init);
    match command {
        Command::Run(args) => run::main(args),
        Command::Chat(args) => chat::main(args),
        Command::Config(args) => config::command::main(args),
        Command::Logs(args) => logs::main(args),
        Command::Completions(args) => completions::main(args, Cli::command()),
        Command::Sessions(args) => sessions::main(args),
        Command::Models(args) => models::main(args),
        Command::Compact(args) => compact::main(args),
        Command::Auth(args) => auth::main(args),
        Command::Doctor(args) => doctor::main(args),
    }
}
