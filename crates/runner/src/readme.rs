//! The README's Rust examples, compiled and run as this crate's doc tests (the runner depends on
//! every other crate), so the README cannot drift from the code it shows.
#![doc = include_str!("../../../README.md")]
