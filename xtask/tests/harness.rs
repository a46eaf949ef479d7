//! The unit tests of the `harness` example's conformance kind runners and bench e2e
//! scenarios. An example's own `#[cfg(test)]` modules never run under `cargo test` (only a
//! test target's do), so the modules are compiled here a second time, as a test. The interop
//! module's run in `interop_runner`, which includes it anyway.

// The tests reach only part of each module; the example uses the rest.
#[allow(dead_code)]
#[path = "../harness/bench_e2e/mod.rs"]
mod bench_e2e;
#[allow(dead_code)]
#[path = "../harness/conformance/mod.rs"]
mod conformance;
