//! `clawloop run [PROMPT]`: one turn for a session key.

use std::io::{IsTerminal, Read};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use clap::Args;
use clawloop_core::ThinkLevel;
use clawloop_runner::attempt::SharedReplySink;
use clawloop_runner::turn::{
    AgentRunLoopResult, TurnEnv, TurnIo, TurnRequest, run_agent_turn_with_fallback,
};
use clawloop_subscribe::SILENT_REPLY_TOKEN;
use serde_json::json;

use crate::EXIT_USAGE;
use crate::config::{home_dir, load_config};
use crate::output::{StdoutBlocks, json_events, json_line};

/// Exit code of a turn that failed.
const EXIT_FAILED: u8 = 1;
/// Exit code after Ctrl-C (128 + SIGINT).
const EXIT_INTERRUPTED: u8 = 130;

/// Arguments of `clawloop run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The message; read from stdin when absent or `-`.
    prompt: Option<String>,
    /// The session to send it to.
    #[arg(long, default_value = "main")]
    session_key: String,
    /// The model, as `provider/model`, instead of the configured primary.
    #[arg(long, value_name = "PROVIDER/MODEL")]
    model: Option<String>,
    /// The thinking level: off, minimal, low, medium, high, xhigh or adaptive.
    #[arg(long, value_parser = parse_thinking)]
    thinking: Option<ThinkLevel>,
    /// The directory the tools work in (default: the current directory).
    #[arg(long)]
    workspace: Option<PathBuf>,
    /// The whole run's time limit in seconds instead of `agents.defaults.timeoutSeconds`.
    #[arg(long, value_name = "SECONDS")]
    timeout: Option<u64>,
    /// Text appended to the system prompt for this turn.
    #[arg(long, value_name = "TEXT")]
    append_system_prompt: Option<String>,
    /// Print only the final reply text on stdout.
    #[arg(long, conflicts_with = "json")]
    print: bool,
    /// Print every agent event as one JSON line on stdout.
    #[arg(long)]
    json: bool,
}

fn parse_thinking(value: &str) -> Result<ThinkLevel, String> {
    value.parse::<ThinkLevel>().map_err(|err| err.to_string())
}

/// How the turn's output is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Blocks,
    Print,
    Json,
}

/// Runs `clawloop run`.
pub fn main(args: RunArgs) -> ExitCode {
    match prepare(&args) {
        Ok((env, request)) => run_turn(&args, env, request),
        Err(message) => {
            eprintln!("clawloop: {message}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

fn prepare(args: &RunArgs) -> Result<(TurnEnv, TurnRequest), String> {
    let prompt = match args.prompt.as_deref() {
        Some(prompt) if prompt != "-" => prompt.to_owned(),
        _ => read_stdin()?,
    };
    if prompt.trim().is_empty() {
        return Err("the prompt is empty: pass it as an argument or on stdin".to_owned());
    }
    let home = home_dir().map_err(|err| err.to_string())?;
    let config = load_config(&home).map_err(|err| err.to_string())?;
    let workspace = match &args.workspace {
        Some(dir) => dir.clone(),
        None => std::env::current_dir()
            .map_err(|err| format!("cannot read the current directory: {err}"))?,
    };
    if let Some(model) = &args.model
        && !model.contains('/')
    {
        return Err(format!(
            "--model `{model}`: expected `provider/model`, e.g. `openai/gpt-4o`"
        ));
    }
    let env = TurnEnv::builder(home, workspace)
        .config(config)
        .build()
        .map_err(|err| err.to_string())?;
    let request = TurnRequest {
        session_key: args.session_key.clone(),
        prompt,
        model: args.model.clone(),
        thinking: args.thinking,
        run_id: Some(clawloop_session::uuid_v4()),
        timeout: args.timeout.map(Duration::from_secs),
        extra_system_prompt: args.append_system_prompt.clone(),
        ..TurnRequest::default()
    };
    Ok((env, request))
}

fn read_stdin() -> Result<String, String> {
    let mut stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Err("no prompt: pass it as an argument, or pipe it on stdin".to_owned());
    }
    let mut prompt = String::new();
    stdin
        .read_to_string(&mut prompt)
        .map_err(|err| format!("cannot read the prompt from stdin: {err}"))?;
    Ok(prompt)
}

fn run_turn(args: &RunArgs, env: TurnEnv, request: TurnRequest) -> ExitCode {
    // One turn is one chain of awaits (blocking work goes to the blocking pool): worker
    // threads would only add start-up work, thread stacks and cross-thread wake-ups.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("clawloop: cannot start the async runtime: {err}");
            return ExitCode::from(EXIT_FAILED);
        }
    };
    runtime.block_on(turn(args, env, request))
}

async fn turn(args: &RunArgs, env: TurnEnv, request: TurnRequest) -> ExitCode {
    let mode = if args.json {
        Mode::Json
    } else if args.print {
        Mode::Print
    } else {
        Mode::Blocks
    };
    let blocks = StdoutBlocks::default();
    let mut io = TurnIo::default();
    match mode {
        Mode::Json => {
            // The session id is known only once the key is bound; the run id names the turn
            // up front, so a reader can tell interleaved runs apart from the first line.
            json_line(&json!({
                "type": "turn_start",
                "sessionKey": request.session_key,
                "runId": request.run_id,
            }));
            io.events = Some(json_events());
        }
        Mode::Blocks => io.replies = SharedReplySink::new(blocks.clone()),
        Mode::Print => {}
    }
    let interrupted = Arc::new(AtomicBool::new(false));
    let watcher = {
        let cancel = io.cancel.clone();
        let interrupted = Arc::clone(&interrupted);
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                interrupted.store(true, Ordering::SeqCst);
                // The runner stops at its next await and leaves the transcript valid.
                cancel.cancel();
            }
        })
    };
    let session_key = request.session_key.clone();
    let run_id = request.run_id.clone();
    let result = run_agent_turn_with_fallback(&env, request, io).await;
    watcher.abort();

    let (session_id, failure, reply) = match &result {
        AgentRunLoopResult::Success(success) => {
            let errors: Vec<&str> = success
                .run_result
                .payloads
                .iter()
                .filter(|payload| payload.is_error)
                .filter_map(|payload| payload.text.as_deref())
                .collect();
            let failure = (!errors.is_empty()).then(|| errors.join("\n"));
            let reply = success.run_result.reply_text();
            (Some(success.session_id.clone()), failure, reply)
        }
        AgentRunLoopResult::Final {
            payload,
            session_id,
        } => {
            let text = payload.text.clone().unwrap_or_default();
            if payload.is_error {
                (session_id.clone(), Some(text), String::new())
            } else {
                (session_id.clone(), None, text)
            }
        }
    };
    let interrupted = interrupted.load(Ordering::SeqCst);
    // An aborted run ends on the silent-reply token: nothing for the user, not a reply.
    let reply = if interrupted || reply.trim() == SILENT_REPLY_TOKEN {
        String::new()
    } else {
        reply
    };

    match mode {
        Mode::Json => json_line(&json!({
            "type": "turn_result",
            "sessionKey": session_key,
            "sessionId": session_id,
            "runId": run_id,
            "ok": failure.is_none() && !interrupted,
            "text": reply,
            "error": failure,
        })),
        Mode::Print => {
            if failure.is_none() && !reply.is_empty() {
                println!("{reply}");
            }
        }
        Mode::Blocks => {
            // Block streaming may be off in the config; then the reply arrives only at the end.
            if failure.is_none() && !reply.is_empty() && !blocks.wrote_any.load(Ordering::Relaxed) {
                println!("{reply}");
            }
        }
    }
    if interrupted {
        eprintln!("clawloop: interrupted");
        return ExitCode::from(EXIT_INTERRUPTED);
    }
    if let Some(text) = failure {
        eprintln!("{text}");
        return ExitCode::from(EXIT_FAILED);
    }
    if mode == Mode::Blocks
        && let Some(id) = session_id
    {
        eprintln!(
            "session {id}; continue with: clawloop run --session-key {} <PROMPT>",
            shell_word(&session_key)
        );
    }
    ExitCode::SUCCESS
}

/// `word` quoted for a POSIX shell when it has anything but safe characters.
fn shell_word(word: &str) -> String {
    let safe = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.:/@+=,".contains(c));
    if safe {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}
