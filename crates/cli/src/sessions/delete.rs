//! `clawloop sessions delete <key|id> [--yes]`: forgets a session key; its transcript is kept,
//! renamed `<file>.deleted.<time>` as OpenClaw does, so it can be recovered by hand.

use std::io::{BufRead, IsTerminal, Write};

use clap::Args;
use clawloop_session::SessionStore;

use super::resolve::{resolve, store_failure};
use crate::failure::Failure;
use crate::render::sanitize::{for_stderr, for_stdout};

/// Arguments of `clawloop sessions delete`.
#[derive(Debug, Args)]
pub struct DeleteArgs {
    /// The session: its key, its id or a unique prefix of the id.
    session: String,
    /// Delete without asking.
    #[arg(long, short = 'y')]
    yes: bool,
}

/// Runs `clawloop sessions delete`.
pub fn run(store: &SessionStore, args: &DeleteArgs) -> Result<(), Failure> {
    let session = resolve(store, &args.session)?;
    if !args.yes {
        let stdin = std::io::stdin();
        if !stdin.is_terminal() {
            return Err(Failure::usage(format!(
                "not deleting session `{}` without confirmation: pass --yes",
                session.key
            )));
        }
        let question = format!(
            "Delete session `{}` ({})? [y/N] ",
            session.key, session.record.session_id
        );
        eprint!("{}", for_stderr(&question));
        let _ = std::io::stderr().flush();
        let mut answer = String::new();
        stdin
            .lock()
            .read_line(&mut answer)
            .map_err(|err| Failure::failed(format!("cannot read the answer: {err}")))?;
        if !matches!(answer.trim(), "y" | "Y" | "yes" | "YES" | "Yes") {
            eprintln!("not deleted");
            return Ok(());
        }
    }
    let deleted = store
        .delete_archiving(&session.key)
        .map_err(store_failure)?;
    let done = match deleted.and_then(|d| d.archived) {
        Some(archived) => format!(
            "deleted session `{}`; transcript kept as {}",
            session.key,
            archived.display()
        ),
        None => format!("deleted session `{}`", session.key),
    };
    println!("{}", for_stdout(&done));
    Ok(())
}
