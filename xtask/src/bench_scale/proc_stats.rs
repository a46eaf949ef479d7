//! This process's memory and CPU time, read from `/proc/self` (Linux).
//!
//! CPU time comes from `/proc/self/stat` (the `utime` and `stime` that `getrusage` reports,
//! in clock ticks of 10 ms): the workspace forbids `unsafe`, so no libc call.

use std::fs;

/// Clock ticks per second of `/proc/<pid>/stat` (`USER_HZ`, 100 on every Linux the bench
/// runs on).
const TICKS_PER_SECOND: f64 = 100.0;

/// Resident memory now and its peak since the process started (or since
/// [`reset_peak_rss`]), in KiB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rss {
    /// `VmRSS`.
    pub now_kb: u64,
    /// `VmHWM`.
    pub peak_kb: u64,
}

/// Reads `VmRSS` and `VmHWM` from `/proc/self/status`.
pub fn rss() -> Result<Rss, String> {
    let status = fs::read_to_string("/proc/self/status")
        .map_err(|e| format!("cannot read /proc/self/status: {e}"))?;
    let field = |name: &str| -> Result<u64, String> {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
            .ok_or_else(|| format!("/proc/self/status has no readable {name} line"))
    };
    Ok(Rss {
        now_kb: field("VmRSS:")?,
        peak_kb: field("VmHWM:")?,
    })
}

/// Resets `VmHWM` to the current RSS (writes `5` to `/proc/self/clear_refs`), so the next
/// [`rss`] reports the peak of what runs in between.
pub fn reset_peak_rss() -> Result<(), String> {
    fs::write("/proc/self/clear_refs", "5")
        .map_err(|e| format!("cannot reset the peak RSS through /proc/self/clear_refs: {e}"))
}

/// User plus system CPU seconds this process used so far, all threads, finished ones
/// included.
pub fn cpu_seconds() -> Result<f64, String> {
    let stat = fs::read_to_string("/proc/self/stat")
        .map_err(|e| format!("cannot read /proc/self/stat: {e}"))?;
    // The command name in parentheses may hold spaces; the fields after it are plain.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    // Fields 14 and 15 of proc(5); the first after `)` is field 3.
    let ticks = |index: usize| -> Result<f64, String> {
        fields
            .get(index - 3)
            .and_then(|v| v.parse::<u64>().ok())
            .map(|v| v as f64)
            .ok_or_else(|| format!("/proc/self/stat has no readable field {index}"))
    };
    Ok((ticks(14)? + ticks(15)?) / TICKS_PER_SECOND)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_own_process() {
        let rss = rss().unwrap();
        assert!(rss.now_kb > 0 && rss.peak_kb >= rss.now_kb, "{rss:?}");
        assert!(cpu_seconds().unwrap() >= 0.0);
    }
}
