//! The machine a benchmark ran on (CPU model, cores, RAM, kernel) and the date, read from
//! `/proc` and the system clock.

use serde::{Deserialize, Serialize};

/// Where a benchmark ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Machine {
    /// The CPU model name (`unknown` when not readable).
    pub cpu: String,
    /// Logical cores available to the process.
    pub cores: usize,
    /// Total RAM in GiB.
    pub ram_gib: f64,
    /// The kernel release.
    pub kernel: String,
    /// The 1-minute load average when the bench started: other work on the machine
    /// stretches wall times (CPU and RSS are the process's own).
    #[serde(default)]
    pub load_average: f64,
}

impl Machine {
    /// This machine.
    pub fn detect() -> Machine {
        let read = |path: &str| std::fs::read_to_string(path).unwrap_or_default();
        Machine {
            cpu: cpu_model(&read("/proc/cpuinfo")).unwrap_or_else(|| "unknown".to_owned()),
            cores: std::thread::available_parallelism().map_or(1, usize::from),
            ram_gib: mem_total_kib(&read("/proc/meminfo"))
                .map_or(0.0, |kib| kib as f64 / (1024.0 * 1024.0)),
            kernel: match read("/proc/sys/kernel/osrelease").trim() {
                "" => "unknown".to_owned(),
                release => format!("Linux {release}"),
            },
            load_average: read("/proc/loadavg")
                .split_whitespace()
                .next()
                .and_then(|load| load.parse().ok())
                .unwrap_or(0.0),
        }
    }

    /// One line: `CPU, N cores, X GiB RAM, kernel, load average L`.
    pub fn describe(&self) -> String {
        format!(
            "{}, {} cores, {:.1} GiB RAM, {}, load average {:.1}",
            self.cpu, self.cores, self.ram_gib, self.kernel, self.load_average
        )
    }
}

/// The first `model name` of a `/proc/cpuinfo` text.
pub fn cpu_model(cpuinfo: &str) -> Option<String> {
    cpuinfo.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        (key.trim() == "model name").then(|| value.trim().to_owned())
    })
}

/// `MemTotal` of a `/proc/meminfo` text, in KiB.
pub fn mem_total_kib(meminfo: &str) -> Option<u64> {
    meminfo.lines().find_map(|line| {
        let rest = line.strip_prefix("MemTotal:")?;
        rest.trim().trim_end_matches("kB").trim().parse().ok()
    })
}

/// Today's date (UTC) as `YYYY-MM-DD`.
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_date(secs / 86_400);
    format!("{y:04}-{m:02}-{d:02}")
}

/// The proleptic Gregorian date of day `days` after 1970-01-01.
pub fn civil_date(days: u64) -> (u64, u64, u64) {
    // Shift to a 400-year era starting on 0000-03-01, so leap days fall at the end of a year.
    let z = days + 719_468;
    let era = z / 146_097;
    let day_of_era = z % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn reads_proc_texts() {
        let cpuinfo = "processor\t: 0\nvendor_id\t: X\nmodel name\t: Test CPU @ 2.0GHz\nprocessor\t: 1\nmodel name\t: Other\n";
        assert_eq!(cpu_model(cpuinfo).as_deref(), Some("Test CPU @ 2.0GHz"));
        assert_eq!(cpu_model("flags: x\n"), None);
        assert_eq!(
            mem_total_kib("MemTotal:       24683520 kB\nMemFree: 1 kB\n"),
            Some(24_683_520)
        );
        assert_eq!(mem_total_kib(""), None);
    }

    #[test]
    fn civil_dates() {
        assert_eq!(civil_date(0), (1970, 1, 1));
        assert_eq!(civil_date(11_016), (2000, 2, 29));
        assert_eq!(civil_date(20_783), (2026, 11, 26));
        assert_eq!(civil_date(20_818), (2026, 12, 31));
    }
}
