//! Lanes: named FIFO queues with a concurrency each, owned by a runtime (SPEC §8.2, reference
//! §2).
//!
//! Every run and every direct compaction is admitted first on its session lane (concurrency
//! 1: one run per session at a time) and then on a global lane (`main`: concurrency
//! `agents.defaults.maxConcurrent`, default 4). The table is a value, not a process global, so
//! two runtimes in one process never wait on each other.
//!
//! Admission is FIFO per lane. Waiting is cancel-safe: dropping a future that waits for a lane
//! frees its place, and dropping a [`LanePermit`] (the work finished, failed, panicked or was
//! dropped) frees its slot and starts the next entry.
//!
//! ```
//! # use std::sync::Arc;
//! # use clawloop_core::SystemClock;
//! # use clawloop_runner::lanes::{LaneLimits, Lanes, RunLanes};
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let lanes = Lanes::new(LaneLimits::default(), Arc::new(SystemClock));
//! let run = RunLanes::for_run(Some("agent:main:chat"), "session-id", None);
//! let reply = lanes.run_in(&run, async { "done" }).await;
//! assert_eq!(reply, Ok("done"));
//! # }
//! ```

mod error;
mod names;
mod queue;

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use clawloop_core::Clock;
use parking_lot::Mutex;
use tokio::sync::Notify;

use crate::config::AgentDefaults;

pub use error::LaneError;
pub use names::{
    CRON_LANE, MAIN_LANE, NESTED_LANE, RunLanes, SESSION_LANE_PREFIX, SUBAGENT_LANE,
    resolve_global_lane, resolve_session_lane,
};

use names::normalize_lane;
use queue::LaneTable;

/// How long an entry may wait before its admission is reported as slow (OpenClaw's
/// `warnAfterMs` default).
pub const DEFAULT_WARN_AFTER: Duration = Duration::from_millis(2_000);

/// A slow admission: the entry waited at least its warning threshold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaneWait {
    /// The lane the entry waited on.
    pub lane: String,
    /// How long it waited, in clock milliseconds.
    pub waited_ms: u64,
    /// Entries still queued on the lane when it started (OpenClaw's `queuedAhead`).
    pub queued_ahead: usize,
}

/// Called once when an entry is admitted after waiting at least its threshold.
pub type WaitCallback = Arc<dyn Fn(&LaneWait) + Send + Sync>;

/// Options of one enqueue.
#[derive(Clone)]
pub struct EnqueueOptions {
    /// The wait that counts as slow; [`DEFAULT_WARN_AFTER`] by default.
    pub warn_after: Duration,
    /// Told about a slow admission (besides the `lane wait exceeded` warning in the log).
    pub on_wait: Option<WaitCallback>,
}

impl Default for EnqueueOptions {
    fn default() -> Self {
        EnqueueOptions {
            warn_after: DEFAULT_WARN_AFTER,
            on_wait: None,
        }
    }
}

impl fmt::Debug for EnqueueOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EnqueueOptions")
            .field("warn_after", &self.warn_after)
            .field("on_wait", &self.on_wait.is_some())
            .finish()
    }
}

/// The concurrency of the global lanes (session lanes and `nested` are always 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaneLimits {
    /// `main`: `agents.defaults.maxConcurrent`, default 4 (1 = the seed's strict global
    /// serialization).
    pub main: u32,
    /// `subagent`: `agents.defaults.subagents.maxConcurrent`, default 8.
    pub subagent: u32,
    /// `cron`: `cron.maxConcurrentRuns`, default 1.
    pub cron: u32,
}

impl Default for LaneLimits {
    fn default() -> Self {
        LaneLimits {
            main: 4,
            subagent: 8,
            cron: 1,
        }
    }
}

impl LaneLimits {
    /// The limits of a configuration: `main` from `agents.defaults.maxConcurrent`, the others
    /// at their defaults.
    pub fn from_defaults(defaults: &AgentDefaults) -> Self {
        LaneLimits {
            main: defaults.max_concurrent,
            ..LaneLimits::default()
        }
    }
}

struct Shared {
    table: Mutex<LaneTable>,
    clock: Arc<dyn Clock>,
    /// Woken whenever a running task ends or the lanes are reset.
    task_ended: Notify,
}

/// The lanes of one runtime. Clones share the same lanes.
#[derive(Clone)]
pub struct Lanes {
    shared: Arc<Shared>,
}

impl fmt::Debug for Lanes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let table = self.shared.table.lock();
        f.debug_struct("Lanes")
            .field("lanes", &table.lane_count())
            .field("active", &table.active_count())
            .field("depth", &table.total_depth())
            .field("draining", &table.is_draining())
            .finish()
    }
}

/// A slot on a lane: the holder runs; dropping it frees the slot and starts the next entry.
#[must_use = "the slot is freed as soon as the permit is dropped"]
pub struct LanePermit {
    shared: Arc<Shared>,
    lane: String,
    id: u64,
}

impl LanePermit {
    /// The lane this slot belongs to.
    pub fn lane(&self) -> &str {
        &self.lane
    }
}

impl fmt::Debug for LanePermit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LanePermit")
            .field("lane", &self.lane)
            .field("id", &self.id)
            .finish()
    }
}

impl Drop for LanePermit {
    fn drop(&mut self) {
        let now_ms = self.shared.clock.now_ms();
        let ended = self
            .shared
            .table
            .lock()
            .release(&self.lane, self.id, now_ms);
        if ended {
            self.shared.task_ended.notify_waiters();
        }
    }
}

impl Lanes {
    /// Lanes with the given global limits; every other lane is created on first use with
    /// concurrency 1. `clock` measures how long entries wait.
    pub fn new(limits: LaneLimits, clock: Arc<dyn Clock>) -> Self {
        let lanes = Lanes {
            shared: Arc::new(Shared {
                table: Mutex::new(LaneTable::default()),
                clock,
                task_ended: Notify::new(),
            }),
        };
        lanes.set_concurrency(MAIN_LANE, limits.main);
        lanes.set_concurrency(SUBAGENT_LANE, limits.subagent);
        lanes.set_concurrency(CRON_LANE, limits.cron);
        lanes
    }

    /// Sets a lane's concurrency (at least 1; OpenClaw's `setCommandLaneConcurrency`) and
    /// starts the waiting entries that now fit. The lane keeps this limit while idle.
    pub fn set_concurrency(&self, lane: &str, max_concurrent: u32) {
        let lane = normalize_lane(lane);
        let limit = usize::try_from(max_concurrent).unwrap_or(usize::MAX);
        let now_ms = self.shared.clock.now_ms();
        self.shared
            .table
            .lock()
            .set_concurrency(lane, limit, now_ms);
    }

    /// A lane's concurrency.
    pub fn concurrency(&self, lane: &str) -> usize {
        self.shared.table.lock().concurrency(normalize_lane(lane))
    }

    /// Waits, FIFO, for a slot on `lane` (trimmed; `main` when empty).
    ///
    /// Fails at once with [`LaneError::Draining`] while the lanes drain, and with
    /// [`LaneError::Cleared`] when the lane is cleared before the slot comes. Dropping the
    /// returned future gives up the place in the queue.
    pub async fn acquire(
        &self,
        lane: &str,
        options: &EnqueueOptions,
    ) -> Result<LanePermit, LaneError> {
        let lane = normalize_lane(lane).to_owned();
        let now_ms = self.shared.clock.now_ms();
        let (id, admitted) = self.shared.table.lock().enqueue(&lane, now_ms)?;
        // From here on the permit owns the entry: dropped while waiting, it leaves the queue;
        // dropped after admission, it frees the slot.
        let permit = LanePermit {
            shared: Arc::clone(&self.shared),
            lane,
            id,
        };
        let admission = match admitted.await {
            Ok(admission) => admission?,
            // Only the table drops a sender unsent, and only by clearing the lane.
            Err(_) => {
                return Err(LaneError::Cleared {
                    lane: permit.lane.clone(),
                });
            }
        };
        let warn_after_ms = u64::try_from(options.warn_after.as_millis()).unwrap_or(u64::MAX);
        if admission.waited_ms >= warn_after_ms {
            let wait = LaneWait {
                lane: permit.lane.clone(),
                waited_ms: admission.waited_ms,
                queued_ahead: admission.still_queued,
            };
            tracing::warn!(
                lane = %wait.lane,
                waited_ms = wait.waited_ms,
                queue_ahead = wait.queued_ahead,
                "lane wait exceeded"
            );
            if let Some(on_wait) = &options.on_wait {
                on_wait(&wait);
            }
        }
        Ok(permit)
    }

    /// Runs `work` once `lane` admits it (OpenClaw's `enqueueCommandInLane`). `work` is not
    /// polled before then, and waits on the heap (see [`Lanes::run_in`]).
    pub fn enqueue<F: Future>(
        &self,
        lane: &str,
        options: &EnqueueOptions,
        work: F,
    ) -> impl Future<Output = Result<F::Output, LaneError>> {
        let work = Box::pin(work);
        async move {
            let _slot = self.acquire(lane, options).await?;
            Ok(work.await)
        }
    }

    /// Runs `work` inside both lanes of a run: first admitted on the session lane, then, while
    /// holding it, on the global lane (reference §2's two-level enqueue). Both slots are held
    /// until `work` ends; dropping the returned future frees both.
    ///
    /// `work` is moved to the heap before the wait: an `async fn` keeps its arguments for its
    /// whole life besides the future it awaits, so a turn passed by value was held two and
    /// three times over (a 66 KB future for every queued or running turn, of which 15 KB
    /// was the turn).
    pub fn run_in<F: Future>(
        &self,
        lanes: &RunLanes,
        work: F,
    ) -> impl Future<Output = Result<F::Output, LaneError>> {
        self.run_pinned_in(lanes, EnqueueOptions::default(), Box::pin(work))
    }

    /// [`Lanes::run_in`] with explicit options, used for both admissions.
    pub fn run_in_with<F: Future>(
        &self,
        lanes: &RunLanes,
        options: &EnqueueOptions,
        work: F,
    ) -> impl Future<Output = Result<F::Output, LaneError>> {
        self.run_pinned_in(lanes, options.clone(), Box::pin(work))
    }

    async fn run_pinned_in<F: Future>(
        &self,
        lanes: &RunLanes,
        options: EnqueueOptions,
        work: Pin<Box<F>>,
    ) -> Result<F::Output, LaneError> {
        let _session = self.acquire(&lanes.session, &options).await?;
        let _global = self.acquire(&lanes.global, &options).await?;
        Ok(work.await)
    }

    /// Rejects every entry still waiting on `lane` with [`LaneError::Cleared`]; running work
    /// is left alone. Returns how many entries were rejected (OpenClaw's `clearCommandLane`).
    pub fn clear(&self, lane: &str) -> usize {
        self.shared.table.lock().clear(normalize_lane(lane))
    }

    /// Starts refusing new work with [`LaneError::Draining`] (OpenClaw's
    /// `markGatewayDraining`). Entries already queued still run when their turn comes; a run
    /// whose session slot comes after this point is refused at its global lane.
    pub fn mark_draining(&self) {
        self.shared.table.lock().set_draining(true);
    }

    /// Whether new work is refused.
    pub fn is_draining(&self) -> bool {
        self.shared.table.lock().is_draining()
    }

    /// Shutdown: refuses new work, then waits up to `timeout` for the work running now to
    /// finish. Returns whether it all finished in time.
    pub async fn drain(&self, timeout: Duration) -> bool {
        self.mark_draining();
        self.wait_for_active(timeout).await
    }

    /// Waits up to `timeout` for the tasks running at the time of the call (not ones started
    /// later) to finish; returns whether they did (OpenClaw's `waitForActiveTasks`).
    pub async fn wait_for_active(&self, timeout: Duration) -> bool {
        let running = self.shared.table.lock().active_ids();
        if running.is_empty() {
            return true;
        }
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let ended = self.shared.task_ended.notified();
            tokio::pin!(ended);
            // Registered before the check, so an end between the check and the await is seen.
            ended.as_mut().enable();
            if !self.shared.table.lock().any_active(&running) {
                return true;
            }
            if tokio::time::timeout_at(deadline, ended).await.is_err() {
                return false;
            }
        }
    }

    /// Forgets the running tasks (their later completions are ignored), starts the queued
    /// entries and accepts new work again: the recovery for tasks that will never report back
    /// (OpenClaw's `resetAllLanes`).
    pub fn reset_all(&self) {
        let now_ms = self.shared.clock.now_ms();
        self.shared.table.lock().reset(now_ms);
        self.shared.task_ended.notify_waiters();
    }

    /// Waiting plus running entries of `lane` (OpenClaw's `getQueueSize`).
    pub fn queue_size(&self, lane: &str) -> usize {
        self.shared.table.lock().depth(normalize_lane(lane))
    }

    /// Waiting plus running entries of every lane.
    pub fn total_queue_size(&self) -> usize {
        self.shared.table.lock().total_depth()
    }

    /// How many tasks are running, across lanes.
    pub fn active_task_count(&self) -> usize {
        self.shared.table.lock().active_count()
    }

    /// How many lanes exist now: the configured global lanes plus every lane with work waiting
    /// or running (an idle session lane is dropped).
    pub fn lane_count(&self) -> usize {
        self.shared.table.lock().lane_count()
    }
}
