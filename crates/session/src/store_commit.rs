//! Group commit of `sessions.json` changes made by one process.
//!
//! Each change is a read-modify-write of the whole file under its cross-process
//! [`WriteLock`], and a durable write ends with an fsync. Done one change at a time, N concurrent turns
//! on N keys queue N whole-file rewrites behind a polled lock (O(N²) bytes, and waiters time
//! out). So the callers of one process share the work: while the file is being written, the
//! changes that arrive are applied, in arrival order, to the in-memory content that write
//! produces, and the next write stores all of them at once. The file lock is taken once per
//! run of writes and released as soon as no change is waiting, so other processes still
//! serialize with this one through the lock as before.
//!
//! Each caller applies its own change on its own thread (the closure may borrow from it), under
//! the store's in-process mutex, and learns its own result. A change that fails must leave the
//! content as it found it: it then fails its caller only. A failed write fails every change it
//! carried, and the changes applied after them (they were made on content that never reached
//! the disk); the next change reads the file afresh.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Duration;

use clawloop_core::message::JsonObject;

use crate::atomic::write_atomic;
use crate::error::SessionError;
use crate::lock::WriteLock;

/// The committer of one store file, shared by every caller of this process.
struct Committer {
    state: Mutex<State>,
    written: Condvar,
}

/// What the committer knows, under its mutex.
struct State {
    /// The file lock and the content as it stands with every applied change; `None` when no
    /// change is waiting or being written (the lock is then released).
    held: Option<Held>,
    /// The generation collecting changes now (from 1: generation 0 is "none yet").
    open: u64,
    /// Callers whose change is in the open generation.
    open_members: usize,
    /// A caller is writing a generation (with the mutex released).
    writing: bool,
    /// Every generation up to this one is written (or failed).
    done: u64,
    /// Failed generations: the error, and how many of its callers have yet to read it.
    failures: HashMap<u64, (io::ErrorKind, String, usize)>,
    /// Rewrites of the file made so far.
    writes: u64,
    /// A caller in the open generation asked for a durable (fsynced) write.
    open_durable: bool,
}

impl State {
    fn new() -> Self {
        State {
            held: None,
            open: 1,
            open_members: 0,
            writing: false,
            open_durable: false,
            done: 0,
            failures: HashMap::new(),
            writes: 0,
        }
    }
}

struct Held {
    // Held for as long as `content` is the file's truth; released by drop.
    _lock: WriteLock,
    content: JsonObject,
}

fn registry() -> &'static Mutex<HashMap<PathBuf, Arc<Committer>>> {
    static REGISTRY: OnceLock<Mutex<HashMap<PathBuf, Arc<Committer>>>> = OnceLock::new();
    REGISTRY.get_or_init(Default::default)
}

/// The committer of the store file `path`, by its canonical path so two spellings of one
/// directory share it. One entry per store file the process has written: a handful.
fn committer(path: &Path) -> Arc<Committer> {
    let key = path
        .parent()
        .and_then(|dir| dir.canonicalize().ok())
        .zip(path.file_name())
        .map_or_else(|| path.to_path_buf(), |(dir, name)| dir.join(name));
    let mut map = registry().lock().unwrap_or_else(PoisonError::into_inner);
    Arc::clone(map.entry(key).or_insert_with(|| {
        Arc::new(Committer {
            state: Mutex::new(State::new()),
            written: Condvar::new(),
        })
    }))
}

impl Committer {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// How many times this process has rewritten the store file `path` (0 if never).
pub(crate) fn writes(path: &Path) -> u64 {
    committer(path).lock().writes
}

/// Applies `change` to the store file `path` as read under its lock and returns its result
/// once the file holding it is written. `read` reads the file; `lock_timeout` bounds the wait
/// for another process's lock. `change` must leave the content untouched when it fails.
/// `durable` asks for the write carrying this change to be fsynced (it is when any of its
/// changes asked).
pub(crate) fn commit<R>(
    path: &Path,
    lock_timeout: Duration,
    durable: bool,
    read: impl FnOnce() -> Result<JsonObject, SessionError>,
    change: impl FnOnce(&mut JsonObject) -> Result<R, SessionError>,
) -> Result<R, SessionError> {
    let committer = committer(path);
    let mut state = committer.lock();
    // The file lock is ours while someone writes; wait for that run to settle first when it
    // has no open content to join.
    while state.held.is_none() && state.writing {
        state = committer
            .written
            .wait(state)
            .unwrap_or_else(PoisonError::into_inner);
    }
    let held = match state.held.take() {
        Some(held) => held,
        None => {
            // Other callers of this process wait on the mutex meanwhile: they would only
            // queue on the same file lock.
            let lock = WriteLock::acquire(path, lock_timeout)?;
            Held {
                _lock: lock,
                content: read()?,
            }
        }
    };
    let held = state.held.insert(held);
    let result = match change(&mut held.content) {
        Ok(result) => result,
        Err(e) => {
            if state.open_members == 0 && !state.writing {
                // Nothing of ours is pending: let other processes have the file.
                state.held = None;
            }
            return Err(e);
        }
    };
    let generation = state.open;
    state.open_members += 1;
    state.open_durable |= durable;
    loop {
        if state.done >= generation {
            return match state.failures.get_mut(&generation) {
                None => Ok(result),
                Some((kind, message, readers)) => {
                    let error = io::Error::new(*kind, message.clone());
                    *readers = readers.saturating_sub(1);
                    if *readers == 0 {
                        state.failures.remove(&generation);
                    }
                    Err(SessionError::io(path, "write", error))
                }
            };
        }
        if !state.writing && state.open == generation {
            state = write_generation(&committer, state, path);
            continue;
        }
        state = committer
            .written
            .wait(state)
            .unwrap_or_else(PoisonError::into_inner);
    }
}

/// Writes the open generation: serialized under the mutex, written and fsynced without it so
/// the next changes gather meanwhile.
fn write_generation<'a>(
    committer: &'a Committer,
    mut state: MutexGuard<'a, State>,
    path: &Path,
) -> MutexGuard<'a, State> {
    let generation = state.open;
    let members = state.open_members;
    let durable = std::mem::take(&mut state.open_durable);
    state.open += 1;
    state.open_members = 0;
    state.writing = true;
    // `JSON.stringify(store, null, 2)`: two-space indent, no final newline.
    let bytes = state.held.as_ref().map(|held| {
        serde_json::to_vec_pretty(&held.content)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))
    });
    drop(state);
    let outcome = match bytes {
        Some(Ok(bytes)) => write_atomic(path, &bytes, durable),
        Some(Err(e)) => Err(e),
        None => Err(io::Error::other("the store's lock was lost")),
    };
    let mut state = committer.lock();
    state.writing = false;
    state.writes = state.writes.saturating_add(1);
    match outcome {
        Ok(()) => {
            state.done = generation;
            if state.open_members == 0 {
                state.held = None;
            }
        }
        Err(e) => {
            // The content in memory never reached the disk: drop it, and fail the changes
            // made on top of it too.
            let failure = (e.kind(), e.to_string());
            state
                .failures
                .insert(generation, (failure.0, failure.1.clone(), members));
            if state.open_members > 0 {
                let next = state.open;
                let waiting = state.open_members;
                state.failures.insert(next, (failure.0, failure.1, waiting));
                state.open += 1;
                state.open_members = 0;
                state.done = next;
            } else {
                state.done = generation;
            }
            state.held = None;
        }
    }
    committer.written.notify_all();
    state
}
