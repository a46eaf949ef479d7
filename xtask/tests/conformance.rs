//! The conformance scenarios as one `cargo test` target (`harness = false`): every FORMAT.md
//! scenario of the default directories, of the kinds `cargo xtask ci` has always run, through
//! the same library as `cargo xtask conformance`. A `PASS` line is left out (437 of them would
//! bury the rest of `cargo test`); failures and the summary line are printed as
//! `cargo xtask conformance` prints them.
//!
//! Which of libtest's arguments it answers: [`xtask::conformance::test_target`].

use std::process::ExitCode;

use xtask::conformance::test_target::{Asked, NAME, asked};
use xtask::conformance::{self, Exit, Options, kinds};

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
