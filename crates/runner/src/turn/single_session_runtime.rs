//! The Tokio runtime for a process that runs one session's turns one after another: a CLI,
//! a chat, a bot that serves one conversation at a time.
//!
//! Such a process gains nothing from a second thread: a turn waits on the network and the
//! disk, and its steps run in order. Threads cost memory that stays: glibc gives every thread
//! that allocates an arena of its own and keeps what the thread freed in it (an arena gives
//! back only the free space at its top, and only past a threshold that grows with the largest
//! block ever freed). Each turn opens its transcript anew, and that transient grows with the
//! transcript, so every thread that ever opened one holds that much. Tokio's blocking pool
//! starts a thread whenever a task arrives before the last one's thread is idle again, which
//! in a sequence of short tasks is often, so the same work spreads over ever more arenas.
//! Measured over 2 000 turns of one compacting session (`cargo xtask bench scale`, RSS after
//! turn 200 → 2 000): worker threads with the default pool +23…53 %, one thread with the
//! default pool +13…35 % (up to five pool threads), one thread with one pool thread +4…12 %.
//!
//! The price of one pool thread: blocking jobs run one at a time. A turn's own file work
//! (transcript, `sessions.json`, auth state, skills) is sequential anyway; the file tools of
//! parallel tool calls (`read`, `grep`, `find`, …) take turns, and a tool's time limit
//! includes its wait. The tools never block without bound (special files are refused, walks
//! stop on cancellation) and no blocking job waits for another, so the one thread cannot
//! deadlock. A process that serves many sessions at once (a gateway) should use a
//! multi-thread runtime instead.
//!
//! ```
//! use clawloop_runner::turn::single_session_runtime;
//!
//! let runtime = single_session_runtime()?;
//! let answer = runtime.block_on(async {
//!     tokio::task::spawn_blocking(|| 6 * 7).await
//! })?;
//! assert_eq!(answer, 42);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use tokio::runtime::{Builder, Runtime};

/// Blocking-pool threads of [`single_session_runtime`].
const BLOCKING_THREADS: usize = 1;

/// A current-thread runtime with I/O and time enabled and one blocking-pool thread (see the
/// module documentation for why).
pub fn single_session_runtime() -> std::io::Result<Runtime> {
    Builder::new_current_thread()
        .enable_all()
        .max_blocking_threads(BLOCKING_THREADS)
        .build()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn blocking_jobs_share_one_thread_and_run_in_turn() {
        let runtime = single_session_runtime().expect("runtime");
        let (first, second) = runtime.block_on(async {
            let started = std::time::Instant::now();
            let slow = tokio::task::spawn_blocking(move || {
                std::thread::sleep(Duration::from_millis(30));
                (std::thread::current().id(), started.elapsed())
            });
            // Sent while the first job still runs: a default pool would start a thread for it.
            let quick = tokio::task::spawn_blocking(move || {
                (std::thread::current().id(), started.elapsed())
            });
            (
                slow.await.expect("slow job"),
                quick.await.expect("quick job"),
            )
        });
        assert_eq!(first.0, second.0, "both jobs ran on the same thread");
        assert!(
            second.1 >= Duration::from_millis(30),
            "the second job waited for the first: it started at {:?}",
            second.1
        );
    }

    #[test]
    fn the_futures_run_on_the_calling_thread() {
        let runtime = single_session_runtime().expect("runtime");
        let caller = std::thread::current().id();
        let task_thread = runtime.block_on(async {
            tokio::spawn(async { std::thread::current().id() })
                .await
                .expect("task")
        });
        assert_eq!(task_thread, caller);
    }
}
