//! When appended lines are forced to stable storage.

use std::fmt;
use std::str::FromStr;

/// How often a session file is `fsync`ed (SPEC §5).
///
/// A line is always handed to the operating system in one `write` before the append returns,
/// so a crash of the process loses nothing; the policy decides what a crash of the *machine*
/// (power loss, kernel panic) may lose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FsyncPolicy {
    /// After every appended line, before the append returns: nothing acknowledged is lost, at
    /// the cost of an fsync per append.
    Always,
    /// When a turn ends: after an assistant message that does not ask for tools, after a
    /// compaction, on [`crate::Transcript::sync`] and [`crate::Transcript::close`], and
    /// whenever the file is created or rewritten. A machine crash may lose the lines of the
    /// turn in progress.
    ///
    /// The turn end's fsync runs in the background, on a thread of the transcript, so the
    /// append that ends a turn costs a `write`, not an fsync. A killed process still loses
    /// nothing (the written line is in the kernel's page cache); a machine crash within the
    /// few milliseconds before the background fsync completes may also lose the turn just
    /// ended. [`crate::Transcript::sync`] and [`crate::Transcript::close`] wait for it, and
    /// dropping a transcript waits for it too, so the write lock is never released while it
    /// runs.
    ///
    /// A background fsync that fails is reported as [`crate::SessionError::Io`] (action
    /// `background fsync`) by the transcript's next append (which then writes nothing),
    /// [`crate::Transcript::sync`] or [`crate::Transcript::close`], once; lines appended before
    /// it may not survive a machine crash. A failure noticed only when the transcript is
    /// dropped is logged.
    #[default]
    OnTurnEnd,
    /// Never; the operating system writes back when it likes. For tests and throwaway runs.
    Never,
}

impl FsyncPolicy {
    /// The configuration spelling: `always`, `on-turn-end` or `never`.
    pub fn as_str(self) -> &'static str {
        match self {
            FsyncPolicy::Always => "always",
            FsyncPolicy::OnTurnEnd => "on-turn-end",
            FsyncPolicy::Never => "never",
        }
    }
}

impl fmt::Display for FsyncPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An fsync policy name that is none of `always`, `on-turn-end`, `never`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown fsync policy {0:?} (expected always, on-turn-end or never)")]
pub struct UnknownFsyncPolicy(pub String);

impl FromStr for FsyncPolicy {
    type Err = UnknownFsyncPolicy;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "always" => Ok(FsyncPolicy::Always),
            "on-turn-end" => Ok(FsyncPolicy::OnTurnEnd),
            "never" => Ok(FsyncPolicy::Never),
            other => Err(UnknownFsyncPolicy(other.to_owned())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_default_is_on_turn_end() {
        for p in [
            FsyncPolicy::Always,
            FsyncPolicy::OnTurnEnd,
            FsyncPolicy::Never,
        ] {
            assert_eq!(p.to_string().parse::<FsyncPolicy>(), Ok(p));
        }
        assert_eq!(FsyncPolicy::default(), FsyncPolicy::OnTurnEnd);
        assert_eq!(
            "sometimes".parse::<FsyncPolicy>().unwrap_err().to_string(),
            "unknown fsync policy \"sometimes\" (expected always, on-turn-end or never)"
        );
    }
}
