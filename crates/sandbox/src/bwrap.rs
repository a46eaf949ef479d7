//! The bubblewrap backend: mount, pid and (network off) network namespaces by `bwrap`, then
//! the helper's inner stage (seccomp) execs the command. The pid namespace makes cleanup the
//! kernel's job: when the command ends, bwrap's init exits and every process left in the
//! namespace is killed; `--die-with-parent` does the same when bwrap itself is killed.

use std::ffi::{OsStr, OsString};
use std::path::Path;

use crate::spec::Plan;

/// bwrap's arguments up to the command, for `plan` with the working directory `cwd`.
pub(crate) fn args(plan: &Plan, cwd: &Path) -> Vec<OsString> {
    let mut args: Vec<OsString> = Vec::new();
    let mut push = |items: &[&OsStr]| args.extend(items.iter().map(|item| item.to_os_string()));
    push(&[
        "--new-session".as_ref(),
        "--die-with-parent".as_ref(),
        "--ro-bind".as_ref(),
        "/".as_ref(),
        "/".as_ref(),
        "--dev".as_ref(),
        "/dev".as_ref(),
    ]);
    for root in &plan.writable {
        push(&["--bind".as_ref(), root.as_os_str(), root.as_os_str()]);
    }
    for hidden in &plan.hidden {
        // An empty read-only directory in its place: nothing to read, nowhere to write.
        if hidden.is_dir() {
            push(&["--tmpfs".as_ref(), hidden.as_os_str()]);
            push(&["--remount-ro".as_ref(), hidden.as_os_str()]);
        } else {
            push(&[
                "--ro-bind".as_ref(),
                "/dev/null".as_ref(),
                hidden.as_os_str(),
            ]);
        }
    }
    for pinned in &plan.pinned {
        push(&["--bind".as_ref(), pinned.as_os_str(), pinned.as_os_str()]);
    }
    for frozen in &plan.frozen {
        push(&["--ro-bind".as_ref(), frozen.as_os_str(), frozen.as_os_str()]);
    }
    push(&["--unshare-pid".as_ref()]);
    if !plan.network {
        push(&["--unshare-net".as_ref()]);
    }
    push(&[
        "--proc".as_ref(),
        "/proc".as_ref(),
        "--chdir".as_ref(),
        cwd.as_os_str(),
        "--".as_ref(),
    ]);
    args
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use std::path::PathBuf;

    #[test]
    fn mounts_come_in_order_roots_then_hidden_then_git() {
        let plan = Plan {
            network: false,
            writable: vec![PathBuf::from("/ws"), PathBuf::from("/tmp")],
            hidden: vec![PathBuf::from("/nonexistent-home"), PathBuf::from("/")],
            pinned: vec![PathBuf::from("/ws/.git")],
            frozen: vec![PathBuf::from("/ws/.git/hooks")],
        };
        let args: Vec<String> = args(&plan, Path::new("/ws"))
            .into_iter()
            .map(|arg| arg.into_string().unwrap())
            .collect();
        assert_eq!(
            args.join(" "),
            "--new-session --die-with-parent --ro-bind / / --dev /dev --bind /ws /ws \
             --bind /tmp /tmp --ro-bind /dev/null /nonexistent-home --tmpfs / --remount-ro / --bind /ws/.git /ws/.git \
             --ro-bind /ws/.git/hooks /ws/.git/hooks --unshare-pid --unshare-net --proc /proc \
             --chdir /ws --"
        );
    }
}
