//! From a command and a policy to the concrete [`Plan`]: which directories are writable, what
//! is hidden, which `.git` paths are frozen. Paths are canonical, so a symlink in the
//! workspace cannot widen a rule, and both backends see the same real paths.

use std::path::{Path, PathBuf};

use clawloop_core::sandbox::{SandboxCommand, SandboxError, SandboxMode, SandboxPolicy};

use crate::spec::Plan;

/// The plan for `command` under `policy` (mode not `off`). `tmpdir` is the command's
/// `$TMPDIR`, if any.
pub(crate) fn plan(
    command: &SandboxCommand,
    policy: &SandboxPolicy,
    tmpdir: Option<&Path>,
) -> Result<Plan, SandboxError> {
    let workspace = command.workspace_root.canonicalize().map_err(|err| {
        SandboxError(format!(
            "sandbox: the workspace {} cannot be opened: {err}",
            command.workspace_root.display()
        ))
    })?;
    let mut plan = Plan {
        network: policy.network,
        hidden: policy
            .protected
            .iter()
            .filter_map(|path| path.canonicalize().ok())
            .collect(),
        ..Plan::default()
    };
    if policy.mode == SandboxMode::WorkspaceWrite {
        plan.writable.push(workspace.clone());
        for optional in tmpdir.into_iter().chain([Path::new("/tmp")]) {
            if let Ok(path) = optional.canonicalize() {
                plan.writable.push(path);
            }
        }
        for root in &policy.writable_roots {
            let path = root.canonicalize().map_err(|_| {
                SandboxError(format!(
                    "sandbox: the writable root {} does not exist",
                    root.display()
                ))
            })?;
            plan.writable.push(path);
        }
        plan.writable.sort();
        plan.writable.dedup();
        protect_git(&workspace, &mut plan);
    }
    Ok(plan)
}

/// Freezes the repository's hooks and config (code the user's own git runs later) and pins
/// `.git` so it cannot be swapped for a fresh one. A worktree's `.git` file is frozen itself,
/// and so are the hooks and config of the directory it names and of that one's common dir.
fn protect_git(workspace: &Path, plan: &mut Plan) {
    let dot_git = workspace.join(".git");
    let Ok(meta) = std::fs::symlink_metadata(&dot_git) else {
        return;
    };
    let git_dir = if meta.is_dir() {
        plan.pinned.push(dot_git.clone());
        dot_git
    } else if meta.is_file() {
        plan.frozen.push(dot_git.clone());
        match pointed_dir(&dot_git, "gitdir:") {
            Some(dir) => dir,
            None => return,
        }
    } else {
        plan.frozen.push(dot_git);
        return;
    };
    let common = pointed_dir(&git_dir.join("commondir"), "").unwrap_or_else(|| git_dir.clone());
    for dir in [&git_dir, &common] {
        // A repository without hooks gets an empty directory (git makes one on `init`
        // anyway), so the command cannot create it with a hook in it.
        let hooks = dir.join("hooks");
        if !hooks.exists() {
            let _ = std::fs::create_dir(&hooks);
        }
        for path in [hooks, dir.join("config")] {
            if let Ok(path) = path.canonicalize()
                && !plan.frozen.contains(&path)
            {
                plan.frozen.push(path);
            }
        }
    }
}

/// The directory a git pointer file names (`gitdir: <path>` in `.git`, a bare path in
/// `commondir`), relative to the file's directory, canonical.
fn pointed_dir(file: &Path, prefix: &str) -> Option<PathBuf> {
    let text = std::fs::read_to_string(file).ok()?;
    let target = text.lines().next()?.strip_prefix(prefix)?.trim();
    if target.is_empty() {
        return None;
    }
    file.parent()?.join(target).canonicalize().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use std::collections::BTreeMap;

    fn command(workspace: &Path) -> SandboxCommand {
        SandboxCommand {
            program: "/bin/sh".into(),
            args: Vec::new(),
            cwd: workspace.to_owned(),
            workspace_root: workspace.to_owned(),
            env: BTreeMap::new(),
        }
    }

    #[test]
    fn a_repository_gets_its_hooks_and_config_frozen_and_its_git_dir_pinned() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(ws.join(".git")).unwrap();
        std::fs::write(ws.join(".git/config"), "").unwrap();
        let policy = SandboxPolicy::new(SandboxMode::WorkspaceWrite);
        let plan = plan(&command(&ws), &policy, None).unwrap();
        assert_eq!(plan.pinned, vec![ws.join(".git")]);
        assert_eq!(
            plan.frozen,
            vec![ws.join(".git/hooks"), ws.join(".git/config")]
        );
        assert!(plan.writable.contains(&ws));
    }

    #[test]
    fn a_worktree_freezes_its_git_file_and_the_main_repositorys_hooks() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let main = root.join("main/.git");
        std::fs::create_dir_all(main.join("worktrees/wt")).unwrap();
        std::fs::write(main.join("config"), "").unwrap();
        std::fs::write(main.join("worktrees/wt/commondir"), "../..\n").unwrap();
        std::fs::create_dir_all(root.join("wt")).unwrap();
        std::fs::write(
            root.join("wt/.git"),
            format!("gitdir: {}\n", main.join("worktrees/wt").display()),
        )
        .unwrap();
        let policy = SandboxPolicy::new(SandboxMode::WorkspaceWrite);
        let plan = plan(&command(&root.join("wt")), &policy, None).unwrap();
        assert_eq!(plan.pinned, Vec::<PathBuf>::new());
        assert_eq!(
            plan.frozen,
            vec![
                root.join("wt/.git"),
                main.join("worktrees/wt/hooks"),
                main.join("hooks"),
                main.join("config"),
            ]
        );
    }

    #[test]
    fn read_only_has_no_writable_root_and_a_missing_root_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let policy = SandboxPolicy::new(SandboxMode::ReadOnly);
        let plan = plan(&command(dir.path()), &policy, None).unwrap();
        assert_eq!(plan.writable, Vec::<PathBuf>::new());
        let mut policy = SandboxPolicy::new(SandboxMode::WorkspaceWrite);
        policy.writable_roots = vec!["/nonexistent/cache".into()];
        let err = super::plan(&command(dir.path()), &policy, None).unwrap_err();
        assert_eq!(
            err.0,
            "sandbox: the writable root /nonexistent/cache does not exist"
        );
    }
}
