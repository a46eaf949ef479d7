//! The steering and follow-up queues of a run (pi-agent-core's `steer` / `followUp`).
//!
//! Steering messages are delivered after the current tool call(s) — the calls still waiting are
//! skipped — and before the next model call. Follow-up messages are delivered only when the
//! agent would otherwise stop. Both are shared between the run and whoever steers it (a chat
//! gateway, the CLI), so the queues are a cheap-to-clone handle over one shared state.

use std::collections::VecDeque;
use std::sync::Arc;

use clawloop_core::message::AgentMessage;
use parking_lot::Mutex;

/// How many queued messages one poll takes (pi's `steeringMode` / `followUpMode`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DequeueMode {
    /// One message per poll (pi's default).
    #[default]
    OneAtATime,
    /// Every waiting message at once.
    All,
}

/// The steering and follow-up queues of one agent. Clones share the same queues.
#[derive(Debug, Clone, Default)]
pub struct MessageQueues {
    inner: Arc<Mutex<Queues>>,
}

#[derive(Debug, Default)]
struct Queues {
    steering: VecDeque<AgentMessage>,
    follow_up: VecDeque<AgentMessage>,
    steering_mode: DequeueMode,
    follow_up_mode: DequeueMode,
}

impl MessageQueues {
    /// Empty queues, one message per poll for both.
    pub fn new() -> Self {
        MessageQueues::default()
    }

    /// Empty queues with the given dequeue modes.
    pub fn with_modes(steering_mode: DequeueMode, follow_up_mode: DequeueMode) -> Self {
        let queues = MessageQueues::new();
        {
            let mut inner = queues.inner.lock();
            inner.steering_mode = steering_mode;
            inner.follow_up_mode = follow_up_mode;
        }
        queues
    }

    /// Queues a steering message.
    pub fn steer(&self, message: AgentMessage) {
        self.inner.lock().steering.push_back(message);
    }

    /// Queues a follow-up message.
    pub fn follow_up(&self, message: AgentMessage) {
        self.inner.lock().follow_up.push_back(message);
    }

    /// Takes the steering messages one poll delivers (none when the queue is empty).
    pub fn take_steering(&self) -> Vec<AgentMessage> {
        let mut inner = self.inner.lock();
        let mode = inner.steering_mode;
        take(&mut inner.steering, mode)
    }

    /// Takes the follow-up messages one poll delivers (none when the queue is empty).
    pub fn take_follow_ups(&self) -> Vec<AgentMessage> {
        let mut inner = self.inner.lock();
        let mode = inner.follow_up_mode;
        take(&mut inner.follow_up, mode)
    }

    /// Puts steering messages that were taken but not delivered back at the front, in order,
    /// so a run that stops early (a client tool call) never loses them.
    pub fn return_steering(&self, messages: Vec<AgentMessage>) {
        let mut inner = self.inner.lock();
        for message in messages.into_iter().rev() {
            inner.steering.push_front(message);
        }
    }

    /// Whether any message is waiting in either queue.
    pub fn has_queued(&self) -> bool {
        let inner = self.inner.lock();
        !inner.steering.is_empty() || !inner.follow_up.is_empty()
    }

    /// Empties both queues and returns what they held: steering first, then follow-ups.
    pub fn drain_all(&self) -> Vec<AgentMessage> {
        let mut inner = self.inner.lock();
        let mut all: Vec<AgentMessage> = inner.steering.drain(..).collect();
        all.extend(inner.follow_up.drain(..));
        all
    }
}

fn take(queue: &mut VecDeque<AgentMessage>, mode: DequeueMode) -> Vec<AgentMessage> {
    match mode {
        DequeueMode::OneAtATime => queue.pop_front().into_iter().collect(),
        DequeueMode::All => queue.drain(..).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::message::UserMessage;
    use pretty_assertions::assert_eq;

    fn user(text: &str) -> AgentMessage {
        AgentMessage::User(UserMessage::text(text, 1))
    }

    fn texts(messages: &[AgentMessage]) -> Vec<String> {
        messages.iter().map(AgentMessage::text).collect()
    }

    #[test]
    fn one_at_a_time_takes_the_oldest_message_per_poll() {
        let queues = MessageQueues::new();
        queues.steer(user("a"));
        queues.steer(user("b"));
        assert_eq!(texts(&queues.take_steering()), ["a"]);
        assert_eq!(texts(&queues.take_steering()), ["b"]);
        assert_eq!(texts(&queues.take_steering()), Vec::<String>::new());
    }

    #[test]
    fn all_mode_takes_everything_and_queues_are_independent() {
        let queues = MessageQueues::with_modes(DequeueMode::All, DequeueMode::OneAtATime);
        queues.steer(user("a"));
        queues.steer(user("b"));
        queues.follow_up(user("f1"));
        queues.follow_up(user("f2"));
        assert_eq!(texts(&queues.take_steering()), ["a", "b"]);
        assert_eq!(texts(&queues.take_follow_ups()), ["f1"]);
        assert!(queues.has_queued());
    }

    #[test]
    fn returned_steering_comes_back_first_in_order() {
        let queues = MessageQueues::with_modes(DequeueMode::All, DequeueMode::All);
        queues.steer(user("c"));
        queues.return_steering(vec![user("a"), user("b")]);
        queues.follow_up(user("f"));
        assert_eq!(texts(&queues.drain_all()), ["a", "b", "c", "f"]);
        assert!(!queues.has_queued());
    }
}
