//! Read-only `.git` paths for the Landlock backend. Landlock cannot take write access back
//! from a subpath of the writable workspace, so the helper gives itself a private mount
//! namespace (inside a user namespace when it is not root) and bind-mounts the frozen paths
//! read-only over themselves. `.git` itself is bound onto itself first: a mount point cannot
//! be renamed or removed, so the command cannot swap in a fresh `.git` with hooks of its own.
//! The mounts live only in the helper's namespace; the host sees nothing.

use std::path::{Path, PathBuf};

use nix::mount::{MsFlags, mount};
use nix::sched::{CloneFlags, unshare};
use nix::sys::statvfs::{FsFlags, statvfs};
use nix::unistd::{getegid, geteuid};

use crate::spec::Plan;

/// The hidden paths inside a writable root (a clawloop home under `/tmp`). Landlock cannot
/// take access back from beneath a granted directory, and granting the root around them
/// (every entry but the hidden one) would leave new entries of the root unwritable (`mktemp`
/// in `/tmp`): they are masked with a mount instead, and the root is granted whole.
pub(crate) fn maskable(plan: &Plan) -> Vec<PathBuf> {
    plan.hidden
        .iter()
        .filter(|hidden| plan.writable.iter().any(|root| hidden.starts_with(root)))
        .cloned()
        .collect()
}

/// Applies `plan.pinned` and `plan.frozen`, and masks [`maskable`] paths with an empty
/// read-only tmpfs (a file: `/dev/null`); nothing to do (no namespace) when there are none.
/// Returns the paths masked: without a namespace the system allows, masking is skipped (the
/// Landlock grants then go around those paths), while freezing `.git` is an error.
pub(crate) fn freeze(plan: &Plan) -> Result<Vec<PathBuf>, String> {
    let masks = maskable(plan);
    let must = !plan.pinned.is_empty() || !plan.frozen.is_empty();
    if !must && masks.is_empty() {
        return Ok(Vec::new());
    }
    if let Err(err) = enter_namespace() {
        if !must {
            return Ok(Vec::new());
        }
        return Err(format!(
            "making .git/hooks and .git/config read-only needs a mount namespace, which this \
             system refuses ({err}); install bubblewrap, allow user namespaces, or use \
             --sandbox off"
        ));
    }
    let none: Option<&str> = None;
    mount(none, "/", none, MsFlags::MS_REC | MsFlags::MS_PRIVATE, none)
        .map_err(|err| format!("mount: making / private: {err}"))?;
    for path in &plan.pinned {
        bind(path, false)?;
    }
    for path in &plan.frozen {
        bind(path, true)?;
    }
    for path in &masks {
        mask(path)?;
    }
    Ok(masks)
}

/// Covers `path` with nothing: an empty read-only tmpfs over a directory, `/dev/null` over a
/// file, so its contents cannot be read or changed through it.
fn mask(path: &Path) -> Result<(), String> {
    let none: Option<&str> = None;
    let failed = |err: nix::Error| format!("mount: masking {}: {err}", path.display());
    if path.is_dir() {
        let flags =
            MsFlags::MS_RDONLY | MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC;
        mount(
            Some("tmpfs"),
            path,
            Some("tmpfs"),
            flags,
            Some("size=4k,mode=000"),
        )
        .map_err(failed)
    } else {
        mount(Some("/dev/null"), path, none, MsFlags::MS_BIND, none).map_err(failed)
    }
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
