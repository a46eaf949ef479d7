//! Which session a `<key|id-prefix>` argument names: a session key first, else a session id
//! or a unique prefix of one.

use clawloop_session::{SessionError, SessionStore, StoredSession};

use crate::failure::Failure;

/// The session `target` names. An unknown target or an ambiguous prefix is a usage error
/// naming it (and the matches).
pub fn resolve(store: &SessionStore, target: &str) -> Result<StoredSession, Failure> {
    if let Some(record) = store.find_by_key(target).map_err(store_failure)? {
        return Ok(StoredSession {
            key: target.to_owned(),
            record,
        });
    }
    match store.find_by_id_prefix(target) {
        Ok(Some(found)) => Ok(found),
        Ok(None) => Err(Failure::usage(format!(
            "no session has the key or id `{target}` in {}",
            store.store_path().display()
        ))),
        Err(SessionError::AmbiguousSessionId { prefix, matches }) => Err(Failure::usage(format!(
            "the id prefix `{prefix}` matches {} sessions: {}",
            matches.len(),
            matches.join(", ")
        ))),
        Err(err) => Err(store_failure(err)),
    }
}

/// A store that cannot be read: the store's own sentence, as a failed operation.
pub fn store_failure(err: SessionError) -> Failure {
    Failure::failed(err.to_string())
}
