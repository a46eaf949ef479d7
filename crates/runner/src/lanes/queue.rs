//! The lane table behind [`super::Lanes`]: per lane a FIFO of waiting entries, the ids of the
//! running tasks and a concurrency limit (reference §2, `process/command-queue.ts`).
//!
//! Everything here runs under the one mutex of the owning `Lanes`; nothing awaits or calls
//! embedder code while it is held, so the lock is only ever held for a few map operations.

use std::collections::{BTreeMap, HashMap, HashSet};

use tokio::sync::oneshot;

use super::LaneError;

/// What a waiting entry learns when its lane admits it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Admission {
    /// How long the entry waited, in clock milliseconds.
    pub(super) waited_ms: u64,
    /// Entries still queued in the lane when this one started (OpenClaw's `queuedAhead`).
    pub(super) still_queued: usize,
}

/// The sending side of a waiting entry.
pub(super) type AdmitSender = oneshot::Sender<Result<Admission, LaneError>>;
/// The receiving side a waiter awaits.
pub(super) type AdmitReceiver = oneshot::Receiver<Result<Admission, LaneError>>;

struct Entry {
    enqueued_at_ms: u64,
    admit: AdmitSender,
}

struct Lane {
    /// Keyed by entry id; ids only grow, so key order is arrival order (FIFO) and a cancelled
    /// waiter leaves the middle of the queue in O(log n).
    queue: BTreeMap<u64, Entry>,
    active: HashSet<u64>,
    max_concurrent: usize,
    /// Set by an explicit concurrency: such a lane is kept when idle so its limit survives.
    pinned: bool,
}

impl Lane {
    fn new() -> Self {
        Lane {
            queue: BTreeMap::new(),
            active: HashSet::new(),
            max_concurrent: 1,
            pinned: false,
        }
    }

    fn is_idle(&self) -> bool {
        self.queue.is_empty() && self.active.is_empty()
    }

    /// Starts queued entries, oldest first, while there is room.
    fn pump(&mut self, all_active: &mut HashSet<u64>, now_ms: u64) {
        while self.active.len() < self.max_concurrent {
            let Some((id, entry)) = self.queue.pop_first() else {
                break;
            };
            let admission = Admission {
                waited_ms: now_ms.saturating_sub(entry.enqueued_at_ms),
                still_queued: self.queue.len(),
            };
            // A failed send means the waiter is gone (its future was dropped): the slot stays
            // free for the next entry.
            if entry.admit.send(Ok(admission)).is_ok() {
                self.active.insert(id);
                all_active.insert(id);
            }
        }
    }
}

/// Every lane of one runtime.
#[derive(Default)]
pub(super) struct LaneTable {
    lanes: HashMap<String, Lane>,
    /// Ids of every running task, across lanes.
    active: HashSet<u64>,
    draining: bool,
    next_id: u64,
}

impl LaneTable {
    /// Queues an entry on `lane` (created with concurrency 1 when new) and starts what fits.
    pub(super) fn enqueue(
        &mut self,
        lane: &str,
        now_ms: u64,
    ) -> Result<(u64, AdmitReceiver), LaneError> {
        if self.draining {
            return Err(LaneError::Draining);
        }
        self.next_id += 1;
        let id = self.next_id;
        let (admit, receiver) = oneshot::channel();
        let state = self.lanes.entry(lane.to_owned()).or_insert_with(Lane::new);
        state.queue.insert(
            id,
            Entry {
                enqueued_at_ms: now_ms,
                admit,
            },
        );
        state.pump(&mut self.active, now_ms);
        Ok((id, receiver))
    }

    /// Gives back entry `id` of `lane`: a running task frees its slot (and the next entry
    /// starts), a waiting one leaves the queue. Returns whether a running task ended. An id the
    /// lane no longer knows (cleared, or started before a reset) is ignored.
    pub(super) fn release(&mut self, lane: &str, id: u64, now_ms: u64) -> bool {
        let Some(state) = self.lanes.get_mut(lane) else {
            return false;
        };
        let ended = if state.active.remove(&id) {
            self.active.remove(&id);
            state.pump(&mut self.active, now_ms);
            true
        } else {
            state.queue.remove(&id);
            false
        };
        self.prune(lane);
        ended
    }

    /// Rejects every waiting (not running) entry of `lane`; returns how many.
    pub(super) fn clear(&mut self, lane: &str) -> usize {
        let Some(state) = self.lanes.get_mut(lane) else {
            return 0;
        };
        let waiting = std::mem::take(&mut state.queue);
        let count = waiting.len();
        for entry in waiting.into_values() {
            // A waiter that is already gone needs no error.
            let _ = entry.admit.send(Err(LaneError::Cleared {
                lane: lane.to_owned(),
            }));
        }
        self.prune(lane);
        count
    }

    /// Sets the concurrency of `lane` (at least 1) and starts what now fits.
    pub(super) fn set_concurrency(&mut self, lane: &str, max_concurrent: usize, now_ms: u64) {
        let state = self.lanes.entry(lane.to_owned()).or_insert_with(Lane::new);
        state.max_concurrent = max_concurrent.max(1);
        state.pinned = true;
        state.pump(&mut self.active, now_ms);
    }

    /// The concurrency of `lane` (1 for a lane never configured).
    pub(super) fn concurrency(&self, lane: &str) -> usize {
        self.lanes.get(lane).map_or(1, |state| state.max_concurrent)
    }

    /// Waiting plus running entries of `lane` (OpenClaw's `getQueueSize`).
    pub(super) fn depth(&self, lane: &str) -> usize {
        self.lanes
            .get(lane)
            .map_or(0, |state| state.queue.len() + state.active.len())
    }

    /// Waiting plus running entries of every lane.
    pub(super) fn total_depth(&self) -> usize {
        self.lanes
            .values()
            .map(|state| state.queue.len() + state.active.len())
            .sum()
    }

    /// How many tasks are running, across lanes.
    pub(super) fn active_count(&self) -> usize {
        self.active.len()
    }

    /// The ids of the tasks running now.
    pub(super) fn active_ids(&self) -> HashSet<u64> {
        self.active.clone()
    }

    /// Whether any of `ids` is still running.
    pub(super) fn any_active(&self, ids: &HashSet<u64>) -> bool {
        ids.iter().any(|id| self.active.contains(id))
    }

    /// Starts refusing new work.
    pub(super) fn set_draining(&mut self, draining: bool) {
        self.draining = draining;
    }

    /// Whether new work is refused.
    pub(super) fn is_draining(&self) -> bool {
        self.draining
    }

    /// Forgets every running task (their late completions are then ignored), keeps the queued
    /// entries and starts them, and accepts work again (OpenClaw's `resetAllLanes`).
    pub(super) fn reset(&mut self, now_ms: u64) {
        self.draining = false;
        self.active.clear();
        for state in self.lanes.values_mut() {
            state.active.clear();
            state.pump(&mut self.active, now_ms);
        }
        self.lanes
            .retain(|_, state| state.pinned || !state.is_idle());
    }

    /// How many lanes the table holds (idle unpinned lanes are dropped).
    pub(super) fn lane_count(&self) -> usize {
        self.lanes.len()
    }

    /// Drops `lane` when nothing waits or runs on it and its limit was never set, so session
    /// lanes of finished sessions do not accumulate for the life of the runtime.
    fn prune(&mut self, lane: &str) {
        if self
            .lanes
            .get(lane)
            .is_some_and(|state| !state.pinned && state.is_idle())
        {
            self.lanes.remove(lane);
        }
    }
}
