//! The `cargo xtask` subcommands that drive the scripted provider of `clawloop-testkit`:
//! `demo`, `conformance`, `bench e2e`, `interop` and `soak`. testkit is a dev-dependency only
//! (SPEC §1), so they live in this example and the `xtask` binary runs it (see
//! `xtask::harness`). It takes the binary's arguments, command first, and parses them with the
//! same parser; its output and exit status are the command's.
//!
//! The modules are `xtask/harness/…`; each re-exports the lib module of the same name, so the
//! `crate::…` and `super::…` paths they were written with reach the lib.

use std::io;
use std::process::ExitCode;

use xtask::cli::{self, Command, USAGE};

#[path = "../harness/bench_e2e/mod.rs"]
mod bench_e2e;
#[path = "../harness/conformance/mod.rs"]
mod conformance;
#[path = "../harness/demo.rs"]
mod demo;
#[path = "../harness/interop/mod.rs"]
mod interop;
#[path = "../harness/soak/mod.rs"]
mod soak;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let code = match cli::parse(&args) {
        Ok(Command::Demo) => demo::run(),
        Ok(Command::Conformance(opts)) => run_conformance(&opts),
        Ok(Command::BenchE2e(opts)) => bench_e2e::run(&opts),
        Ok(Command::Interop(opts)) => interop::run(&opts),
        Ok(Command::Soak(opts)) => soak::run(&opts),
        Ok(_) => {
            eprintln!("xtask harness: runs demo, conformance, bench e2e, interop and soak only");
            2
        }
        Err(err) => {
            eprintln!("xtask: {err}\n\n{USAGE}");
            2
        }
    };
    ExitCode::from(code)
}

fn run_conformance(opts: &conformance::Options) -> u8 {
    match conformance::run(opts, io::stdout().lock()) {
        Ok(exit) => exit as u8,
        // `… | head` closing the pipe is not worth a message; the status still says so.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => 2,
        Err(e) => {
            eprintln!("xtask conformance: cannot write output: {e}");
            2
        }
    }
}
