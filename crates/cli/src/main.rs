//! `clawloop`: the command-line interface.
//!
//! This crate will own (SPEC §10): config loading, wiring the concrete providers, session store,
//! tools and subscription into the runner as trait objects, and terminal rendering for
//! `clawloop run`, `chat`, `sessions`, `auth`, `models`, `compact`, `config`, `logs`, `doctor`
//! and `completions`.

use std::process::ExitCode;

fn main() -> ExitCode {
    eprintln!(
        "clawloop {}: the command line arrives with the CLI issue",
        env!("CARGO_PKG_VERSION")
    );
    ExitCode::from(2)
}
