//! Read-only `.git` paths for the Landlock backend. Landlock cannot take write access back
//! from a subpath of the writable workspace, so the helper gives itself a private mount
//! namespace (inside a user namespace when it is not root) and bind-mounts the frozen paths
//! read-only over themselves. `.git` itself is bound onto itself first: a mount point cannot
//! be renamed or removed, so the command cannot swap in a fresh `.git` with hooks of its own.
//! The mounts live only in the helper's namespace; the host sees nothing.

use std::path::Path;

use nix::mount::{MsFlags, mount};
use nix::sched::{CloneFlags, unshare};
use nix::sys::statvfs::{FsFlags, statvfs};
use nix::unistd::{getegid, geteuid};

use crate::spec::Plan;

/// Applies `plan.pinned` and `plan.frozen`; nothing to do (no namespace) when both are empty.
pub(crate) fn freeze(plan: &Plan) -> Result<(), String> {
    if plan.pinned.is_empty() && plan.frozen.is_empty() {
        return Ok(());
    }
    enter_namespace().map_err(|err| {
        format!(
            "making .git/hooks and .git/config read-only needs a mount namespace, which this \
             system refuses ({err}); install bubblewrap, allow user namespaces, or use \
             --sandbox off"
        )
    })?;
    let none: Option<&str> = None;
    mount(none, "/", none, MsFlags::MS_REC | MsFlags::MS_PRIVATE, none)
        .map_err(|err| format!("mount: making / private: {err}"))?;
    for path in &plan.pinned {
        bind(path, false)?;
    }
    for path in &plan.frozen {
        bind(path, true)?;
    }
    Ok(())
}

/// A private mount namespace; a user namespace mapping the caller's ids first when not root.
fn enter_namespace() -> Result<(), String> {
    let (uid, gid) = (geteuid(), getegid());
    if uid.is_root() {
        return unshare(CloneFlags::CLONE_NEWNS).map_err(|err| err.to_string());
    }
    unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNS).map_err(|err| err.to_string())?;
    let write = |file: &str, text: String| {
        std::fs::write(format!("/proc/self/{file}"), text).map_err(|err| format!("{file}: {err}"))
    };
    write("setgroups", "deny".to_owned())?;
    write("uid_map", format!("{uid} {uid} 1"))?;
    write("gid_map", format!("{gid} {gid} 1"))
}

/// Binds `path` onto itself, read-only when `read_only`. The remount keeps the flags the
/// kernel locks in a user namespace (nosuid, nodev, noexec, atime).
fn bind(path: &Path, read_only: bool) -> Result<(), String> {
    let none: Option<&str> = None;
    let failed = |err: nix::Error| format!("mount: binding {}: {err}", path.display());
    mount(Some(path), path, none, MsFlags::MS_BIND, none).map_err(failed)?;
    if !read_only {
        return Ok(());
    }
    let mut flags = MsFlags::MS_BIND | MsFlags::MS_REMOUNT | MsFlags::MS_RDONLY;
    if let Ok(stat) = statvfs(path) {
        let kept = [
            (FsFlags::ST_NOSUID, MsFlags::MS_NOSUID),
            (FsFlags::ST_NODEV, MsFlags::MS_NODEV),
            (FsFlags::ST_NOEXEC, MsFlags::MS_NOEXEC),
            (FsFlags::ST_NOATIME, MsFlags::MS_NOATIME),
            (FsFlags::ST_NODIRATIME, MsFlags::MS_NODIRATIME),
            (FsFlags::ST_RELATIME, MsFlags::MS_RELATIME),
        ];
        for (has, keep) in kept {
            if stat.flags().contains(has) {
                flags |= keep;
            }
        }
    }
    mount(none, path, none, flags, none).map_err(failed)
}
