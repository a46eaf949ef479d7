//! `clawloop run [PROMPT]`: one turn for a session key.

use crate::async_runtime::start;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use clawloop_core::ThinkLevel;
use clawloop_core::clock::{Clock, SystemClock};
use clawloop_runner::turn::{TurnEnv, TurnRequest};
use tokio_util::sync::CancellationToken;

use crate::continue_pick::{SessionFlags, session_target};
use crate::env_setup::{Setup, ToolChoice, setup};
use crate::exit_code::{EXIT_FAILED, EXIT_USAGE};
use crate::hints::turn_hints;
use crate::images::load_image;
use crate::prompt_input::prompt_input;
use crate::render::json::session_header;
use crate::render::sanitize::for_stderr;
use crate::render::term::{Term, TermCaps};
use crate::render::tool_line::PathLabels;
use crate::render::{OutputMode, Renderer};
use crate::session_pick::{current_session, new_session};
use crate::shell_word::shell_word;
use crate::signals::{Stop, StopWatch};
use crate::turn_driver::{TurnOutcome, drive_turn};

/// Arguments of `clawloop run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The message (its words are joined by spaces), with `@PATH` arguments whose files are
    /// inlined before it (images as image parts); read from stdin when absent or `-`, and
    /// piped stdin comes first when there is a message too.
    #[arg(value_name = "PROMPT")]
    prompt: Vec<String>,
    /// The session to send it to.
    #[arg(long, default_value = "main")]
    session_key: String,
    /// Continue an existing session by its id (or an unambiguous prefix of it).
    #[arg(long, value_name = "ID", conflicts_with_all = ["session_key", "new"])]
    session: Option<String>,
    /// Start a fresh session for the key; the old transcript is kept.
    #[arg(long)]
    new: bool,
    /// Continue the most recent session of this workspace (a fresh one when it has none).
    #[arg(
        short = 'c',
        long = "continue",
        conflicts_with_all = ["session", "session_key", "new", "resume"]
    )]
    continue_recent: bool,
    /// Pick one of this workspace's recent sessions to continue (on a terminal; otherwise
    /// list them).
    #[arg(short = 'r', long, conflicts_with_all = ["session", "session_key", "new"])]
    resume: bool,
    /// The model, as `provider/model`, instead of the configured primary.
    #[arg(long, value_name = "PROVIDER/MODEL")]
    model: Option<String>,
    /// The thinking level: off, minimal, low, medium, high, xhigh or adaptive.
    #[arg(long, value_parser = parse_thinking)]
    thinking: Option<ThinkLevel>,
    /// The directory the tools work in (default: the current directory).
    #[arg(long)]
    workspace: Option<PathBuf>,
    /// The bash tool's sandbox: workspace-write, read-only or off (default: `sandbox.mode`).
    #[arg(long, value_name = "MODE", value_parser = crate::env_setup::parse_sandbox_mode)]
    sandbox: Option<clawloop_core::sandbox::SandboxMode>,
    #[command(flatten)]
    approval: crate::approval::ApprovalArgs,
    /// An image (PNG, JPEG, GIF or WebP) sent with the message; repeatable.
    #[arg(long, value_name = "PATH")]
    image: Vec<PathBuf>,
    /// Offer only these built-in tools, e.g. `read,ls`.
    #[arg(
        long,
        value_name = "NAMES",
        value_delimiter = ',',
        conflicts_with = "no_tools"
    )]
    tools: Option<Vec<String>>,
    /// Offer no tools.
    #[arg(long)]
    no_tools: bool,
    /// The whole run's time limit in seconds instead of `agents.defaults.timeoutSeconds`.
    #[arg(long, value_name = "SECONDS")]
    timeout: Option<u64>,
    /// Text appended to the system prompt for this turn.
    #[arg(long, value_name = "TEXT")]
    append_system_prompt: Option<String>,
    /// Replace the system prompt for this turn (the workspace's context files, the date and the
    /// directory still follow it).
    #[arg(long, value_name = "TEXT")]
    system_prompt: Option<String>,
    /// The most tool rounds (model replies that call tools) this turn may take, instead of
    /// `agents.defaults.maxToolRounds`; 0 for no limit.
    #[arg(long, value_name = "N")]
    max_turns: Option<u32>,
    /// Print only the final reply text on stdout.
    #[arg(short = 'p', long, conflicts_with = "json")]
    print: bool,
    /// pi's JSON mode: the session header, then every agent event as one JSON line.
    #[arg(long)]
    json: bool,
}

/// `--thinking`'s parser (shared with `chat`).
pub fn parse_thinking(value: &str) -> Result<ThinkLevel, String> {
    value.parse::<ThinkLevel>().map_err(|err| err.to_string())
}

/// Runs `clawloop run`.
pub fn main(args: RunArgs) -> ExitCode {
    let prepared = match prepare(&args) {
        Ok(prepared) => prepared,
        Err(message) => {
            eprintln!("clawloop: {}", for_stderr(&message));
            return ExitCode::from(EXIT_USAGE);
        }
    };
    // One turn is one chain of awaits (blocking work goes to the blocking pool): worker
    // threads would only add start-up work, thread stacks and cross-thread wake-ups.
    let runtime = match start() {
        Ok(runtime) => runtime,
        Err(message) => {
            eprintln!("clawloop: {message}");
            return ExitCode::from(EXIT_FAILED);
        }
    };
    runtime.block_on(turn(&args, prepared))
}

/// What a turn needs before it starts.
struct Prepared {
    setup: Setup,
    request: TurnRequest,
    /// Start a fresh session for the key first.
    fresh: bool,
}

fn prepare(args: &RunArgs) -> Result<Prepared, String> {
    let mut images = args
        .image
        .iter()
        .map(|path| load_image(path))
        .collect::<Result<Vec<_>, _>>()?;
    let tools = if args.no_tools {
        ToolChoice::None
    } else if let Some(names) = &args.tools {
        ToolChoice::Only(names.iter().map(|n| n.trim().to_owned()).collect())
    } else {
        ToolChoice::Configured
    };
    let mut setup = setup(
        args.workspace.as_ref(),
        &tools,
        args.sandbox,
        &args.approval,
    )?;
    crate::model_choice::settle(&mut setup.env, args.model.as_deref())?;
    let input = prompt_input(&args.prompt, &setup.env.workspace_dir)?;
    images.extend(input.images);
    let flags = SessionFlags {
        session: args.session.as_deref(),
        continue_recent: args.continue_recent,
        resume: args.resume,
        session_key: &args.session_key,
        new: args.new,
    };
    let (session_key, fresh) = session_target(flags, &setup)?;
    let request = TurnRequest {
        session_key,
        prompt: input.text,
        images,
        model: args.model.clone(),
        thinking: args.thinking,
        run_id: Some(clawloop_session::uuid_v4()),
        timeout: args.timeout.map(Duration::from_secs),
        extra_system_prompt: args.append_system_prompt.clone(),
        system_prompt: args.system_prompt.clone(),
        max_tool_rounds: args.max_turns,
        ..TurnRequest::default()
    };
    Ok(Prepared {
        setup,
        request,
        fresh,
    })
}

/// The renderer of a command's output over the process's terminal.
pub fn renderer_for(mode: OutputMode, env: &TurnEnv) -> Renderer {
    let user_home = std::env::var_os("HOME").map(PathBuf::from);
    Renderer::new(
        mode,
        Term::new(TermCaps::detect()),
        PathLabels::new(&env.workspace_dir, user_home.as_deref()),
    )
}

async fn turn(args: &RunArgs, prepared: Prepared) -> ExitCode {
    let Prepared {
        setup: Setup { env, approver, .. },
        request,
        fresh,
    } = prepared;
    let mode = if args.json {
        OutputMode::Json
    } else if args.print {
        OutputMode::Print
    } else {
        OutputMode::Blocks
    };
    let renderer = renderer_for(mode, &env);
    if let Some(approver) = &approver {
        approver.attach(renderer.term());
    }
    let key = request.session_key.clone();
    let binding = if fresh {
        new_session(&env, &key).await.map(Some)
    } else if mode == OutputMode::Json {
        current_session(&env, &key).await.map(Some)
    } else {
        Ok(None)
    };
    let binding = match binding {
        Ok(binding) => binding,
        Err(message) => {
            renderer.error(&message);
            return ExitCode::from(EXIT_FAILED);
        }
    };
    if mode == OutputMode::Json
        && let Some(binding) = &binding
    {
        let header = session_header(
            &binding.session_file,
            &binding.session_id,
            &env.workspace_dir,
            SystemClock.now_ms(),
        );
        match header {
            Ok(header) => renderer.json_header(&header),
            Err(message) => {
                renderer.error(&message);
                return ExitCode::from(EXIT_FAILED);
            }
        }
    }

    let cancel = CancellationToken::new();
    let signals = StopWatch::start(cancel.clone());
    let outcome = drive_turn(&env, request, &renderer, cancel).await;
    let stop = signals.received().unwrap_or(Stop::Interrupt);
    drop(signals);
    report(&renderer, &outcome, &key, stop)
}

/// The last lines and the exit code; `stop` is the signal an interrupted turn stopped for.
fn report(renderer: &Renderer, outcome: &TurnOutcome, key: &str, stop: Stop) -> ExitCode {
    let hint = format!(
        "continue with: clawloop run --session-key {} <PROMPT>",
        shell_word(key)
    );
    if outcome.interrupted {
        renderer.error(stop.message());
        // The turn stopped cleanly: the session is there to continue.
        renderer.session_line(outcome.session_id.as_deref(), &hint);
        return ExitCode::from(stop.exit_code());
    }
    if let Some(text) = &outcome.failure {
        renderer.error(text);
        for fix in turn_hints(outcome, SystemClock.now_ms()) {
            renderer.error(&fix);
        }
        renderer.session_line(outcome.session_id.as_deref(), &hint);
        return ExitCode::from(EXIT_FAILED);
    }
    renderer.summary(
        &outcome.stats,
        outcome
            .session_id
            .as_deref()
            .map(|id| (id, Some(hint.as_str()))),
    );
    ExitCode::SUCCESS
}
