//! A command that could not do its work: the exit code (SPEC §10) and the one sentence that
//! says why, printed as `clawloop: <message>`. Every command's error is this one type.

use std::process::ExitCode;

use clawloop_core::auth_store::AuthStoreError;

use crate::exit_code::{EXIT_FAILED, EXIT_INTERRUPTED, EXIT_USAGE};
use crate::render::sanitize::for_stderr;

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

    /// The user pressed Ctrl-C (exit 130).
    pub fn interrupted() -> Self {
        Failure {
            code: EXIT_INTERRUPTED,
            message: "interrupted".to_owned(),
        }
    }
}

impl From<AuthStoreError> for Failure {
    fn from(err: AuthStoreError) -> Self {
        // Every store error names its file; a bad file is the user's to fix, like bad config.
        match err {
            AuthStoreError::Invalid { .. } => Failure::usage(err.to_string()),
            _ => Failure::failed(err.to_string()),
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
