//! `clawloop chat`: many turns in one session, typed on a terminal (line editor, history,
//! slash commands) or piped in, one turn per line; streamed exactly as `run` streams.

pub mod args;
pub mod banner;
pub mod choices;
pub mod command;
pub mod input;

use crate::async_runtime::start;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anstyle::Style;
use clawloop_core::ThinkLevel;
use clawloop_core::clock::{Clock, SystemClock};
use clawloop_runner::compaction::CompactionOutcome;
use clawloop_runner::turn::{TurnEnv, TurnRequest, compact_session_direct};
use clawloop_session::SessionStore;
use clawloop_subscribe::HomeDisplay;
use tokio_util::sync::CancellationToken;

use crate::env_setup::{Setup, ToolChoice, setup};
use crate::exit_code::{EXIT_FAILED, EXIT_INTERRUPTED, EXIT_USAGE};
use crate::model_choice::{check_known, effective_model, settle};
use crate::models::lacks_key;
use crate::render::sanitize::for_stderr;
use crate::render::term::SpinnerTask;
use crate::render::{OutputMode, Renderer};
use crate::run::renderer_for;
use crate::session_pick::{current_session, new_session};
use crate::signals::{Stop, StopSignals};
use crate::turn_driver::drive_turn;
use args::session_target;
pub use args::{BareArgs, ChatArgs};
use banner::{BannerFacts, banner, missing_key_line};
use choices::model_listing;
use clawloop_providers::catalog::parse_model_ref;
use command::{ChatInput, HELP, parse_input};
use input::{Input, Line};

/// What the chat carries from turn to turn.
#[derive(Debug)]
struct ChatState {
    key: String,
    model: Option<String>,
    thinking: Option<ThinkLevel>,
    /// A piped turn failed: the chat's exit code says so to the script.
    failed: bool,
}

/// What to do after a line.
enum Next {
    Continue,
    Exit(ExitCode),
}

/// Runs `clawloop chat`.
pub fn main(args: ChatArgs) -> ExitCode {
    let prepared = setup(
        args.workspace.as_ref(),
        &ToolChoice::Configured,
        args.sandbox,
        &args.approval,
    )
    .and_then(|mut setup| {
        settle(&mut setup.env, args.model.as_deref())?;
        let target = session_target(&args, &setup)?;
        Ok((setup, target))
    });
    let (setup, (key, fresh)) = match prepared {
        Ok(setup) => setup,
        Err(message) => {
            eprintln!("clawloop: {}", for_stderr(&message));
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let runtime = match start() {
        Ok(runtime) => runtime,
        Err(message) => {
            eprintln!("clawloop: {message}");
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let state = ChatState {
        key,
        model: args.model,
        thinking: args.thinking,
        failed: false,
    };
    let code = runtime.block_on(chat(setup, state, fresh));
    // A chat stopped at a terminal prompt leaves the editor's read blocked on the pool:
    // waiting for it (as dropping the runtime does) would never exit.
    runtime.shutdown_background();
    code
}

async fn chat(setup: Setup, mut state: ChatState, fresh: bool) -> ExitCode {
    let Setup {
        home,
        env,
        approver,
    } = setup;
    let renderer = renderer_for(OutputMode::Blocks, &env);
    if let Some(approver) = &approver {
        approver.attach(renderer.term());
    }
    if fresh && let Err(message) = new_session(&env, &state.key).await {
        renderer.error(&message);
        return ExitCode::from(EXIT_FAILED);
    }
    let mut input = match Input::open(&home, |message| renderer.error(message)) {
        Ok(input) => input,
        Err(message) => {
            renderer.error(&message);
            return ExitCode::from(EXIT_FAILED);
        }
    };
    adopt_session_choices(&home, &env, &mut state);
    show_banner(&home, &env, &renderer, &state, input.is_terminal());
    // Registered once for the whole session: SIGTERM's and SIGHUP's default actions never
    // come back, so the prompt and every turn must listen.
    let mut stops = StopSignals::register_terminations();
    // One Ctrl-C at an empty prompt only warns (codex): a stray one must not end the chat.
    let mut exit_armed = false;
    loop {
        let line = match input.next_line(&mut stops).await {
            Ok(line) => line,
            Err(message) => {
                renderer.error(&message);
                return ExitCode::from(EXIT_FAILED);
            }
        };
        let text = match line {
            Line::Text(text) => text,
            Line::Interrupted if input.is_terminal() && !exit_armed => {
                exit_armed = true;
                renderer.term().err_line("press Ctrl-C again to exit");
                continue;
            }
            Line::Interrupted => return ExitCode::from(EXIT_INTERRUPTED),
            Line::Stopped(stop) => {
                renderer.error(stop.message());
                return ExitCode::from(stop.exit_code());
            }
            Line::End => break,
        };
        exit_armed = false;
        let chat_input = parse_input(&text);
        match handle(&env, &renderer, &mut state, chat_input, &input, &mut stops).await {
            Next::Continue => {}
            Next::Exit(code) => return code,
        }
    }
    if state.failed {
        ExitCode::from(EXIT_FAILED)
    } else {
        ExitCode::SUCCESS
    }
}

async fn handle(
    env: &TurnEnv,
    renderer: &Renderer,
    state: &mut ChatState,
    input: ChatInput,
    source: &Input,
    stops: &mut StopSignals,
) -> Next {
    match input {
        ChatInput::Nothing => {}
        ChatInput::Prompt(prompt) => {
            return turn(env, renderer, state, prompt, source, stops).await;
        }
        ChatInput::Quit => return Next::Exit(ExitCode::SUCCESS),
        ChatInput::Help => renderer.notice(HELP),
        ChatInput::Invalid(message) => renderer.error(&message),
        ChatInput::Model(model) => match check_known(&env.config, &model) {
            Ok(()) => {
                renderer.notice(&format!("model: {model}"));
                if let Some((provider, _)) = parse_model_ref(&model)
                    && lacks_key(&env.config, &env.agent_dir, provider)
                {
                    let term = renderer.term();
                    term.err_line(&term.shown_err(&missing_key_line(provider)));
                }
                state.model = Some(model);
            }
            Err(message) => renderer.error(&format!("/{message}")),
        },
        // Model and provider ids come from the config file: neutralized like any quoted text.
        ChatInput::ModelList => {
            let listing = model_listing(env, &current_model(env, state));
            renderer.notice(&renderer.term().shown_out(&listing));
        }
        ChatInput::Think(level) => {
            renderer.notice(&format!("thinking: {level}"));
            state.thinking = Some(level);
        }
        ChatInput::New => match new_session(env, &state.key).await {
            Ok(binding) => renderer.notice(&format!("new session {}", binding.session_id)),
            Err(message) => renderer.error(&message),
        },
        ChatInput::Session => match current_session(env, &state.key).await {
            Ok(binding) => {
                // The key is an argument and the file a path: shown neutralized on a terminal.
                let text = format!(
                    "key: {}\nid: {}\nfile: {}",
                    state.key,
                    binding.session_id,
                    binding.session_file.display()
                );
                renderer.notice(&renderer.term().shown_out(&text));
            }
            Err(message) => renderer.error(&message),
        },
        ChatInput::Compact => return compact(env, renderer, state, stops).await,
    }
    Next::Continue
}

/// `/compact`: the session's history summarized now, with the chat's model.
async fn compact(
    env: &TurnEnv,
    renderer: &Renderer,
    state: &ChatState,
    stops: &mut StopSignals,
) -> Next {
    let cancel = interruptible();
    renderer.term().spin("compacting");
    let spinner = SpinnerTask::start(renderer.term());
    let env = compaction_env(env, state.model.as_deref());
    let work = compact_session_direct(&env, &state.key, None, &cancel);
    let (compacted, stop) = until_stopped(work, &cancel, stops).await;
    drop(spinner);
    cancel.cancel();
    if let Some(stop) = stop {
        return stopped(renderer, stop);
    }
    match compacted {
        Ok(CompactionOutcome::Compacted(result)) if result.tokens_before > 0 => renderer.notice(
            &format!("session compacted ({} tokens before)", result.tokens_before),
        ),
        Ok(CompactionOutcome::Compacted(_)) => renderer.notice("session compacted"),
        Ok(CompactionOutcome::NotCompacted { reason }) => {
            renderer.notice(&format!("not compacted: {reason}"));
        }
        Err(err) => renderer.error(&format!("cannot compact the session: {err}")),
    }
    Next::Continue
}

/// Runs `work` to its end; a stop signal first cancels it (through `cancel`) and is returned,
/// so the work still ends cleanly (a running tool call paired, its processes killed).
async fn until_stopped<T>(
    work: impl Future<Output = T>,
    cancel: &CancellationToken,
    stops: &mut StopSignals,
) -> (T, Option<Stop>) {
    tokio::pin!(work);
    tokio::select! {
        done = &mut work => (done, None),
        stop = stops.next() => {
            cancel.cancel();
            (work.await, Some(stop))
        }
    }
}

/// Unlike Ctrl-C, SIGTERM and SIGHUP end the chat: its terminal or its supervisor is going.
fn stopped(renderer: &Renderer, stop: Stop) -> Next {
    renderer.error(stop.message());
    Next::Exit(ExitCode::from(stop.exit_code()))
}

/// `env` whose primary is the chat's model: the runner compacts with the primary, and a
/// chat that switched models summarizes with the one it talks to (as pi does).
fn compaction_env(env: &TurnEnv, model: Option<&str>) -> TurnEnv {
    let mut env = env.clone();
    if let Some(model) = model {
        Arc::make_mut(&mut env.config).agents.defaults.model.primary = Some(model.to_owned());
    }
    env
}

/// The `provider/model` of the next turn.
fn current_model(env: &TurnEnv, state: &ChatState) -> String {
    state
        .model
        .clone()
        .unwrap_or_else(|| effective_model(&env.config).reference)
}

/// The model and thinking level the key's session keeps (chosen in an earlier run or chat),
/// unless the command line names others: the banner, `/model` and `/compact` then show and
/// use what the turns will run.
fn adopt_session_choices(home: &Path, env: &TurnEnv, state: &mut ChatState) {
    let Some(record) = SessionStore::for_agent(home, &env.agent_id)
        .ok()
        .and_then(|store| store.find_by_key(&state.key).ok().flatten())
    else {
        return;
    };
    if state.model.is_none()
        && let (Some(provider), Some(model)) = (&record.provider_override, &record.model_override)
    {
        state.model = Some(format!("{provider}/{model}"));
    }
    if state.thinking.is_none() {
        state.thinking = record
            .thinking_level
            .as_deref()
            .and_then(|l| l.parse().ok());
    }
}

/// The opening lines, on stderr: a script reading stdout gets only the replies.
fn show_banner(home: &Path, env: &TurnEnv, renderer: &Renderer, state: &ChatState, terminal: bool) {
    // Read without binding: looking must not create a session the user never talks in.
    let session_id = SessionStore::for_agent(home, &env.agent_id)
        .ok()
        .and_then(|store| store.find_by_key(&state.key).ok().flatten())
        .map(|record| record.session_id);
    let workspace = env.workspace_dir.display().to_string();
    let workspace = match std::env::var("HOME") {
        Ok(user_home) => HomeDisplay::new(user_home).shorten(&workspace).into_owned(),
        Err(_) => workspace,
    };
    let model = current_model(env, state);
    let provider = parse_model_ref(&model).map(|(provider, _)| provider);
    let text = banner(&BannerFacts {
        missing_key: provider.filter(|p| lacks_key(&env.config, &env.agent_dir, p)),
        model: &model,
        thinking: state
            .thinking
            .unwrap_or(env.config.defaults().thinking_default),
        key: &state.key,
        session_id: session_id.as_deref(),
        workspace: &workspace,
        terminal,
    });
    let term = renderer.term();
    for line in text.lines() {
        // The key, model and workspace come from arguments and files.
        term.err_line(&term.paint_err(Style::new().dimmed(), &term.shown_err(line)));
    }
}

async fn turn(
    env: &TurnEnv,
    renderer: &Renderer,
    state: &mut ChatState,
    prompt: String,
    source: &Input,
    stops: &mut StopSignals,
) -> Next {
    let request = TurnRequest {
        session_key: state.key.clone(),
        prompt,
        model: state.model.clone(),
        thinking: state.thinking,
        run_id: Some(clawloop_session::uuid_v4()),
        ..TurnRequest::default()
    };
    let cancel = interruptible();
    let work = drive_turn(env, request, renderer, cancel.child_token());
    let (outcome, stop) = until_stopped(work, &cancel, stops).await;
    // Stops the Ctrl-C watcher: from here on Ctrl-C is the prompt's again.
    cancel.cancel();
    if let Some(stop) = stop {
        return stopped(renderer, stop);
    }
    if outcome.interrupted {
        renderer.error("turn interrupted");
        return Next::Continue;
    }
    if let Some(text) = &outcome.failure {
        renderer.error(text);
        for fix in crate::hints::turn_hints(&outcome, SystemClock.now_ms()) {
            renderer.error(&fix);
        }
        state.failed |= !source.is_terminal();
        return Next::Continue;
    }
    renderer.summary(
        &outcome.stats,
        outcome.session_id.as_deref().map(|id| (id, None)),
    );
    Next::Continue
}

/// A token Ctrl-C cancels, until the token itself is cancelled: the caller hands out a child
/// token for the work and cancels the parent when the work is over, which ends the watcher.
fn interruptible() -> CancellationToken {
    let parent = CancellationToken::new();
    let work = parent.clone();
    tokio::spawn(async move {
        tokio::select! {
            signal = tokio::signal::ctrl_c() => {
                if signal.is_ok() {
                    work.cancel();
                }
            }
            () = work.cancelled() => {}
        }
    });
    parent
}
