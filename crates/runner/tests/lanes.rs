//! Lanes through the public API: FIFO admission, the session/global two-level enqueue,
//! clear, drain, reset, wait warnings and cancel safety. Time is tokio's paused clock plus a
//! `ManualClock` for lane waits, so every test is deterministic.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use clawloop_core::clock::ManualClock;
use clawloop_runner::lanes::{
    EnqueueOptions, LaneError, LaneLimits, LaneWait, Lanes, RunLanes, WaitCallback,
};
use clawloop_runner::runtime::Runtime;
use parking_lot::Mutex;
use pretty_assertions::assert_eq;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// Lets every spawned task run until it blocks (paused time only advances when all are idle).
async fn settle() {
    tokio::time::sleep(Duration::from_millis(1)).await;
}

/// Work whose start and end are logged and whose end the test decides.
#[derive(Clone, Default)]
struct Script {
    log: Arc<Mutex<Vec<String>>>,
    gates: Arc<Mutex<HashMap<String, oneshot::Sender<()>>>>,
}

impl Script {
    fn work(&self, name: &str) -> impl Future<Output = String> + Send + 'static {
        let (open, gate) = oneshot::channel();
        self.gates.lock().insert(name.to_owned(), open);
        let log = Arc::clone(&self.log);
        let name = name.to_owned();
        async move {
            log.lock().push(format!("start {name}"));
            let _ = gate.await;
            log.lock().push(format!("end {name}"));
            name
        }
    }

    fn finish(&self, name: &str) {
        self.gates.lock().remove(name).unwrap().send(()).unwrap();
    }

    fn log(&self) -> Vec<String> {
        self.log.lock().clone()
    }
}

fn lanes_with_main(main: u32) -> (Lanes, ManualClock) {
    let clock = ManualClock::new(0);
    let limits = LaneLimits {
        main,
        ..LaneLimits::default()
    };
    (Lanes::new(limits, Arc::new(clock.clone())), clock)
}

fn spawn_in_lane(
    lanes: &Lanes,
    script: &Script,
    lane: &str,
    name: &str,
) -> JoinHandle<Result<String, LaneError>> {
    let lanes = lanes.clone();
    let lane = lane.to_owned();
    let work = script.work(name);
    tokio::spawn(async move { lanes.enqueue(&lane, &EnqueueOptions::default(), work).await })
}

fn spawn_run(
    lanes: &Lanes,
    script: &Script,
    session_key: &str,
    name: &str,
) -> JoinHandle<Result<String, LaneError>> {
    let lanes = lanes.clone();
    let run = RunLanes::for_run(Some(session_key), "unused-session-id", None);
    let work = script.work(name);
    tokio::spawn(async move { lanes.run_in(&run, work).await })
}

fn starts(log: &[String]) -> Vec<String> {
    log.iter()
        .filter_map(|line| line.strip_prefix("start ").map(str::to_owned))
        .collect()
}

#[tokio::test(start_paused = true)]
async fn a_lane_admits_in_arrival_order() {
    let (lanes, _clock) = lanes_with_main(4);
    let script = Script::default();
    let mut handles = Vec::new();
    for name in ["a", "b", "c", "d", "e"] {
        handles.push(spawn_in_lane(&lanes, &script, "session:one", name));
        settle().await;
    }
    assert_eq!(starts(&script.log()), ["a"]);
    assert_eq!(lanes.queue_size("session:one"), 5);
    for name in ["a", "b", "c", "d", "e"] {
        script.finish(name);
        settle().await;
    }
    for (handle, name) in handles.into_iter().zip(["a", "b", "c", "d", "e"]) {
        assert_eq!(handle.await.unwrap(), Ok(name.to_owned()));
    }
    assert_eq!(
        script.log(),
        [
            "start a", "end a", "start b", "end b", "start c", "end c", "start d", "end d",
            "start e", "end e"
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn one_session_runs_serially_while_sessions_share_the_global_limit() {
    let (lanes, _clock) = lanes_with_main(2);
    let script = Script::default();
    let a1 = spawn_run(&lanes, &script, "a", "a1");
    settle().await;
    let a2 = spawn_run(&lanes, &script, "a", "a2");
    settle().await;
    let b1 = spawn_run(&lanes, &script, "b", "b1");
    settle().await;
    let c1 = spawn_run(&lanes, &script, "c", "c1");
    settle().await;
    // a2 waits for its session, c1 for the global lane (a1 and b1 fill it).
    assert_eq!(starts(&script.log()), ["a1", "b1"]);
    assert_eq!(lanes.active_task_count(), 1 + 1 + 2 + 1);

    script.finish("a1");
    settle().await;
    // a1's global slot goes to c1, which queued on `main` before a2 could.
    script.finish("b1");
    settle().await;
    script.finish("c1");
    settle().await;
    script.finish("a2");
    settle().await;
    for handle in [a1, a2, b1, c1] {
        assert!(handle.await.unwrap().is_ok());
    }
    assert_eq!(
        script.log(),
        [
            "start a1", "start b1", "end a1", "start c1", "end b1", "start a2", "end c1", "end a2"
        ]
    );
    assert_eq!(lanes.total_queue_size(), 0);
}

#[tokio::test(start_paused = true)]
async fn a_global_limit_of_one_serializes_every_session() {
    let runtime = Runtime::builder().max_concurrent(1).build();
    let lanes = runtime.lanes().clone();
    let script = Script::default();
    let x = spawn_run(&lanes, &script, "x", "x");
    settle().await;
    let y = spawn_run(&lanes, &script, "y", "y");
    settle().await;
    assert_eq!(starts(&script.log()), ["x"]);
    script.finish("x");
    settle().await;
    script.finish("y");
    assert_eq!(x.await.unwrap(), Ok("x".to_owned()));
    assert_eq!(y.await.unwrap(), Ok("y".to_owned()));
    assert_eq!(script.log(), ["start x", "end x", "start y", "end y"]);
}

#[tokio::test(start_paused = true)]
async fn clear_rejects_queued_work_and_leaves_running_work_alone() {
    let (lanes, _clock) = lanes_with_main(4);
    let script = Script::default();
    let running = spawn_in_lane(&lanes, &script, " session:x ", "running");
    settle().await;
    let queued1 = spawn_in_lane(&lanes, &script, "session:x", "queued1");
    let queued2 = spawn_in_lane(&lanes, &script, "session:x", "queued2");
    settle().await;

    assert_eq!(lanes.clear("session:x"), 2);
    let cleared = LaneError::Cleared {
        lane: "session:x".to_owned(),
    };
    assert_eq!(queued1.await.unwrap(), Err(cleared.clone()));
    assert_eq!(queued2.await.unwrap(), Err(cleared.clone()));
    assert_eq!(cleared.to_string(), "Command lane \"session:x\" cleared");

    // Clearing again finds nothing; the running task finishes normally and the lane works on.
    assert_eq!(lanes.clear("session:x"), 0);
    script.finish("running");
    assert_eq!(running.await.unwrap(), Ok("running".to_owned()));
    let after = spawn_in_lane(&lanes, &script, "session:x", "after");
    settle().await;
    script.finish("after");
    assert_eq!(after.await.unwrap(), Ok("after".to_owned()));
    assert_eq!(
        script.log(),
        ["start running", "end running", "start after", "end after"]
    );
}

#[tokio::test(start_paused = true)]
async fn drain_refuses_new_work_and_waits_for_running_work() {
    let (lanes, _clock) = lanes_with_main(4);
    let script = Script::default();
    let running = spawn_run(&lanes, &script, "s", "running");
    settle().await;

    let drain = {
        let lanes = lanes.clone();
        tokio::spawn(async move { lanes.drain(Duration::from_secs(3_600)).await })
    };
    settle().await;
    assert!(lanes.is_draining());
    assert!(!drain.is_finished());

    let refused = lanes
        .enqueue("main", &EnqueueOptions::default(), async { "never" })
        .await;
    assert_eq!(refused, Err(LaneError::Draining));
    assert_eq!(
        LaneError::Draining.to_string(),
        "Gateway is draining for restart; new tasks are not accepted"
    );

    script.finish("running");
    assert_eq!(running.await.unwrap(), Ok("running".to_owned()));
    assert!(drain.await.unwrap());
    assert_eq!(script.log(), ["start running", "end running"]);
}

#[tokio::test(start_paused = true)]
async fn drain_reports_work_that_does_not_finish_in_time() {
    let (lanes, _clock) = lanes_with_main(4);
    let script = Script::default();
    let stuck = spawn_run(&lanes, &script, "s", "stuck");
    settle().await;
    assert!(!lanes.drain(Duration::from_secs(5)).await);
    // Still running: draining never cancels work.
    assert_eq!(lanes.active_task_count(), 2);
    script.finish("stuck");
    assert_eq!(stuck.await.unwrap(), Ok("stuck".to_owned()));
    assert!(lanes.wait_for_active(Duration::ZERO).await);
}

#[tokio::test(start_paused = true)]
async fn a_run_queued_on_its_session_before_drain_is_refused_at_the_global_lane() {
    let (lanes, _clock) = lanes_with_main(4);
    let script = Script::default();
    let first = spawn_run(&lanes, &script, "s", "first");
    settle().await;
    let second = spawn_run(&lanes, &script, "s", "second");
    settle().await;
    lanes.mark_draining();
    script.finish("first");
    assert_eq!(first.await.unwrap(), Ok("first".to_owned()));
    assert_eq!(second.await.unwrap(), Err(LaneError::Draining));
    assert_eq!(starts(&script.log()), ["first"]);
    assert_eq!(lanes.total_queue_size(), 0);
}

#[tokio::test(start_paused = true)]
async fn a_dropped_waiter_frees_its_place() {
    let (lanes, _clock) = lanes_with_main(4);
    let script = Script::default();
    let holder = spawn_in_lane(&lanes, &script, "session:q", "holder");
    settle().await;
    let dropped = spawn_in_lane(&lanes, &script, "session:q", "dropped");
    settle().await;
    let next = spawn_in_lane(&lanes, &script, "session:q", "next");
    settle().await;
    assert_eq!(lanes.queue_size("session:q"), 3);

    dropped.abort();
    settle().await;
    assert_eq!(lanes.queue_size("session:q"), 2);

    script.finish("holder");
    settle().await;
    script.finish("next");
    assert_eq!(holder.await.unwrap(), Ok("holder".to_owned()));
    assert_eq!(next.await.unwrap(), Ok("next".to_owned()));
    assert_eq!(
        script.log(),
        ["start holder", "end holder", "start next", "end next"]
    );
    assert_eq!(lanes.queue_size("session:q"), 0);
}

#[tokio::test(start_paused = true)]
async fn a_waiter_dropped_after_admission_but_before_running_frees_the_slot() {
    let (lanes, _clock) = lanes_with_main(4);
    let script = Script::default();
    let holder = spawn_in_lane(&lanes, &script, "session:q", "holder");
    settle().await;

    let options = EnqueueOptions::default();
    let mut admitted_but_unpolled = Box::pin(lanes.acquire("session:q", &options));
    let mut cx = Context::from_waker(Waker::noop());
    assert!(matches!(
        admitted_but_unpolled.as_mut().poll(&mut cx),
        Poll::Pending
    ));
    let next = spawn_in_lane(&lanes, &script, "session:q", "next");
    settle().await;

    // The holder's slot passes to the unpolled waiter, which is then dropped unpolled.
    script.finish("holder");
    assert_eq!(holder.await.unwrap(), Ok("holder".to_owned()));
    assert_eq!(starts(&script.log()), ["holder"]);
    drop(admitted_but_unpolled);
    settle().await;
    assert_eq!(starts(&script.log()), ["holder", "next"]);
    script.finish("next");
    assert_eq!(next.await.unwrap(), Ok("next".to_owned()));
}

#[tokio::test(start_paused = true)]
async fn a_run_dropped_while_waiting_for_the_global_lane_frees_its_session_lane() {
    let (lanes, _clock) = lanes_with_main(1);
    let script = Script::default();
    let holder = spawn_run(&lanes, &script, "h", "holder");
    settle().await;
    // Holds session:x while it waits for `main`.
    let dropped = spawn_run(&lanes, &script, "x", "dropped");
    settle().await;
    let next = spawn_run(&lanes, &script, "x", "next");
    settle().await;
    assert_eq!(lanes.queue_size("session:x"), 2);

    dropped.abort();
    settle().await;
    assert_eq!(lanes.queue_size("session:x"), 1);
    script.finish("holder");
    settle().await;
    script.finish("next");
    assert_eq!(holder.await.unwrap(), Ok("holder".to_owned()));
    assert_eq!(next.await.unwrap(), Ok("next".to_owned()));
    assert_eq!(
        script.log(),
        ["start holder", "end holder", "start next", "end next"]
    );
}

#[tokio::test(start_paused = true)]
async fn a_panicking_task_frees_its_slots() {
    let (lanes, _clock) = lanes_with_main(1);
    let script = Script::default();
    let panicking = {
        let lanes = lanes.clone();
        let run = RunLanes::for_run(Some("p"), "id", None);
        tokio::spawn(async move {
            lanes
                .run_in(&run, async {
                    panic!("tool blew up");
                })
                .await
        })
    };
    let after = spawn_run(&lanes, &script, "p", "after");
    assert!(panicking.await.unwrap_err().is_panic());
    settle().await;
    script.finish("after");
    assert_eq!(after.await.unwrap(), Ok("after".to_owned()));
    assert_eq!(lanes.total_queue_size(), 0);
}

#[tokio::test(start_paused = true)]
async fn a_slow_admission_is_reported_once_it_starts() {
    let (lanes, clock) = lanes_with_main(4);
    let script = Script::default();
    let waits: Arc<Mutex<Vec<LaneWait>>> = Arc::default();
    let options = {
        let waits = Arc::clone(&waits);
        let on_wait: WaitCallback =
            Arc::new(move |wait: &LaneWait| waits.lock().push(wait.clone()));
        EnqueueOptions {
            on_wait: Some(on_wait),
            ..EnqueueOptions::default()
        }
    };
    let spawn_watched = |name: &str| {
        let lanes = lanes.clone();
        let options = options.clone();
        let work = script.work(name);
        tokio::spawn(async move { lanes.enqueue("session:w", &options, work).await })
    };

    let holder = spawn_watched("holder");
    settle().await;
    let slow = spawn_watched("slow");
    settle().await;
    clock.advance(1_000);
    let quick = spawn_watched("quick");
    settle().await;
    clock.advance(1_500);

    script.finish("holder");
    settle().await;
    // `slow` waited 2 500 ms (over the 2 000 ms threshold) with `quick` still queued.
    assert_eq!(
        *waits.lock(),
        [LaneWait {
            lane: "session:w".to_owned(),
            waited_ms: 2_500,
            queued_ahead: 1,
        }]
    );
    script.finish("slow");
    settle().await;
    // `quick` waited 1 500 ms: under the threshold, so nothing more is reported.
    script.finish("quick");
    for handle in [holder, slow, quick] {
        assert!(handle.await.unwrap().is_ok());
    }
    assert_eq!(waits.lock().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn reset_starts_queued_work_and_ignores_the_late_end_of_forgotten_work() {
    let (lanes, _clock) = lanes_with_main(4);
    let script = Script::default();
    let stuck = spawn_in_lane(&lanes, &script, "session:r", "stuck");
    settle().await;
    let queued = spawn_in_lane(&lanes, &script, "session:r", "queued");
    settle().await;
    lanes.mark_draining();

    lanes.reset_all();
    settle().await;
    assert!(!lanes.is_draining());
    assert_eq!(starts(&script.log()), ["stuck", "queued"]);

    let later = spawn_in_lane(&lanes, &script, "session:r", "later");
    settle().await;
    // `stuck` ending must not free a slot: `queued` still holds the lane.
    script.finish("stuck");
    settle().await;
    assert_eq!(starts(&script.log()), ["stuck", "queued"]);
    script.finish("queued");
    settle().await;
    script.finish("later");
    for handle in [stuck, queued, later] {
        assert!(handle.await.unwrap().is_ok());
    }
    assert_eq!(
        script.log(),
        [
            "start stuck",
            "start queued",
            "end stuck",
            "end queued",
            "start later",
            "end later"
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn raising_a_lane_limit_starts_waiting_work() {
    let (lanes, _clock) = lanes_with_main(4);
    let script = Script::default();
    let first = spawn_in_lane(&lanes, &script, "custom", "first");
    settle().await;
    let second = spawn_in_lane(&lanes, &script, "custom", "second");
    settle().await;
    assert_eq!(lanes.concurrency("custom"), 1);
    assert_eq!(starts(&script.log()), ["first"]);

    lanes.set_concurrency("custom", 2);
    settle().await;
    assert_eq!(starts(&script.log()), ["first", "second"]);
    lanes.set_concurrency("custom", 0);
    assert_eq!(lanes.concurrency("custom"), 1);
    script.finish("first");
    script.finish("second");
    assert!(first.await.unwrap().is_ok());
    assert!(second.await.unwrap().is_ok());
}

#[tokio::test(start_paused = true)]
async fn idle_session_lanes_do_not_accumulate() {
    let (lanes, _clock) = lanes_with_main(4);
    let configured = lanes.lane_count();
    for i in 0..50 {
        let run = RunLanes::for_run(None, &format!("session-{i}"), None);
        assert_eq!(lanes.run_in(&run, async { i }).await, Ok(i));
    }
    assert_eq!(lanes.lane_count(), configured);
    assert_eq!(lanes.concurrency("main"), 4);
    assert_eq!(lanes.concurrency("subagent"), 8);
    assert_eq!(lanes.concurrency("cron"), 1);
    assert_eq!(lanes.concurrency("session:session-1"), 1);
}

#[tokio::test(start_paused = true)]
async fn two_runtimes_do_not_share_lanes() {
    let first = Runtime::builder().max_concurrent(1).build();
    let second = Runtime::builder().max_concurrent(1).build();
    let script = Script::default();
    let held = spawn_run(first.lanes(), &script, "same-key", "held");
    settle().await;

    // Same session key, same global lane name, other runtime: not blocked.
    let run = RunLanes::for_run(Some("same-key"), "id", None);
    assert_eq!(
        second.lanes().run_in(&run, async { "free" }).await,
        Ok("free")
    );
    assert_eq!(second.lanes().total_queue_size(), 0);
    assert_eq!(first.lanes().queue_size("session:same-key"), 1);

    first.lanes().mark_draining();
    assert!(!second.lanes().is_draining());
    script.finish("held");
    assert_eq!(held.await.unwrap(), Ok("held".to_owned()));
}

#[tokio::test(start_paused = true)]
async fn work_waits_on_the_heap_so_a_large_turn_is_held_once() {
    let (lanes, _clock) = lanes_with_main(4);
    let run = RunLanes::for_run(Some("key"), "id", None);
    let scratch = [7u8; 16 * 1024];
    let work = async move {
        tokio::task::yield_now().await;
        scratch.iter().map(|&b| usize::from(b)).sum::<usize>()
    };
    assert!(std::mem::size_of_val(&work) >= 16 * 1024);
    // Not a copy of the work (or two, or three): its state lives in one heap allocation.
    let queued = lanes.run_in(&run, work);
    assert!(
        std::mem::size_of_val(&queued) < 2 * 1024,
        "run_in's future is {} bytes",
        std::mem::size_of_val(&queued)
    );
    let options = EnqueueOptions::default();
    let enqueued = lanes.enqueue("main", &options, async move { scratch.len() });
    assert!(std::mem::size_of_val(&enqueued) < 2 * 1024);
    assert_eq!(queued.await, Ok(7 * 16 * 1024));
    assert_eq!(enqueued.await, Ok(16 * 1024));
}
