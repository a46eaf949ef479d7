//! The `bash` tool (pi-mono §3.7): runs a shell command in the context's cwd and reports its
//! interleaved output, tail-truncated, with the exit code.
//!
//! The command runs as the leader of its own process group; an abort, a timeout or dropping
//! the call's future kills the whole group with SIGKILL, so nothing the command started
//! outlives it (a child that calls `setsid` escapes, as it would with pi). Output past the
//! byte limit is also written in full to `$TMPDIR/pi-bash-<16 hex>.log`, named in the notice,
//! up to a size cap ([`DEFAULT_MAX_FULL_OUTPUT_BYTES`] unless
//! [`BashTool::with_max_full_output_bytes`] sets another); output past the cap is still read,
//! so the command runs on, but only counted, and a second notice says how much the log lacks.
//!
//! With an active sandbox in the context the command runs confined (what the sandbox makes of
//! it, with exactly the environment it allows); a sandbox that cannot confine fails the call,
//! and a failure that looks like the sandbox's doing gets its `[clawloop sandbox: …]` line last.

mod approval;
mod output;
mod process;
mod updates;

use std::path::PathBuf;
use std::time::Duration;

use clawloop_core::message::ContentBlock;
use clawloop_core::sandbox::{CommandOutcome, SandboxCommand};
use clawloop_core::tool::{
    AgentToolResult, BoxFuture, Tool, ToolContext, ToolError, ToolResult, ToolUpdate,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};
use tokio::io::AsyncReadExt;
use tokio_util::sync::CancellationToken;

use crate::args_schema::{parameters_schema, parse_args};
use crate::js_format;
use crate::truncate::{
    TruncatedBy, TruncationOptions, TruncationResult, format_size, truncate_tail,
};
use crate::workspace;
use output::OutputLog;
use process::{ProcessGroup, default_shell};
use updates::Updates;
pub use updates::{UPDATE_INTERVAL, UPDATE_TAIL_BYTES};

/// pi's description of the tool (0.58.3), with the default limits filled in.
const DESCRIPTION: &str = "Execute a bash command in the current working directory. Returns \
stdout and stderr. Output is truncated to last 2000 lines or 50KB (whichever is hit first). If \
truncated, full output is saved to a temp file. Optionally provide a timeout in seconds.";

/// How much of a command's output the full-output log keeps by default: 16 MiB, far more than
/// anyone reads back, small enough that a runaway command cannot fill the disk.
pub const DEFAULT_MAX_FULL_OUTPUT_BYTES: usize = 16 * 1024 * 1024;

/// Size of one read from the output pipe (the pipe's own buffer is 64 KiB on Linux).
const READ_CHUNK: usize = 64 * 1024;

/// How long to keep reading after the shell exited while something it started in the
/// background still holds the pipe open: long enough to collect what was already written,
/// short enough that `cmd &` does not hang the call (pi 0.58 waited for the pipe to close).
const DRAIN_GRACE: Duration = Duration::from_millis(250);

/// The arguments of `bash`, as pi names and describes them.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
pub struct BashArgs {
    /// Bash command to execute
    pub command: String,
    /// Timeout in seconds (optional, no default timeout)
    #[serde(default)]
    #[schemars(schema_with = "crate::args_schema::js_number")]
    pub timeout: Option<f64>,
    /// `"off"` to run this one command outside the sandbox, once the host approves; in the
    /// schema only when the tool offers it ([`BashTool::offering_unsandboxed`]).
    #[serde(default)]
    #[schemars(skip)]
    pub sandbox: Option<String>,
}

/// The `sandbox` property's description, as the model reads it.
const SANDBOX_DESCRIPTION: &str = "Set to \"off\" to run this one command outside the sandbox \
when it needs what the sandbox refuses (the network, a write outside the workspace); the user \
is asked to approve it first";

/// The `bash` tool. Settings that pi reads from its settings file are builder options here.
#[derive(Debug, Clone)]
pub struct BashTool {
    parameters: Value,
    shell: Option<PathBuf>,
    command_prefix: Option<String>,
    max_full_output_bytes: usize,
}

impl Default for BashTool {
    fn default() -> Self {
        Self::new()
    }
}

impl BashTool {
    /// The tool with pi's defaults: `/bin/bash`, else `bash` on `PATH`, else `sh`; no prefix;
    /// and a full-output log of at most [`DEFAULT_MAX_FULL_OUTPUT_BYTES`].
    pub fn new() -> Self {
        BashTool {
            parameters: parameters_schema::<BashArgs>(),
            shell: None,
            command_prefix: None,
            max_full_output_bytes: DEFAULT_MAX_FULL_OUTPUT_BYTES,
        }
    }

    /// Runs commands with this shell (pi's `shellPath` setting); it is called with `-c`.
    pub fn with_shell(mut self, shell: impl Into<PathBuf>) -> Self {
        self.shell = Some(shell.into());
        self
    }

    /// Puts this text on a line before every command (pi's `shellCommandPrefix`, e.g.
    /// `shopt -s expand_aliases`).
    pub fn with_command_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.command_prefix = Some(prefix.into());
        self
    }

    /// Caps the full-output temp file at `bytes` (default [`DEFAULT_MAX_FULL_OUTPUT_BYTES`]):
    /// the file keeps the first `bytes` of the output, the result still shows the tail, and
    /// a notice `[Full output capped at <size> limit: <n> bytes dropped]` tells how much of
    /// the output the file lacks. The command keeps running either way.
    pub fn with_max_full_output_bytes(mut self, bytes: usize) -> Self {
        self.max_full_output_bytes = bytes;
        self
    }

    /// Offers the model a `sandbox: "off"` argument to ask for one command to run outside
    /// the sandbox, for an `approval = "on-request"` session: the call then waits for the
    /// context's approver. Without an `on-request` approval in the context the argument is
    /// refused with a tool error.
    pub fn offering_unsandboxed(mut self) -> Self {
        if let Some(Value::Object(properties)) = self.parameters.get_mut("properties") {
            properties.insert(
                approval::SANDBOX_PROPERTY.to_owned(),
                serde_json::json!({
                    "type": "string",
                    "enum": ["off"],
                    "description": SANDBOX_DESCRIPTION,
                }),
            );
        }
        self
    }

    async fn run(
        &self,
        tool_call_id: &str,
        args: BashArgs,
        ctx: &ToolContext,
        cancel: CancellationToken,
        on_update: ToolUpdate,
    ) -> Result<ToolResult, ToolError> {
        if cancel.is_cancelled() {
            return Err(ToolError::Aborted);
        }
        let cwd = workspace::base_dir(ctx);
        if !cwd.exists() {
            return Err(ToolError::Failed(format!(
                "Working directory does not exist: {}\nCannot execute bash commands.",
                cwd.display()
            )));
        }
        let wants_out = match args.sandbox.as_deref() {
            None => false,
            Some("off") => true,
            Some(other) => {
                return Err(ToolError::InvalidArguments(format!(
                    "sandbox: expected \"off\" or no value, got {other:?}"
                )));
            }
        };
        let confined =
            approval::run_gate(ctx, tool_call_id, &args.command, wants_out, &cancel).await?;
        let command = match &self.command_prefix {
            Some(prefix) => format!("{prefix}\n{}", args.command),
            None => args.command,
        };
        let shell = self
            .shell
            .clone()
            .unwrap_or_else(|| default_shell(&ctx.env));
        let limit = TimeLimit::new(args.timeout, ctx.limits.timeout);
        let (mut group, mut pipe) = spawn(&shell, &command, &cwd, ctx, confined)?;
        let options = TruncationOptions::from_limits(&ctx.limits);
        let mut log = OutputLog::new(options.max_bytes, self.max_full_output_bytes, temp_dir(ctx));
        let mut updates = Updates::new(on_update, options);

        let mut buf = vec![0u8; READ_CHUNK];
        let mut stop: Option<Stop> = None;
        let mut pipe_open = true;
        let deadline = tokio::time::sleep(limit.duration.unwrap_or(Duration::MAX));
        tokio::pin!(deadline);
        let status = loop {
            let update_due = updates.due_at();
            tokio::select! {
                () = cancel.cancelled(), if stop.is_none() => {
                    group.kill();
                    stop = Some(Stop::Aborted);
                }
                () = &mut deadline, if stop.is_none() && limit.duration.is_some() => {
                    group.kill();
                    stop = Some(Stop::TimedOut);
                }
                read = pipe.read(&mut buf), if pipe_open => match read {
                    Ok(n) if n > 0 => {
                        log.push(&buf[..n]);
                        updates.output(&log);
                    }
                    // End of file, or a read error that would repeat: stop reading.
                    _ => pipe_open = false,
                },
                () = sleep_until(update_due), if update_due.is_some() => updates.flush(&log),
                status = group.wait() => break status,
            }
        };
        if pipe_open {
            drain(&mut pipe, &mut buf, &mut log, &mut updates).await;
        }
        updates.flush(&log);
        let status = status.map_err(|err| ToolError::Io {
            message: format!("Failed to wait for {}: {err}", shell.display()),
            source: err,
        })?;

        // pi reports an abort whenever the signal fired before the command was done, even if
        // the shell happened to exit first.
        if stop.is_none() && cancel.is_cancelled() {
            stop = Some(Stop::Aborted);
        }
        log.flush();
        match stop {
            Some(Stop::Aborted) => {
                let (text, _) = format_output(&mut log, options, "");
                Err(ToolError::Failed(append_status(&text, "Command aborted")))
            }
            Some(Stop::TimedOut) => {
                let (text, _) = format_output(&mut log, options, "");
                let status = format!("Command timed out after {} seconds", limit.label);
                Err(ToolError::Timeout(append_status(&text, &status)))
            }
            None => {
                let (text, details) = format_output(&mut log, options, "(no output)");
                let note = confined.then(|| sandbox_note(ctx, status, &text)).flatten();
                match status.code() {
                    // A shell killed by a signal has no code; pi then reports success.
                    Some(code) if code != 0 => {
                        let text =
                            append_status(&text, &format!("Command exited with code {code}"));
                        Err(ToolError::Failed(append_note(text, note)))
                    }
                    _ => Ok(ToolResult {
                        content: vec![ContentBlock::text(append_note(text, note))],
                        details,
                        is_error: false,
                    }),
                }
            }
        }
    }
}

impl Tool for BashTool {
    fn name(&self) -> &str {
        "bash"
    }

    fn label(&self) -> &str {
        "bash"
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn parameters(&self) -> &Value {
        &self.parameters
    }

    fn is_mutating(&self) -> bool {
        true
    }

    fn execute<'a>(
        &'a self,
        tool_call_id: &'a str,
        args: Value,
        ctx: &'a ToolContext,
        cancel: CancellationToken,
        on_update: ToolUpdate,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
        Box::pin(async move {
            let args: BashArgs = parse_args(args)?;
            self.run(tool_call_id, args, ctx, cancel, on_update).await
        })
    }
}

/// Why the command was stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    Aborted,
    TimedOut,
}

/// The time limit of one call and how its message names it.
#[derive(Debug, Clone, PartialEq)]
struct TimeLimit {
    duration: Option<Duration>,
    /// The seconds as the message prints them (the model's number, JS-formatted).
    label: String,
}

impl TimeLimit {
    /// The model's `timeout` when positive (pi ignores zero and negative values); otherwise
    /// the context's limit, which thus acts as the embedder's default.
    fn new(timeout: Option<f64>, fallback: Option<Duration>) -> Self {
        if let Some(seconds) = timeout.filter(|s| *s > 0.0) {
            // A value too large for a `Duration` is as good as no limit.
            let duration = Duration::try_from_secs_f64(seconds).ok();
            return TimeLimit {
                duration,
                label: js_format::number(seconds),
            };
        }
        TimeLimit {
            duration: fallback,
            label: fallback.map_or_else(String::new, |d| js_format::number(d.as_secs_f64())),
        }
    }
}

/// Starts `shell -c command`: `confined` in the context's active sandbox (a sandbox that
/// cannot confine fails the call; it never runs the command unconfined), else as it is (no
/// sandbox, or one the host approved leaving).
fn spawn(
    shell: &std::path::Path,
    command: &str,
    cwd: &std::path::Path,
    ctx: &ToolContext,
    confined: bool,
) -> Result<(ProcessGroup, tokio::net::unix::pipe::Receiver), ToolError> {
    let sandbox = ctx.sandbox.as_ref().filter(|s| confined && s.is_active());
    let Some(sandbox) = sandbox else {
        return ProcessGroup::spawn(shell, command, cwd, &ctx.env)
            .map_err(|err| spawn_error(shell, err));
    };
    let request = SandboxCommand {
        program: shell.to_owned(),
        args: vec!["-c".into(), command.into()],
        cwd: cwd.to_owned(),
        workspace_root: ctx.workspace_root.clone(),
        env: ctx.env.clone(),
    };
    let confined = sandbox
        .sandbox
        .confine(&request, &sandbox.policy)
        .map_err(|err| ToolError::Failed(err.0))?;
    ProcessGroup::spawn_confined(&confined).map_err(|err| spawn_error(&confined.program, err))
}

/// The sandbox's `[clawloop sandbox: …]` line when the command's end looks like its doing.
fn sandbox_note(ctx: &ToolContext, status: std::process::ExitStatus, text: &str) -> Option<String> {
    use std::os::unix::process::ExitStatusExt;
    let sandbox = ctx.sandbox.as_ref().filter(|s| s.is_active())?;
    let outcome = CommandOutcome {
        code: status.code(),
        signal: status.signal(),
        output_tail: text,
    };
    sandbox.sandbox.denial_note(&outcome, &sandbox.policy)
}

/// `text` with the sandbox's note as its last line.
fn append_note(text: String, note: Option<String>) -> String {
    match note {
        Some(note) => format!("{text}\n{note}"),
        None => text,
    }
}

/// Reads what is still in the pipe after the shell exited, for at most [`DRAIN_GRACE`].
async fn drain(
    pipe: &mut tokio::net::unix::pipe::Receiver,
    buf: &mut [u8],
    log: &mut OutputLog,
    updates: &mut Updates,
) {
    let grace = tokio::time::sleep(DRAIN_GRACE);
    tokio::pin!(grace);
    loop {
        tokio::select! {
            read = pipe.read(buf) => match read {
                Ok(n) if n > 0 => {
                    log.push(&buf[..n]);
                    updates.output(log);
                }
                _ => return,
            },
            () = &mut grace => return,
        }
    }
}

/// Sleeps until `due` (never, without one: the caller's branch is disabled then).
async fn sleep_until(due: Option<std::time::Instant>) {
    match due {
        Some(due) => tokio::time::sleep_until(due.into()).await,
        None => std::future::pending().await,
    }
}

/// The streamed partial result: the tail of the output so far, with `details` as pi sends
/// them (`truncation` once truncated, `fullOutputPath` once the log is on disk).
fn partial_result(log: &OutputLog, options: TruncationOptions) -> AgentToolResult {
    let truncation = tail(log, options);
    let mut details = Map::new();
    if truncation.truncated {
        details.insert("truncation".into(), truncation_json(&truncation));
    }
    if let Some(path) = log.full_output_path() {
        details.insert(
            "fullOutputPath".into(),
            Value::String(path.display().to_string()),
        );
    }
    AgentToolResult {
        content: vec![ContentBlock::text(truncation.content)],
        details: Some(Value::Object(details)),
        extra: Map::new(),
    }
}

/// `truncate_tail` of the buffered output, with the totals of the whole output: the buffer may
/// have dropped its head, and the notice's line numbers must still be right.
fn tail(log: &OutputLog, options: TruncationOptions) -> TruncationResult {
    let mut truncation = truncate_tail(&log.text(), options);
    let total_lines = log.total_lines();
    let total_bytes = log.total_bytes();
    if total_lines > truncation.total_lines || total_bytes > truncation.total_bytes {
        truncation.truncated = true;
        truncation.truncated_by = truncation.truncated_by.or(Some(TruncatedBy::Bytes));
        truncation.total_lines = total_lines;
        truncation.total_bytes = total_bytes;
    }
    truncation
}

/// The final text and `details` (pi's `formatOutput`): the kept tail, or `empty` when there
/// was no output, plus the notice naming the full log when something was cut, and a second
/// one when the log itself was cut at its cap (`details.fullOutputDroppedBytes` then counts
/// the bytes it lacks).
fn format_output(
    log: &mut OutputLog,
    options: TruncationOptions,
    empty: &str,
) -> (String, Option<Value>) {
    let truncation = tail(log, options);
    if !truncation.truncated {
        let text = if truncation.content.is_empty() {
            empty.to_owned()
        } else {
            truncation.content
        };
        return (text, None);
    }
    // A line-truncated output can be under the byte limit and so not on disk yet; the
    // notice promises the full output, so write it now (pi 0.58 printed `undefined` here).
    log.persist();
    log.flush();
    let full = log.full_output_label();
    let end = truncation.total_lines;
    let start = end.saturating_sub(truncation.output_lines) + 1;
    let notice = if truncation.last_line_partial {
        format!(
            "[Showing last {} of line {end} (line is {}). Full output: {full}]",
            format_size(truncation.output_bytes),
            format_size(log.last_line_bytes()),
        )
    } else if truncation.truncated_by == Some(TruncatedBy::Lines) {
        format!("[Showing lines {start}-{end} of {end}. Full output: {full}]")
    } else {
        format!(
            "[Showing lines {start}-{end} of {end} ({} limit). Full output: {full}]",
            format_size(options.max_bytes),
        )
    };
    let mut details = Map::new();
    details.insert("truncation".into(), truncation_json(&truncation));
    if let Some(path) = log.full_output_path() {
        details.insert(
            "fullOutputPath".into(),
            Value::String(path.display().to_string()),
        );
    }
    let dropped = log.dropped_bytes();
    let notice = if dropped > 0 {
        details.insert("fullOutputDroppedBytes".into(), Value::from(dropped));
        format!(
            "{notice}\n[Full output capped at {} limit: {dropped} bytes dropped]",
            format_size(log.max_file_bytes()),
        )
    } else {
        notice
    };
    let body = if truncation.content.is_empty() {
        empty
    } else {
        truncation.content.as_str()
    };
    (format!("{body}\n\n{notice}"), Some(Value::Object(details)))
}

/// `details.truncation` as JSON.
fn truncation_json(truncation: &TruncationResult) -> Value {
    // Serializing plain fields cannot fail; `Null` would only hide a bug in the type.
    serde_json::to_value(truncation).unwrap_or(Value::Null)
}

/// pi's `appendStatus`: the status after a blank line, or alone when there is no text.
fn append_status(text: &str, status: &str) -> String {
    if text.is_empty() {
        status.to_owned()
    } else {
        format!("{text}\n\n{status}")
    }
}

/// Where the full log goes: the context's `TMPDIR` first (it is the command's environment),
/// then the process's temp dir.
fn temp_dir(ctx: &ToolContext) -> PathBuf {
    match ctx.env.get("TMPDIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => std::env::temp_dir(),
    }
}

/// Node's spawn error text (`spawn /bin/zsh ENOENT`), which pi passes through.
fn spawn_error(shell: &std::path::Path, err: std::io::Error) -> ToolError {
    let code = match err.kind() {
        std::io::ErrorKind::NotFound => "ENOENT".to_owned(),
        std::io::ErrorKind::PermissionDenied => "EACCES".to_owned(),
        _ => err.to_string(),
    };
    ToolError::Io {
        message: format!("spawn {} {code}", shell.display()),
        source: err,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn time_limit_prefers_a_positive_model_value() {
        let fallback = Some(Duration::from_secs(30));
        let limit = TimeLimit::new(Some(1.5), fallback);
        assert_eq!(
            limit,
            TimeLimit {
                duration: Some(Duration::from_millis(1500)),
                label: "1.5".into()
            }
        );
        let limit = TimeLimit::new(Some(0.0), fallback);
        assert_eq!(limit.label, "30");
        let limit = TimeLimit::new(None, None);
        assert_eq!(limit.duration, None);
        let limit = TimeLimit::new(Some(1e300), None);
        assert_eq!(limit.duration, None);
        let limit = TimeLimit::new(Some(f64::NAN), None);
        assert_eq!(limit.duration, None);
    }

    #[test]
    fn status_follows_the_output_after_a_blank_line() {
        assert_eq!(append_status("", "Command aborted"), "Command aborted");
        assert_eq!(
            append_status("out", "Command aborted"),
            "out\n\nCommand aborted"
        );
    }
}
