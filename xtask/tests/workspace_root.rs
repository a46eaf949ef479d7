//! The built `xtask` binary works on the checkout it is run in, not on the one it was built
//! from: with a target directory shared by two clones, one clone runs the binary the other
//! built (issue 22 defect).

// The helpers below are test code too; clippy only exempts `#[test]` functions themselves.
#![allow(clippy::unwrap_used)]

use std::fs;
use std::path::Path;
use std::process::Command;

const XTASK: &str = env!("CARGO_BIN_EXE_xtask");

/// A classify case that holds for any correct classifier (as in `conformance_cli.rs`).
const PASSING: &str = r#"{
  "kind": "classify",
  "name": "other-clone",
  "input": {"message": "429 Too Many Requests"},
  "expect": {"transientHttp": false, "roleOrdering": false}
}"#;

/// Another clone of the workspace, as far as finding its root goes: a workspace manifest,
/// the xtask crate and one scenario of its own under `conformance/`.
fn other_clone(dir: &Path) {
    fs::create_dir_all(dir.join("xtask/src")).unwrap();
    fs::create_dir_all(dir.join("conformance")).unwrap();
    fs::write(
        dir.join("Cargo.toml"),
        "[workspace]\nmembers = [\"xtask\"]\n",
    )
    .unwrap();
    fs::write(
        dir.join("xtask/Cargo.toml"),
        "[package]\nname = \"xtask\"\n",
    )
    .unwrap();
    fs::write(dir.join("conformance/only.json"), PASSING).unwrap();
}

/// `xtask conformance` (default scenario directories) run in `cwd` with `manifest_dir` as
/// the process's `CARGO_MANIFEST_DIR`: its stdout lines and exit code.
fn conformance(cwd: &Path, manifest_dir: Option<&Path>) -> (Vec<String>, Option<i32>) {
    let mut command = Command::new(XTASK);
    command.arg("conformance").current_dir(cwd);
    match manifest_dir {
        Some(dir) => command.env("CARGO_MANIFEST_DIR", dir),
        None => command.env_remove("CARGO_MANIFEST_DIR"),
    };
    let out = command.output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    (text.lines().map(str::to_owned).collect(), out.status.code())
}

#[test]
fn run_directly_in_another_clone_it_finds_that_clone_from_the_current_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let clone = tmp.path().join("clone");
    other_clone(&clone);
    let (lines, code) = conformance(&clone, None);
    assert_eq!(
        lines,
        [
            "PASS conformance/only.json#other-clone",
            "1 passed, 0 failed"
        ]
    );
    assert_eq!(code, Some(0));

    // From a directory inside the clone, the root is found above it.
    let (lines, _) = conformance(&clone.join("xtask/src"), None);
    assert_eq!(lines.last().map(String::as_str), Some("1 passed, 0 failed"));
    assert!(lines[0].ends_with("clone/conformance/only.json#other-clone"));
}

#[test]
fn run_by_cargo_for_another_clone_it_follows_cargo_manifest_dir() {
    // `cargo xtask` is `cargo run`, which names the running package's directory at run time,
    // whatever the current directory is.
    let tmp = tempfile::tempdir().unwrap();
    let clone = tmp.path().join("clone");
    other_clone(&clone);
    let elsewhere = tmp.path().join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    let (lines, code) = conformance(&elsewhere, Some(&clone.join("xtask")));
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].ends_with("clone/conformance/only.json#other-clone"));
    assert_eq!(lines[1], "1 passed, 0 failed");
    assert_eq!(code, Some(0));
}
