//! `clawloop sessions fork <key|id> --to <new-key> [--at <entry-id>]`: a new session holding
//! the source's history up to an entry (pi's branched session, header `parentSession`), bound
//! to a new key.

use clap::Args;
use clawloop_session::{SessionError, SessionOptions, SessionStore};

use super::resolve::{resolve, store_failure};
use crate::failure::Failure;
use crate::render::sanitize::for_stdout;
use crate::shell_word::shell_word;

/// Arguments of `clawloop sessions fork`.
#[derive(Debug, Args)]
pub struct ForkArgs {
    /// The session to fork: its key, its id or a unique prefix of the id.
    session: String,
    /// The session key of the new session (must be unused).
    #[arg(long = "to", value_name = "NEW_KEY")]
    to: String,
    /// Fork at this entry (default: the current leaf).
    #[arg(long = "at", value_name = "ENTRY_ID")]
    at: Option<String>,
}

/// Runs `clawloop sessions fork`.
pub fn run(store: &SessionStore, args: &ForkArgs) -> Result<(), Failure> {
    if args.to.trim().is_empty() {
        return Err(Failure::usage("--to: the new session key is empty"));
    }
    let source = resolve(store, &args.session)?;
    if store
        .find_by_key(&args.to)
        .map_err(store_failure)?
        .is_some()
    {
        return Err(Failure::usage(format!(
            "--to `{}`: that session key exists already; pick another or delete it first",
            args.to
        )));
    }
    if !source.record.transcript_path(store.dir()).exists() {
        return Err(Failure::failed(format!(
            "session `{}` has no transcript yet, so there is nothing to fork",
            source.key
        )));
    }
    let forked = store
        .fork(
            &source.key,
            args.at.as_deref(),
            &args.to,
            SessionOptions::default(),
        )
        .map_err(|err| match err {
            SessionError::EntryNotFound(id) => Failure::usage(format!(
                "--at `{id}`: session `{}` has no entry with that id",
                source.key
            )),
            other => store_failure(other),
        })?;
    // The id first, alone on its line, so a script can take it with `head -n1`.
    println!("{}", for_stdout(forked.session_id()));
    let done = format!(
        "forked session `{}` as `{}`; continue with: clawloop run --session-key {} <PROMPT>",
        source.key,
        args.to,
        shell_word(&args.to)
    );
    println!("{}", for_stdout(&done));
    Ok(())
}
