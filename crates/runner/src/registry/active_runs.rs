//! The active-run registry (reference §3, `pi-embedded-runner/runs.ts`): which embedded run
//! each session has right now, so a chat gateway or the CLI can steer it, abort it, or wait
//! for it to end. A value owned by a runtime, never a process global.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use clawloop_core::Clock;
use clawloop_core::message::{AgentMessage, UserMessage};
use parking_lot::Mutex;
use tokio::sync::Notify;

use super::model_switch::ModelSwitchRequest;
use super::run_handle::RunHandle;

/// How long [`ActiveRuns::wait_for_end`] waits unless told (OpenClaw's default).
pub const DEFAULT_RUN_END_WAIT: Duration = Duration::from_millis(15_000);
/// The shortest wait [`ActiveRuns::wait_for_end`] uses, whatever it is told.
pub const MIN_RUN_END_WAIT: Duration = Duration::from_millis(100);
/// How many of a run's latest messages a snapshot keeps.
pub const SNAPSHOT_MESSAGE_LIMIT: usize = 100;

/// What a running run last reported about itself (`updateActiveEmbeddedRunSnapshot`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunSnapshot {
    /// The transcript's leaf entry id, when the transcript has one.
    pub transcript_leaf_id: Option<String>,
    /// The run's latest messages (at most [`SNAPSHOT_MESSAGE_LIMIT`]).
    pub messages: Vec<AgentMessage>,
    /// The prompt being answered, if any.
    pub in_flight_prompt: Option<String>,
}

/// Whether a registration started a run or replaced the session's previous handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Registered {
    /// The session had no active run.
    Started,
    /// Another handle was registered for the session and is now replaced.
    Replaced,
}

struct ActiveRun {
    handle: RunHandle,
    session_key: Option<String>,
}

#[derive(Default)]
struct State {
    runs: HashMap<String, ActiveRun>,
    session_ids_by_key: HashMap<String, String>,
    snapshots: HashMap<String, RunSnapshot>,
    model_switches: HashMap<String, ModelSwitchRequest>,
}

struct Shared {
    state: Mutex<State>,
    clock: Arc<dyn Clock>,
    /// Woken whenever a run is cleared.
    run_ended: Notify,
}

/// The active runs of one runtime, keyed by session id. Clones share the same registry.
#[derive(Clone)]
pub struct ActiveRuns {
    shared: Arc<Shared>,
}

impl fmt::Debug for ActiveRuns {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.shared.state.lock();
        let mut ids: Vec<&String> = state.runs.keys().collect();
        ids.sort();
        f.debug_struct("ActiveRuns").field("runs", &ids).finish()
    }
}

impl ActiveRuns {
    /// An empty registry; `clock` stamps steering messages.
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        ActiveRuns {
            shared: Arc::new(Shared {
                state: Mutex::new(State::default()),
                clock,
                run_ended: Notify::new(),
            }),
        }
    }

    /// Registers `handle` as the active run of `session_id` (`setActiveEmbeddedRun`); with a
    /// session key, the key also resolves to this session id while the run is active.
    pub fn register(
        &self,
        session_id: &str,
        session_key: Option<&str>,
        handle: RunHandle,
    ) -> Registered {
        let session_key = session_key
            .map(str::trim)
            .filter(|key| !key.is_empty())
            .map(str::to_owned);
        let mut state = self.shared.state.lock();
        if let Some(key) = &session_key {
            state
                .session_ids_by_key
                .insert(key.clone(), session_id.to_owned());
        }
        let previous = state.runs.insert(
            session_id.to_owned(),
            ActiveRun {
                handle,
                session_key,
            },
        );
        let registered = match previous {
            Some(_) => Registered::Replaced,
            None => Registered::Started,
        };
        tracing::debug!(
            session_id,
            reason = match registered {
                Registered::Started => "run_started",
                Registered::Replaced => "run_replaced",
            },
            total_active = state.runs.len(),
            "run registered"
        );
        registered
    }

    /// Removes the active run of `session_id`, but only when it is `handle` itself: a late
    /// clear from an old run must not remove a newer one (`clearActiveEmbeddedRun`). Also drops
    /// the run's snapshot and pending model switch and wakes whoever waits for its end.
    /// Returns whether the run was removed.
    pub fn clear(&self, session_id: &str, handle: &RunHandle) -> bool {
        {
            let mut state = self.shared.state.lock();
            let matches = state
                .runs
                .get(session_id)
                .is_some_and(|run| run.handle.same_as(handle));
            if !matches {
                tracing::debug!(session_id, reason = "handle_mismatch", "run clear skipped");
                return false;
            }
            if let Some(run) = state.runs.remove(session_id)
                && let Some(key) = run.session_key
                && state.session_ids_by_key.get(&key).map(String::as_str) == Some(session_id)
            {
                state.session_ids_by_key.remove(&key);
            }
            state.snapshots.remove(session_id);
            state.model_switches.remove(session_id);
            tracing::debug!(session_id, total_active = state.runs.len(), "run cleared");
        }
        self.shared.run_ended.notify_waiters();
        true
    }

    /// Steers the active run of `session_id` with a user message (`queueEmbeddedPiMessage`).
    /// Returns false, delivering nothing, when the session has no active run, the run is not
    /// streaming, or it is compacting.
    pub fn queue_message(&self, session_id: &str, text: &str) -> bool {
        let Some(handle) = self.handle(session_id) else {
            tracing::debug!(session_id, reason = "no_active_run", "queue message failed");
            return false;
        };
        if !handle.is_streaming() {
            tracing::debug!(session_id, reason = "not_streaming", "queue message failed");
            return false;
        }
        if handle.is_compacting() {
            tracing::debug!(session_id, reason = "compacting", "queue message failed");
            return false;
        }
        let message = UserMessage::text(text, self.shared.clock.now_ms());
        handle.queue_message(AgentMessage::User(message));
        true
    }

    /// Aborts the active run of `session_id`; false when there is none.
    pub fn abort(&self, session_id: &str) -> bool {
        match self.handle(session_id) {
            Some(handle) => {
                tracing::debug!(session_id, "aborting run");
                handle.abort();
                true
            }
            None => {
                tracing::debug!(session_id, reason = "no_active_run", "abort failed");
                false
            }
        }
    }

    /// Aborts every run that is compacting now; returns whether any was.
    pub fn abort_compacting(&self) -> bool {
        self.abort_where(RunHandle::is_compacting)
    }

    /// Aborts every active run; returns whether there was any.
    pub fn abort_all(&self) -> bool {
        self.abort_where(|_| true)
    }

    fn abort_where(&self, select: impl Fn(&RunHandle) -> bool) -> bool {
        // Handles are collected first so no probe runs under the registry lock.
        let handles: Vec<RunHandle> = {
            let state = self.shared.state.lock();
            state.runs.values().map(|run| run.handle.clone()).collect()
        };
        let mut aborted = false;
        for handle in handles.iter().filter(|handle| select(handle)) {
            handle.abort();
            aborted = true;
        }
        aborted
    }

    /// The active run's handle of `session_id`.
    pub fn handle(&self, session_id: &str) -> Option<RunHandle> {
        let state = self.shared.state.lock();
        state.runs.get(session_id).map(|run| run.handle.clone())
    }

    /// Whether `session_id` has an active run.
    pub fn is_active(&self, session_id: &str) -> bool {
        self.shared.state.lock().runs.contains_key(session_id)
    }

    /// Whether `session_id` has an active run that is streaming.
    pub fn is_streaming(&self, session_id: &str) -> bool {
        self.handle(session_id)
            .is_some_and(|handle| handle.is_streaming())
    }

    /// How many runs are active.
    pub fn active_count(&self) -> usize {
        self.shared.state.lock().runs.len()
    }

    /// The session id whose active run was registered under `session_key` (trimmed).
    pub fn session_id_for_key(&self, session_key: &str) -> Option<String> {
        let key = session_key.trim();
        if key.is_empty() {
            return None;
        }
        self.shared
            .state
            .lock()
            .session_ids_by_key
            .get(key)
            .cloned()
    }

    /// Waits until the run active on `session_id` now is cleared; true at once when there is
    /// none, false when `timeout` (at least [`MIN_RUN_END_WAIT`]) passes first
    /// (`waitForEmbeddedPiRunEnd`). A newer run registered in the meantime is not waited for.
    pub async fn wait_for_end(&self, session_id: &str, timeout: Duration) -> bool {
        let Some(current) = self.handle(session_id) else {
            return true;
        };
        let deadline = tokio::time::Instant::now() + timeout.max(MIN_RUN_END_WAIT);
        let ended = || {
            let state = self.shared.state.lock();
            !state
                .runs
                .get(session_id)
                .is_some_and(|run| run.handle.same_as(&current))
        };
        let finished = self.wait_until(deadline, ended).await;
        if !finished {
            tracing::warn!(
                session_id,
                timeout_ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX),
                "wait timeout"
            );
        }
        finished
    }

    /// Waits until no run is active, or `timeout` passes; returns whether none is left
    /// (`waitForActiveEmbeddedRuns`, woken by each clear instead of polling).
    pub async fn wait_for_all(&self, timeout: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + timeout;
        self.wait_until(deadline, || self.shared.state.lock().runs.is_empty())
            .await
    }

    async fn wait_until(&self, deadline: tokio::time::Instant, done: impl Fn() -> bool) -> bool {
        loop {
            let cleared = self.shared.run_ended.notified();
            tokio::pin!(cleared);
            // Registered before the check, so a clear between the check and the await is seen.
            cleared.as_mut().enable();
            if done() {
                return true;
            }
            if tokio::time::timeout_at(deadline, cleared).await.is_err() {
                return done();
            }
        }
    }

    /// Stores what the active run of `session_id` reports about itself, keeping its latest
    /// [`SNAPSHOT_MESSAGE_LIMIT`] messages; ignored when the session has no active run.
    pub fn update_snapshot(&self, session_id: &str, mut snapshot: RunSnapshot) {
        let excess = snapshot
            .messages
            .len()
            .saturating_sub(SNAPSHOT_MESSAGE_LIMIT);
        snapshot.messages.drain(..excess);
        let mut state = self.shared.state.lock();
        if state.runs.contains_key(session_id) {
            state.snapshots.insert(session_id.to_owned(), snapshot);
        }
    }

    /// The last snapshot of the active run of `session_id`.
    pub fn snapshot(&self, session_id: &str) -> Option<RunSnapshot> {
        self.shared.state.lock().snapshots.get(session_id).cloned()
    }

    /// Asks the run of `session_id` to switch model at its next chance; the latest request
    /// wins. Returns false, storing nothing, when the session id, provider or model is empty.
    pub fn request_model_switch(&self, session_id: &str, request: ModelSwitchRequest) -> bool {
        let session_id = session_id.trim();
        if session_id.is_empty() {
            return false;
        }
        let Some(request) = request.normalized() else {
            return false;
        };
        tracing::debug!(
            session_id,
            provider = %request.provider,
            model = %request.model,
            "model switch requested"
        );
        self.shared
            .state
            .lock()
            .model_switches
            .insert(session_id.to_owned(), request);
        true
    }

    /// Takes the pending model switch of `session_id`, if any.
    pub fn consume_model_switch(&self, session_id: &str) -> Option<ModelSwitchRequest> {
        self.shared
            .state
            .lock()
            .model_switches
            .remove(session_id.trim())
    }
}
