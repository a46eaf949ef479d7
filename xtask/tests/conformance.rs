//! The conformance scenarios as one `cargo test` target (`harness = false`): every FORMAT.md
//! scenario of the default directories, of the kinds `cargo xtask ci` has always run, through
//! the same library as `cargo xtask conformance`. A `PASS` line is left out (437 of them would
//! bury the rest of `cargo test`); failures and the summary line are printed as
//! `cargo xtask conformance` prints them.
//!
//! It answers libtest's arguments as far as one test named `conformance` needs: `--list`, a
//! name filter, `--skip`, `--ignored` (it is not ignored), and flags it has no use for.

use std::process::ExitCode;

use xtask::conformance::{self, Exit, Options, kinds};

/// The one test's name, as filters and `--list` see it.
const NAME: &str = "conformance";

/// libtest flags followed by a value, which is then no name filter.
const VALUED_FLAGS: [&str; 7] = [
    "--test-threads",
    "--format",
    "--color",
    "--logfile",
    "--report-time",
    "--shuffle-seed",
    "-Z",
];

/// What the arguments ask of this target.
enum Asked {
    List,
    Run,
    Skip,
}

fn asked(args: &[String]) -> Asked {
    let mut filters = Vec::new();
    let mut skipped = false;
    let mut ignored_only = false;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--list" => return Asked::List,
            "--ignored" => ignored_only = true,
            "--skip" => skipped |= args.next().is_some_and(|s| NAME.contains(s.as_str())),
            flag if VALUED_FLAGS.contains(&flag) => {
                args.next();
            }
            flag if flag.starts_with('-') => {}
            filter => filters.push(filter),
        }
    }
    let selected = filters.is_empty() || filters.iter().any(|f| NAME.contains(f));
    if selected && !skipped && !ignored_only {
        Asked::Run
    } else {
        Asked::Skip
    }
}

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
