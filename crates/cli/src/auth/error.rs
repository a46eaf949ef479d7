//! A failed command: the one sentence to print and the exit code (SPEC §10).

use clawloop_core::auth_store::AuthStoreError;

/// Exit code of a failed operation.
pub const EXIT_FAILED: u8 = 1;
/// Exit code after Ctrl-C.
pub const EXIT_INTERRUPTED: u8 = 130;

/// Why a command stopped, as printed after `clawloop: `.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CmdError {
    /// The process exit code.
    pub code: u8,
    /// One sentence naming what was wrong.
    pub message: String,
}

impl CmdError {
    /// A usage or configuration error (exit 2).
    pub fn usage(message: impl Into<String>) -> Self {
        CmdError {
            code: crate::EXIT_USAGE,
            message: message.into(),
        }
    }

    /// An operation that failed (exit 1).
    pub fn failed(message: impl Into<String>) -> Self {
        CmdError {
            code: EXIT_FAILED,
            message: message.into(),
        }
    }

    /// The user pressed Ctrl-C (exit 130).
    pub fn interrupted() -> Self {
        CmdError {
            code: EXIT_INTERRUPTED,
            message: "interrupted".to_owned(),
        }
    }
}

impl From<AuthStoreError> for CmdError {
    fn from(err: AuthStoreError) -> Self {
        // Every store error names its file; a bad file is the user's to fix, like bad config.
        match err {
            AuthStoreError::Invalid { .. } => CmdError::usage(err.to_string()),
            _ => CmdError::failed(err.to_string()),
        }
    }
}
