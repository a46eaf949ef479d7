//! clawloop's developer tasks, as a library so the binary stays a thin shell and every part
//! is testable on its own.
//!
//! * [`conformance`] runs FORMAT.md scenario files against the real crates;
//! * [`ci`] runs formatting, lints, tests and conformance, stopping at the first failure;
//! * [`demo`] runs one whole agent turn of the real `clawloop` binary against a scripted
//!   provider (no key, no network);
//! * [`cli`] parses the command line by hand;
//! * [`interop`] checks that pi's own `SessionManager` and clawloop read each other's session
//!   files alike (needs `node`; not part of CI).

pub mod ci;
pub mod cli;
pub mod conformance;
pub mod demo;
pub mod interop;
pub mod soak;
