//! The subcommands that drive the scripted provider (`demo`, `conformance`, `bench e2e`,
//! `interop`, `soak`) run in the `harness` example of this package, not in this binary:
//! `clawloop-testkit` is a dev-dependency only (SPEC §1), and only examples, tests and benches
//! may use one. The example's sources are `xtask/harness/`.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

use crate::workspace::{ROOT_ENV, build_root, workspace_root};

/// The example that runs them.
pub const EXAMPLE: &str = "harness";

/// Builds the example, then runs it in this process's directory (relative `--dir`s and the
/// scenario paths printed stay as they were) on this stdio and environment, and returns the
/// exit status the task gave. `args` are this binary's own arguments, command first: the
/// example parses them with the same [`crate::cli::parse`]. It is built from this binary's
/// checkout and works on the one this binary works on (see [`crate::workspace`]).
pub fn run(args: &[String]) -> u8 {
    let example = match build() {
        Ok(example) => example,
        Err(code) => return code,
    };
    let status = Command::new(&example)
        .args(args)
        .env(ROOT_ENV, workspace_root())
        .status();
    match status {
        Ok(status) => exit_code(status),
        Err(e) => {
            eprintln!("xtask: could not start {}: {e}", example.display());
            2
        }
    }
}

/// `cargo build --workspace --example harness`, and the executable it names. The whole
/// workspace is selected so that features resolve as for `cargo test --workspace` (which
/// builds the examples too): the example that test run built is reused, not built again
/// against a second build of tokio and everything above it. Errs with the exit status.
fn build() -> Result<PathBuf, u8> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(&cargo)
        .args(["build", "--quiet", "--workspace", "--example", EXAMPLE])
        .arg("--message-format=json-render-diagnostics")
        .arg("--manifest-path")
        .arg(build_root().join("Cargo.toml"))
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .output();
    let output = match output {
        Ok(output) => output,
        Err(e) => {
            eprintln!("xtask: could not start `{cargo}`: {e}");
            return Err(2);
        }
    };
    if !output.status.success() {
        eprintln!(
            "xtask: `cargo build --example {EXAMPLE}` failed ({})",
            output.status
        );
        return Err(exit_code(output.status));
    }
    executable(&String::from_utf8_lossy(&output.stdout)).ok_or_else(|| {
        eprintln!("xtask: `cargo build --example {EXAMPLE}` named no executable");
        2
    })
}

/// The example's executable among cargo's JSON messages.
fn executable(messages: &str) -> Option<PathBuf> {
    messages
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|message| message["reason"] == "compiler-artifact")
        .filter(|message| message["target"]["name"] == EXAMPLE)
        .find_map(|message| message["executable"].as_str().map(PathBuf::from))
}

/// The exit status to pass on: the child's code, or `128 + signal` as a shell reports a
/// child killed by one (130 for SIGINT).
fn exit_code(status: ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt as _;
    match (status.code(), status.signal()) {
        (Some(code), _) => u8::try_from(code).unwrap_or(1),
        (None, Some(signal)) => u8::try_from(128 + signal).unwrap_or(1),
        (None, None) => 1,
    }
}

/// `target/<profile>` for a binary cargo built into it: a binary or build script sits in it,
/// an example in its `examples/` and a test in its `deps/`, so those go one level up.
pub fn profile_dir(exe: &Path) -> Option<PathBuf> {
    let dir = exe.parent()?;
    match dir.file_name().and_then(|name| name.to_str()) {
        Some("examples" | "deps") => dir.parent().map(Path::to_path_buf),
        _ => Some(dir.to_path_buf()),
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::process::ExitStatusExt as _;

    use super::*;

    #[test]
    fn the_profile_dir_of_a_bin_an_example_and_a_test() {
        for (exe, profile) in [
            ("/t/debug/xtask", "/t/debug"),
            ("/t/debug/examples/harness", "/t/debug"),
            ("/t/debug/deps/demo-0123abcd", "/t/debug"),
            ("/t/release/examples/scale_probe", "/t/release"),
        ] {
            assert_eq!(
                profile_dir(Path::new(exe)),
                Some(PathBuf::from(profile)),
                "{exe}"
            );
        }
    }

    #[test]
    fn the_executable_is_the_example_s_artifact() {
        let artifact = |name: &str, exe: &str| {
            serde_json::json!({"reason": "compiler-artifact", "target": {"name": name},
                "executable": exe})
            .to_string()
        };
        let messages = [
            r#"{"reason":"compiler-artifact","target":{"name":"tokio"},"executable":null}"#
                .to_owned(),
            artifact("scale_probe", "/t/debug/examples/scale_probe"),
            "not json".to_owned(),
            artifact(EXAMPLE, "/t/debug/examples/harness"),
            r#"{"reason":"build-finished","success":true}"#.to_owned(),
        ]
        .join("\n");
        assert_eq!(
            executable(&messages),
            Some(PathBuf::from("/t/debug/examples/harness"))
        );
        assert_eq!(executable(&artifact("scale_probe", "/x")), None);
        assert_eq!(executable(""), None);
    }

    #[test]
    fn the_exit_status_passes_on_codes_and_signals() {
        // A raw wait status: the code in the high byte, a signal in the low bits.
        for (raw, code) in [
            (0, 0),
            (1 << 8, 1),
            (2 << 8, 2),
            (101 << 8, 101),
            (2, 130),
            (9, 137),
        ] {
            assert_eq!(exit_code(ExitStatus::from_raw(raw)), code, "raw {raw}");
        }
    }
}
