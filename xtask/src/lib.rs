//! clawloop's developer tasks, as a library so the binary stays a thin shell and every part
//! is testable on its own.
//!
//! * [`conformance`] runs FORMAT.md scenario files against the real crates;
//! * [`ci`] runs formatting, lints, tests and conformance, stopping at the first failure;
//! * [`demo`] runs one whole agent turn of the real `clawloop` binary against a scripted
//!   provider (no key, no network);
//! * [`docs`] generates README.md's configuration reference from the config types;
//! * [`bench_scale`] measures session scale, concurrency, stream scale and long runs
//!   through the runner (`cargo xtask bench scale`);
//! * [`fuzz`] builds and runs the libFuzzer targets of `fuzz/` (not part of CI);
//! * [`cli`] parses the command line by hand;
//! * [`bench_e2e`] measures the turn overhead of the release `clawloop` binary against a
//!   floor and its peers (`cargo xtask bench e2e`);
//! * [`interop`] checks that pi's own `SessionManager` and clawloop read each other's session
//!   files alike (needs `node`; not part of CI);
//! * [`real_llm`] runs the real `clawloop` binary against a real local model served by
//!   llama.cpp (opt-in; not part of CI);
//! * [`soak`] runs real `clawloop` processes against a faulty provider with random
//!   interrupts and kills, then checks every transcript and state file (not part of CI);
//! * [`workspace`] finds the checkout to work on when the task runs.

pub mod bench_e2e;
pub mod bench_scale;
pub mod ci;
pub mod cli;
pub mod conformance;
pub mod demo;
pub mod docs;
pub mod fuzz;
pub mod interop;
pub mod real_llm;
pub mod soak;
pub mod workspace;
