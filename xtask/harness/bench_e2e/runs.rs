//! The clawloop and floor rows: warm-up, then interleaved measured runs of both, and the
//! `--version` row.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::harness::{Harness, Strictness, TurnSample};
use super::options::Options;
use super::report::{Row, SANDBOX_BWRAP, SANDBOX_LANDLOCK, SANDBOX_OFF};
use super::scenario::{Scenario, TOOL_FILE, clawloop_config};
use super::stats::summarize;

/// Measures clawloop and the floor on every scenario, then `clawloop --version`.
pub async fn clawloop_and_floor(
    harness: &Harness,
    clawloop: &Path,
    floor: &Path,
    opts: &Options,
) -> Result<Vec<Row>, String> {
    let home = harness.root.join("clawloop-home");
    std::fs::create_dir_all(&home)
        .and_then(|()| {
            std::fs::write(
                home.join("config.toml"),
                clawloop_config(&harness.server.provider_url(super::scenario::PROVIDER)),
            )
        })
        .map_err(|e| format!("cannot write the clawloop home {}: {e}", home.display()))?;
    let mut rows = Vec::new();
    for scenario in Scenario::ALL {
        let run = |i: usize| clawloop_turn(clawloop, &home, harness, scenario, i);
        // The warm-up turn fills the page cache and gives the floor clawloop's request bodies.
        let (_, _, requests) = harness
            .turn(scenario, run(0), Strictness::Strict)
            .await
            .map_err(|e| format!("clawloop {}: {e}", scenario.name()))?;
        let floor_args = floor_arguments(harness, scenario, &requests)?;
        let mut ours = Vec::new();
        let mut theirs = Vec::new();
        for i in 1..=opts.runs {
            let (sample, measured, _) = harness
                .turn(scenario, run(i), Strictness::Strict)
                .await
                .map_err(|e| format!("clawloop {}: {e}", scenario.name()))?;
            check_reply(scenario, &measured.output.stdout)?;
            ours.push(sample);
            let mut floor_command = Command::new(floor);
            floor_command.args(&floor_args);
            let (sample, _, _) = harness
                .turn(scenario, floor_command, Strictness::Strict)
                .await
                .map_err(|e| format!("floor {}: {e}", scenario.name()))?;
            theirs.push(sample);
        }
        rows.push(row("clawloop", scenario.name(), &ours));
        rows.push(row("floor", scenario.name(), &theirs));
    }
    rows.push(version_row(harness, clawloop, opts.runs).await?);
    Ok(rows)
}

/// Fails unless `stdout` holds the scenario's scripted reply.
fn check_reply(scenario: Scenario, stdout: &[u8]) -> Result<(), String> {
    let stdout = String::from_utf8_lossy(stdout);
    // `--print` may cut a long reply into blocks on separate lines: compare words.
    let words = stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    let expected = scenario.reply_text();
    if words == expected {
        return Ok(());
    }
    let at = words
        .bytes()
        .zip(expected.bytes())
        .position(|(a, b)| a != b)
        .unwrap_or(words.len().min(expected.len()));
    let near = |text: &str| {
        text.get(at.saturating_sub(20)..(at + 20).min(text.len()))
            .unwrap_or_default()
            .to_owned()
    };
    Err(format!(
        "clawloop {} printed something else than the scripted reply: at byte {at}, {:?} instead of {:?}",
        scenario.name(),
        near(&words),
        near(&expected)
    ))
}

/// The sandbox backends [`sandbox_rows`] measures: the row's system name and how a run
/// selects it (`--sandbox off`, or `CLAWLOOP_SANDBOX_BACKEND`).
pub const SANDBOXES: [(&str, Option<&str>); 3] = [
    (SANDBOX_OFF, None),
    (SANDBOX_LANDLOCK, Some("landlock")),
    (SANDBOX_BWRAP, Some("bwrap")),
];

/// Measures [`Scenario::Bash`] under each backend that works here, runs interleaved; a
/// backend that does not work is a skip line.
pub async fn sandbox_rows(
    harness: &Harness,
    clawloop: &Path,
    opts: &Options,
) -> Result<(Vec<Row>, Vec<String>), String> {
    let home = harness.root.join("clawloop-home");
    let scenario = Scenario::Bash;
    let command = |backend: Option<&str>, i: usize| {
        let mut command = clawloop_turn(clawloop, &home, harness, scenario, i);
        match backend {
            None => command.args(["--sandbox", "off"]),
            Some(backend) => command.env("CLAWLOOP_SANDBOX_BACKEND", backend),
        };
        command
    };
    let mut working = Vec::new();
    let mut skips = Vec::new();
    for (system, backend) in SANDBOXES {
        // The warm-up run; a backend the machine lacks fails the bash call, not the turn.
        match harness
            .turn(scenario, command(backend, 0), Strictness::Strict)
            .await
        {
            Ok((_, measured, _)) if check_reply(scenario, &measured.output.stdout).is_ok() => {
                working.push((system, backend, Vec::new()));
            }
            Ok(_) => skips.push(format!("{system}: the backend does not work here")),
            Err(err) => skips.push(format!("{system}: {err}")),
        }
    }
    for i in 1..=opts.runs {
        for (system, backend, samples) in &mut working {
            let (sample, measured, _) = harness
                .turn(scenario, command(*backend, i), Strictness::Strict)
                .await
                .map_err(|e| format!("{system} {}: {e}", scenario.name()))?;
            check_reply(scenario, &measured.output.stdout)?;
            samples.push(sample);
        }
    }
    let rows = working
        .iter()
        .map(|(system, _, samples)| row(system, scenario.name(), samples))
        .collect();
    Ok((rows, skips))
}

fn clawloop_turn(
    clawloop: &Path,
    home: &Path,
    harness: &Harness,
    scenario: Scenario,
    i: usize,
) -> Command {
    let mut command = Command::new(clawloop);
    command
        .arg("run")
        .arg("--print")
        .arg("--session-key")
        .arg(format!("bench-{}-{i}", scenario.name()))
        .arg("--workspace")
        .arg(harness.workspace())
        .arg(scenario.prompt())
        .current_dir(harness.workspace())
        .env("CLAWLOOP_HOME", home)
        .env("NO_COLOR", "1");
    command
}

/// The floor's arguments: the server address, clawloop's request path and its bodies
/// (written to files), with the tool file read between them.
fn floor_arguments(
    harness: &Harness,
    scenario: Scenario,
    requests: &[clawloop_testkit::ProviderRequest],
) -> Result<Vec<String>, String> {
    let first = requests
        .first()
        .ok_or_else(|| format!("clawloop {} made no request", scenario.name()))?;
    let mut args = vec![harness.addr(), first.request.path.clone()];
    for (k, request) in requests.iter().enumerate() {
        let file: PathBuf = harness
            .root
            .join(format!("floor-{}-{k}.json", scenario.name()));
        std::fs::write(&file, &request.request.body)
            .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
        if k > 0 {
            args.push(harness.workspace().join(TOOL_FILE).display().to_string());
        }
        args.push(file.display().to_string());
    }
    Ok(args)
}

async fn version_row(harness: &Harness, clawloop: &Path, runs: usize) -> Result<Row, String> {
    let mut samples = Vec::new();
    for _ in 0..runs {
        let mut command = Command::new(clawloop);
        command.arg("--version");
        let measurer = harness.measurer.clone();
        let measured = tokio::task::spawn_blocking(move || measurer.run(&command))
            .await
            .map_err(|e| format!("the measuring task failed: {e}"))??;
        if measured.usage.code != Some(0) {
            return Err(format!(
                "clawloop --version exited with {:?}",
                measured.usage.code
            ));
        }
        samples.push(TurnSample {
            usage: measured.usage,
            first_request_ms: None,
            tool_gap_ms: None,
        });
    }
    Ok(row("clawloop", "--version", &samples))
}

/// The row summarizing `samples`.
pub fn row(system: &str, scenario: &str, samples: &[TurnSample]) -> Row {
    let pick = |f: fn(&TurnSample) -> Option<f64>| {
        let values: Vec<f64> = samples.iter().filter_map(f).collect();
        summarize(&values)
    };
    Row {
        system: system.to_owned(),
        scenario: scenario.to_owned(),
        runs: samples.len(),
        wall_ms: pick(|s| Some(s.usage.wall_ms())),
        cpu_ms: pick(|s| Some(s.usage.cpu_ms())),
        rss_mib: pick(|s| Some(s.usage.rss_mib())),
        first_request_ms: pick(|s| s.first_request_ms),
        tool_gap_ms: pick(|s| s.tool_gap_ms),
    }
}
