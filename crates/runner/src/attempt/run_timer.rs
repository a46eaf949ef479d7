//! The whole run's time limit (reference §6 item 11): when it fires the run is aborted — unless
//! a compaction is running, in which case it waits once more, for the compaction's own timeout,
//! and then aborts with `timedOutDuringCompaction`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// What the timer found when it fired.
#[derive(Debug, Default)]
pub struct TimerFlags {
    timed_out: AtomicBool,
    during_compaction: AtomicBool,
}

impl TimerFlags {
    /// Whether the limit ended the run.
    pub fn timed_out(&self) -> bool {
        self.timed_out.load(Ordering::SeqCst)
    }

    /// Whether it fired while a compaction was running.
    pub fn during_compaction(&self) -> bool {
        self.during_compaction.load(Ordering::SeqCst)
    }
}

/// A running timer; dropping it stops it.
#[derive(Debug)]
pub struct RunTimer {
    task: Option<JoinHandle<()>>,
    flags: Arc<TimerFlags>,
}

impl RunTimer {
    /// Starts the timer: after `limit`, cancels `cancel` — or, when `is_compacting()` says a
    /// compaction is running then, after `compaction_grace` more.
    pub fn start(
        limit: Option<Duration>,
        compaction_grace: Duration,
        cancel: CancellationToken,
        is_compacting: impl Fn() -> bool + Send + 'static,
    ) -> Self {
        let flags = Arc::new(TimerFlags::default());
        let task = limit.map(|limit| {
            let flags = Arc::clone(&flags);
            tokio::spawn(async move {
                tokio::time::sleep(limit).await;
                if is_compacting() {
                    flags.during_compaction.store(true, Ordering::SeqCst);
                    tokio::time::sleep(compaction_grace).await;
                }
                flags.timed_out.store(true, Ordering::SeqCst);
                cancel.cancel();
            })
        });
        RunTimer { task, flags }
    }

    /// What the timer found.
    pub fn flags(&self) -> &TimerFlags {
        &self.flags
    }
}

impl Drop for RunTimer {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn the_limit_cancels_the_run() {
        let cancel = CancellationToken::new();
        let timer = RunTimer::start(
            Some(Duration::from_secs(10)),
            Duration::from_secs(300),
            cancel.clone(),
            || false,
        );
        tokio::time::sleep(Duration::from_secs(9)).await;
        assert!(!cancel.is_cancelled());
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert!(cancel.is_cancelled());
        assert!(timer.flags().timed_out() && !timer.flags().during_compaction());
    }

    #[tokio::test(start_paused = true)]
    async fn a_running_compaction_gets_its_own_timeout_once() {
        let cancel = CancellationToken::new();
        let timer = RunTimer::start(
            Some(Duration::from_secs(10)),
            Duration::from_secs(300),
            cancel.clone(),
            || true,
        );
        tokio::time::sleep(Duration::from_secs(200)).await;
        assert!(!cancel.is_cancelled());
        assert!(timer.flags().during_compaction() && !timer.flags().timed_out());
        tokio::time::sleep(Duration::from_secs(111)).await;
        assert!(cancel.is_cancelled() && timer.flags().timed_out());
    }

    #[tokio::test(start_paused = true)]
    async fn no_limit_never_fires_and_a_dropped_timer_stops() {
        let cancel = CancellationToken::new();
        let none = RunTimer::start(None, Duration::ZERO, cancel.clone(), || false);
        let dropped = RunTimer::start(
            Some(Duration::from_secs(1)),
            Duration::ZERO,
            cancel.clone(),
            || false,
        );
        drop(dropped);
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert!(!cancel.is_cancelled() && !none.flags().timed_out());
    }
}
