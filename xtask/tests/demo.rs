//! The demo's core against the real `clawloop` binary of this target directory.

use std::path::PathBuf;

use demo::{EDITED_TEXT, SUMMARY};
use pretty_assertions::assert_eq;
use xtask::conformance;

// The harness example's module (it uses the dev-dependency clawloop-testkit, SPEC §1). This
// test reaches only part of it.
#[allow(dead_code)]
#[path = "../harness/demo.rs"]
mod demo;

/// `target/<profile>/clawloop`: this test binary lives in `target/<profile>/deps/`. The binary
/// is there whenever the workspace's tests were built (`cargo test --workspace`, or after
/// `cargo build -p clawloop`).
fn clawloop_binary() -> Result<PathBuf, Box<dyn std::error::Error>> {
    let exe = std::env::current_exe()?;
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .ok_or("the test binary has no target/<profile> directory")?;
    let binary = profile_dir.join(demo::binary_name());
    if !binary.is_file() {
        return Err(format!(
            "{} is missing: run `cargo build -p clawloop` first",
            binary.display()
        )
        .into());
    }
    Ok(binary)
}

#[test]
fn demo_turn_lists_reads_and_edits_the_file_then_answers() -> Result<(), Box<dyn std::error::Error>>
{
    let outcome = demo::run_demo(&clawloop_binary()?, true)?;
    assert_eq!(
        (outcome.exit_code, outcome.edited_file.as_str()),
        (Some(0), EDITED_TEXT)
    );
    assert!(
        outcome.stdout.trim_end().ends_with(SUMMARY),
        "stdout: {}",
        outcome.stdout
    );
    Ok(())
}
