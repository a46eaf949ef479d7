//! The file-backed [`AuthStore`]: OpenClaw's `auth-profiles.json` and `auth-state.json` in an
//! agent directory (SPEC §2, reference §13.1).
//!
//! * **Writes** replace a file atomically (temp file, fsync, rename); files are created 0600
//!   and a directory the store creates is 0700. A state with nothing in it removes
//!   `auth-state.json`, as OpenClaw does.
//! * **Updates** that change something run under one exclusive lock, `auth-store.lock` beside
//!   the files, held across processes (an OS file lock; see `file_lock.rs`). Inside the lock
//!   the files are read again, so an update always starts from what another process last
//!   wrote. An update that changes nothing is answered from a read without the lock (every
//!   write is an atomic rename); its closure then runs once more under the lock only when it
//!   does change something.
//! * **Bad files** are reported with their path and never written over: an update that cannot
//!   read a file fails before it writes anything.
//! * **Legacy files** are read, not rewritten: without `auth-profiles.json`, the credentials of
//!   a legacy `auth.json` (`{"<provider>": {type, ...}}`) appear as `<provider>:default`;
//!   without `auth-state.json`, the `order` / `lastGood` / `usageStats` an older OpenClaw kept
//!   inside `auth-profiles.json` are the state. The first write completes the migration.
//!
//! Every method **blocks** (lock wait, disk I/O). From async code call them on a blocking
//! thread — [`super::AuthProfileManager::blocking`] does that.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clawloop_core::auth_store::{
    AuthProfiles, AuthSnapshot, AuthState, AuthStore, AuthStoreError, Credential,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::atomic_write::write_atomic;
use super::file_lock;

/// The credentials file.
pub const AUTH_PROFILES_FILE: &str = "auth-profiles.json";
/// The state file.
pub const AUTH_STATE_FILE: &str = "auth-state.json";
/// The legacy credentials file, read when there is no `auth-profiles.json`.
pub const LEGACY_AUTH_FILE: &str = "auth.json";
/// The writer lock beside them.
pub const LOCK_FILE: &str = "auth-store.lock";
/// How long an update waits for another writer by default.
pub const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(10);

/// The state keys older OpenClaw releases kept inside `auth-profiles.json`.
const INLINE_STATE_KEYS: [&str; 3] = ["order", "lastGood", "usageStats"];

/// Auth profiles stored in an agent directory.
#[derive(Debug, Clone)]
pub struct FileAuthStore {
    dir: PathBuf,
    lock_timeout: Duration,
}

impl FileAuthStore {
    /// A store in `agent_dir` (`<home>/agents/<agentId>/agent`). Nothing is touched until the
    /// first call; the directory is created (0700) on the first write.
    pub fn new(agent_dir: impl Into<PathBuf>) -> Self {
        FileAuthStore {
            dir: agent_dir.into(),
            lock_timeout: DEFAULT_LOCK_TIMEOUT,
        }
    }

    /// Sets how long an update waits for the lock before failing with
    /// [`AuthStoreError::LockTimeout`].
    #[must_use]
    pub fn with_lock_timeout(mut self, timeout: Duration) -> Self {
        self.lock_timeout = timeout;
        self
    }

    /// The agent directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `<dir>/auth-profiles.json`.
    pub fn profiles_path(&self) -> PathBuf {
        self.dir.join(AUTH_PROFILES_FILE)
    }

    /// `<dir>/auth-state.json`.
    pub fn state_path(&self) -> PathBuf {
        self.dir.join(AUTH_STATE_FILE)
    }

    /// `<dir>/auth.json`.
    pub fn legacy_path(&self) -> PathBuf {
        self.dir.join(LEGACY_AUTH_FILE)
    }

    /// `<dir>/auth-store.lock`.
    pub fn lock_path(&self) -> PathBuf {
        self.dir.join(LOCK_FILE)
    }

    fn lock(&self) -> Result<file_lock::StoreLock, AuthStoreError> {
        super::atomic_write::ensure_dir(&self.dir)?;
        file_lock::acquire(&self.lock_path(), self.lock_timeout)
    }

    /// `auth-profiles.json` as stored, or the legacy `auth.json` converted, or empty.
    fn read_profiles(&self) -> Result<AuthProfiles, AuthStoreError> {
        if let Some(profiles) = read_json::<AuthProfiles>(&self.profiles_path())? {
            return Ok(profiles);
        }
        let legacy_path = self.legacy_path();
        Ok(read_json::<Value>(&legacy_path)?
            .map(|raw| profiles_from_legacy(&raw, &legacy_path))
            .transpose()?
            .unwrap_or_default())
    }

    /// `auth-state.json`, or the state an older `auth-profiles.json` carried inline, or empty.
    fn read_state(&self, profiles: &AuthProfiles) -> Result<AuthState, AuthStoreError> {
        match read_json::<AuthState>(&self.state_path())? {
            Some(state) => Ok(state),
            None => Ok(inline_state(&profiles.extra)),
        }
    }

    fn write_state(
        &self,
        state: &AuthState,
        profiles: &AuthProfiles,
    ) -> Result<(), AuthStoreError> {
        let path = self.state_path();
        // Removing the file would bring back a stale inline state on the next read; an empty
        // file keeps it buried.
        if state.is_empty() && !has_inline_state(&profiles.extra) {
            return match fs::remove_file(&path) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
                Err(source) => Err(AuthStoreError::Io {
                    action: "remove",
                    path,
                    source,
                }),
            };
        }
        write_atomic(&path, &to_file_bytes(state, &path)?)
    }
}

impl AuthStore for FileAuthStore {
    fn load(&self) -> Result<AuthSnapshot, AuthStoreError> {
        // No lock: every write is an atomic rename, so each file reads whole.
        let profiles = self.read_profiles()?;
        let state = self.read_state(&profiles)?;
        Ok(AuthSnapshot { profiles, state })
    }

    fn update_state(
        &self,
        update: &mut dyn FnMut(&AuthProfiles, &mut AuthState) -> bool,
    ) -> Result<AuthSnapshot, AuthStoreError> {
        // Most updates change nothing (every run asks for the profile order, which only clears
        // cooldown windows that have ended, usually none): a read without the lock answers
        // them, each file as a locked read would see it, since every write is an atomic
        // rename. Only a change takes the lock, and is made again on what the files hold
        // under it.
        let AuthSnapshot {
            profiles,
            mut state,
        } = self.load()?;
        if !update(&profiles, &mut state) {
            return Ok(AuthSnapshot { profiles, state });
        }
        let _lock = self.lock()?;
        let profiles = self.read_profiles()?;
        let mut state = self.read_state(&profiles)?;
        if update(&profiles, &mut state) {
            self.write_state(&state, &profiles)?;
        }
        Ok(AuthSnapshot { profiles, state })
    }

    fn update_profiles(
        &self,
        update: &mut dyn FnMut(&mut AuthProfiles) -> bool,
    ) -> Result<AuthProfiles, AuthStoreError> {
        let _lock = self.lock()?;
        let mut profiles = self.read_profiles()?;
        if update(&mut profiles) {
            let path = self.profiles_path();
            write_atomic(&path, &to_file_bytes(&profiles, &path)?)?;
        }
        Ok(profiles)
    }
}

/// Reads and parses a JSON file; `None` when it does not exist.
fn read_json<T: DeserializeOwned>(path: &Path) -> Result<Option<T>, AuthStoreError> {
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.kind() == io::ErrorKind::InvalidData => {
            return Err(AuthStoreError::Invalid {
                path: path.to_path_buf(),
                message: "not UTF-8 text".to_owned(),
            });
        }
        Err(source) => {
            return Err(AuthStoreError::Io {
                action: "read",
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let invalid = |message: String| AuthStoreError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    let mut de = serde_json::Deserializer::from_str(&text);
    let value: T = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let at = e.path().to_string();
        let inner = e.into_inner();
        invalid(if at == "." {
            inner.to_string()
        } else {
            format!("at {at}: {inner}")
        })
    })?;
    de.end().map_err(|e| invalid(e.to_string()))?;
    Ok(Some(value))
}

/// The file form: two-space indented JSON and a final newline, as OpenClaw writes it.
fn to_file_bytes<T: Serialize>(value: &T, path: &Path) -> Result<Vec<u8>, AuthStoreError> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(|e| AuthStoreError::Invalid {
        path: path.to_path_buf(),
        message: format!("cannot serialize: {e}"),
    })?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// OpenClaw's legacy `auth.json`: `{"<provider>": {"type": ..., ...}}`, one credential per
/// provider, which becomes profile `<provider>:default`. Entries of other types are skipped
/// (as OpenClaw skips them). A file that is not a JSON object is invalid.
fn profiles_from_legacy(raw: &Value, path: &Path) -> Result<AuthProfiles, AuthStoreError> {
    let Value::Object(entries) = raw else {
        return Err(AuthStoreError::Invalid {
            path: path.to_path_buf(),
            message: "expected an object of credentials by provider".to_owned(),
        });
    };
    let mut profiles = AuthProfiles::default();
    if entries.contains_key("profiles") {
        // Already the new layout under the old name; take it as it is.
        return serde_json::from_value(raw.clone()).map_err(|e| AuthStoreError::Invalid {
            path: path.to_path_buf(),
            message: e.to_string(),
        });
    }
    for (provider, entry) in entries {
        let Value::Object(fields) = entry else {
            continue;
        };
        if !matches!(
            fields.get("type").and_then(Value::as_str),
            Some("api_key" | "token" | "oauth")
        ) {
            continue;
        }
        let mut fields = fields.clone();
        if !fields.get("provider").is_some_and(Value::is_string) {
            fields.insert("provider".to_owned(), Value::String(provider.clone()));
        }
        let credential: Credential = serde_json::from_value(Value::Object(fields))
            .unwrap_or_else(|_| Credential::Unrecognized(entry.clone()));
        profiles
            .profiles
            .insert(format!("{provider}:default"), credential);
    }
    Ok(profiles)
}

fn has_inline_state(extra: &Map<String, Value>) -> bool {
    INLINE_STATE_KEYS.iter().any(|k| extra.contains_key(*k))
}

/// The state an older `auth-profiles.json` carried. Each part is taken only if it reads;
/// OpenClaw's own migration skips what it cannot read the same way.
fn inline_state(extra: &Map<String, Value>) -> AuthState {
    let mut state = AuthState::default();
    if let Some(order) = extra.get("order") {
        state.order = serde_json::from_value(order.clone()).ok();
    }
    if let Some(last_good) = extra.get("lastGood") {
        state.last_good = serde_json::from_value(last_good.clone()).ok();
    }
    if let Some(usage) = extra.get("usageStats") {
        state.usage_stats = serde_json::from_value(usage.clone()).ok();
    }
    state
}
