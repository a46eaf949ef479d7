//! `cargo xtask ci`: the checks a change must pass, in order, stopping at the first failure.

use std::process::Command;

use crate::conformance::discover;

/// The cargo invocations after `docs`: (step name, cargo arguments). `test` runs the
/// conformance scenarios too, as the `xtask` test target `conformance` (once: ci has no
/// separate conformance step).
pub const CARGO_STEPS: [(&str, &[&str]); 3] = [
    ("fmt", &["fmt", "--all", "--check"]),
    (
        "clippy",
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    ),
    ("test", &["test", "--workspace"]),
];

/// Runs every step; returns the exit status (0 when all passed).
pub fn run() -> u8 {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let root = discover::workspace_root();
    // The README's generated configuration reference must match the config types.
    let total = CARGO_STEPS.len() + 1;
    println!("==> [1/{total}] docs: cargo xtask docs --check");
    if crate::docs::run(true) != 0 {
        eprintln!("xtask ci: step `docs` failed");
        return 1;
    }
    for (n, (name, args)) in CARGO_STEPS.iter().enumerate() {
        println!("==> [{}/{total}] {name}: cargo {}", n + 2, args.join(" "));
        let status = Command::new(&cargo).args(*args).current_dir(&root).status();
        match status {
            Ok(s) if s.success() => {}
            Ok(s) => {
                eprintln!("xtask ci: step `{name}` failed ({s})");
                return 1;
            }
            Err(e) => {
                eprintln!("xtask ci: step `{name}` could not start `{cargo}`: {e}");
                return 1;
            }
        }
    }
    println!("xtask ci: all steps passed");
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_run_in_the_documented_order() {
        let names: Vec<&str> = CARGO_STEPS.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, ["fmt", "clippy", "test"]);
        assert_eq!(CARGO_STEPS[0].1, ["fmt", "--all", "--check"]);
        assert!(CARGO_STEPS[1].1.ends_with(&["-D", "warnings"]));
    }
}
