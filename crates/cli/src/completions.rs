//! `clawloop completions <shell>`: the shell completion script, generated from the CLI's own
//! argument definitions so it always matches them.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use clap_complete::Shell;

/// Arguments of `clawloop completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    #[arg(value_enum)]
    shell: Shell,
}

/// Prints the completion script of `command` for the shell.
pub fn main(args: CompletionsArgs, mut command: clap::Command) -> ExitCode {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "clawloop", &mut script);
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(&script).and_then(|()| stdout.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        // `… | head` closing the pipe early is the reader's choice, not a failure.
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("clawloop: cannot write the completion script: {err}");
            ExitCode::from(crate::exit_code::EXIT_FAILED)
        }
    }
}
