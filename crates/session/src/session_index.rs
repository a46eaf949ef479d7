//! `sessions.json` as core's [`SessionIndex`] seam: binding a key finds or creates its record
//! under the store's lock in one step (two processes binding a new key agree on one session),
//! and every call runs on the blocking pool.

use clawloop_core::session_index::{
    SessionBinding, SessionIndex, SessionIndexError, SessionOverrides, SessionTurnRecord,
};
use clawloop_core::tool::BoxFuture;

use crate::blocking::run_blocking;
use crate::error::SessionError;
use crate::options::SessionOptions;
use crate::store::{SessionRecord, SessionStore};

fn index_error(err: SessionError) -> SessionIndexError {
    SessionIndexError {
        message: err.to_string(),
    }
}

impl SessionStore {
    /// The key's record, created pointing at a new session when the key has none — found or
    /// created under one hold of the store's lock.
    pub fn bind_key(&self, key: &str) -> Result<SessionBinding, SessionError> {
        let dir = self.dir().to_path_buf();
        let (record, created) = self.find_or_insert(key)?;
        Ok(SessionBinding {
            session_key: key.to_owned(),
            session_file: record.transcript_path(&dir),
            overrides: overrides_of(&record),
            session_id: record.session_id,
            created,
        })
    }

    /// A new session for `key` (`/new`), as a binding; the key keeps the user's choices.
    pub fn reset_key(&self, key: &str) -> Result<SessionBinding, SessionError> {
        let transcript = self.new_session_for_key(key, SessionOptions::default())?;
        let overrides = self
            .find_by_key(key)?
            .map(|record| overrides_of(&record))
            .unwrap_or_default();
        Ok(SessionBinding {
            session_key: key.to_owned(),
            session_id: transcript.session_id().to_owned(),
            session_file: transcript.path().to_path_buf(),
            created: true,
            overrides,
        })
    }

    /// Records a finished turn on the key's record.
    pub fn record_turn(
        &self,
        key: &str,
        turn: &SessionTurnRecord,
    ) -> Result<SessionRecord, SessionError> {
        let turn = turn.clone();
        self.update(key, move |record| {
            record.updated_at = turn.updated_at;
            if turn.provider.is_some() {
                record.model_provider = turn.provider;
            }
            if turn.model.is_some() {
                record.model = turn.model;
            }
            let chosen = turn.overrides;
            if chosen.model.is_some() {
                record.provider_override = chosen.provider;
                record.model_override = chosen.model;
            }
            if chosen.thinking_level.is_some() {
                record.thinking_level = chosen.thinking_level;
            }
            record.input_tokens = turn.input_tokens.or(record.input_tokens);
            record.output_tokens = turn.output_tokens.or(record.output_tokens);
            record.total_tokens = turn.total_tokens.or(record.total_tokens);
            record.context_tokens = turn.context_tokens.or(record.context_tokens);
            record.message_count = turn.message_count.or(record.message_count);
            if turn.compactions > 0 {
                let previous = record.compaction_count.unwrap_or(0);
                record.compaction_count =
                    Some(previous.saturating_add(u64::from(turn.compactions)));
            }
        })
    }
}

fn overrides_of(record: &SessionRecord) -> SessionOverrides {
    SessionOverrides {
        provider: record.provider_override.clone(),
        model: record.model_override.clone(),
        thinking_level: record.thinking_level.clone(),
    }
}

impl SessionIndex for SessionStore {
    fn bind<'a>(
        &'a self,
        session_key: &'a str,
    ) -> BoxFuture<'a, Result<SessionBinding, SessionIndexError>> {
        Box::pin(async move {
            let (store, key) = (self.clone(), session_key.to_owned());
            run_blocking(&self.store_path(), move || store.bind_key(&key))
                .await
                .map_err(index_error)
        })
    }

    fn reset<'a>(
        &'a self,
        session_key: &'a str,
    ) -> BoxFuture<'a, Result<SessionBinding, SessionIndexError>> {
        Box::pin(async move {
            let (store, key) = (self.clone(), session_key.to_owned());
            run_blocking(&self.store_path(), move || store.reset_key(&key))
                .await
                .map_err(index_error)
        })
    }

    fn record_turn<'a>(
        &'a self,
        session_key: &'a str,
        record: SessionTurnRecord,
    ) -> BoxFuture<'a, Result<(), SessionIndexError>> {
        Box::pin(async move {
            let (store, key) = (self.clone(), session_key.to_owned());
            run_blocking(&self.store_path(), move || {
                store.record_turn(&key, &record).map(|_| ())
            })
            .await
            .map_err(index_error)
        })
    }

    fn delete<'a>(
        &'a self,
        session_key: &'a str,
    ) -> BoxFuture<'a, Result<bool, SessionIndexError>> {
        Box::pin(async move {
            let (store, key) = (self.clone(), session_key.to_owned());
            run_blocking(&self.store_path(), move || {
                store.delete(&key).map(|record| record.is_some())
            })
            .await
            .map_err(index_error)
        })
    }
}
