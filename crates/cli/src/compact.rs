//! `clawloop compact [--session-key K | --session ID] [--instructions TEXT]`: summarizes a
//! session's older history now, through the runner's `compact_session_direct` (admitted on
//! the session's lanes, so it never overlaps a turn of the same session).

use crate::async_runtime::start;
use std::path::Path;
use std::process::ExitCode;

use clap::Args;
use clawloop_core::tokens::estimate_tokens;
use clawloop_runner::compaction::CompactionOutcome;
use clawloop_runner::run::RunError;
use clawloop_runner::turn::{TurnEnv, compact_session_direct};
use clawloop_session::{DEFAULT_AGENT_ID, SessionOptions, SessionStore, Transcript};
use tokio_util::sync::CancellationToken;

use crate::config::{home_dir, load_config};
use crate::failure::{Failure, finish};
use crate::model_choice::{check_known, effective_model};
use crate::render::sanitize::for_stdout;
use crate::sessions::resolve_target;

use crate::exit_code::EXIT_INTERRUPTED;

/// Arguments of `clawloop compact`.
#[derive(Debug, Args)]
pub struct CompactArgs {
    /// The session key to compact.
    #[arg(long, conflicts_with = "session", default_value = "main")]
    session_key: String,
    /// The session to compact, by id or a unique prefix of it.
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Extra instructions for the summary.
    #[arg(long, value_name = "TEXT")]
    instructions: Option<String>,
    /// The agent the session belongs to.
    #[arg(long, default_value = DEFAULT_AGENT_ID)]
    agent: String,
    /// The model that writes the summary, as `provider/model`, instead of the default one.
    #[arg(long, value_name = "PROVIDER/MODEL")]
    model: Option<String>,
}

/// Runs `clawloop compact`.
pub fn main(args: CompactArgs) -> ExitCode {
    finish(run(&args))
}

fn run(args: &CompactArgs) -> Result<(), Failure> {
    let home = home_dir().map_err(|err| Failure::usage(err.to_string()))?;
    let mut config = load_config(&home).map_err(|err| Failure::usage(err.to_string()))?;
    if let Some(model) = &args.model {
        check_known(&config, model).map_err(|err| Failure::usage(format!("--{err}")))?;
    }
    let store = SessionStore::for_agent(&home, &args.agent)
        .map_err(|err| Failure::usage(format!("--agent `{}`: {err}", args.agent)))?;
    let target = args.session.as_deref().unwrap_or(&args.session_key);
    let session = resolve_target(&store, target)?;
    // The runner compacts with the primary: the model named, else the one the session keeps
    // (as its next turn would run), else the CLI's default takes its place.
    let chosen = match (
        &session.record.provider_override,
        &session.record.model_override,
    ) {
        (Some(provider), Some(model)) => Some(format!("{provider}/{model}")),
        _ => None,
    };
    config.agents.defaults.model.primary = Some(
        args.model
            .clone()
            .or(chosen)
            .unwrap_or_else(|| effective_model(&config).reference),
    );
    let file = session.record.transcript_path(store.dir());
    if !file.exists() {
        let note = format!(
            "nothing to compact: session `{}` has no messages yet",
            session.key
        );
        println!("{}", for_stdout(&note));
        return Ok(());
    }
    let workspace = std::env::current_dir()
        .map_err(|err| Failure::usage(format!("cannot read the current directory: {err}")))?;
    let env = TurnEnv::builder(home, workspace)
        .config(config)
        .agent_id(args.agent.clone())
        .build()
        .map_err(|err| Failure::usage(err.to_string()))?;
    let runtime = start().map_err(Failure::failed)?;
    // Before and after are estimated the same way (pi's chars/4 heuristic over the rebuilt
    // context): the compaction's own `tokensBefore` trusts the last reply's usage, which has
    // no counterpart after the compaction until the next reply.
    let before = context_estimate(&file);
    let outcome = runtime.block_on(compact(&env, &session.key, args.instructions.clone()))?;
    // The key is an argument or a file's; the reason may quote a server.
    let done = match outcome {
        CompactionOutcome::Compacted(result) => {
            let before = before.unwrap_or(result.tokens_before);
            match context_estimate(&file) {
                Some(after) => format!(
                    "compacted session `{}`: {before} → {after} tokens",
                    session.key
                ),
                None => format!(
                    "compacted session `{}`: {before} tokens before",
                    session.key
                ),
            }
        }
        CompactionOutcome::NotCompacted { reason } => {
            format!("nothing to compact in session `{}`: {reason}", session.key)
        }
    };
    println!("{}", for_stdout(&done));
    Ok(())
}

async fn compact(
    env: &TurnEnv,
    key: &str,
    instructions: Option<String>,
) -> Result<CompactionOutcome, Failure> {
    let cancel = CancellationToken::new();
    let watcher = {
        let cancel = cancel.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                cancel.cancel();
            }
        })
    };
    let result = compact_session_direct(env, key, instructions, &cancel).await;
    watcher.abort();
    result.map_err(|err| match err {
        RunError::Aborted => Failure {
            code: EXIT_INTERRUPTED,
            message: "interrupted".to_owned(),
        },
        other => Failure::failed(format!("compacting session `{key}` failed: {other}")),
    })
}

/// The estimated tokens of the context rebuilt after the compaction (summary and kept
/// messages); `None` when the transcript cannot be read back.
fn context_estimate(file: &Path) -> Option<u64> {
    let transcript = Transcript::open(file, SessionOptions::default()).ok()?;
    Some(
        transcript
            .build_context()
            .messages
            .iter()
            .map(estimate_tokens)
            .fold(0, u64::saturating_add),
    )
}
