//! Per-process measurements: wall time, user+sys CPU and peak RSS of one child.
//!
//! Each measured command runs under the small measuring process of [`super::reaper`]. Times
//! are CLOCK_MONOTONIC nanoseconds, which the bench process translates its server
//! timestamps to.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde::{Deserialize, Serialize};

/// What the measuring process reports about its one child.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChildUsage {
    /// CLOCK_MONOTONIC just before the child was spawned.
    pub spawn_ns: u64,
    /// CLOCK_MONOTONIC just after it was reaped.
    pub exit_ns: u64,
    /// User CPU time, microseconds.
    pub user_us: u64,
    /// System CPU time, microseconds.
    pub sys_us: u64,
    /// Peak resident set size, KiB.
    pub max_rss_kib: u64,
    /// The exit code; `None` when a signal ended it.
    pub code: Option<i32>,
}

impl ChildUsage {
    /// Spawn to reap, in milliseconds.
    pub fn wall_ms(&self) -> f64 {
        ns_to_ms(self.exit_ns.saturating_sub(self.spawn_ns))
    }

    /// User + system CPU, in milliseconds.
    pub fn cpu_ms(&self) -> f64 {
        (self.user_us + self.sys_us) as f64 / 1000.0
    }

    /// Peak RSS in MiB.
    pub fn rss_mib(&self) -> f64 {
        self.max_rss_kib as f64 / 1024.0
    }
}

/// Nanoseconds as fractional milliseconds.
pub fn ns_to_ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// One measured command as the bench process sees it.
#[derive(Debug)]
pub struct Measured {
    /// The child's usage.
    pub usage: ChildUsage,
    /// The child's captured stdout and stderr (the measuring process passes them through).
    pub output: Output,
}

/// How to run a command under the measuring process.
#[derive(Debug, Clone)]
pub struct Measurer {
    /// The measuring process, `bench-reaper` (see [`super::reaper`]).
    pub reaper: PathBuf,
    /// Where the measuring process writes its report.
    pub report: PathBuf,
}

impl Measurer {
    /// Runs `command` (program, arguments, working directory and environment are taken from
    /// it) under the measuring process and returns what it measured. Blocking.
    pub fn run(&self, command: &Command) -> Result<Measured, String> {
        let program = command.get_program().to_string_lossy().into_owned();
        let mut wrapper = Command::new(&self.reaper);
        wrapper
            .arg(&self.report)
            .arg("--")
            .arg(command.get_program())
            .args(command.get_args())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = command.get_current_dir() {
            wrapper.current_dir(dir);
        }
        for (key, value) in command.get_envs() {
            match value {
                Some(value) => wrapper.env(key, value),
                None => wrapper.env_remove(key),
            };
        }
        let _ = std::fs::remove_file(&self.report);
        let output = wrapper
            .output()
            .map_err(|e| format!("cannot start the measuring process for {program}: {e}"))?;
        let report = std::fs::read(&self.report).map_err(|e| {
            format!(
                "{program} was not measured ({}; stderr: {})",
                e,
                String::from_utf8_lossy(&output.stderr).trim()
            )
        })?;
        let usage = serde_json::from_slice(&report)
            .map_err(|e| format!("unreadable measurement of {program}: {e}"))?;
        Ok(Measured { usage, output })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_units() {
        let usage = ChildUsage {
            spawn_ns: 1_000_000,
            exit_ns: 3_500_000,
            user_us: 1500,
            sys_us: 500,
            max_rss_kib: 3072,
            code: Some(0),
        };
        assert_eq!(
            (usage.wall_ms(), usage.cpu_ms(), usage.rss_mib()),
            (2.5, 2.0, 3.0)
        );
    }
}
