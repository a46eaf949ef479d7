//! `cargo xtask interop`: do clawloop and pi's own `SessionManager` read each other's session
//! files the same way? Not part of CI: it needs `node` and the npm package
//! `@mariozechner/pi-coding-agent` (0.58.3 is the reference, pi-mono §3.3 and §5).
//!
//! Both directions, each rebuilt by both implementations and compared as JSON message by
//! message with nothing normalized (pi hands the parsed file objects through unchanged):
//!
//! * clawloop → pi: clawloop writes a session using every entry type; pi opens it; the
//!   contexts at the leaf and at every other entry, the tree (leaf, path, labels, name) and
//!   the bytes of every line (what `JSON.stringify` writes for it) must agree; then pi appends
//!   a turn and clawloop reopens the file and must agree again.
//! * pi → clawloop: pi writes a session through its `SessionManager`; clawloop opens it (no
//!   skipped line, no migration), must agree, and must write each line back byte for byte;
//!   then clawloop appends a turn under its write lock and pi reopens the file and must agree.
//! * runner → pi: the runner writes a session the way a run does, several turns through
//!   `run_attempt` against the scripted provider server (text, tool calls with real effects, a
//!   threshold compaction, a turn after it; [`runner_case`]); clawloop's reader and pi must
//!   each rebuild, at every turn's last entry, the conversation the runner ended that turn
//!   with, and agree with each other as in the first direction (pi appends too).
//!
//! Exit status: 0 agreement, 1 a difference, 2 `node` or the package is missing (or cannot be
//! installed with `--install`).

mod compare;
pub mod runner_case;
mod scenario;

use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{SystemTime, UNIX_EPOCH};

use clawloop_session::{SessionEntry, SessionHeader, SessionOptions, Transcript};

use crate::conformance::discover;
use compare::{Observed, PiReport};

/// The npm package whose `SessionManager` is the reference.
pub const PI_PACKAGE: &str = "@mariozechner/pi-coding-agent";

/// The version the reference (pi-mono.md) was written against.
pub const PI_VERSION: &str = "0.58.3";

/// Where `--install` puts the package, relative to the workspace root, when
/// `CARGO_TARGET_DIR` is not set ([`default_pi_dir`]).
pub const DEFAULT_PI_DIR: &str = "target/interop-node";

/// The package's directory under the target directory.
pub const PI_DIR_IN_TARGET: &str = "interop-node";

/// The Node side of the check, relative to the workspace root.
pub const SCRIPT: &str = "xtask/interop/pi_context.mjs";

/// The exit status for a missing `node` or package.
const MISSING: u8 = 2;

pub use xtask::interop::Options;

/// One check and what it found wrong (nothing: it passed).
#[derive(Debug)]
struct Check {
    name: String,
    differences: Vec<String>,
}

/// Runs the check; returns the exit status.
pub fn run(options: &Options) -> u8 {
    let root = discover::workspace_root();
    let pi_dir = match &options.pi_dir {
        Some(dir) if dir.is_relative() => root.join(dir),
        Some(dir) => dir.clone(),
        None => default_pi_dir(&root, std::env::var_os("CARGO_TARGET_DIR").as_deref()),
    };
    let node = match node_version() {
        Ok(v) => v,
        Err(e) => {
            eprintln!(
                "xtask interop: `node` is needed to run pi's SessionManager but {e}.\n\
                 Install Node.js >= 20.6 (e.g. `apt-get install nodejs npm`), then run\n  \
                 cargo xtask interop --install"
            );
            return MISSING;
        }
    };
    if options.install
        && let Err(e) = install(&pi_dir)
    {
        eprintln!("xtask interop: {e}");
        return MISSING;
    }
    let Some(package) = find_package(&pi_dir) else {
        eprintln!("{}", missing_package_message(&pi_dir));
        return MISSING;
    };
    let work = match scratch_dir() {
        Ok(dir) => dir,
        Err(e) => {
            eprintln!("xtask interop: cannot create a scratch directory: {e}");
            return 1;
        }
    };
    let pi = Pi {
        script: root.join(SCRIPT),
        package,
        work: work.clone(),
    };
    let failed: Vec<String> = match check_both_directions(&pi, &node, &work) {
        Ok(checks) => checks
            .into_iter()
            .filter(|c| !c.differences.is_empty())
            .map(|c| c.name)
            .collect(),
        Err(message) => {
            eprintln!("xtask interop: {message}");
            let _ = std::fs::remove_dir_all(&work);
            return MISSING;
        }
    };
    if failed.is_empty() {
        if options.keep {
            println!("interop: PASS (files kept in {})", work.display());
        } else {
            let _ = std::fs::remove_dir_all(&work);
            println!("interop: PASS");
        }
        0
    } else {
        println!("interop: FAIL; files kept in {}", work.display());
        for name in failed {
            println!("  failed: {name}");
        }
        1
    }
}

/// Why a direction could not be checked to the end.
enum Stop {
    /// The package turned out to be unusable: reported like a missing one.
    Missing(String),
    /// A step failed (pi threw on our file, clawloop refused pi's…): a difference.
    Failed(String),
}

/// Runs every direction, printing each check as it completes. A direction that cannot go on
/// (pi throws on clawloop's file, say) is one failed check; the others still run. Errs only
/// when the package turns out to be unusable.
fn check_both_directions(pi: &Pi, node: &str, work: &Path) -> Result<Vec<Check>, String> {
    let version = package_version(&pi.package).unwrap_or_else(|| "unknown version".to_owned());
    println!(
        "interop: pi {version} ({}), node {node}",
        pi.package.display()
    );
    if version != PI_VERSION {
        println!(
            "  note: the reference is {PI_VERSION}; differences may be version drift (pi-mono §5)"
        );
    }
    type Direction = fn(&Pi, &Path, &mut Vec<Check>) -> Result<(), Stop>;
    let directions: [(&str, Direction); 3] = [
        ("clawloop → pi", clawloop_to_pi),
        ("pi → clawloop", pi_to_clawloop),
        ("runner → pi", runner_to_pi),
    ];
    let mut checks = Vec::new();
    for (direction, check) in directions {
        println!("{direction}");
        let first = checks.len();
        let outcome = check(pi, work, &mut checks);
        settle(&mut checks, outcome)?;
        // Directions have checks of the same name; the summary must say which failed.
        for check in &mut checks[first..] {
            check.name = format!("{direction}: {}", check.name);
        }
    }
    Ok(checks)
}

/// A direction's end: a step that failed becomes a failed check; an unusable package stops
/// everything.
fn settle(checks: &mut Vec<Check>, outcome: Result<(), Stop>) -> Result<(), String> {
    match outcome {
        Ok(()) => Ok(()),
        Err(Stop::Missing(message)) => Err(message),
        Err(Stop::Failed(message)) => {
            record(checks, "could not go on".to_owned(), vec![message]);
            Ok(())
        }
    }
}

/// clawloop writes; pi opens; pi appends; clawloop reopens.
fn clawloop_to_pi(pi: &Pi, work: &Path, checks: &mut Vec<Check>) -> Result<(), Stop> {
    let path = work.join("clawloop-written.jsonl");
    let written = scenario::write_session(&path).map_err(Stop::Failed)?;
    pi_reads_ours(pi, &path, written.ids.len(), checks, |_| Vec::new())
}

/// The runner writes several turns; clawloop's reader and pi must each rebuild what every turn
/// ended with; then as [`clawloop_to_pi`].
fn runner_to_pi(pi: &Pi, work: &Path, checks: &mut Vec<Check>) -> Result<(), Stop> {
    let dir = work.join("runner");
    std::fs::create_dir_all(&dir)
        .map_err(|e| Stop::Failed(format!("cannot create {}: {e}", dir.display())))?;
    let session = runner_case::write_session(&dir).map_err(Stop::Failed)?;
    let turns = session.turns.len();
    record(
        checks,
        format!("clawloop's reader rebuilds what each of the runner's {turns} turns ended with"),
        runner_case::own_reader_differences(&session).map_err(Stop::Failed)?,
    );
    let entries = reopen(&session.path)?.entry_count();
    pi_reads_ours(pi, &session.path, entries, checks, |seen| {
        vec![(
            format!("pi rebuilds what each of the runner's {turns} turns ended with"),
            runner_case::turn_differences(&session, "pi", seen),
        )]
    })
}

/// pi opens a file clawloop wrote (`entries` entries): the tree, the contexts at the leaf and
/// at every entry, and the bytes of every line must agree, plus the checks `more` makes of
/// what pi saw; then pi appends a turn and clawloop reopens the file and must agree again.
fn pi_reads_ours(
    pi: &Pi,
    path: &Path,
    entries: usize,
    checks: &mut Vec<Check>,
    more: impl FnOnce(&Observed) -> Vec<(String, Vec<String>)>,
) -> Result<(), Stop> {
    let stem = path
        .file_stem()
        .map_or_else(|| "session".into(), |s| s.to_string_lossy());
    let mut transcript = reopen(path)?;
    let ours = observe(&mut transcript)?;
    let report = pi.run("open", &[path.as_os_str()], &format!("{stem}.pi.json"))?;
    let pi_seen = &report.observed;
    record(
        checks,
        format!(
            "pi opens clawloop's file ({entries} entries, leaf context of {} messages)",
            message_count(&pi_seen.context)
        ),
        compare::tree(pi_seen, &ours),
    );
    record(
        checks,
        "context at the leaf (messages, thinkingLevel, model)".to_owned(),
        compare::leaf_context(pi_seen, &ours),
    );
    record(
        checks,
        format!("context with each of the {entries} entries as the leaf"),
        compare::every_context(pi_seen, &ours),
    );
    record(
        checks,
        format!(
            "each of the {} lines is what JSON.stringify writes",
            report.lines.count
        ),
        compare::lines(&report.lines),
    );
    for (name, found) in more(pi_seen) {
        record(checks, name, found);
    }

    let appended = pi.run(
        "append",
        &[path.as_os_str()],
        &format!("{stem}.pi-appended.json"),
    )?;
    let mut reopened = reopen(path)?;
    let ours = observe(&mut reopened)?;
    let mut found = no_skipped_lines(&reopened);
    found.extend(compare::tree(&appended.observed, &ours));
    found.extend(compare::leaf_context(&appended.observed, &ours));
    found.extend(compare::every_context(&appended.observed, &ours));
    record(
        checks,
        "pi appends a turn; clawloop reopens the file and agrees".to_owned(),
        found,
    );
    Ok(())
}

/// pi writes; clawloop opens and writes every line back; clawloop appends; pi reopens.
fn pi_to_clawloop(pi: &Pi, work: &Path, checks: &mut Vec<Check>) -> Result<(), Stop> {
    let dir = work.join("pi");
    std::fs::create_dir_all(&dir)
        .map_err(|e| Stop::Failed(format!("cannot create {}: {e}", dir.display())))?;
    let report = pi.run(
        "write",
        &[dir.as_os_str(), "/home/user/proj".as_ref()],
        "pi-written.pi.json",
    )?;
    let path = report.path.clone();
    let mut transcript = reopen(&path)?;
    let ours = observe(&mut transcript)?;
    let pi_seen = &report.observed;
    let mut found = no_skipped_lines(&transcript);
    found.extend(compare::tree(pi_seen, &ours));
    record(
        checks,
        format!(
            "clawloop opens pi's file ({} entries, leaf context of {} messages)",
            pi_seen.entry_count,
            message_count(&pi_seen.context)
        ),
        found,
    );
    record(
        checks,
        "context at the leaf (messages, thinkingLevel, model)".to_owned(),
        compare::leaf_context(pi_seen, &ours),
    );
    record(
        checks,
        format!(
            "context with each of the {} entries as the leaf",
            pi_seen.entry_count
        ),
        compare::every_context(pi_seen, &ours),
    );
    let before = read(&path)?;
    record(
        checks,
        format!(
            "clawloop writes each of pi's {} lines back byte for byte",
            report.lines.count
        ),
        rewrite_differences(&before),
    );

    let label_target = ours.branch.first().cloned().unwrap_or_default();
    let appended = scenario::append_turn(&path, &label_target).map_err(Stop::Failed)?;
    let after = read(&path)?;
    let mut reopened = reopen(&path)?;
    let ours = observe(&mut reopened)?;
    let pi_again = pi.run("open", &[path.as_os_str()], "pi-written.reopened.pi.json")?;
    let mut found = Vec::new();
    if !after.starts_with(&before) {
        found.push("clawloop changed pi's lines instead of appending after them".to_owned());
    }
    let expected_leaf = appended.ids.last().cloned();
    if pi_again.observed.leaf_id != expected_leaf {
        found.push(format!(
            "pi's leaf is {:?}, not clawloop's last entry {expected_leaf:?}",
            pi_again.observed.leaf_id
        ));
    }
    found.extend(compare::tree(&pi_again.observed, &ours));
    found.extend(compare::leaf_context(&pi_again.observed, &ours));
    found.extend(compare::every_context(&pi_again.observed, &ours));
    found.extend(compare::lines(&pi_again.lines));
    record(
        checks,
        format!(
            "clawloop appends {} entries; pi reopens the file and agrees",
            appended.ids.len()
        ),
        found,
    );
    Ok(())
}

/// Prints a check's outcome and keeps it.
fn record(checks: &mut Vec<Check>, name: String, differences: Vec<String>) {
    if differences.is_empty() {
        println!("  PASS  {name}");
    } else {
        println!("  FAIL  {name}");
        for (i, d) in differences.iter().enumerate() {
            if i == 5 {
                println!("        … {} more", differences.len() - i);
                break;
            }
            for (n, line) in d.lines().enumerate() {
                println!("        {}{line}", if n == 0 { "" } else { "  " });
            }
        }
    }
    // Progress shows while node runs; a closed stdout is not worth failing over.
    let _ = io::stdout().flush();
    checks.push(Check { name, differences });
}

/// Opens a session with clawloop as a runtime would.
fn reopen(path: &Path) -> Result<Transcript, Stop> {
    Transcript::open(path, SessionOptions::default())
        .map_err(|e| Stop::Failed(format!("clawloop cannot open {}: {e}", path.display())))
}

fn observe(transcript: &mut Transcript) -> Result<Observed, Stop> {
    Observed::from_transcript(transcript).map_err(Stop::Failed)
}

fn read(path: &Path) -> Result<Vec<u8>, Stop> {
    std::fs::read(path).map_err(|e| Stop::Failed(format!("cannot read {}: {e}", path.display())))
}

/// Lines clawloop skipped, cut or migrated when opening: none, for a file pi just wrote.
fn no_skipped_lines(transcript: &Transcript) -> Vec<String> {
    let report = transcript.report();
    let mut found = Vec::new();
    if report.skipped_lines > 0 {
        found.push(format!("clawloop skipped {} lines", report.skipped_lines));
    }
    if let Some(torn) = &report.torn_line {
        found.push(format!("clawloop found a torn last line: {torn:?}"));
    }
    if let Some(v) = report.migrated_from {
        found.push(format!("clawloop migrated the file from version {v}"));
    }
    found
}

/// Each line of `file` parsed with clawloop's types and serialized again, against the line:
/// what makes files byte-comparable.
fn rewrite_differences(file: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(file);
    let mut found = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let again = if i == 0 {
            serde_json::from_str::<SessionHeader>(line).and_then(|h| serde_json::to_string(&h))
        } else {
            serde_json::from_str::<SessionEntry>(line).and_then(|e| serde_json::to_string(&e))
        };
        match again {
            Ok(again) if again == line => {}
            Ok(again) => found.push(compare::line_difference(
                i + 1,
                line,
                &again,
                "clawloop writes",
            )),
            Err(e) => found.push(format!("line {}: clawloop cannot read it: {e}", i + 1)),
        }
    }
    found
}

fn message_count(context: &serde_json::Value) -> usize {
    context
        .get("messages")
        .and_then(serde_json::Value::as_array)
        .map_or(0, Vec::len)
}

/// The Node side: `node pi_context.mjs <package> <command> …`.
struct Pi {
    script: PathBuf,
    package: PathBuf,
    /// Where pi's reports are saved, for a look after a failure.
    work: PathBuf,
}

impl Pi {
    /// Runs one command of the script and reads its report (also saved as `save_as`).
    fn run(
        &self,
        command: &str,
        args: &[&std::ffi::OsStr],
        save_as: &str,
    ) -> Result<PiReport, Stop> {
        let output = Command::new("node")
            .arg(&self.script)
            .arg(&self.package)
            .arg(command)
            .args(args)
            // pi reads its agent directory lazily; keep it away from the user's ~/.pi.
            .env("PI_CODING_AGENT_DIR", self.work.join("pi-agent-dir"))
            .output()
            .map_err(|e| Stop::Missing(format!("cannot run node: {e}")))?;
        let Output {
            status,
            stdout,
            stderr,
        } = output;
        let stderr = String::from_utf8_lossy(&stderr);
        match status.code() {
            Some(0) => {}
            Some(3) => {
                return Err(Stop::Missing(format!(
                    "the package could not be loaded:\n{stderr}\n{}",
                    install_hint(&self.package)
                )));
            }
            _ => {
                return Err(Stop::Failed(format!(
                    "pi `{command}` failed ({status}):\n{}",
                    stderr.trim_end()
                )));
            }
        }
        let _ = std::fs::write(self.work.join(save_as), &stdout);
        serde_json::from_slice(&stdout).map_err(|e| {
            Stop::Failed(format!(
                "cannot read pi's `{command}` report: {e}\n{}",
                String::from_utf8_lossy(&stdout)
            ))
        })
    }
}

/// `node --version`, or why node cannot be run.
fn node_version() -> Result<String, String> {
    match Command::new("node").arg("--version").output() {
        Ok(out) if out.status.success() => {
            Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
        }
        Ok(out) => Err(format!("`node --version` failed ({})", out.status)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err("it is not on PATH".to_owned()),
        Err(e) => Err(format!("it cannot be run: {e}")),
    }
}

/// `npm install --prefix <dir> @mariozechner/pi-coding-agent@0.58.3`.
fn install(pi_dir: &Path) -> Result<(), String> {
    let spec = format!("{PI_PACKAGE}@{PI_VERSION}");
    println!("interop: npm install --prefix {} {spec}", pi_dir.display());
    std::fs::create_dir_all(pi_dir)
        .map_err(|e| format!("cannot create {}: {e}", pi_dir.display()))?;
    let status = Command::new("npm")
        .arg("install")
        .arg("--prefix")
        .arg(pi_dir)
        .arg(&spec)
        .status()
        .map_err(|e| format!("cannot run npm (is it installed?): {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("npm install failed ({status})"))
    }
}

/// Where the package is looked for and installed by default: `interop-node` in the target
/// directory, which is `target_dir` (`CARGO_TARGET_DIR`, relative to the workspace root when
/// relative) when set, as it is when worktrees share one build, and `target` in the workspace
/// root otherwise.
pub fn default_pi_dir(root: &Path, target_dir: Option<&std::ffi::OsStr>) -> PathBuf {
    match target_dir.filter(|dir| !dir.is_empty()) {
        Some(dir) => root.join(dir).join(PI_DIR_IN_TARGET),
        None => root.join(DEFAULT_PI_DIR),
    }
}

/// The package directory under an npm prefix (or under a `node_modules` directory given
/// directly), if it is installed there.
pub fn find_package(pi_dir: &Path) -> Option<PathBuf> {
    [
        pi_dir.join("node_modules").join(PI_PACKAGE),
        pi_dir.join(PI_PACKAGE),
    ]
    .into_iter()
    .find(|dir| dir.join("package.json").is_file())
}

/// The `version` of an installed package.
fn package_version(package: &Path) -> Option<String> {
    let text = std::fs::read_to_string(package.join("package.json")).ok()?;
    let manifest: serde_json::Value = serde_json::from_str(&text).ok()?;
    manifest
        .get("version")
        .and_then(serde_json::Value::as_str)
        .map(str::to_owned)
}

fn install_hint(pi_dir: &Path) -> String {
    format!(
        "Install it with\n  cargo xtask interop --install\nor\n  npm install --prefix {} {PI_PACKAGE}@{PI_VERSION}\n\
         (or point --pi-dir at an npm prefix that has it)",
        pi_dir.display()
    )
}

/// What to say when the package is not under `pi_dir`.
pub fn missing_package_message(pi_dir: &Path) -> String {
    format!(
        "xtask interop: {PI_PACKAGE} is not installed under {}.\n{}",
        pi_dir.display(),
        install_hint(pi_dir)
    )
}

/// A fresh directory for this run's files.
fn scratch_dir() -> io::Result<PathBuf> {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let dir = std::env::temp_dir().join(format!(
        "clawloop-interop-{}-{nanos:09}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_package_is_found_under_a_prefix_or_a_node_modules_dir() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(find_package(dir.path()), None);
        let package = dir.path().join("node_modules").join(PI_PACKAGE);
        std::fs::create_dir_all(&package).unwrap();
        std::fs::write(package.join("package.json"), r#"{"version":"0.58.3"}"#).unwrap();
        assert_eq!(find_package(dir.path()), Some(package.clone()));
        assert_eq!(
            find_package(&dir.path().join("node_modules")),
            Some(package.clone())
        );
        assert_eq!(package_version(&package).as_deref(), Some("0.58.3"));
    }

    #[test]
    fn the_default_pi_dir_is_in_the_target_directory() {
        let root = Path::new("/ws");
        assert_eq!(
            default_pi_dir(root, None),
            PathBuf::from("/ws/target/interop-node")
        );
        assert_eq!(
            default_pi_dir(root, Some("".as_ref())),
            PathBuf::from("/ws/target/interop-node")
        );
        assert_eq!(
            default_pi_dir(root, Some("/shared/target".as_ref())),
            PathBuf::from("/shared/target/interop-node")
        );
        assert_eq!(
            default_pi_dir(root, Some("build".as_ref())),
            PathBuf::from("/ws/build/interop-node")
        );
    }

    #[test]
    fn the_missing_package_message_says_how_to_install() {
        let m = missing_package_message(Path::new("/x/target/interop-node"));
        assert!(
            m.contains(
                "npm install --prefix /x/target/interop-node @mariozechner/pi-coding-agent@0.58.3"
            ),
            "{m}"
        );
        assert!(m.contains("cargo xtask interop --install"), "{m}");
    }

    #[test]
    fn the_script_exists() {
        assert!(discover::workspace_root().join(SCRIPT).is_file());
    }

    /// clawloop's own side of the check needs no node: its scenario writes, reopens and
    /// agrees with itself, and every line it wrote reads back byte for byte.
    #[test]
    fn the_clawloop_scenario_is_self_consistent() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let written = scenario::write_session(&path).unwrap();
        let mut t = Transcript::open(&path, SessionOptions::default()).unwrap();
        assert!(no_skipped_lines(&t).is_empty());
        let seen = Observed::from_transcript(&mut t).unwrap();
        assert_eq!(seen.entry_count, written.ids.len());
        assert_eq!(seen.leaf_id, written.ids.last().cloned());
        assert_eq!(seen.session_name.as_deref(), Some("clawloop interop"));
        let roles: Vec<&str> = seen.context["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["role"].as_str().unwrap())
            .collect();
        assert_eq!(
            roles,
            [
                "compactionSummary",
                "assistant",
                "user",
                "assistant",
                "branchSummary",
                "custom",
                "user",
                "assistant",
                "bashExecution"
            ]
        );
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(rewrite_differences(&bytes), Vec::<String>::new());

        let appended = scenario::append_turn(&path, &written.ids[0]).unwrap();
        let mut t = Transcript::open(&path, SessionOptions::default()).unwrap();
        assert_eq!(t.leaf_id(), appended.ids.last().map(String::as_str));
        let seen = Observed::from_transcript(&mut t).unwrap();
        assert_eq!(seen.session_name.as_deref(), Some("renamed by clawloop"));
        assert_eq!(
            seen.labels.get(&written.ids[0]).map(String::as_str),
            Some("from clawloop")
        );
    }
}
