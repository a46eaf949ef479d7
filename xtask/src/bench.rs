//! `cargo xtask bench [NAME]`: runs the criterion benchmarks of one group, or of all groups.

use std::process::Command;

use xtask::conformance::discover;

/// Benchmark groups: the name `cargo xtask bench` takes and the package `cargo bench -p` runs.
/// The name is also the crate's directory under `crates/`, whose `benches/` must exist (a test
/// checks). A crate that gains benchmarks is one more line here.
pub const GROUPS: &[(&str, &str)] = &[
    ("subscribe", "clawloop-subscribe"),
    ("session", "clawloop-session"),
    ("providers", "clawloop-providers"),
];

/// The packages to benchmark: the named group's, or every group's when `name` is `None`.
/// An unknown name is a usage error; the message lists the known ones.
pub fn packages(name: Option<&str>) -> Result<Vec<&'static str>, String> {
    match name {
        None => Ok(GROUPS.iter().map(|&(_, package)| package).collect()),
        Some(name) => GROUPS
            .iter()
            .find(|&&(group, _)| group == name)
            .map(|&(_, package)| vec![package])
            .ok_or_else(|| {
                let known: Vec<&str> = GROUPS.iter().map(|&(group, _)| group).collect();
                format!(
                    "bench: unknown benchmark group {name:?} (known: {})",
                    known.join(", ")
                )
            }),
    }
}

/// Runs `cargo bench -p PACKAGE` for each package in turn, stopping at the first failure.
/// Returns the exit status: 0 when all passed, 1 otherwise.
pub fn run(packages: &[&str]) -> u8 {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let root = discover::workspace_root();
    let total = packages.len();
    for (n, package) in packages.iter().enumerate() {
        println!("==> [{}/{total}] cargo bench -p {package}", n + 1);
        match Command::new(&cargo)
            .args(["bench", "-p", package])
            .current_dir(&root)
            .status()
        {
            Ok(status) if status.success() => {}
            Ok(status) => {
                eprintln!("xtask bench: `cargo bench -p {package}` failed ({status})");
                return 1;
            }
            Err(e) => {
                eprintln!("xtask bench: could not start `{cargo}`: {e}");
                return 1;
            }
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_group_has_benches() {
        let root = discover::workspace_root();
        for (group, package) in GROUPS {
            let dir = root.join("crates").join(group);
            assert!(
                dir.join("benches").is_dir(),
                "{group}: no benches/ in {dir:?}"
            );
            let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
            assert!(
                manifest.contains(&format!("name = \"{package}\"")),
                "{group}: {dir:?} is not {package}"
            );
        }
    }

    #[test]
    fn names_select_packages() {
        assert_eq!(packages(Some("subscribe")).unwrap(), ["clawloop-subscribe"]);
        assert_eq!(packages(None).unwrap().len(), GROUPS.len());
        let err = packages(Some("nope")).unwrap_err();
        assert!(err.contains("unknown benchmark group \"nope\""), "{err}");
        assert!(err.contains("subscribe"), "{err}");
    }
}
