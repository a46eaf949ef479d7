//! clawloop's developer tasks, as a library so the binary stays a thin shell and every part
//! is testable on its own.
//!
//! * [`conformance`] runs FORMAT.md scenario files against the real crates;
//! * [`ci`] runs formatting, lints, tests and conformance, stopping at the first failure;
//! * [`cli`] parses the command line by hand.

pub mod ci;
pub mod cli;
pub mod conformance;
