//! The `bash` tool on real processes: output, exit codes, pi's error texts, truncation with the
//! full log on disk, streaming, the env overlay and cwd, and killing the whole process tree on
//! abort, timeout and drop.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clawloop_core::message::ContentBlock;
use clawloop_core::tool::{AgentToolResult, Tool, ToolContext, ToolError, ToolResult, ToolUpdate};
use clawloop_tools::bash::BashTool;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tempfile::TempDir;
use tokio_util::sync::CancellationToken;

/// A workspace with its own temp dir for full-output logs.
struct Fixture {
    dir: TempDir,
    ctx: ToolContext,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let logs = dir.path().join("logs");
        std::fs::create_dir(&logs).unwrap();
        let mut ctx = ToolContext::new(dir.path().join("ws"));
        std::fs::create_dir(&ctx.workspace_root).unwrap();
        ctx.env
            .insert("TMPDIR".into(), logs.to_string_lossy().into_owned());
        Fixture { dir, ctx }
    }

    fn logs(&self) -> Vec<std::path::PathBuf> {
        let mut logs: Vec<_> = std::fs::read_dir(self.dir.path().join("logs"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        logs.sort();
        logs
    }
}

fn no_updates() -> ToolUpdate {
    Arc::new(|_| {})
}

async fn bash(fx: &Fixture, args: Value) -> Result<ToolResult, ToolError> {
    run_with(
        &BashTool::new(),
        fx,
        args,
        CancellationToken::new(),
        no_updates(),
    )
    .await
}

async fn run_with(
    tool: &BashTool,
    fx: &Fixture,
    args: Value,
    cancel: CancellationToken,
    on_update: ToolUpdate,
) -> Result<ToolResult, ToolError> {
    tool.execute("call-1", args, &fx.ctx, cancel, on_update)
        .await
}

fn text_result(text: &str) -> ToolResult {
    ToolResult {
        content: vec![ContentBlock::text(text)],
        details: None,
        is_error: false,
    }
}

fn text_of(result: &ToolResult) -> &str {
    match result.content.as_slice() {
        [ContentBlock::Text(t)] => &t.text,
        other => panic!("expected one text block, got {other:?}"),
    }
}

#[tokio::test]
async fn output_of_a_command_is_returned_with_stderr_interleaved() {
    let fx = Fixture::new();
    let result = bash(
        &fx,
        json!({"command": "echo one; echo two >&2; echo three"}),
    )
    .await;
    assert_eq!(result.unwrap(), text_result("one\ntwo\nthree\n"));
}

#[tokio::test]
async fn a_silent_command_reports_no_output() {
    let fx = Fixture::new();
    assert_eq!(
        bash(&fx, json!({"command": "true"})).await.unwrap(),
        text_result("(no output)")
    );
}

#[tokio::test]
async fn a_non_zero_exit_is_an_error_with_the_output_and_the_code() {
    let fx = Fixture::new();
    let err = bash(&fx, json!({"command": "echo oops; exit 3"}))
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::Failed(_)));
    assert_eq!(err.to_string(), "oops\n\n\nCommand exited with code 3");
    let err = bash(&fx, json!({"command": "exit 1"})).await.unwrap_err();
    assert_eq!(err.to_string(), "(no output)\n\nCommand exited with code 1");
}

#[tokio::test]
async fn a_shell_killed_by_a_signal_has_no_exit_code_and_is_not_an_error() {
    // pi treats a null exit code (death by signal) as success.
    let fx = Fixture::new();
    let result = bash(&fx, json!({"command": "echo before; kill -9 $$"})).await;
    assert_eq!(result.unwrap(), text_result("before\n"));
}

#[tokio::test]
async fn env_overlay_and_cwd_come_from_the_context() {
    let mut fx = Fixture::new();
    std::fs::create_dir(fx.ctx.workspace_root.join("sub")).unwrap();
    fx.ctx.cwd = "sub".into();
    fx.ctx
        .env
        .insert("CLAWLOOP_B_TEST".into(), "overlay value".into());
    let result = bash(&fx, json!({"command": "echo \"$CLAWLOOP_B_TEST\"; pwd -P"})).await;
    let expected_cwd = fx.ctx.workspace_root.join("sub").canonicalize().unwrap();
    assert_eq!(
        result.unwrap(),
        text_result(&format!("overlay value\n{}\n", expected_cwd.display()))
    );
    // The overlay reached the child only: this process never had the variable.
    assert_eq!(std::env::var_os("CLAWLOOP_B_TEST"), None);
}

#[tokio::test]
async fn a_missing_working_directory_is_refused_with_pis_text() {
    let mut fx = Fixture::new();
    fx.ctx.cwd = "gone".into();
    let err = bash(&fx, json!({"command": "echo hi"})).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "Working directory does not exist: {}\nCannot execute bash commands.",
            fx.ctx.workspace_root.join("gone").display()
        )
    );
}

#[tokio::test]
async fn a_missing_shell_is_reported_like_nodes_spawn_error() {
    let fx = Fixture::new();
    let tool = BashTool::new().with_shell("/nonexistent/shell");
    let err = run_with(
        &tool,
        &fx,
        json!({"command": "echo hi"}),
        CancellationToken::new(),
        no_updates(),
    )
    .await
    .unwrap_err();
    assert_eq!(err.to_string(), "spawn /nonexistent/shell ENOENT");
}

#[tokio::test]
async fn the_command_prefix_runs_first() {
    let fx = Fixture::new();
    let tool = BashTool::new()
        .with_shell("/bin/sh")
        .with_command_prefix("echo prefix");
    let result = run_with(
        &tool,
        &fx,
        json!({"command": "echo command"}),
        CancellationToken::new(),
        no_updates(),
    )
    .await;
    assert_eq!(result.unwrap(), text_result("prefix\ncommand\n"));
}

#[tokio::test]
async fn a_timeout_kills_the_command_and_reports_pis_text() {
    let fx = Fixture::new();
    let started = Instant::now();
    let err = bash(
        &fx,
        json!({"command": "echo start; sleep 100 & echo \"$!\"; wait", "timeout": 0.5}),
    )
    .await
    .unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert!(matches!(err, ToolError::Timeout(_)));
    let text = err.to_string();
    let sleep_pid: u32 = text.lines().nth(1).unwrap().parse().unwrap();
    assert_eq!(
        text,
        format!("start\n{sleep_pid}\n\n\nCommand timed out after 0.5 seconds")
    );
    assert_dead_within(&[sleep_pid], Duration::from_secs(1));
}

#[tokio::test]
async fn the_contexts_time_limit_applies_when_the_model_gives_none() {
    let mut fx = Fixture::new();
    fx.ctx.limits.timeout = Some(Duration::from_millis(300));
    let err = bash(&fx, json!({"command": "sleep 100"}))
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "Command timed out after 0.3 seconds");
}

#[tokio::test]
async fn an_abort_before_the_start_runs_nothing() {
    let fx = Fixture::new();
    let cancel = CancellationToken::new();
    cancel.cancel();
    let marker = fx.ctx.workspace_root.join("ran");
    let err = run_with(
        &BashTool::new(),
        &fx,
        json!({"command": format!("touch {}", marker.display())}),
        cancel,
        no_updates(),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, ToolError::Aborted));
    assert_eq!(err.to_string(), "Operation aborted");
    assert!(!marker.exists());
}

/// The bar: `sleep 100` and the shell that spawned it are gone within 1 s of the abort,
/// and no process of the command's group is left alive.
#[tokio::test]
async fn abort_kills_the_whole_process_tree_within_a_second() {
    let fx = Fixture::new();
    let updates = Arc::new(Mutex::new(Vec::<AgentToolResult>::new()));
    let sink = updates.clone();
    let on_update: ToolUpdate = Arc::new(move |u| sink.lock().unwrap().push(u));
    let cancel = CancellationToken::new();
    let tool = BashTool::new();
    // `$$` is the shell (the group leader); `$!` the `sleep 100` it spawned.
    let command = json!({"command": "sleep 100 & echo \"$$ $!\"; wait"});
    let call = run_with(&tool, &fx, command, cancel.clone(), on_update);
    tokio::pin!(call);

    let pids = tokio::select! {
        result = &mut call => panic!("the command ended on its own: {result:?}"),
        pids = wait_for_pids(&updates) => pids,
    };
    let (shell, sleep) = (pids[0], pids[1]);
    assert!(is_alive(shell) && is_alive(sleep));
    assert_eq!(
        process_group(sleep),
        Some(shell),
        "sleep runs in the shell's group"
    );

    let aborted_at = Instant::now();
    cancel.cancel();
    let err = call.await.unwrap_err();
    assert!(
        aborted_at.elapsed() < Duration::from_secs(1),
        "returned {:?} after the abort",
        aborted_at.elapsed()
    );
    assert_eq!(
        err.to_string(),
        format!("{shell} {sleep}\n\n\nCommand aborted")
    );
    let deadline = Duration::from_secs(1).saturating_sub(aborted_at.elapsed());
    assert_dead_within(&[shell, sleep], deadline);
    assert_eq!(
        live_members_of_group(shell),
        Vec::<u32>::new(),
        "orphans left"
    );
}

#[tokio::test]
async fn dropping_the_call_kills_the_process_tree_too() {
    let fx = Fixture::new();
    let updates = Arc::new(Mutex::new(Vec::<AgentToolResult>::new()));
    let sink = updates.clone();
    let on_update: ToolUpdate = Arc::new(move |u| sink.lock().unwrap().push(u));
    let tool = BashTool::new();
    let command = json!({"command": "sleep 100 & echo \"$$ $!\"; wait"});
    let call = run_with(&tool, &fx, command, CancellationToken::new(), on_update);
    let pids = {
        tokio::pin!(call);
        tokio::select! {
            result = &mut call => panic!("the command ended on its own: {result:?}"),
            pids = wait_for_pids(&updates) => pids,
        }
        // `call` is dropped here, mid-run.
    };
    assert_dead_within(&pids, Duration::from_secs(1));
    assert_eq!(live_members_of_group(pids[0]), Vec::<u32>::new());
}

#[tokio::test]
async fn partial_output_streams_through_on_update() {
    let fx = Fixture::new();
    let updates = Arc::new(Mutex::new(Vec::<AgentToolResult>::new()));
    let sink = updates.clone();
    let on_update: ToolUpdate = Arc::new(move |u| sink.lock().unwrap().push(u));
    let result = run_with(
        &BashTool::new(),
        &fx,
        json!({"command": "echo one; sleep 0.3; echo two"}),
        CancellationToken::new(),
        on_update,
    )
    .await;
    assert_eq!(result.unwrap(), text_result("one\ntwo\n"));
    let updates = updates.lock().unwrap().clone();
    let partial = |text: &str| AgentToolResult {
        content: vec![ContentBlock::text(text)],
        details: Some(json!({})),
        extra: serde_json::Map::new(),
    };
    assert_eq!(updates, vec![partial("one\n"), partial("one\ntwo\n")]);
}

#[tokio::test]
async fn a_background_child_holding_the_pipe_does_not_hang_the_call() {
    let fx = Fixture::new();
    let started = Instant::now();
    let result = bash(&fx, json!({"command": "sleep 2 & echo done"})).await;
    assert_eq!(result.unwrap(), text_result("done\n"));
    assert!(started.elapsed() < Duration::from_millis(1500));
}

#[tokio::test]
async fn output_over_the_line_limit_keeps_the_tail_and_the_full_log() {
    let fx = Fixture::new();
    let result = bash(&fx, json!({"command": "seq 1 3000"})).await.unwrap();
    let full: String = (1..=3000).map(|i| format!("{i}\n")).collect();
    let logs = fx.logs();
    assert_eq!(logs.len(), 1, "one full-output log");
    let log = &logs[0];
    assert_eq!(std::fs::read_to_string(log).unwrap(), full);
    let kept: String = (1002..=3000).map(|i| format!("{i}\n")).collect();
    assert_eq!(
        result,
        ToolResult {
            content: vec![ContentBlock::text(format!(
                "{kept}\n\n[Showing lines 1002-3001 of 3001. Full output: {}]",
                log.display()
            ))],
            details: Some(json!({
                "truncation": {
                    "content": kept,
                    "truncated": true,
                    "truncatedBy": "lines",
                    "totalLines": 3001,
                    "totalBytes": full.len(),
                    "outputLines": 2000,
                    "outputBytes": kept.len(),
                    "lastLinePartial": false,
                    "firstLineExceedsLimit": false,
                    "maxLines": 2000,
                    "maxBytes": 51200
                },
                "fullOutputPath": log.display().to_string()
            })),
            is_error: false,
        }
    );
}

#[tokio::test]
async fn output_over_the_byte_limit_names_the_limit() {
    let fx = Fixture::new();
    // 1000 lines of 100 characters: 101,000 bytes. From the end, the empty last line and 506
    // full lines fit 51,200 bytes (506 * 101 = 51,106).
    let command = "for i in $(seq 1 1000); do printf '%0100d\\n' $i; done";
    let result = bash(&fx, json!({"command": command})).await.unwrap();
    let line = |i: usize| format!("{i:0100}\n");
    let full: String = (1..=1000).map(line).collect();
    let kept: String = (495..=1000).map(line).collect();
    let logs = fx.logs();
    assert_eq!(std::fs::read_to_string(&logs[0]).unwrap(), full);
    assert_eq!(
        text_of(&result),
        format!(
            "{kept}\n\n[Showing lines 495-1001 of 1001 (50.0KB limit). Full output: {}]",
            logs[0].display()
        )
    );
    let details = result.details.unwrap();
    assert_eq!(
        (
            &details["truncation"]["truncatedBy"],
            &details["truncation"]["outputBytes"],
            &details["truncation"]["outputLines"]
        ),
        (&json!("bytes"), &json!(51_106), &json!(507))
    );
}

#[tokio::test]
async fn line_numbers_count_the_whole_output_not_only_the_buffered_tail() {
    let fx = Fixture::new();
    let result = bash(&fx, json!({"command": "seq 1 100000"})).await.unwrap();
    let text = text_of(&result);
    let full: String = (1..=100_000).map(|i| format!("{i}\n")).collect();
    let logs = fx.logs();
    assert_eq!(std::fs::read_to_string(&logs[0]).unwrap(), full);
    // 100,001 lines (the last one empty); the last 2,000 are far below 50 KB, so the line
    // limit cuts, and the numbers count from the real start although the buffer lost it.
    let kept: String = (98_002..=100_000).map(|i| format!("{i}\n")).collect();
    assert_eq!(
        text,
        format!(
            "{kept}\n\n[Showing lines 98002-100001 of 100001. Full output: {}]",
            logs[0].display()
        )
    );
    let truncation = &result.details.as_ref().unwrap()["truncation"];
    assert_eq!(
        (&truncation["totalLines"], &truncation["totalBytes"]),
        (&json!(100_001), &json!(full.len()))
    );
}

#[tokio::test]
async fn a_single_huge_line_shows_its_end() {
    let fx = Fixture::new();
    let result = bash(
        &fx,
        json!({"command": "head -c 60000 /dev/zero | tr '\\0' x"}),
    )
    .await
    .unwrap();
    let logs = fx.logs();
    assert_eq!(
        text_of(&result),
        format!(
            "{}\n\n[Showing last 50.0KB of line 1 (line is 58.6KB). Full output: {}]",
            "x".repeat(51_200),
            logs[0].display()
        )
    );
    assert_eq!(
        result.details.unwrap()["truncation"]["lastLinePartial"],
        json!(true)
    );
}

/// The notice lines of a flood of `lines` lines of `yes 0123456789abcdef` (17 bytes each)
/// followed by `done`, whose log was capped at `cap` bytes.
fn flood_notice(lines: usize, cap_label: &str, dropped: usize, log: &std::path::Path) -> String {
    let total = lines + 2;
    format!(
        "[Showing lines {}-{total} of {total}. Full output: {}]\n[Full output capped at {cap_label} limit: {dropped} bytes dropped]",
        total - 1999,
        log.display()
    )
}

#[tokio::test]
async fn a_flood_past_the_log_cap_keeps_running_and_the_log_stops_at_the_cap() {
    let fx = Fixture::new();
    let cap = 1024 * 1024;
    let tool = BashTool::new().with_max_full_output_bytes(cap);
    let command = "yes 0123456789abcdef | head -n 500000; echo done; exit 3";
    let err = run_with(
        &tool,
        &fx,
        json!({"command": command}),
        CancellationToken::new(),
        no_updates(),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, ToolError::Failed(_)), "{err:?}");

    let full = format!("{}done\n", "0123456789abcdef\n".repeat(500_000));
    let logs = fx.logs();
    assert_eq!(logs.len(), 1, "one full-output log");
    let logged = std::fs::read(&logs[0]).unwrap();
    assert_eq!(logged.len(), cap);
    assert!(
        logged == full.as_bytes()[..cap],
        "the log is the output's head"
    );

    // The tail shows the command ran to its end; the exit code is still reported.
    let kept = format!("{}done\n", "0123456789abcdef\n".repeat(1998));
    assert_eq!(
        err.to_string(),
        format!(
            "{kept}\n\n{}\n\nCommand exited with code 3",
            flood_notice(500_000, "1.0MB", full.len() - cap, &logs[0])
        )
    );
}

#[tokio::test]
async fn the_default_log_cap_is_sixteen_megabytes() {
    let fx = Fixture::new();
    // 17 MB of output: over the default cap.
    let lines = 1_000_000;
    let command = format!("yes 0123456789abcdef | head -n {lines}; echo done");
    let result = bash(&fx, json!({"command": command})).await.unwrap();
    let total_bytes = lines * 17 + 5;
    let cap = clawloop_tools::bash::DEFAULT_MAX_FULL_OUTPUT_BYTES;
    assert_eq!(cap, 16 * 1024 * 1024);
    let logs = fx.logs();
    assert_eq!(std::fs::metadata(&logs[0]).unwrap().len(), cap as u64);
    let kept = format!("{}done\n", "0123456789abcdef\n".repeat(1998));
    assert_eq!(
        text_of(&result),
        format!(
            "{kept}\n\n{}",
            flood_notice(lines, "16.0MB", total_bytes - cap, &logs[0])
        )
    );
    let details = result.details.unwrap();
    assert_eq!(
        (
            &details["fullOutputDroppedBytes"],
            &details["fullOutputPath"],
            &details["truncation"]["totalBytes"]
        ),
        (
            &json!(total_bytes - cap),
            &json!(logs[0].display().to_string()),
            &json!(total_bytes)
        )
    );
}

#[tokio::test]
async fn the_tool_describes_itself_as_pi_does() {
    let tool = BashTool::new();
    assert_eq!(
        (tool.name(), tool.label(), tool.is_mutating()),
        ("bash", "bash", true)
    );
    assert_eq!(
        tool.description(),
        "Execute a bash command in the current working directory. Returns stdout and stderr. \
         Output is truncated to last 2000 lines or 50KB (whichever is hit first). If truncated, \
         full output is saved to a temp file. Optionally provide a timeout in seconds."
    );
    assert_eq!(
        tool.parameters(),
        &json!({
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "Bash command to execute"},
                "timeout": {
                    "type": "number",
                    "description": "Timeout in seconds (optional, no default timeout)"
                }
            },
            "required": ["command"]
        })
    );
}

#[tokio::test]
async fn arguments_that_do_not_fit_are_refused() {
    let fx = Fixture::new();
    let err = bash(&fx, json!({"timeout": 1})).await.unwrap_err();
    assert!(matches!(err, ToolError::InvalidArguments(_)));
    assert_eq!(err.to_string(), "missing field `command`");
}

// --- process helpers, all through /proc ---

/// Waits until the command printed two pids on its first line.
async fn wait_for_pids(updates: &Mutex<Vec<AgentToolResult>>) -> Vec<u32> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let first_line = updates
            .lock()
            .unwrap()
            .last()
            .and_then(|u| match u.content.first() {
                Some(ContentBlock::Text(t)) if t.text.ends_with('\n') => {
                    t.text.lines().next().map(str::to_owned)
                }
                _ => None,
            });
        if let Some(line) = first_line {
            let pids: Vec<u32> = line
                .split_whitespace()
                .map(|p| p.parse().unwrap())
                .collect();
            assert!(!pids.is_empty(), "no pids in {line:?}");
            return pids;
        }
        assert!(Instant::now() < deadline, "the command printed no pids");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// `/proc/<pid>/stat` split after the command name: state, ppid, pgrp, …
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 2..];
    Some(after_name.split(' ').map(str::to_owned).collect())
}

/// Alive: present and not a zombie (a zombie is dead; it waits only for its parent, which
/// for an orphan is PID 1, outside our control).
fn is_alive(pid: u32) -> bool {
    stat_fields(pid).is_some_and(|f| f[0] != "Z" && f[0] != "X")
}

fn process_group(pid: u32) -> Option<u32> {
    stat_fields(pid).and_then(|f| f[2].parse().ok())
}

fn assert_dead_within(pids: &[u32], within: Duration) {
    let deadline = Instant::now() + within;
    loop {
        let alive: Vec<u32> = pids.iter().copied().filter(|p| is_alive(*p)).collect();
        if alive.is_empty() {
            return;
        }
        assert!(Instant::now() < deadline, "still alive: {alive:?}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Every live process of the group `pgid`, found by scanning `/proc`.
fn live_members_of_group(pgid: u32) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| process_group(*pid) == Some(pgid) && is_alive(*pid))
        .collect()
}

#[tokio::test]
async fn a_fast_flood_of_output_is_reported_throttled_with_a_bounded_tail() {
    use clawloop_tools::bash::{UPDATE_INTERVAL, UPDATE_TAIL_BYTES};
    let fx = Fixture::new();
    let updates = Arc::new(Mutex::new(Vec::<AgentToolResult>::new()));
    let sink = updates.clone();
    let on_update: ToolUpdate = Arc::new(move |u| sink.lock().unwrap().push(u));
    let started = Instant::now();
    // 20 MB in about 300 reads of the pipe: one update per read before.
    let command = json!({"command": "yes 0123456789abcdef | head -c 20000000; echo; echo END"});
    let result = run_with(
        &BashTool::new(),
        &fx,
        command,
        CancellationToken::new(),
        on_update,
    )
    .await
    .unwrap();
    let elapsed = started.elapsed();
    let updates = updates.lock().unwrap().clone();
    let text = |u: &AgentToolResult| match u.content.as_slice() {
        [ContentBlock::Text(t)] => t.text.clone(),
        other => panic!("{other:?}"),
    };
    // At most one per interval, plus the first (at once) and the last (before the result).
    let most = (elapsed.as_millis() / UPDATE_INTERVAL.as_millis()) as usize + 2;
    assert!(
        !updates.is_empty() && updates.len() <= most,
        "{} updates in {elapsed:?}",
        updates.len()
    );
    assert!(updates.iter().all(|u| text(u).len() <= UPDATE_TAIL_BYTES));
    // The last update shows the end of the output, as the result does.
    let last = text(updates.last().unwrap());
    assert!(last.ends_with("\nEND\n"), "{last:?}");
    let final_text = match result.content.as_slice() {
        [ContentBlock::Text(t)] => t.text.clone(),
        other => panic!("{other:?}"),
    };
    assert!(final_text.contains("\nEND\n"), "{final_text:?}");
}
