//! The background fsync of [`crate::FsyncPolicy::OnTurnEnd`]: one thread per open session
//! file that forces its lines to stable storage off the append path.
//!
//! Why off the append path: `fdatasync` costs milliseconds on ordinary disks (4–9 ms at p99
//! on the benchmark machine), which the append of every turn end would otherwise wait for,
//! while a plain `write` takes microseconds. Moving the fsync to a thread costs nothing in
//! what a *process* crash may lose: a line is in the kernel's page cache once its `write`
//! returned, and a killed process cannot take it back. Only a crash of the *machine* in the
//! few milliseconds between the write and the background fsync can lose the turn's lines —
//! the documented trade-off of `on-turn-end`, which already accepts losing the turn in
//! progress. `always` keeps its fsync inside the append; an explicit sync or close waits.
//!
//! The thread owns a `try_clone`d handle of the append handle (the same open file, so an
//! fsync through it covers every write made through the other) and takes requests from a
//! channel of capacity one. A request that finds the channel full is dropped: the queued
//! request's fsync has not started yet, so it will cover this write too. The thread is
//! started at the first request and joined by [`Syncer::finish`], which waits for the fsync
//! in flight and any queued one; the writer finishes it before releasing the write lock, so
//! the thread never outlives the lock.
//!
//! A failed fsync cannot be returned to the append that asked for it, which has returned
//! long since; it is kept (the first one, until taken) and reported by the writer's next
//! append, sync or close through [`Syncer::take_error`].

use std::fs::File;
use std::io;
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

/// The background fsync of one session file; see the module comment.
#[derive(Debug, Default)]
pub(crate) struct Syncer {
    /// What the thread reports back.
    shared: Arc<Shared>,
    /// The running thread, once started.
    worker: Option<Worker>,
}

/// A started thread and the way to reach it.
#[derive(Debug)]
struct Worker {
    requests: SyncSender<()>,
    thread: JoinHandle<()>,
}

/// State shared with the thread.
#[derive(Debug, Default)]
struct Shared {
    /// The first fsync failure not reported yet.
    error: Mutex<Option<io::Error>>,
    /// Test hooks: counting and failing fsyncs.
    #[cfg(test)]
    hooks: Arc<TestHooks>,
}

impl Shared {
    /// Keeps `e` unless an earlier failure is still unreported: the earliest one marks where
    /// durability was first lost.
    fn record(&self, e: io::Error) {
        // A poisoned lock only means a thread panicked while holding it; the slot is still a
        // plain `Option`.
        let mut slot = self.error.lock().unwrap_or_else(PoisonError::into_inner);
        slot.get_or_insert(e);
    }
}

impl Syncer {
    /// Asks for `file`'s written lines to be fsynced in the background; returns at once.
    ///
    /// The first request starts the thread with a clone of `file`; later requests must pass
    /// the same file (the writer finishes the syncer before it replaces its handle). Fails
    /// only if the thread cannot be started, or has stopped and the fsync done here instead
    /// fails.
    pub(crate) fn request(&mut self, file: &File) -> io::Result<()> {
        if self.worker.is_none() {
            self.worker = Some(self.spawn(file)?);
        }
        let Some(worker) = &self.worker else {
            return Ok(());
        };
        match worker.requests.try_send(()) {
            // Full: a queued request whose fsync has not begun covers this write as well.
            Ok(()) | Err(TrySendError::Full(())) => Ok(()),
            Err(TrySendError::Disconnected(())) => {
                // The thread is gone, which only a panic could do. Reap it (recording the
                // panic) and keep the line's durability by syncing here.
                self.finish();
                file.sync_data()
            }
        }
    }

    fn spawn(&self, file: &File) -> io::Result<Worker> {
        let file = file.try_clone()?;
        // One pending request is enough: see the module comment on coalescing.
        let (requests, rx) = sync_channel(1);
        let shared = Arc::clone(&self.shared);
        let thread = std::thread::Builder::new()
            .name("clawloop-fsync".to_owned())
            .spawn(move || run(&file, &rx, &shared))?;
        Ok(Worker { requests, thread })
    }

    /// Stops the thread after it has finished the fsync in flight and any queued one, and
    /// waits for it. A no-op when no thread runs; the next request starts a new one.
    pub(crate) fn finish(&mut self) {
        let Some(Worker { requests, thread }) = self.worker.take() else {
            return;
        };
        // Dropping the sender ends the thread's loop once the queue is drained.
        drop(requests);
        if thread.join().is_err() {
            self.shared
                .record(io::Error::other("the background fsync thread panicked"));
        }
    }

    /// Whether a background fsync failed and was not reported yet.
    pub(crate) fn has_error(&self) -> bool {
        self.shared
            .error
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }

    /// The first background fsync failure since the last call, if any.
    pub(crate) fn take_error(&self) -> Option<io::Error> {
        self.shared
            .error
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    /// The test hooks of this syncer (shared with its thread, and usable after it is gone).
    #[cfg(test)]
    pub(crate) fn hooks(&self) -> Arc<TestHooks> {
        Arc::clone(&self.shared.hooks)
    }
}

impl Drop for Syncer {
    fn drop(&mut self) {
        self.finish();
    }
}

/// The thread: one fsync per batch of requests until the sender is dropped.
fn run(file: &File, requests: &Receiver<()>, shared: &Shared) {
    // `recv` keeps returning queued requests after the sender is gone and fails only once the
    // queue is empty, so a request made before `finish` is always served.
    while requests.recv().is_ok() {
        if let Err(e) = fsync(file, shared) {
            shared.record(e);
        }
        #[cfg(test)]
        shared
            .hooks
            .completed
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// One fsync (data only: the size change of an append is included, timestamps need not be).
fn fsync(file: &File, shared: &Shared) -> io::Result<()> {
    #[cfg(test)]
    {
        use std::sync::atomic::Ordering;
        let delay_ms = shared.hooks.delay_ms.load(Ordering::SeqCst);
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        if shared.hooks.fail_next.swap(false, Ordering::SeqCst) {
            return Err(io::Error::other("injected fsync failure"));
        }
    }
    #[cfg(not(test))]
    let _ = shared;
    file.sync_data()
}

/// Hooks for tests: what cannot be observed from outside (whether an fsync ran) and what
/// cannot be caused from outside (a failing fsync, a slow disk).
#[cfg(test)]
#[derive(Debug, Default)]
pub(crate) struct TestHooks {
    /// Background fsyncs finished, failed ones included.
    pub(crate) completed: std::sync::atomic::AtomicU64,
    /// Makes the next background fsync fail.
    pub(crate) fail_next: std::sync::atomic::AtomicBool,
    /// Sleeps this long before each background fsync.
    pub(crate) delay_ms: std::sync::atomic::AtomicU64,
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::atomic::Ordering;

    use super::*;

    fn temp_file() -> (tempfile::TempDir, File) {
        let dir = tempfile::tempdir().unwrap();
        let file = File::create(dir.path().join("f")).unwrap();
        (dir, file)
    }

    #[test]
    fn nothing_starts_before_the_first_request() {
        let mut s = Syncer::default();
        assert!(s.worker.is_none());
        s.finish();
        assert!(s.take_error().is_none());
        assert_eq!(s.hooks().completed.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn finish_waits_for_a_slow_fsync_in_flight() {
        let (_dir, mut file) = temp_file();
        let mut s = Syncer::default();
        s.hooks().delay_ms.store(100, Ordering::SeqCst);
        file.write_all(b"line\n").unwrap();
        s.request(&file).unwrap();
        assert!(s.worker.is_some());
        s.finish();
        assert!(s.worker.is_none());
        assert_eq!(s.hooks().completed.load(Ordering::SeqCst), 1);
        assert!(s.take_error().is_none());
    }

    #[test]
    fn requests_made_during_an_fsync_are_coalesced_and_all_served_before_finish() {
        let (_dir, mut file) = temp_file();
        let mut s = Syncer::default();
        s.hooks().delay_ms.store(50, Ordering::SeqCst);
        for _ in 0..20 {
            file.write_all(b"line\n").unwrap();
            s.request(&file).unwrap();
        }
        s.finish();
        // The first request, then at most one queued behind each running fsync: 20 requests
        // within the first 50 ms fsync make two fsyncs, not twenty.
        let done = s.hooks().completed.load(Ordering::SeqCst);
        assert!((1..=3).contains(&done), "{done} fsyncs");
    }

    #[test]
    fn a_failure_is_kept_until_taken_and_the_thread_goes_on() {
        let (_dir, file) = temp_file();
        let mut s = Syncer::default();
        s.hooks().fail_next.store(true, Ordering::SeqCst);
        s.request(&file).unwrap();
        s.finish();
        let e = s.take_error().unwrap();
        assert_eq!(e.to_string(), "injected fsync failure");
        assert!(s.take_error().is_none());
        // A new request restarts the thread, and its fsync succeeds.
        s.request(&file).unwrap();
        s.finish();
        assert!(s.take_error().is_none());
        assert_eq!(s.hooks().completed.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn dropping_joins_the_thread() {
        let (_dir, file) = temp_file();
        let mut s = Syncer::default();
        s.hooks().delay_ms.store(100, Ordering::SeqCst);
        s.request(&file).unwrap();
        let hooks = s.hooks();
        drop(s);
        assert_eq!(hooks.completed.load(Ordering::SeqCst), 1);
    }
}
