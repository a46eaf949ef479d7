//! The session store `sessions.json`: session key → the session that continues it
//! (SPEC §2, §5; OpenClaw's session store).
//!
//! The file is one JSON object, `{"<sessionKey>": {"sessionId", "updatedAt", "sessionFile"?,
//! "modelProvider"?, "model"?, token counters?, "compactionCount"?, …}}`, written as
//! `JSON.stringify(store, null, 2)` writes it. Fields this crate does not know (OpenClaw keeps
//! dozens: toggles, delivery context, snapshots) survive every update, and so do records that
//! cannot be read as a [`SessionRecord`]; those are skipped when listing.
//!
//! Every change is a read-modify-write under the store's own [`WriteLock`]
//! (`sessions.json.lock`), of the file as it is on disk, written through write-temp-then-rename:
//! readers never need the lock and never see half a file. The rewrite is not fsynced unless
//! asked for ([`SessionStore::with_durable_writes`]): like OpenClaw and pi, which never fsync
//! it, because the store is rewritten before a turn's first request and after its last, and
//! two fsyncs (file and directory) cost milliseconds to tens of milliseconds on a busy disk,
//! on the critical path of every turn. A killed process still leaves the old or the new file
//! whole; only a machine crash may lose the latest update. When a transcript's lock is needed
//! too (deleting), it is taken first: transcript lock, then store lock, never the reverse, so
//! a writer updating the store while holding its transcript cannot deadlock with a delete.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use clawloop_core::clock::{Clock, SystemClock};
use clawloop_core::message::JsonObject;

use crate::error::SessionError;
use crate::id::uuid_v4;
use crate::layout::{STORE_FILE_NAME, TRANSCRIPT_EXTENSION, sessions_dir, transcript_path};
use crate::lock::{DEFAULT_LOCK_TIMEOUT, WriteLock};
use crate::options::SessionOptions;
use crate::transcript::Transcript;

/// One record of `sessions.json` (OpenClaw's `SessionEntry`, the fields this crate uses).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRecord {
    /// The session (transcript) currently continuing this key.
    pub session_id: String,
    /// Last activity, ms since the epoch.
    #[serde(default)]
    pub updated_at: u64,
    /// The transcript's path; absent means `<sessionsDir>/<sessionId>.jsonl`, a relative path
    /// is relative to the sessions directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_file: Option<String>,
    /// Provider of the model last used (OpenClaw's name: `provider` there means the channel).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_provider: Option<String>,
    /// Model last used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Provider of the model the user chose for the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_override: Option<String>,
    /// Model the user chose for the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_override: Option<String>,
    /// Thinking level the user chose for the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_level: Option<String>,
    /// Input tokens of the last run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    /// Output tokens of the last run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    /// Tokens in the context after the last run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<u64>,
    /// The context window the session ran with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_tokens: Option<u64>,
    /// Compactions completed for this key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compaction_count: Option<u64>,
    /// Messages in the session's context after its last turn (clawloop's field; OpenClaw
    /// keeps unknown fields, so the file stays readable there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_count: Option<u64>,
    /// Fields this crate does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl SessionRecord {
    /// A record for `session_id` stored at `session_file`, updated at `updated_at` (ms).
    pub fn new(
        session_id: impl Into<String>,
        session_file: Option<String>,
        updated_at: u64,
    ) -> Self {
        SessionRecord {
            session_id: session_id.into(),
            updated_at,
            session_file,
            model_provider: None,
            model: None,
            provider_override: None,
            model_override: None,
            thinking_level: None,
            input_tokens: None,
            output_tokens: None,
            total_tokens: None,
            context_tokens: None,
            compaction_count: None,
            message_count: None,
            extra: JsonObject::new(),
        }
    }

    /// The transcript's path, resolved against the sessions directory `dir`.
    pub fn transcript_path(&self, dir: &Path) -> PathBuf {
        match &self.session_file {
            Some(file) => dir.join(file),
            None => dir.join(format!("{}.{TRANSCRIPT_EXTENSION}", self.session_id)),
        }
    }

    /// This record pointing at another session: the same key's settings (unknown fields,
    /// model) with the counters of a fresh start.
    fn continued_by(&self, session_id: String, session_file: String, now: u64) -> Self {
        SessionRecord {
            model_provider: self.model_provider.clone(),
            model: self.model.clone(),
            provider_override: self.provider_override.clone(),
            model_override: self.model_override.clone(),
            thinking_level: self.thinking_level.clone(),
            extra: self.extra.clone(),
            ..SessionRecord::new(session_id, Some(session_file), now)
        }
    }
}

/// A record with its key, as listed.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredSession {
    /// The session key.
    pub key: String,
    /// Its record.
    pub record: SessionRecord,
}

/// What [`SessionStore::delete_archiving`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct DeletedSession {
    /// The key's record as it was.
    pub record: SessionRecord,
    /// Where the transcript was moved; `None` when it was not (another key still uses it, it
    /// lies outside the sessions directory, or it was never written).
    pub archived: Option<PathBuf>,
}

/// What happens to a deleted session's transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Disposal {
    Remove,
    Archive,
}

/// The sessions of one agent: a directory of transcripts and its `sessions.json`.
#[derive(Clone)]
pub struct SessionStore {
    dir: PathBuf,
    lock_timeout: Duration,
    clock: Arc<dyn Clock>,
    durable: bool,
}

impl std::fmt::Debug for SessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionStore")
            .field("dir", &self.dir)
            .field("lock_timeout", &self.lock_timeout)
            .field("durable", &self.durable)
            .finish_non_exhaustive()
    }
}

impl SessionStore {
    /// The store of the sessions directory `dir` (created at the first write).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        SessionStore {
            dir: dir.into(),
            lock_timeout: DEFAULT_LOCK_TIMEOUT,
            clock: Arc::new(SystemClock),
            durable: false,
        }
    }

    /// The store of `agent_id` under the clawloop `home` (`<home>/agents/<agentId>/sessions`).
    pub fn for_agent(home: &Path, agent_id: &str) -> Result<Self, SessionError> {
        Ok(Self::new(sessions_dir(home, agent_id)?))
    }

    /// How long an update waits for the store's (or a transcript's) lock.
    pub fn with_lock_timeout(mut self, timeout: Duration) -> Self {
        self.lock_timeout = timeout;
        self
    }

    /// Whether every rewrite of `sessions.json` is fsynced (the file before its rename, the
    /// directory after), so an update survives a machine crash once it returns. Off by
    /// default, as in OpenClaw and pi: the rewrite is atomic either way.
    pub fn with_durable_writes(mut self, durable: bool) -> Self {
        self.durable = durable;
        self
    }

    /// Whether rewrites are fsynced (see [`SessionStore::with_durable_writes`]).
    pub fn durable_writes(&self) -> bool {
        self.durable
    }

    /// The clock that stamps `updatedAt`.
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// The sessions directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `<dir>/sessions.json`.
    pub fn store_path(&self) -> PathBuf {
        self.dir.join(STORE_FILE_NAME)
    }

    // --- reading --------------------------------------------------------------------------

    /// Every readable record, most recently updated first (ties in file order). Records that
    /// cannot be read are skipped with a warning, and kept in the file.
    pub fn list(&self) -> Result<Vec<StoredSession>, SessionError> {
        let mut sessions: Vec<StoredSession> = self
            .read()?
            .into_iter()
            .filter_map(|(key, value)| match parse_record(&key, value) {
                Ok(record) => Some(StoredSession { key, record }),
                Err(e) => {
                    tracing::warn!(store = %self.store_path().display(), error = %e, "skipping unusable session store entry");
                    None
                }
            })
            .collect();
        sessions.sort_by_key(|s| std::cmp::Reverse(s.record.updated_at));
        Ok(sessions)
    }

    /// The record of `key`; an error if it exists but cannot be read.
    pub fn find_by_key(&self, key: &str) -> Result<Option<SessionRecord>, SessionError> {
        self.read()?
            .shift_remove(key)
            .map(|value| parse_record(key, value))
            .transpose()
    }

    /// The session whose id starts with `prefix` (an exact id always matches itself). When
    /// several keys lead to that session, the most recently updated one. `None` when nothing
    /// (or an empty prefix) matches; [`SessionError::AmbiguousSessionId`] when several
    /// sessions do.
    pub fn find_by_id_prefix(&self, prefix: &str) -> Result<Option<StoredSession>, SessionError> {
        if prefix.is_empty() {
            return Ok(None);
        }
        let sessions = self.list()?;
        let exact = sessions.iter().any(|s| s.record.session_id == prefix);
        let mut matching = sessions.into_iter().filter(|s| {
            if exact {
                s.record.session_id == prefix
            } else {
                s.record.session_id.starts_with(prefix)
            }
        });
        let Some(first) = matching.next() else {
            return Ok(None);
        };
        let mut others: Vec<String> = matching
            .map(|s| s.record.session_id)
            .filter(|id| *id != first.record.session_id)
            .collect();
        if others.is_empty() {
            return Ok(Some(first));
        }
        others.push(first.record.session_id);
        others.sort();
        others.dedup();
        Err(SessionError::AmbiguousSessionId {
            prefix: prefix.to_owned(),
            matches: others,
        })
    }

    // --- writing --------------------------------------------------------------------------

    /// Stores `record` under `key`, replacing any record there.
    pub fn set(&self, key: &str, record: SessionRecord) -> Result<(), SessionError> {
        self.modify(|map| {
            map.insert(key.to_owned(), to_value(&record)?);
            Ok(())
        })
    }

    /// Changes the record of `key` in place (under the lock, on the file's current content)
    /// and returns it as stored. `updatedAt` is left to `change`.
    pub fn update(
        &self,
        key: &str,
        change: impl FnOnce(&mut SessionRecord),
    ) -> Result<SessionRecord, SessionError> {
        self.modify(|map| {
            let value = map
                .get(key)
                .cloned()
                .ok_or_else(|| SessionError::UnknownSessionKey(key.to_owned()))?;
            let mut record = parse_record(key, value)?;
            change(&mut record);
            map.insert(key.to_owned(), to_value(&record)?);
            Ok(record)
        })
    }

    /// Starts a new session for `key`, as `/new` does: a new transcript `<dir>/<id>.jsonl`
    /// (nothing on disk until its first assistant message, as pi) and the key's record
    /// pointing at it, keeping the key's settings (unknown fields, model) and resetting its
    /// counters. The previous transcript is kept. The id is `options.session_id` or a new
    /// UUID.
    pub fn new_session_for_key(
        &self,
        key: &str,
        mut options: SessionOptions,
    ) -> Result<Transcript, SessionError> {
        let (id, path) = self.new_transcript_path(options.session_id.take())?;
        options.session_id = Some(id.clone());
        let transcript = Transcript::open(&path, options)?;
        self.point_key_at(key, None, id, &path, None)?;
        Ok(transcript)
    }

    /// Forks the session of `source_key` at `leaf_id` (default: its leaf) into a new session
    /// stored under `new_key` (which may be `source_key` itself): see [`Transcript::fork`].
    /// The new record takes the source record's settings and fresh counters.
    pub fn fork(
        &self,
        source_key: &str,
        leaf_id: Option<&str>,
        new_key: &str,
        mut options: SessionOptions,
    ) -> Result<Transcript, SessionError> {
        let source_record = self
            .find_by_key(source_key)?
            .ok_or_else(|| SessionError::UnknownSessionKey(source_key.to_owned()))?;
        let source = Transcript::open(source_record.transcript_path(&self.dir), options.clone())?;
        let (id, path) = self.new_transcript_path(options.session_id.take())?;
        options.session_id = Some(id.clone());
        let forked = source.fork(leaf_id, &path, options)?;
        let messages = u64::try_from(forked.build_context().messages.len()).unwrap_or(u64::MAX);
        self.point_key_at(new_key, Some(&source_record), id, &path, Some(messages))?;
        Ok(forked)
    }

    /// Deletes the session of `key`: its record, and its transcript file unless another key
    /// still leads to it. Returns the record, `None` if there was none.
    ///
    /// Waits for a writer of the transcript to finish (its lock). Only a `.jsonl` file inside
    /// the sessions directory is ever deleted: a `sessionFile` pointing elsewhere is someone
    /// else's file, left in place with a warning.
    pub fn delete(&self, key: &str) -> Result<Option<SessionRecord>, SessionError> {
        Ok(self
            .remove_key(key, Disposal::Remove)?
            .map(|deleted| deleted.record))
    }

    /// Deletes the session of `key` as OpenClaw's `sessions.delete` does: its record goes, and
    /// its transcript file (unless another key still leads to it) is kept, renamed to
    /// `<file>.deleted.<ISO time with `-` for `:`>` so it no longer lists as a session but can
    /// be recovered. The same locking and ownership rules as [`SessionStore::delete`] apply.
    pub fn delete_archiving(&self, key: &str) -> Result<Option<DeletedSession>, SessionError> {
        self.remove_key(key, Disposal::Archive)
    }

    fn remove_key(
        &self,
        key: &str,
        disposal: Disposal,
    ) -> Result<Option<DeletedSession>, SessionError> {
        let Some(record) = self.find_by_key(key)? else {
            return Ok(None);
        };
        let path = record.transcript_path(&self.dir);
        let owned = self.is_own_transcript(&path);
        // Transcript lock first (module comment), so no writer appends to a file being deleted.
        let transcript_lock = if owned {
            Some(WriteLock::acquire(&path, self.lock_timeout)?)
        } else {
            tracing::warn!(file = %path.display(), "session file is outside the sessions directory; not deleting it");
            None
        };
        let removed = self.modify(|map| {
            // Checked before removing: a failed change must leave the map as it was.
            let Some(value) = map.get(key) else {
                return Ok(None);
            };
            let record = parse_record(key, value.clone())?;
            if record.transcript_path(&self.dir) != path {
                // `/new` or a fork re-pointed the key while we waited for the transcript.
                return Err(SessionError::ChangedOnDisk {
                    path: self.store_path(),
                    what: format!("session key {key:?} moved to another session meanwhile"),
                });
            }
            map.shift_remove(key);
            let still_used = map.iter().any(|(_, other)| {
                SessionRecord::deserialize(other)
                    .is_ok_and(|r| r.transcript_path(&self.dir) == path)
            });
            Ok(Some((record, still_used)))
        })?;
        let Some((record, still_used)) = removed else {
            return Ok(None);
        };
        let mut archived = None;
        if let Some(lock) = transcript_lock {
            if !still_used {
                match disposal {
                    Disposal::Remove => match std::fs::remove_file(&path) {
                        Ok(()) => {}
                        Err(e) if e.kind() == ErrorKind::NotFound => {}
                        Err(e) => return Err(SessionError::io(&path, "delete", e)),
                    },
                    Disposal::Archive => archived = self.archive(&path)?,
                }
            }
            // Removes the lock file too; a failure to do so is logged, the delete is done.
            drop(lock);
        }
        Ok(Some(DeletedSession { record, archived }))
    }

    /// Renames `path` to its `.deleted.<time>` name; `None` when there was no file (a session
    /// deleted before its first reply).
    fn archive(&self, path: &Path) -> Result<Option<PathBuf>, SessionError> {
        // OpenClaw's `toISOString().replaceAll(":", "-")`: sortable and valid on every OS.
        let stamp = crate::time::format_iso(self.clock.now_ms()).replace(':', "-");
        let mut name = path.as_os_str().to_owned();
        name.push(format!(".deleted.{stamp}"));
        let target = PathBuf::from(name);
        match std::fs::rename(path, &target) {
            Ok(()) => Ok(Some(target)),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(SessionError::io(path, "archive", e)),
        }
    }

    // --- internals ------------------------------------------------------------------------

    /// The store as on disk; empty when missing or blank. Anything but a JSON object is
    /// refused.
    fn read(&self) -> Result<JsonObject, SessionError> {
        let path = self.store_path();
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(JsonObject::new()),
            Err(e) => return Err(SessionError::io(&path, "read", e)),
        };
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(JsonObject::new());
        }
        let invalid = |reason: String| SessionError::InvalidStore {
            path: path.clone(),
            reason,
        };
        match serde_json::from_slice::<Value>(&bytes) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(_) => Err(invalid("it is not a JSON object".to_owned())),
            Err(e) => Err(invalid(format!("not JSON: {e}"))),
        }
    }

    /// Read-modify-write under the store lock; the file is rewritten only if `change` succeeds,
    /// in one write with the changes other callers of this process make meanwhile
    /// ([`crate::store_commit`]). `change` must leave the map untouched when it fails.
    fn modify<R>(
        &self,
        change: impl FnOnce(&mut JsonObject) -> Result<R, SessionError>,
    ) -> Result<R, SessionError> {
        std::fs::create_dir_all(&self.dir)
            .map_err(|e| SessionError::io(&self.dir, "create sessions directory", e))?;
        crate::store_commit::commit(
            &self.store_path(),
            self.lock_timeout,
            self.durable,
            || self.read(),
            change,
        )
    }

    /// How many times this process has rewritten this store's `sessions.json`: changes made
    /// concurrently share one write, so this counts writes, not changes (for diagnostics and
    /// benchmarks).
    pub fn store_writes(&self) -> u64 {
        crate::store_commit::writes(&self.store_path())
    }

    /// A fresh session id (or the requested one) and its transcript path, which must be free.
    fn new_transcript_path(
        &self,
        requested: Option<String>,
    ) -> Result<(String, PathBuf), SessionError> {
        let id = requested.unwrap_or_else(uuid_v4);
        let path = transcript_path(&self.dir, &id)?;
        std::fs::create_dir_all(&self.dir)
            .map_err(|e| SessionError::io(&self.dir, "create sessions directory", e))?;
        if path.exists() {
            return Err(SessionError::InvalidName {
                what: "session id",
                value: id,
                reason: "a session with this id exists already",
            });
        }
        Ok((id, path))
    }

    /// The record of `key`, or a new one pointing at a fresh session id, under one hold of the
    /// lock; `true` when it was created.
    pub(crate) fn find_or_insert(&self, key: &str) -> Result<(SessionRecord, bool), SessionError> {
        // Every turn binds its key, and a key once bound keeps a record until `/new`, a fork
        // or a delete replaces it, each rewriting the file atomically (a reader sees the old
        // or the new file, never a mix). So a plain read that finds the key answers as well
        // as one under the lock, and binding a known key rewrites (and fsyncs) nothing: the
        // rewrite of the whole store per turn made N turns on N keys cost O(N²).
        if let Some(value) = self.read()?.shift_remove(key) {
            return Ok((parse_record(key, value)?, false));
        }
        let (id, path) = self.new_transcript_path(None)?;
        let file = std::path::absolute(&path)
            .unwrap_or_else(|_| path.clone())
            .to_string_lossy()
            .into_owned();
        let now = self.clock.now_ms();
        self.modify(|map| {
            if let Some(value) = map.get(key) {
                return Ok((parse_record(key, value.clone())?, false));
            }
            let record = SessionRecord::new(id, Some(file), now);
            map.insert(key.to_owned(), to_value(&record)?);
            Ok((record, true))
        })
    }

    /// Points `key` at the session `id` in `path`, keeping the settings of `base` (default:
    /// the key's current record, if readable), with `message_count` messages in its context.
    fn point_key_at(
        &self,
        key: &str,
        base: Option<&SessionRecord>,
        id: String,
        path: &Path,
        message_count: Option<u64>,
    ) -> Result<(), SessionError> {
        let file = std::path::absolute(path)
            .unwrap_or_else(|_| path.to_owned())
            .to_string_lossy()
            .into_owned();
        let now = self.clock.now_ms();
        self.modify(|map| {
            let current = map
                .get(key)
                .and_then(|v| SessionRecord::deserialize(v).ok());
            let mut record = match base.or(current.as_ref()) {
                Some(base) => base.continued_by(id, file, now),
                None => SessionRecord::new(id, Some(file), now),
            };
            record.message_count = message_count;
            map.insert(key.to_owned(), to_value(&record)?);
            Ok(())
        })
    }

    /// Whether `path` is a transcript inside this store's directory (so deleting it is ours
    /// to do).
    fn is_own_transcript(&self, path: &Path) -> bool {
        let is_jsonl = path.extension().is_some_and(|e| e == TRANSCRIPT_EXTENSION);
        let parent = path.parent().and_then(|p| p.canonicalize().ok());
        is_jsonl && parent.is_some() && parent == self.dir.canonicalize().ok()
    }
}

fn parse_record(key: &str, value: Value) -> Result<SessionRecord, SessionError> {
    serde_json::from_value(value).map_err(|e| SessionError::InvalidStoreEntry {
        key: key.to_owned(),
        reason: e.to_string(),
    })
}

fn to_value(record: &SessionRecord) -> Result<Value, SessionError> {
    Ok(serde_json::to_value(record)?)
}
