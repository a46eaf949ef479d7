//! The conformance scenarios as one `cargo test` target (`harness = false`): every FORMAT.md
//! scenario of the default directories, of the kinds `cargo xtask ci` has always run, through
//! the same modules as `cargo xtask conformance`. A `PASS` line is left out (437 of them would
//! bury the rest of `cargo test`); failures and the summary line are printed as
//! `cargo xtask conformance` prints them.
//!
//! Which of libtest's arguments it answers: `xtask::conformance::test_target`.

use std::process::ExitCode;

use conformance::test_target::{Asked, NAME, asked};
use conformance::{Exit, Options, kinds};

// The kind runners and the run are the harness example's (two kinds use the dev-dependency
// clawloop-testkit, SPEC §1); `cargo xtask conformance` runs the same modules there. This
// target runs no libtest, so the modules' unit tests (run by the `harness` test) are compiled
// but never called: their helpers and imports look unused here.
#[allow(dead_code, unused_imports)]
#[path = "../harness/conformance/mod.rs"]
mod conformance;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match asked(&args) {
        Asked::List => {
            println!("{NAME}: test");
            ExitCode::SUCCESS
        }
        Asked::Skip => {
            println!("conformance: filtered out");
            ExitCode::SUCCESS
        }
        Asked::Run => run(),
    }
}

fn run() -> ExitCode {
    let opts = Options {
        kinds: Some(kinds::implemented_kinds()),
        ..Options::default()
    };
    let mut out = Vec::new();
    let exit = conformance::run(&opts, &mut out);
    let text = String::from_utf8_lossy(&out);
    for line in text.lines().filter(|line| !line.starts_with("PASS ")) {
        println!("{line}");
    }
    match exit {
        Ok(Exit::Passed) => ExitCode::SUCCESS,
        Ok(exit) => ExitCode::from(exit as u8),
        Err(e) => {
            eprintln!("conformance: cannot collect the output: {e}");
            ExitCode::from(2)
        }
    }
}
