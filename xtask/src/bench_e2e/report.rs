//! The e2e section of `report.json` and its tables (markdown, for stdout and the README).
//!
//! `report.json` is one object with a key per bench command (`{"e2e": …, "scale": …}`);
//! [`merge_section`] replaces one key and keeps the others, so the commands can run apart.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::machine::Machine;
use super::stats::Summary;

/// Everything `cargo xtask bench e2e` measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct E2eReport {
    /// The day it ran, `YYYY-MM-DD` (UTC).
    pub date: String,
    /// Where it ran.
    pub machine: Machine,
    /// Measured runs per clawloop/floor row (peers may have fewer).
    pub runs: usize,
    /// One row per system and scenario.
    pub rows: Vec<Row>,
    /// The targets and whether they were met.
    pub targets: Vec<TargetCheck>,
    /// `skip: …` lines: what was not measured and why.
    pub skips: Vec<String>,
}

/// The summaries of one system running one scenario. Times in milliseconds, memory in MiB;
/// a metric the system does not have (no tool call, not measurable) is `None`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Row {
    /// `clawloop`, `floor`, `pi`, …
    pub system: String,
    /// The scenario name (`stream-1000`, `tool-read`, `--version`).
    pub scenario: String,
    /// Measured runs.
    pub runs: usize,
    /// Spawn to exit.
    pub wall_ms: Option<Summary>,
    /// User + system CPU of the process (and its reaped children).
    pub cpu_ms: Option<Summary>,
    /// Peak RSS.
    pub rss_mib: Option<Summary>,
    /// Spawn to the server's receipt of the first request.
    pub first_request_ms: Option<Summary>,
    /// End of the tool-call response body to the receipt of the next request.
    pub tool_gap_ms: Option<Summary>,
}

/// One target: the measured value (a median or a ratio of medians) against its limit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetCheck {
    /// What is measured, e.g. `CPU stream-1000 / floor`.
    pub name: String,
    /// The measured value; `None` when it could not be measured.
    pub value: Option<f64>,
    /// The largest value that meets the target.
    pub limit: f64,
    /// `×`, `MiB`, `ms`.
    pub unit: String,
}

impl TargetCheck {
    /// `Some(true)` met, `Some(false)` missed, `None` not measured.
    pub fn met(&self) -> Option<bool> {
        self.value.map(|v| v <= self.limit)
    }
}

/// The row of `tool-bash` under `--sandbox off`.
pub const SANDBOX_OFF: &str = "clawloop, sandbox off";
/// The row of `tool-bash` under the Landlock backend.
pub const SANDBOX_LANDLOCK: &str = "clawloop, Landlock";
/// The row of `tool-bash` under the bubblewrap backend.
pub const SANDBOX_BWRAP: &str = "clawloop, bubblewrap";

/// The targets of SPEC issue 14 checked against `rows` (clawloop vs the floor), and issue
/// 23's: what a sandbox adds to one `bash` call over `--sandbox off`, in wall time (the tool
/// gap) and CPU (the process and its reaped children), ≤ 3 ms with Landlock, ≤ 10 ms with
/// bubblewrap.
pub fn check_targets(rows: &[Row]) -> Vec<TargetCheck> {
    let find = |system: &str, scenario: &str| {
        rows.iter()
            .find(|r| r.system == system && r.scenario == scenario)
    };
    let median =
        |row: Option<&Row>, pick: fn(&Row) -> Option<Summary>| row.and_then(pick).map(|s| s.median);
    let mut checks = Vec::new();
    let scenarios = ["stream-1000", "tool-read"];
    for scenario in scenarios {
        let ours = median(find("clawloop", scenario), |r| r.cpu_ms);
        let floor = median(find("floor", scenario), |r| r.cpu_ms);
        let ratio = match (ours, floor) {
            (Some(ours), Some(floor)) if floor > 0.0 => Some(ours / floor),
            _ => None,
        };
        checks.push(TargetCheck {
            name: format!("CPU {scenario} / floor"),
            value: ratio,
            limit: 2.0,
            unit: "×".to_owned(),
        });
    }
    let worst = |pick: fn(&Row) -> Option<Summary>| {
        scenarios
            .iter()
            .filter_map(|s| median(find("clawloop", s), pick))
            .reduce(f64::max)
    };
    checks.push(TargetCheck {
        name: "peak RSS (worst scenario)".to_owned(),
        value: worst(|r| r.rss_mib),
        limit: 12.0,
        unit: "MiB".to_owned(),
    });
    checks.push(TargetCheck {
        name: "spawn → first request (worst scenario)".to_owned(),
        value: worst(|r| r.first_request_ms),
        limit: 5.0,
        unit: "ms".to_owned(),
    });
    checks.push(TargetCheck {
        name: "tool gap".to_owned(),
        value: median(find("clawloop", "tool-read"), |r| r.tool_gap_ms),
        limit: 2.0,
        unit: "ms".to_owned(),
    });
    for (system, label, limit) in [
        (SANDBOX_LANDLOCK, "Landlock", 3.0),
        (SANDBOX_BWRAP, "bubblewrap", 10.0),
    ] {
        let extra = |pick: fn(&Row) -> Option<Summary>| {
            let sandboxed = median(find(system, "tool-bash"), pick)?;
            let off = median(find(SANDBOX_OFF, "tool-bash"), pick)?;
            Some(sandboxed - off)
        };
        checks.push(TargetCheck {
            name: format!("bash call extra wall, {label} − off"),
            value: extra(|r| r.tool_gap_ms),
            limit,
            unit: "ms".to_owned(),
        });
        checks.push(TargetCheck {
            name: format!("bash call extra CPU, {label} − off"),
            value: extra(|r| r.cpu_ms),
            limit,
            unit: "ms".to_owned(),
        });
    }
    checks.push(TargetCheck {
        name: "`--version` wall".to_owned(),
        value: median(find("clawloop", "--version"), |r| r.wall_ms),
        limit: 3.0,
        unit: "ms".to_owned(),
    });
    checks
}

fn cell(summary: Option<Summary>, digits: usize) -> String {
    match summary {
        Some(s) => format!("{:.digits$} / {:.digits$}", s.median, s.p90),
        None => "–".to_owned(),
    }
}

/// The report as markdown: the measurements table, the targets table and the skip lines.
pub fn render(report: &E2eReport) -> String {
    let mut out = String::new();
    out.push_str(
        "| system | scenario | runs | wall ms | CPU ms | peak RSS MiB | spawn → 1st request ms | tool gap ms |\n\
         |---|---|--:|--:|--:|--:|--:|--:|\n",
    );
    for row in &report.rows {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
            row.system,
            row.scenario,
            row.runs,
            cell(row.wall_ms, 1),
            cell(row.cpu_ms, 1),
            cell(row.rss_mib, 1),
            cell(row.first_request_ms, 2),
            cell(row.tool_gap_ms, 2),
        ));
    }
    out.push_str(
        "\nCells are median / p90.\n\n| target | measured | limit | status |\n|---|--:|--:|---|\n",
    );
    for check in &report.targets {
        let value = check
            .value
            .map_or_else(|| "–".to_owned(), |v| format!("{v:.2} {}", check.unit));
        let status = match check.met() {
            Some(true) => "met",
            Some(false) => "**missed**",
            None => "not measured",
        };
        out.push_str(&format!(
            "| {} | {value} | ≤ {} {} | {status} |\n",
            check.name, check.limit, check.unit
        ));
    }
    if !report.skips.is_empty() {
        out.push('\n');
        for skip in &report.skips {
            out.push_str(&format!("- skip: {skip}\n"));
        }
    }
    out
}

/// `existing` (the old report.json, if an object) with `key` set to `section`; other keys
/// (other bench commands' sections) stay.
pub fn merge_section(existing: Option<Value>, key: &str, section: Value) -> Value {
    let mut map = match existing {
        Some(Value::Object(map)) => map,
        _ => Map::new(),
    };
    map.insert(key.to_owned(), section);
    Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn summary(median: f64, p90: f64) -> Option<Summary> {
        Some(Summary { median, p90 })
    }

    fn row(system: &str, scenario: &str, cpu: f64) -> Row {
        Row {
            system: system.to_owned(),
            scenario: scenario.to_owned(),
            runs: 3,
            wall_ms: summary(10.0, 12.5),
            cpu_ms: summary(cpu, cpu + 1.0),
            rss_mib: summary(8.0, 8.5),
            first_request_ms: (system == "clawloop").then_some(Summary {
                median: 4.0,
                p90: 6.0,
            }),
            tool_gap_ms: None,
        }
    }

    fn report() -> E2eReport {
        let mut tool = row("clawloop", "tool-read", 9.0);
        tool.tool_gap_ms = summary(2.5, 3.0);
        tool.rss_mib = summary(13.0, 13.5);
        let mut off = row(SANDBOX_OFF, "tool-bash", 10.0);
        off.tool_gap_ms = summary(2.0, 2.5);
        let mut landlock = row(SANDBOX_LANDLOCK, "tool-bash", 12.0);
        landlock.tool_gap_ms = summary(5.5, 6.0);
        let rows = vec![
            row("clawloop", "stream-1000", 6.0),
            row("floor", "stream-1000", 2.0),
            tool,
            row("floor", "tool-read", 5.0),
            off,
            landlock,
        ];
        E2eReport {
            date: "2026-11-26".to_owned(),
            machine: Machine {
                cpu: "Test CPU".to_owned(),
                cores: 2,
                ram_gib: 23.5,
                kernel: "6.1.0".to_owned(),
                load_average: 0.5,
            },
            runs: 3,
            targets: check_targets(&rows),
            rows,
            skips: vec!["pi: node is not on PATH".to_owned()],
        }
    }

    #[test]
    fn targets_compare_medians_and_ratios() {
        let checks: Vec<(String, Option<f64>, Option<bool>)> = report()
            .targets
            .iter()
            .map(|c| (c.name.clone(), c.value, c.met()))
            .collect();
        assert_eq!(
            checks,
            vec![
                ("CPU stream-1000 / floor".to_owned(), Some(3.0), Some(false)),
                ("CPU tool-read / floor".to_owned(), Some(1.8), Some(true)),
                (
                    "peak RSS (worst scenario)".to_owned(),
                    Some(13.0),
                    Some(false)
                ),
                (
                    "spawn → first request (worst scenario)".to_owned(),
                    Some(4.0),
                    Some(true)
                ),
                ("tool gap".to_owned(), Some(2.5), Some(false)),
                (
                    "bash call extra wall, Landlock − off".to_owned(),
                    Some(3.5),
                    Some(false)
                ),
                (
                    "bash call extra CPU, Landlock − off".to_owned(),
                    Some(2.0),
                    Some(true)
                ),
                (
                    "bash call extra wall, bubblewrap − off".to_owned(),
                    None,
                    None
                ),
                (
                    "bash call extra CPU, bubblewrap − off".to_owned(),
                    None,
                    None
                ),
                ("`--version` wall".to_owned(), None, None),
            ]
        );
    }

    #[test]
    fn renders_markdown_tables() {
        let text = render(&report());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[..4],
            [
                "| system | scenario | runs | wall ms | CPU ms | peak RSS MiB | spawn → 1st request ms | tool gap ms |",
                "|---|---|--:|--:|--:|--:|--:|--:|",
                "| clawloop | stream-1000 | 3 | 10.0 / 12.5 | 6.0 / 7.0 | 8.0 / 8.5 | 4.00 / 6.00 | – |",
                "| floor | stream-1000 | 3 | 10.0 / 12.5 | 2.0 / 3.0 | 8.0 / 8.5 | – | – |",
            ]
        );
        assert!(
            text.contains("| CPU stream-1000 / floor | 3.00 × | ≤ 2 × | **missed** |\n"),
            "{text}"
        );
        assert!(
            text.contains("| tool gap | 2.50 ms | ≤ 2 ms | **missed** |\n"),
            "{text}"
        );
        assert!(
            text.contains("| `--version` wall | – | ≤ 3 ms | not measured |\n"),
            "{text}"
        );
        assert!(
            text.ends_with("\n- skip: pi: node is not on PATH\n"),
            "{text}"
        );
    }

    #[test]
    fn merge_keeps_other_sections() {
        let old = json!({"scale": {"x": 1}, "e2e": {"old": true}});
        assert_eq!(
            merge_section(Some(old), "e2e", json!({"new": true})),
            json!({"scale": {"x": 1}, "e2e": {"new": true}})
        );
        assert_eq!(
            merge_section(Some(json!([1])), "e2e", json!(2)),
            json!({"e2e": 2})
        );
        assert_eq!(merge_section(None, "e2e", json!(2)), json!({"e2e": 2}));
    }

    #[test]
    fn report_round_trips_through_json() {
        let report = report();
        let value = serde_json::to_value(&report).unwrap();
        assert_eq!(
            value["rows"][0]["firstRequestMs"],
            json!({"median": 4.0, "p90": 6.0})
        );
        assert_eq!(serde_json::from_value::<E2eReport>(value).unwrap(), report);
    }
}
