//! The compaction-retry wait (reference §18.4).
//!
//! When the agent compacts and retries the failed request, the runner must not finish the
//! attempt until the retried request has ended: every `auto_compaction_end{willRetry:true}`
//! needs one `agent_end`. [`CompactionGate`] counts that, and [`CompactionWait`] is the shared
//! "promise": a handle that can be polled synchronously ([`CompactionWait::state`]) or awaited as
//! a [`Future`] on any executor. No runtime is needed: the gate wakes the stored wakers itself.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

/// Why a compaction wait failed: the subscription was unsubscribed (an abort, never success).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompactionWaitError {
    /// Unsubscribed while the wait was pending (`Unsubscribed during compaction`).
    UnsubscribedDuringCompaction,
    /// The wait was requested after unsubscribing (`Unsubscribed during compaction wait`).
    UnsubscribedDuringWait,
}

impl CompactionWaitError {
    /// Always `true`: callers treat the rejection like JS `AbortError` (cancellation).
    pub fn is_abort(self) -> bool {
        true
    }
}

impl fmt::Display for CompactionWaitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::UnsubscribedDuringCompaction => "Unsubscribed during compaction",
            Self::UnsubscribedDuringWait => "Unsubscribed during compaction wait",
        })
    }
}

impl std::error::Error for CompactionWaitError {}

/// Where a [`CompactionWait`] stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompactionWaitState {
    /// Compaction or a retry is still outstanding.
    Pending,
    /// Every pending retry ended.
    Resolved,
    /// Rejected (unsubscribed).
    Rejected(CompactionWaitError),
}

#[derive(Debug, Default)]
struct Shared {
    outcome: Option<Result<(), CompactionWaitError>>,
    wakers: Vec<Waker>,
}

fn lock(shared: &Mutex<Shared>) -> MutexGuard<'_, Shared> {
    // A panic while holding this lock cannot leave `Shared` inconsistent (every write is one
    // assignment), so a poisoned lock is still usable.
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A handle on the compaction-retry wait; clones share the outcome.
#[derive(Debug, Clone)]
pub struct CompactionWait {
    shared: Arc<Mutex<Shared>>,
}

impl CompactionWait {
    fn settled(outcome: Result<(), CompactionWaitError>) -> Self {
        Self {
            shared: Arc::new(Mutex::new(Shared {
                outcome: Some(outcome),
                wakers: Vec::new(),
            })),
        }
    }

    /// The current state, without blocking.
    pub fn state(&self) -> CompactionWaitState {
        match lock(&self.shared).outcome {
            None => CompactionWaitState::Pending,
            Some(Ok(())) => CompactionWaitState::Resolved,
            Some(Err(e)) => CompactionWaitState::Rejected(e),
        }
    }

    /// `true` once resolved (not rejected).
    pub fn is_resolved(&self) -> bool {
        self.state() == CompactionWaitState::Resolved
    }
}

impl Future for CompactionWait {
    type Output = Result<(), CompactionWaitError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut shared = lock(&self.shared);
        match shared.outcome {
            Some(outcome) => Poll::Ready(outcome),
            None => {
                if !shared.wakers.iter().any(|w| w.will_wake(cx.waker())) {
                    shared.wakers.push(cx.waker().clone());
                }
                Poll::Pending
            }
        }
    }
}

/// Compaction state of a subscription: in flight, retries pending, the shared wait.
#[derive(Debug, Default)]
pub struct CompactionGate {
    in_flight: bool,
    pending_retries: u32,
    shared: Option<Arc<Mutex<Shared>>>,
    unsubscribed: bool,
}

impl CompactionGate {
    /// `true` while a compaction runs.
    pub fn in_flight(&self) -> bool {
        self.in_flight
    }

    /// Retries still waiting for their `agent_end`.
    pub fn pending_retries(&self) -> u32 {
        self.pending_retries
    }

    /// `true` while compacting or a retry is pending (OpenClaw `isCompacting`).
    pub fn is_compacting(&self) -> bool {
        self.in_flight || self.pending_retries > 0
    }

    fn ensure_shared(&mut self) {
        if self.shared.is_none() && !self.unsubscribed {
            self.shared = Some(Arc::new(Mutex::new(Shared::default())));
        }
    }

    fn settle(&mut self, outcome: Result<(), CompactionWaitError>) {
        if let Some(shared) = self.shared.take() {
            let wakers = {
                let mut s = lock(&shared);
                s.outcome = Some(outcome);
                std::mem::take(&mut s.wakers)
            };
            wakers.into_iter().for_each(Waker::wake);
        }
    }

    /// `auto_compaction_start`.
    pub fn compaction_started(&mut self) {
        self.in_flight = true;
        self.ensure_shared();
    }

    /// `auto_compaction_end`: a retry adds one pending `agent_end`; otherwise an idle gate
    /// resolves the wait.
    pub fn compaction_ended(&mut self, will_retry: bool) {
        self.in_flight = false;
        if will_retry {
            self.pending_retries = self.pending_retries.saturating_add(1);
            self.ensure_shared();
        } else {
            self.resolve_if_idle();
        }
    }

    /// `agent_end`: one pending retry is done (or, with none pending, an idle gate resolves).
    pub fn retry_ended(&mut self) {
        self.pending_retries = self.pending_retries.saturating_sub(1);
        self.resolve_if_idle();
    }

    fn resolve_if_idle(&mut self) {
        if !self.is_compacting() {
            self.settle(Ok(()));
        }
    }

    /// OpenClaw `waitForCompactionRetry()`: rejected after unsubscribe, the shared wait while
    /// compacting, otherwise already resolved.
    pub fn wait(&mut self) -> CompactionWait {
        if self.unsubscribed {
            return CompactionWait::settled(Err(CompactionWaitError::UnsubscribedDuringWait));
        }
        if !self.is_compacting() {
            return CompactionWait::settled(Ok(()));
        }
        self.ensure_shared();
        match &self.shared {
            Some(shared) => CompactionWait {
                shared: Arc::clone(shared),
            },
            // Unreachable (ensure_shared just ran and we are subscribed), but resolving is the
            // answer that cannot hang a caller.
            None => CompactionWait::settled(Ok(())),
        }
    }

    /// Unsubscribe: a pending wait is rejected, never resolved, because compaction may still
    /// be running. Idempotent.
    pub fn unsubscribe(&mut self) {
        if self.unsubscribed {
            return;
        }
        self.unsubscribed = true;
        self.settle(Err(CompactionWaitError::UnsubscribedDuringCompaction));
    }

    /// `true` after [`unsubscribe`](Self::unsubscribe).
    pub fn is_unsubscribed(&self) -> bool {
        self.unsubscribed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::Wake;

    struct CountingWaker(AtomicUsize);
    impl Wake for CountingWaker {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn two_retries_need_two_agent_ends() {
        let mut gate = CompactionGate::default();
        gate.compaction_started();
        gate.compaction_ended(true);
        gate.compaction_started();
        gate.compaction_ended(true);
        let wait = gate.wait();
        gate.retry_ended();
        assert_eq!(wait.state(), CompactionWaitState::Pending);
        gate.retry_ended();
        assert_eq!(wait.state(), CompactionWaitState::Resolved);
        assert_eq!(gate.wait().state(), CompactionWaitState::Resolved);
    }

    #[test]
    fn idle_wait_resolves_and_unsubscribe_rejects() {
        let mut gate = CompactionGate::default();
        assert!(gate.wait().is_resolved());
        gate.compaction_started();
        let wait = gate.wait();
        gate.unsubscribe();
        assert_eq!(
            wait.state(),
            CompactionWaitState::Rejected(CompactionWaitError::UnsubscribedDuringCompaction)
        );
        assert_eq!(
            gate.wait().state(),
            CompactionWaitState::Rejected(CompactionWaitError::UnsubscribedDuringWait)
        );
        assert_eq!(
            CompactionWaitError::UnsubscribedDuringWait.to_string(),
            "Unsubscribed during compaction wait"
        );
    }

    #[test]
    fn future_wakes_on_resolution() {
        let mut gate = CompactionGate::default();
        gate.compaction_started();
        let mut wait = gate.wait();
        let counter = Arc::new(CountingWaker(AtomicUsize::new(0)));
        let waker = Waker::from(Arc::clone(&counter));
        let mut cx = Context::from_waker(&waker);
        assert_eq!(Pin::new(&mut wait).poll(&mut cx), Poll::Pending);
        gate.compaction_ended(false);
        assert_eq!(counter.0.load(Ordering::SeqCst), 1);
        assert_eq!(Pin::new(&mut wait).poll(&mut cx), Poll::Ready(Ok(())));
    }
}
