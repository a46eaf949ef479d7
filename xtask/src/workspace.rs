//! Which clawloop checkout the tasks work on, found when the task runs.
//!
//! The path cargo bakes in at build time (`env!("CARGO_MANIFEST_DIR")`) names the checkout the
//! binary was built from: with a `CARGO_TARGET_DIR` shared by two clones, one clone's
//! `cargo xtask` can run the other's binary, and every path it derived was stale (`could not
//! start cargo: No such file or directory` once that clone was gone). So the root is looked
//! up at run time: from the `CARGO_MANIFEST_DIR` that `cargo run` (and so the `cargo xtask`
//! alias) sets for the process, then from the current directory, and only then from the
//! build-time path.
//!
//! The `harness` example ([`crate::harness`]) is a second process that cargo starts with its
//! own `CARGO_MANIFEST_DIR`, so the binary hands it the root it found in [`ROOT_ENV`], and
//! that comes first. The example itself is built from the sources of the binary's own
//! checkout ([`build_root`]): the two are one program, whichever checkout they work on.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The variable the `xtask` binary names its workspace root in for the `harness` example.
pub const ROOT_ENV: &str = "XTASK_WORKSPACE_ROOT";

/// The workspace root of the checkout this run works on (found once per process).
pub fn workspace_root() -> PathBuf {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let handed = std::env::var_os(ROOT_ENV).map(PathBuf::from);
        let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
        let cwd = std::env::current_dir().ok();
        find_root([handed.as_deref(), manifest_dir.as_deref(), cwd.as_deref()])
            .unwrap_or_else(built_root)
    })
    .clone()
}

/// The checkout to build the `harness` example from: the one this binary was built from while
/// it is still there (the checkout worked on may be another: a shared target directory), else
/// the one worked on.
pub fn build_root() -> PathBuf {
    let built = built_root();
    if is_workspace_root(&built) {
        built
    } else {
        workspace_root()
    }
}

/// The first clawloop workspace at or above one of `starts`, in order.
fn find_root<'a>(starts: impl IntoIterator<Item = Option<&'a Path>>) -> Option<PathBuf> {
    starts
        .into_iter()
        .flatten()
        .flat_map(Path::ancestors)
        .find(|dir| is_workspace_root(dir))
        .map(Path::to_path_buf)
}

/// A directory whose `Cargo.toml` is a workspace manifest and which holds the `xtask` crate:
/// a member crate's own `Cargo.toml`, or a workspace of some other project, does not qualify.
fn is_workspace_root(dir: &Path) -> bool {
    dir.join("xtask/Cargo.toml").is_file()
        && std::fs::read_to_string(dir.join("Cargo.toml"))
            .is_ok_and(|manifest| manifest.lines().any(|line| line.trim() == "[workspace]"))
}

/// The checkout this binary was built from: right when nothing at run time names one.
fn built_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clone_at(dir: &Path) {
        std::fs::create_dir_all(dir.join("xtask/src")).unwrap();
        std::fs::create_dir_all(dir.join("crates/core")).unwrap();
        std::fs::write(
            dir.join("Cargo.toml"),
            "[workspace]\nmembers = [\"xtask\"]\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("xtask/Cargo.toml"),
            "[package]\nname = \"xtask\"\n",
        )
        .unwrap();
        std::fs::write(dir.join("crates/core/Cargo.toml"), "[package]\n").unwrap();
    }

    #[test]
    fn the_root_is_found_at_or_above_each_start_in_order() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        clone_at(&a);
        clone_at(&b);
        let deep = b.join("crates/core");
        assert_eq!(
            find_root([Some(a.join("xtask").as_path())]),
            Some(a.clone())
        );
        assert_eq!(find_root([Some(deep.as_path())]), Some(b.clone()));
        assert_eq!(find_root([None, Some(b.as_path())]), Some(b.clone()));
        assert_eq!(find_root([Some(tmp.path()), Some(a.as_path())]), Some(a));
        assert_eq!(find_root([Some(tmp.path()), None]), None);
    }

    #[test]
    fn a_workspace_without_the_xtask_crate_is_not_the_root() {
        let tmp = tempfile::tempdir().unwrap();
        let other = tmp.path().join("other");
        std::fs::create_dir_all(&other).unwrap();
        std::fs::write(other.join("Cargo.toml"), "[workspace]\n").unwrap();
        assert_eq!(find_root([Some(other.as_path())]), None);
    }

    #[test]
    fn this_checkout_is_its_own_root() {
        let root = workspace_root();
        assert!(root.join("Cargo.toml").is_file());
        assert_eq!(root, built_root());
        assert_eq!(build_root(), root);
    }
}
