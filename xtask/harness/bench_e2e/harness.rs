//! The measuring harness: the scripted server, the scratch home and workspace, and one
//! measured turn of any system against the server.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use clawloop_testkit::{ProviderRequest, ProviderScriptServer};

use super::clock::Anchor;
use super::measure::{ChildUsage, Measured, Measurer, ns_to_ms};
use super::scenario::{Scenario, TOOL_FILE, TOOL_FILE_TEXT};

/// What one measured turn gave.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnSample {
    /// The child's usage.
    pub usage: ChildUsage,
    /// Spawn to the server's receipt of the first request, ms.
    pub first_request_ms: Option<f64>,
    /// End of the first response to the receipt of the second request, ms (tool turns).
    pub tool_gap_ms: Option<f64>,
}

/// How closely a turn must follow the script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strictness {
    /// Exactly the scripted requests, each matching its expectation.
    Strict,
    /// Every scripted exchange used; stray requests (a peer's model list, telemetry) and
    /// request-shape mismatches are tolerated.
    Lenient,
}

/// The server and the scratch directories every measured turn shares.
pub struct Harness {
    /// The scripted provider server.
    pub server: ProviderScriptServer,
    /// Runs commands under the measuring process.
    pub measurer: Measurer,
    /// The scratch root (home, workspace, request bodies, peer homes).
    pub root: PathBuf,
    anchor: Anchor,
}

impl Harness {
    /// Starts the server and lays out `root`: `workspace/` with the tool file.
    pub async fn start(root: &Path, measurer: Measurer) -> Result<Harness, String> {
        let server = ProviderScriptServer::start()
            .await
            .map_err(|e| format!("cannot start the scripted provider server: {e}"))?;
        let workspace = root.join("workspace");
        std::fs::create_dir_all(&workspace)
            .and_then(|()| std::fs::write(workspace.join(TOOL_FILE), TOOL_FILE_TEXT))
            .map_err(|e| format!("cannot prepare {}: {e}", workspace.display()))?;
        Ok(Harness {
            server,
            measurer,
            root: root.to_path_buf(),
            anchor: Anchor::now(),
        })
    }

    /// The workspace directory every system works in.
    pub fn workspace(&self) -> PathBuf {
        self.root.join("workspace")
    }

    /// `host:port` of the server.
    pub fn addr(&self) -> String {
        self.server.url().trim_start_matches("http://").to_owned()
    }

    /// Runs `command` as one turn of `scenario`: the server plays the script, the command
    /// runs under the measuring process, and the turn must have made exactly the scripted
    /// requests and exited with 0. Returns the sample and the child's output.
    pub async fn turn(
        &self,
        scenario: Scenario,
        command: Command,
        strictness: Strictness,
    ) -> Result<(TurnSample, Measured, Vec<ProviderRequest>), String> {
        let script = scenario
            .script()
            .map_err(|e| format!("bench script {}: {e}", scenario.name()))?;
        let seen = self.server.timings().len();
        let requests_before = self.server.requests().len();
        self.server.begin_turn(script);
        let measurer = self.measurer.clone();
        let measured = tokio::task::spawn_blocking(move || measurer.run(&command))
            .await
            .map_err(|e| format!("the measuring task failed: {e}"))??;
        let report = self.server.end_turn();
        let problems = report.problems();
        let stderr = || {
            String::from_utf8_lossy(&measured.output.stderr)
                .trim()
                .to_owned()
        };
        if measured.usage.code != Some(0) {
            return Err(format!(
                "exited with {:?} (stderr: {})",
                measured.usage.code,
                stderr()
            ));
        }
        let failed = match strictness {
            Strictness::Strict => !problems.is_empty(),
            Strictness::Lenient => !report.unused.is_empty(),
        };
        if failed {
            return Err(format!(
                "the server saw unexpected requests: {} (stderr: {})",
                problems.join("; "),
                stderr()
            ));
        }
        // The server records an exchange just after its last write, which may be a moment
        // after the client has read it and exited.
        let wanted = seen + scenario.requests();
        let mut timings = self.server.timings();
        for _ in 0..500 {
            if timings.len() >= wanted {
                break;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
            timings = self.server.timings();
        }
        let turn = timings.get(seen..).unwrap_or_default();
        let requests = self
            .server
            .requests()
            .get(requests_before..)
            .map(<[ProviderRequest]>::to_vec)
            .unwrap_or_default();
        let first_request_ms = turn.first().map(|t| {
            ns_to_ms(
                self.anchor
                    .ns(t.received)
                    .saturating_sub(measured.usage.spawn_ns),
            )
        });
        // Timings and requests are both in arrival order; the gap is from the answer of the
        // script's first exchange to the request that took its second.
        let took = |index: usize| {
            requests
                .iter()
                .position(|r| r.response == Some(index))
                .and_then(|at| turn.get(at))
        };
        let tool_gap_ms = match (took(0), took(1)) {
            (Some(first), Some(second)) => first.answered.map(|answered| {
                ns_to_ms(
                    self.anchor
                        .ns(second.received)
                        .saturating_sub(self.anchor.ns(answered)),
                )
            }),
            _ => None,
        };
        let sample = TurnSample {
            usage: measured.usage,
            first_request_ms,
            tool_gap_ms,
        };
        Ok((sample, measured, requests))
    }
}
