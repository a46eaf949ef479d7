//! The exit codes every command shares, as pi and codex users expect them (SPEC §10): 0
//! success, [`EXIT_FAILED`] a failed turn or operation, [`EXIT_USAGE`] a usage or
//! configuration error, [`EXIT_INTERRUPTED`] after Ctrl-C. SIGTERM and SIGHUP exit
//! 128 + their number ([`crate::signals::Stop::exit_code`]).

/// A turn or operation failed.
pub const EXIT_FAILED: u8 = 1;
/// A usage or configuration error: nothing ran.
pub const EXIT_USAGE: u8 = 2;
/// Ctrl-C (128 + SIGINT).
pub const EXIT_INTERRUPTED: u8 = 130;
