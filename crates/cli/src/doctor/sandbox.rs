//! The bash tool's sandbox: which backend confines commands under the configured mode and
//! what it enforces, probed the way the first command would be. A sandbox that cannot work
//! is `✗` with the sentence every bash call would fail with; `off` is `!`: commands run
//! with the user's full rights.

use clawloop_core::approval::ApprovalPolicy;
use clawloop_core::sandbox::{CommandSandbox, SandboxMode};
use clawloop_runner::config::Config;
use clawloop_sandbox::LinuxSandbox;

use super::report::{Report, Status};

/// Checks the configured sandbox (the mode a `run` without `--sandbox` gets).
pub fn check(report: &mut Report, config: &Config) {
    let approval = match config.sandbox.approval() {
        Ok(ApprovalPolicy::Never) => String::new(),
        Ok(policy) => format!("; approval {policy}"),
        // An invalid config was reported already.
        Err(_) => String::new(),
    };
    let mode = match config.sandbox.mode() {
        Ok(mode) => mode,
        Err(_) => return,
    };
    if mode == SandboxMode::Off {
        report.add(
            Status::Warn,
            format!("sandbox is off: bash commands run with your full rights{approval}"),
        );
        return;
    }
    match LinuxSandbox::new().describe(&config.sandbox.policy(mode)) {
        Ok(enforced) => report.add(Status::Pass, format!("sandbox: {enforced}{approval}")),
        Err(err) => report.add(Status::Fail, err.0),
    }
}
