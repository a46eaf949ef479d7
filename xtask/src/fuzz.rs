//! `cargo xtask fuzz [--seconds N] [--target T]`: runs the libFuzzer targets of `fuzz/` one
//! after the other and reports, per target, the runs, the speed, the corpus size and the
//! crashes. Not part of `cargo xtask ci` (the targets are their own workspace).
//!
//! * The fuzzer driver is `cargo-fuzz` at the version pinned here ([`CARGO_FUZZ_VERSION`]),
//!   installed with `cargo install --locked --root <target-dir>/tools` when it is missing,
//!   so the tools come from the repository and nothing is installed globally.
//! * cargo-fuzz passes nightly-only compiler flags (`-Zsanitizer=address`, the
//!   sanitizer-coverage `-Cllvm-args`, `--cfg fuzzing` with `-Zunstable-options` checks).
//!   This machine has only the stable toolchain and cannot fetch another, so the build runs
//!   with `RUSTC_BOOTSTRAP=1`, which lets the stable compiler accept `-Z` flags. The stable
//!   `rust-std` for x86_64 Linux ships the AddressSanitizer runtime, so the targets run under
//!   ASan (out-of-bounds and use-after-free in any `unsafe` dependency are caught, not only
//!   panics).
//! * Each target's corpus is `fuzz/corpus/<target>/` (not in git), seeded from the committed
//!   `fuzz/seeds/<target>/` and from the real provider streams in
//!   `../shared/fixtures/real` that fit the target; crashes are written to
//!   `fuzz/artifacts/<target>/`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::cli::UsageError;
use crate::conformance::discover;

/// The cargo-fuzz release the targets are built with.
pub const CARGO_FUZZ_VERSION: &str = "0.13.2";

/// Seconds per target when `--seconds` is not given.
pub const DEFAULT_SECONDS: u64 = 60;

/// The options of `cargo xtask fuzz`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// How long each target runs.
    pub seconds: u64,
    /// Only this target; every target when `None`.
    pub target: Option<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            seconds: DEFAULT_SECONDS,
            target: None,
        }
    }
}

/// One fuzz target and where its seeds come from besides `fuzz/seeds/<name>/`.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    /// The `[[bin]]` name in `fuzz/Cargo.toml`.
    pub name: &'static str,
    /// Subdirectories of the real fixtures whose files seed it.
    pub fixture_dirs: &'static [&'static str],
    /// Only fixture files with these extensions.
    pub fixture_exts: &'static [&'static str],
}

const ALL_APIS: &[&str] = &["anthropic", "gemini", "openai-chat", "openai-responses"];

/// Every target, in the order a full run takes them.
pub const TARGETS: &[Target] = &[
    Target {
        name: "sse_framer",
        fixture_dirs: ALL_APIS,
        fixture_exts: &["sse"],
    },
    Target {
        name: "ndjson_framer",
        fixture_dirs: &[],
        fixture_exts: &[],
    },
    Target {
        name: "json_array_framer",
        fixture_dirs: ALL_APIS,
        fixture_exts: &["json"],
    },
    Target {
        name: "decode_openai_completions",
        fixture_dirs: &["openai-chat"],
        fixture_exts: &["sse", "json"],
    },
    Target {
        name: "decode_openai_responses",
        fixture_dirs: &["openai-responses"],
        fixture_exts: &["sse", "json"],
    },
    Target {
        name: "decode_anthropic_messages",
        fixture_dirs: &["anthropic"],
        fixture_exts: &["sse", "json"],
    },
    Target {
        name: "decode_google_generative_ai",
        fixture_dirs: &["gemini"],
        fixture_exts: &["sse", "json"],
    },
    Target {
        name: "decode_ollama",
        fixture_dirs: &[],
        fixture_exts: &[],
    },
    Target {
        name: "session_reader",
        fixture_dirs: &[],
        fixture_exts: &[],
    },
    Target {
        name: "tag_filter",
        fixture_dirs: &[],
        fixture_exts: &[],
    },
    Target {
        name: "block_chunker",
        fixture_dirs: &[],
        fixture_exts: &[],
    },
    Target {
        name: "partial_json",
        fixture_dirs: &[],
        fixture_exts: &[],
    },
    Target {
        name: "config_loader",
        fixture_dirs: &[],
        fixture_exts: &[],
    },
    Target {
        name: "auth_files",
        fixture_dirs: &[],
        fixture_exts: &[],
    },
];

/// Parses the arguments after `fuzz`; `None` for `--help`. The target name is checked when
/// the command runs.
pub fn parse_args(args: &[String]) -> Result<Option<Options>, UsageError> {
    let mut options = Options::default();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag, Some(value.to_owned())),
            _ => (arg.as_str(), None),
        };
        let mut value = |name: &str| {
            inline
                .clone()
                .or_else(|| rest.next().cloned())
                .filter(|v| !v.is_empty())
                .ok_or_else(|| UsageError(format!("{name} needs a value")))
        };
        match flag {
            "-h" | "--help" => return Ok(None),
            "--seconds" => {
                let text = value("--seconds")?;
                options.seconds = match text.parse::<u64>() {
                    Ok(n) if n > 0 => n,
                    _ => {
                        return Err(UsageError(format!(
                            "--seconds needs a positive whole number, got {text:?}"
                        )));
                    }
                };
            }
            "--target" => {
                if options.target.is_some() {
                    return Err(UsageError("--target given twice".to_owned()));
                }
                options.target = Some(value("--target")?);
            }
            _ => return Err(UsageError(format!("unknown argument {arg:?} for fuzz"))),
        }
    }
    Ok(Some(options))
}

/// Looks a target up by name; the error lists the known ones.
pub fn target(name: &str) -> Result<&'static Target, String> {
    TARGETS.iter().find(|t| t.name == name).ok_or_else(|| {
        let known: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
        format!(
            "fuzz: unknown target {name:?} (known: {})",
            known.join(", ")
        )
    })
}

/// What libFuzzer reported for one target's run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Inputs executed (`stat::number_of_executed_units`).
    pub runs: u64,
    /// Executions per second (`stat::average_exec_per_sec`).
    pub execs_per_sec: u64,
    /// The crash inputs libFuzzer wrote (`Test unit written to …`).
    pub artifacts: Vec<String>,
}

/// Reads the numbers out of libFuzzer's output (`-print_final_stats=1`).
pub fn parse_output(output: &str) -> Report {
    let mut report = Report::default();
    for line in output.lines() {
        let stat = |name: &str| {
            line.strip_prefix(name)
                .and_then(|rest| rest.trim().parse::<u64>().ok())
        };
        if let Some(runs) = stat("stat::number_of_executed_units:") {
            report.runs = runs;
        } else if let Some(speed) = stat("stat::average_exec_per_sec:") {
            report.execs_per_sec = speed;
        } else if let Some((_, path)) = line.split_once("Test unit written to ") {
            report.artifacts.push(path.trim().to_owned());
        } else if report.runs == 0
            && let Some(runs) = line
                .strip_prefix("Done ")
                .and_then(|rest| rest.split_whitespace().next())
                .and_then(|n| n.parse::<u64>().ok())
        {
            // A run that ends early may print `Done N runs in S second(s)` only.
            report.runs = runs;
        }
    }
    report
}

/// Runs the targets; returns the exit status: 0 when none crashed, 1 on a crash or a failed
/// build, 2 for an unknown target.
pub fn run(options: &Options) -> u8 {
    let targets: Vec<&Target> = match &options.target {
        Some(name) => match target(name) {
            Ok(t) => vec![t],
            Err(e) => {
                eprintln!("xtask {e}");
                return 2;
            }
        },
        None => TARGETS.iter().collect(),
    };
    let root = discover::workspace_root();
    let target_dir = target_dir(&root);
    let cargo_fuzz = match ensure_cargo_fuzz(&target_dir) {
        Ok(path) => path,
        Err(e) => {
            eprintln!("xtask fuzz: {e}");
            return 1;
        }
    };
    let fuzz_dir = root.join("fuzz");
    let logs = target_dir.join("fuzz-logs");
    if let Err(e) = fs::create_dir_all(&logs) {
        eprintln!("xtask fuzz: cannot create {}: {e}", logs.display());
        return 1;
    }

    println!("==> building the fuzz targets (address sanitizer, RUSTC_BOOTSTRAP=1)");
    let mut build = fuzz_command(&cargo_fuzz, &root, &target_dir);
    build.args(["build", "--fuzz-dir", "fuzz"]);
    if let [only] = targets.as_slice() {
        build.arg(only.name);
    }
    match build.status() {
        Ok(status) if status.success() => {}
        Ok(status) => {
            eprintln!("xtask fuzz: building the fuzz targets failed ({status})");
            return 1;
        }
        Err(e) => {
            eprintln!("xtask fuzz: could not start {}: {e}", cargo_fuzz.display());
            return 1;
        }
    }

    let mut crashed = Vec::new();
    for target in targets {
        let corpus = fuzz_dir.join("corpus").join(target.name);
        if let Err(e) = seed_corpus(&root, &fuzz_dir, target, &corpus) {
            eprintln!("xtask fuzz: cannot seed {}: {e}", corpus.display());
            return 1;
        }
        println!("==> {} for {} s", target.name, options.seconds);
        let log = logs.join(format!("{}.log", target.name));
        let report = match run_target(&cargo_fuzz, &root, &target_dir, target, options, &log) {
            Ok(report) => report,
            Err(e) => {
                eprintln!("xtask fuzz: {}: {e}", target.name);
                return 1;
            }
        };
        let corpus_size = fs::read_dir(&corpus).map_or(0, |d| d.count());
        println!(
            "{}: {} runs, {} execs/s, corpus {}, crashes {}",
            target.name,
            report.runs,
            report.execs_per_sec,
            corpus_size,
            report.artifacts.len()
        );
        for artifact in &report.artifacts {
            println!("    crash input: {artifact}");
            println!(
                "    reproduce:   RUSTC_BOOTSTRAP=1 {} run --fuzz-dir fuzz {} {artifact}",
                cargo_fuzz.display(),
                target.name
            );
        }
        if !report.artifacts.is_empty() {
            println!("    log: {}", log.display());
            crashed.push(target.name);
        }
    }
    if crashed.is_empty() {
        0
    } else {
        eprintln!("xtask fuzz: crashes in {}", crashed.join(", "));
        1
    }
}

/// `$CARGO_TARGET_DIR`, else `<root>/target`.
fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() {
                dir
            } else {
                root.join(dir)
            }
        }
        _ => root.join("target"),
    }
}

/// `<target-dir>/tools/bin/cargo-fuzz`, installed at the pinned version when missing.
fn ensure_cargo_fuzz(target_dir: &Path) -> Result<PathBuf, String> {
    let tools = target_dir.join("tools");
    let binary = tools.join("bin").join("cargo-fuzz");
    if binary.is_file() {
        return Ok(binary);
    }
    println!(
        "==> installing cargo-fuzz {CARGO_FUZZ_VERSION} into {}",
        tools.display()
    );
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let status = Command::new(&cargo)
        .args([
            "install",
            "--locked",
            "--version",
            CARGO_FUZZ_VERSION,
            "--root",
        ])
        .arg(&tools)
        .arg("cargo-fuzz")
        .status()
        .map_err(|e| format!("could not start `{cargo} install`: {e}"))?;
    if !status.success() || !binary.is_file() {
        return Err(format!("installing cargo-fuzz failed ({status})"));
    }
    Ok(binary)
}

/// cargo-fuzz in the workspace root, with the stable compiler accepting its `-Z` flags.
fn fuzz_command(cargo_fuzz: &Path, root: &Path, target_dir: &Path) -> Command {
    let mut command = Command::new(cargo_fuzz);
    command
        .current_dir(root)
        .env("RUSTC_BOOTSTRAP", "1")
        .env("CARGO_TARGET_DIR", target_dir);
    command
}

/// Copies the committed seeds and the fitting real fixtures into `corpus` (existing corpus
/// files stay: the corpus grows from run to run).
fn seed_corpus(
    root: &Path,
    fuzz_dir: &Path,
    target: &Target,
    corpus: &Path,
) -> std::io::Result<()> {
    fs::create_dir_all(corpus)?;
    let mut sources: Vec<PathBuf> = Vec::new();
    collect_files(&fuzz_dir.join("seeds").join(target.name), &[], &mut sources)?;
    let fixtures = root.join("..").join("shared").join("fixtures").join("real");
    for dir in target.fixture_dirs {
        collect_files(&fixtures.join(dir), target.fixture_exts, &mut sources)?;
    }
    for source in sources {
        let name = match (
            source.parent().and_then(Path::file_name),
            source.file_name(),
        ) {
            (Some(dir), Some(file)) => {
                format!("seed-{}-{}", dir.to_string_lossy(), file.to_string_lossy())
            }
            _ => continue,
        };
        fs::copy(&source, corpus.join(name))?;
    }
    Ok(())
}

/// The files of `dir` (not recursive) with one of `exts` (any when empty); a missing
/// directory has none.
fn collect_files(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let path = entry?.path();
        let ext_fits = exts.is_empty()
            || path
                .extension()
                .is_some_and(|e| exts.iter().any(|x| e == *x));
        if path.is_file() && ext_fits {
            out.push(path);
        }
    }
    out.sort();
    Ok(())
}

/// Runs one target for the given time; libFuzzer's output goes to `log` and is parsed.
fn run_target(
    cargo_fuzz: &Path,
    root: &Path,
    target_dir: &Path,
    target: &Target,
    options: &Options,
    log: &Path,
) -> Result<Report, String> {
    let log_file =
        fs::File::create(log).map_err(|e| format!("cannot create {}: {e}", log.display()))?;
    let stderr = log_file
        .try_clone()
        .map_err(|e| format!("cannot write {}: {e}", log.display()))?;
    let status = fuzz_command(cargo_fuzz, root, target_dir)
        .args(["run", "--fuzz-dir", "fuzz", target.name])
        .arg(Path::new("fuzz").join("corpus").join(target.name))
        .arg("--")
        .arg(format!("-max_total_time={}", options.seconds))
        // A hang is a finding too.
        .arg("-timeout=20")
        .arg("-print_final_stats=1")
        .stdout(Stdio::from(log_file))
        .stderr(Stdio::from(stderr))
        .status()
        .map_err(|e| format!("could not start {}: {e}", cargo_fuzz.display()))?;
    let output =
        fs::read_to_string(log).map_err(|e| format!("cannot read {}: {e}", log.display()))?;
    let report = parse_output(&output);
    if !status.success() && report.artifacts.is_empty() {
        return Err(format!(
            "the fuzzer failed ({status}) without a crash input; see {}",
            log.display()
        ));
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn every_target_is_a_bin_of_the_fuzz_crate_and_the_other_way_round() -> Result<(), String> {
        let root = discover::workspace_root();
        let manifest =
            fs::read_to_string(root.join("fuzz").join("Cargo.toml")).map_err(|e| e.to_string())?;
        let bins: Vec<&str> = manifest
            .lines()
            .filter_map(|l| l.strip_prefix("name = \""))
            .filter_map(|l| l.strip_suffix('"'))
            .filter(|name| *name != "clawloop-fuzz")
            .collect();
        let names: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
        assert_eq!(bins, names);
        for t in TARGETS {
            assert!(
                root.join("fuzz")
                    .join("fuzz_targets")
                    .join(format!("{}.rs", t.name))
                    .is_file(),
                "{}: no source file",
                t.name
            );
        }
        Ok(())
    }

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn parses_seconds_and_target_in_both_spellings() {
        assert_eq!(parse_args(&[]), Ok(Some(Options::default())));
        assert_eq!(
            parse_args(&args(&["--seconds", "5", "--target=tag_filter"])),
            Ok(Some(Options {
                seconds: 5,
                target: Some("tag_filter".to_owned()),
            }))
        );
        assert_eq!(
            parse_args(&args(&["--seconds=9"])).map(|o| o.map(|o| o.seconds)),
            Ok(Some(9))
        );
        assert_eq!(parse_args(&args(&["--help"])), Ok(None));
        assert_eq!(
            parse_args(&args(&["--seconds", "0"])),
            Err(UsageError(
                "--seconds needs a positive whole number, got \"0\"".to_owned()
            ))
        );
        assert_eq!(
            parse_args(&args(&["--target"])),
            Err(UsageError("--target needs a value".to_owned()))
        );
        assert_eq!(
            parse_args(&args(&["--fast"])),
            Err(UsageError(
                "unknown argument \"--fast\" for fuzz".to_owned()
            ))
        );
    }

    #[test]
    fn unknown_target_names_the_known_ones() {
        assert_eq!(
            target("nope")
                .map(|t| t.name)
                .err()
                .map(|e| e.contains("sse_framer")),
            Some(true)
        );
        assert_eq!(target("tag_filter").map(|t| t.name), Ok("tag_filter"));
    }

    #[test]
    fn reads_the_final_stats_and_the_crash_input() {
        let output = "\
INFO: Seed: 1
#1024\tpulse  cov: 10 ft: 12 corp: 3/30b exec/s: 512 rss: 40Mb
==12== ERROR: libFuzzer: deadly signal
artifact_prefix='fuzz/artifacts/sse_framer/'; Test unit written to fuzz/artifacts/sse_framer/crash-abc
stat::number_of_executed_units: 2048
stat::average_exec_per_sec:     1024
stat::new_units_added:          7
";
        assert_eq!(
            parse_output(output),
            Report {
                runs: 2048,
                execs_per_sec: 1024,
                artifacts: vec!["fuzz/artifacts/sse_framer/crash-abc".to_owned()],
            }
        );
        assert_eq!(parse_output("Done 77 runs in 1 second(s)\n").runs, 77);
    }
}
