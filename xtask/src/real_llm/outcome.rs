//! Why `real-llm` stopped before or outside its checks.

use std::fmt;

/// A run that could not complete: a missing prerequisite (exit 2) or a failed step (exit 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// Something this machine lacks (network to the package index, cmake, a compiler, tar);
    /// the sentence says which.
    Prerequisite(String),
    /// A step that should have worked did not; the sentence says which.
    Failed(String),
}

impl Failure {
    /// The exit status for this failure.
    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::Prerequisite(_) => 2,
            Failure::Failed(_) => 1,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Prerequisite(message) => write!(f, "missing prerequisite: {message}"),
            Failure::Failed(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Failure {}

/// A failed step, as `Err`.
pub fn failed<T>(message: impl Into<String>) -> Result<T, Failure> {
    Err(Failure::Failed(message.into()))
}

/// A missing prerequisite, as `Err`.
pub fn missing<T>(message: impl Into<String>) -> Result<T, Failure> {
    Err(Failure::Prerequisite(message.into()))
}
