//! The measured process of `cargo xtask bench scale` (see `xtask::bench_scale`): `serve`
//! runs the provider rule server, every other mode one benchmark whose numbers it prints as
//! JSON.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    ExitCode::from(xtask::bench_scale::probe_main(&args))
}
