//! Who can read the home and the auth files. The home and agent directories should be 0700
//! and the auth files 0600, as the runner creates them; anything group- or world-accessible is
//! a warning (runs still work), and `--fix` tightens the modes.

use std::path::Path;

use super::layout::agent_roots;
use super::report::{Report, Status};

/// The auth files of an agent dir (credentials, legacy credentials, state).
const AUTH_FILES: [&str; 3] = ["auth-profiles.json", "auth.json", "auth-state.json"];

/// Checks (and with `fix`, repairs) the modes under `home`.
#[cfg(unix)]
pub fn check(report: &mut Report, home: &Path, fix: bool) {
    if !home.is_dir() {
        report.add(
            Status::Pass,
            format!(
                "home {} does not exist yet: the first run creates it",
                home.display()
            ),
        );
        return;
    }
    let mut problems = 0;
    problems += check_mode(report, home, "home", 0o700, Status::Warn, fix);
    for root in agent_roots(home) {
        let agent = root.join("agent");
        if agent.is_dir() {
            problems += check_mode(report, &agent, "agent directory", 0o700, Status::Warn, fix);
        }
        for name in AUTH_FILES {
            let file = agent.join(name);
            if file.is_file() {
                problems += check_mode(report, &file, "auth file", 0o600, Status::Warn, fix);
            }
        }
    }
    if problems == 0 {
        report.add(
            Status::Pass,
            format!(
                "permissions: {} and its auth files are private to you",
                home.display()
            ),
        );
    }
}

/// Without Unix modes there is nothing to check.
#[cfg(not(unix))]
pub fn check(report: &mut Report, _home: &Path, _fix: bool) {
    report.add(Status::Pass, "permissions are not checked on this platform");
}

/// Reports `path` when group or others have any access; with `fix`, sets `wanted`. Returns 1
/// when there was something to report.
#[cfg(unix)]
fn check_mode(
    report: &mut Report,
    path: &Path,
    what: &str,
    wanted: u32,
    status: Status,
    fix: bool,
) -> usize {
    use std::os::unix::fs::PermissionsExt;
    let mode = match std::fs::metadata(path) {
        Ok(meta) => meta.permissions().mode() & 0o777,
        Err(err) => {
            report.add(
                Status::Warn,
                format!("cannot read the mode of {what} {}: {err}", path.display()),
            );
            return 1;
        }
    };
    if mode & 0o077 == 0 {
        return 0;
    }
    if fix {
        match std::fs::set_permissions(path, std::fs::Permissions::from_mode(wanted)) {
            Ok(()) => report.add(
                Status::Pass,
                format!(
                    "fixed: {what} {} was mode {mode:04o}, now {wanted:04o}",
                    path.display()
                ),
            ),
            Err(err) => report.add(
                status,
                format!(
                    "cannot set {what} {} to mode {wanted:04o}: {err}",
                    path.display()
                ),
            ),
        }
    } else {
        report.add(
            status,
            format!(
                "{what} {} is mode {mode:04o}, open to group or others: `clawloop doctor --fix` sets {wanted:04o}",
                path.display()
            ),
        );
    }
    1
}
