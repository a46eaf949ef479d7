//! Serialized runs (`serialize: true`): calls with the same queue key run one at a time, as
//! OpenClaw's `enqueueCliRun` does, because most agent CLIs lock their session or workspace
//! state and a second concurrent run would fail or corrupt it.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};

/// Per-key locks for serialized CLI runs. Clones share the locks; the `Runtime` owns the one its
/// turns use, so runs of a backend wait for each other across turns, and two runtimes do not.
#[derive(Debug, Clone, Default)]
pub struct RunQueue {
    locks: Arc<Mutex<HashMap<String, Arc<AsyncMutex<()>>>>>,
}

/// Holds a key's turn; dropping it lets the next run of the key go.
pub(crate) struct QueueTurn {
    queue: RunQueue,
    key: String,
    guard: Option<OwnedMutexGuard<()>>,
}

impl RunQueue {
    /// Waits for `key`'s turn (cancel-safe: dropping the future gives up the place).
    pub(crate) async fn turn(&self, key: String) -> QueueTurn {
        let lock = self
            .locks
            .lock()
            .entry(key.clone())
            .or_insert_with(|| Arc::new(AsyncMutex::new(())))
            .clone();
        let guard = lock.lock_owned().await;
        QueueTurn {
            queue: self.clone(),
            key,
            guard: Some(guard),
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.locks.lock().len()
    }
}

impl Drop for QueueTurn {
    fn drop(&mut self) {
        self.guard = None;
        let mut locks = self.queue.locks.lock();
        // Only the map still holds the lock: nobody waits, so the entry can go (keys include
        // session ids, which would otherwise pile up).
        if locks
            .get(&self.key)
            .is_some_and(|l| Arc::strong_count(l) == 1)
        {
            locks.remove(&self.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn entries_are_dropped_when_idle() {
        let queue = RunQueue::default();
        let first = queue.turn("k".into()).await;
        assert_eq!(queue.len(), 1);
        drop(first);
        assert_eq!(queue.len(), 0);
    }
}
