//! `clawloop doctor [--fix]`: checks the home a run depends on, one `✓`/`!`/`✗` line each —
//! the config, a credential for every configured model, file permissions, provider
//! reachability, the bash tool's sandbox, stale lock files and transcripts with orphaned tool
//! calls. `--fix` repairs
//! what is safe to repair (permissions, stale locks, orphaned calls) and says what it did.
//! Exit 0 when nothing is `✗`, else 1.

mod credentials;
mod layout;
mod locks;
mod permissions;
mod reach;
mod report;
mod sandbox;
mod transcripts;

use std::process::ExitCode;

use clap::Args;
use clawloop_runner::config::Config;

use crate::config::{home_dir, load_config};
use report::{Report, Status};

/// Arguments of `clawloop doctor`.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Repair what is safe: auth files to 0600, the home to 0700, stale locks removed,
    /// orphaned tool calls answered as a run would.
    #[arg(long)]
    fix: bool,
}

/// Runs `clawloop doctor`.
pub fn main(args: DoctorArgs) -> ExitCode {
    let mut report = Report::new();
    let home = match home_dir() {
        Ok(home) => home,
        Err(err) => {
            report.add(Status::Fail, err.to_string());
            return report.finish();
        }
    };
    let mut config_invalid = false;
    let config = match load_config(&home) {
        Ok(config) => {
            let path = home.join(crate::config::CONFIG_FILE);
            if path.exists() {
                report.add(Status::Pass, format!("config {} is valid", path.display()));
            } else {
                report.add(
                    Status::Pass,
                    format!("no config at {}: the defaults apply", path.display()),
                );
            }
            config
        }
        Err(err) => {
            report.add(Status::Fail, err.to_string());
            config_invalid = true;
            // The remaining checks still tell something with the defaults.
            Config::default()
        }
    };
    credentials::check(&mut report, &home, &config);
    permissions::check(&mut report, &home, args.fix);
    reach::check(&mut report, &config);
    sandbox::check(&mut report, &config);
    locks::check(&mut report, &home, args.fix);
    transcripts::check(&mut report, &home, args.fix);
    // A config every other command refuses with 2 is a usage error here too, whatever else
    // the checks found.
    if config_invalid {
        return ExitCode::from(crate::exit_code::EXIT_USAGE);
    }
    report.finish()
}
