//! Which session a turn runs in: the key's (default), an existing session named by its id
//! (`--session`), or a fresh one for the key (`--new`, `/new`).

use std::path::Path;

use clawloop_core::session_index::SessionBinding;
use clawloop_runner::turn::TurnEnv;
use clawloop_session::SessionStore;

/// The session key whose current session is `id` (or starts with it), from `sessions.json`.
/// An unknown or ambiguous id is an error naming it.
pub fn key_of_session(home: &Path, agent_id: &str, id: &str) -> Result<String, String> {
    let store = SessionStore::for_agent(home, agent_id).map_err(|err| err.to_string())?;
    match store.find_by_id_prefix(id) {
        Ok(Some(found)) => Ok(found.key),
        Ok(None) => Err(format!(
            "--session {id}: no session with this id in {}",
            store.store_path().display()
        )),
        Err(err) => Err(format!("--session {id}: {err}")),
    }
}

/// Starts a fresh session for `key`; the old transcript stays on disk.
pub async fn new_session(env: &TurnEnv, key: &str) -> Result<SessionBinding, String> {
    env.sessions
        .reset(key)
        .await
        .map_err(|err| format!("cannot start a new session for `{key}`: {}", err.message))
}

/// The session `key` continues (created when the key is new).
pub async fn current_session(env: &TurnEnv, key: &str) -> Result<SessionBinding, String> {
    env.sessions
        .bind(key)
        .await
        .map_err(|err| format!("cannot open the session of `{key}`: {}", err.message))
}
