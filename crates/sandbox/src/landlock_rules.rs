//! The Landlock ruleset of a [`Plan`].
//!
//! Landlock only grants; it cannot take back a subpath of a granted tree. So a hidden path
//! (the clawloop home) is left out by granting the tree *around* it: every directory on the
//! way from the root down to it gets only `ReadDir`, and every sibling on that way gets the
//! full grant. What this covers and what it does not:
//! - the hidden files cannot be read, written, executed or created;
//! - names inside the hidden directory can still be listed (the `ReadDir` of the way down
//!   reaches them), their contents cannot;
//! - an entry created in a directory on the way after the command started is not granted,
//!   and neither can one be created there (the way down has no write right).

use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreatedAttr, RulesetStatus,
};

use crate::spec::Plan;

/// The newest ABI whose rights are all asked for; older kernels drop what they lack.
const ABI_USED: ABI = ABI::V5;

/// Device files any shell writes to.
const DEVICES: [&str; 6] = [
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/pts",
];

/// Which rights a rule grants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Grant {
    /// Only listing the directory (the way down to a hidden path).
    List,
    /// Reading, listing and executing.
    Read,
    /// Everything.
    Write,
}

/// The rules granting `grant` on `root` except beneath any of `hidden`; `list` reads a
/// directory's entries.
pub(crate) fn grant_except(
    root: &Path,
    grant: Grant,
    hidden: &[PathBuf],
    list: &dyn Fn(&Path) -> Vec<PathBuf>,
) -> Vec<(PathBuf, Grant)> {
    if hidden.iter().any(|h| root.starts_with(h)) {
        return Vec::new();
    }
    if !hidden.iter().any(|h| h.starts_with(root)) {
        return vec![(root.to_owned(), grant)];
    }
    let mut rules = vec![(root.to_owned(), Grant::List)];
    for entry in list(root) {
        rules.extend(grant_except(&entry, grant, hidden, list));
    }
    rules
}

/// Every rule of `plan`: read everywhere, write in the writable roots and on the devices,
/// nothing on the hidden paths. A hidden path in `masked` is covered by a mount, so the
/// writable root it lies in is granted whole.
pub(crate) fn rules(plan: &Plan, masked: &[PathBuf]) -> Vec<(PathBuf, Grant)> {
    let list = |dir: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .map(|entries| entries.flatten().map(|entry| entry.path()).collect())
            .unwrap_or_default()
    };
    let mut rules = grant_except(Path::new("/"), Grant::Read, &plan.hidden, &list);
    let unmasked: Vec<PathBuf> = plan
        .hidden
        .iter()
        .filter(|hidden| !masked.contains(hidden))
        .cloned()
        .collect();
    for root in &plan.writable {
        rules.extend(grant_except(root, Grant::Write, &unmasked, &list));
    }
    rules.extend(DEVICES.iter().map(|dev| (PathBuf::from(dev), Grant::Write)));
    rules
}

/// Restricts the calling process (the helper) to `plan`. A kernel that enforces nothing is
/// an error: running unconfined is never the fallback.
pub(crate) fn restrict(plan: &Plan, masked: &[PathBuf]) -> Result<(), String> {
    let abi = ABI_USED;
    let mut created = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(abi))
        .and_then(|ruleset| ruleset.create())
        .map_err(|err| format!("landlock: {err}"))?;
    for (path, grant) in rules(plan, masked) {
        // A path that vanished since it was listed simply gets no rule.
        let Ok(fd) = PathFd::new(&path) else {
            continue;
        };
        let mut access = rights(grant, abi);
        if !path.is_dir() {
            access &= AccessFs::from_file(abi);
        }
        created = created
            .add_rule(PathBeneath::new(fd, access))
            .map_err(|err| format!("landlock: {err}"))?;
    }
    let status = created
        .restrict_self()
        .map_err(|err| format!("landlock: {err}"))?;
    if status.ruleset == RulesetStatus::NotEnforced {
        return Err("landlock: not enforced by this kernel".to_owned());
    }
    Ok(())
}

/// The Landlock rights of a grant.
fn rights(grant: Grant, abi: ABI) -> BitFlags<AccessFs> {
    match grant {
        Grant::List => AccessFs::ReadDir.into(),
        Grant::Read => AccessFs::from_read(abi),
        Grant::Write => AccessFs::from_all(abi),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn fake_tree(dir: &Path) -> Vec<PathBuf> {
        let children: &[&str] = match dir.to_str() {
            Some("/") => &["/etc", "/root", "/tmp"],
            Some("/root") => &["/root/.clawloop", "/root/.ssh", "/root/work"],
            _ => &[],
        };
        children.iter().map(PathBuf::from).collect()
    }

    fn owned(rules: &[(&str, Grant)]) -> Vec<(PathBuf, Grant)> {
        rules.iter().map(|(p, g)| (PathBuf::from(p), *g)).collect()
    }

    #[test]
    fn grants_go_around_hidden_paths() {
        type Case = (&'static str, Grant, Vec<PathBuf>, Vec<(PathBuf, Grant)>);
        let table: Vec<Case> = vec![
            ("/", Grant::Read, vec![], owned(&[("/", Grant::Read)])),
            (
                "/",
                Grant::Read,
                vec!["/root/.clawloop".into()],
                owned(&[
                    ("/", Grant::List),
                    ("/etc", Grant::Read),
                    ("/root", Grant::List),
                    ("/root/.ssh", Grant::Read),
                    ("/root/work", Grant::Read),
                    ("/tmp", Grant::Read),
                ]),
            ),
            // A writable root inside the hidden path gets nothing; one around it goes round.
            (
                "/root/.clawloop/x",
                Grant::Write,
                vec!["/root/.clawloop".into()],
                vec![],
            ),
            (
                "/root",
                Grant::Write,
                vec!["/root/.clawloop".into()],
                owned(&[
                    ("/root", Grant::List),
                    ("/root/.ssh", Grant::Write),
                    ("/root/work", Grant::Write),
                ]),
            ),
            // A hidden path elsewhere leaves the root whole.
            (
                "/tmp",
                Grant::Write,
                vec!["/root/.clawloop".into()],
                owned(&[("/tmp", Grant::Write)]),
            ),
        ];
        for (root, grant, hidden, expected) in table {
            assert_eq!(
                grant_except(Path::new(root), grant, &hidden, &fake_tree),
                expected,
                "{root} {hidden:?}"
            );
        }
    }
}
