//! The measured process of `cargo xtask bench scale` (see `xtask::bench_scale`): `serve`
//! runs the provider rule server, every other mode one benchmark whose numbers it prints as
//! JSON. Its code is `xtask/harness/bench_scale/` (it uses the dev-dependency
//! `clawloop-testkit`, SPEC §1).

use std::process::ExitCode;

#[path = "../harness/bench_scale/mod.rs"]
mod bench_scale;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    ExitCode::from(bench_scale::probe_main(&args))
}
