//! `cargo xtask`: clawloop's developer tasks.

fn main() {}
