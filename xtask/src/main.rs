//! `cargo xtask`: clawloop's developer tasks.
//!
//! * `cargo xtask conformance` runs the FORMAT.md scenario files against the real crates;
//! * `cargo xtask demo` runs one whole agent turn (tool calls included) of the real
//!   `clawloop` binary against a scripted provider on 127.0.0.1: no key, no network;
//! * `cargo xtask docs [--check]` writes (or checks) README.md's configuration reference;
//! * `cargo xtask ci` runs formatting, lints, tests and conformance, stopping at the first
//!   failure;
//! * `cargo xtask bench [NAME]` runs the criterion benchmarks of one group, or of all;
//! * `cargo xtask bench e2e` measures the turn overhead of the release `clawloop` binary;
//! * `cargo xtask bench scale [--quick]` runs the scale benchmarks (sessions, concurrency,
//!   streams, long runs) through the runner and writes `bench/scale.json`;
//! * `cargo xtask interop` checks pi's own `SessionManager` against clawloop's session files
//!   (needs `node` and the npm package; exit status 2 when they are missing);
//! * `cargo xtask real-llm` runs the release `clawloop` binary against a real local model
//!   (llama.cpp's `llama-server`, built from source; opt-in, not part of CI);
//! * `cargo xtask fuzz [--seconds N] [--target T]` runs the libFuzzer targets of `fuzz/`.
//!
//! Exit status: 0 success, 1 failures, 2 usage errors or unparseable scenario files.

use std::process::ExitCode;

use xtask::cli::{self, Command, USAGE};
use xtask::{bench_scale, ci, docs, fuzz, harness};

mod bench;

fn main() -> ExitCode {
    // Lossy: a non-UTF-8 argument becomes a usage error instead of a panic.
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let code = match cli::parse(&args) {
        Ok(Command::Help) => {
            eprintln!("{USAGE}");
            2
        }
        Ok(Command::Ci) => ci::run(),
        Ok(Command::Docs(check)) => docs::run(check),
        Ok(Command::Bench(name)) => match bench::packages(name.as_deref()) {
            Ok(packages) => bench::run(&packages),
            Err(err) => {
                eprintln!("xtask: {err}\n\n{USAGE}");
                2
            }
        },
        Ok(Command::BenchScale(opts)) => bench_scale::main(opts),
        Ok(Command::RealLlm(options)) => xtask::real_llm::run(&options),
        Ok(Command::Fuzz(opts)) => fuzz::run(&opts),
        // The scripted provider is a dev-dependency (SPEC §1): these run in the example.
        Ok(
            Command::Demo
            | Command::Conformance(_)
            | Command::BenchE2e(_)
            | Command::Interop(_)
            | Command::Soak(_),
        ) => harness::run(&args),
        Err(err) => {
            eprintln!("xtask: {err}\n\n{USAGE}");
            2
        }
    };
    ExitCode::from(code)
}
