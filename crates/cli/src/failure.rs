//! A command that could not do its work: the exit code (SPEC §10) and the one sentence that
//! says why, printed as `clawloop: <message>`.

use std::process::ExitCode;

use crate::EXIT_USAGE;
use crate::render::sanitize::for_stderr;

/// Exit code of an operation that failed.
pub const EXIT_FAILED: u8 = 1;

/// Why a command stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The process's exit code.
    pub code: u8,
    /// One sentence naming what was wrong.
    pub message: String,
}

impl Failure {
    /// A usage or configuration error (exit 2).
    pub fn usage(message: impl Into<String>) -> Self {
        Failure {
            code: EXIT_USAGE,
            message: message.into(),
        }
    }

    /// A failed operation (exit 1).
    pub fn failed(message: impl Into<String>) -> Self {
        Failure {
            code: EXIT_FAILED,
            message: message.into(),
        }
    }
}

/// The exit code of `result`, printing the failure's sentence on stderr.
pub fn finish(result: Result<(), Failure>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            // The sentence may quote a server, a file or an argument: a terminal gets it
            // neutralized.
            eprintln!("clawloop: {}", for_stderr(&failure.message));
            ExitCode::from(failure.code)
        }
    }
}
