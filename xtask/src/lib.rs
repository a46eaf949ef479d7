//! clawloop's developer tasks, as a library so the binary stays a thin shell and every part
//! is testable on its own.
//!
//! * [`conformance`] reads, compares and reports FORMAT.md scenario files (the kind runners
//!   are the harness's);
//! * [`ci`] runs formatting, lints, tests and conformance, stopping at the first failure;
//! * [`harness`] runs `demo`, `conformance`, `bench e2e`, `interop` and `soak` in the
//!   `harness` example (`xtask/harness/`): they drive the scripted provider of
//!   `clawloop-testkit`, a dev-dependency only (SPEC §1); this library holds their options
//!   and everything else of them that needs no testkit;
//! * [`docs`] generates README.md's configuration reference from the config types;
//! * [`bench_scale`] measures session scale, concurrency, stream scale and long runs
//!   through the runner (`cargo xtask bench scale`);
//! * [`fuzz`] builds and runs the libFuzzer targets of `fuzz/` (not part of CI);
//! * [`cli`] parses the command line by hand;
//! * [`bench_e2e`] holds the options, measuring helpers and report of `cargo xtask bench e2e`
//!   (the turn overhead of the release `clawloop` binary against a floor and its peers);
//! * [`interop`] holds the options of `cargo xtask interop` (pi's own `SessionManager` and
//!   clawloop read each other's session files alike; needs `node`; not part of CI);
//! * [`real_llm`] runs the real `clawloop` binary against a real local model served by
//!   llama.cpp (opt-in; not part of CI);
//! * [`soak`] holds the options of `cargo xtask soak` (real `clawloop` processes against a
//!   faulty provider with random interrupts and kills; not part of CI);
//! * [`workspace`] finds the checkout to work on when the task runs.

pub mod bench_e2e;
pub mod bench_scale;
pub mod ci;
pub mod cli;
pub mod conformance;
pub mod docs;
pub mod fuzz;
pub mod harness;
pub mod interop;
pub mod real_llm;
pub mod soak;
pub mod workspace;
