//! How often `--json` writes a tool's progress: at most one `tool_execution_update` per call
//! every [`UPDATE_INTERVAL`]. Each update carries the call's whole partial result (bash: the
//! output's tail), so a newer one supersedes a held one; the last one is always written before
//! the call's `tool_execution_end`, and a held one no later than the next event or tick.

use std::time::{Duration, Instant};

use clawloop_core::AgentEvent;

/// The shortest time between two written updates of one call.
pub const UPDATE_INTERVAL: Duration = Duration::from_millis(100);

/// What to write for one event.
#[derive(Debug, Default, PartialEq)]
pub struct Admitted {
    /// Held updates to write first, in the order their calls started updating.
    pub before: Vec<AgentEvent>,
    /// Whether to write the event itself (`false`: it is held).
    pub this: bool,
}

#[derive(Debug)]
struct CallUpdates {
    call_id: String,
    written_at: Instant,
    held: Option<AgentEvent>,
}

/// The update state of the calls that are running.
#[derive(Debug, Default)]
pub struct UpdateThrottle {
    calls: Vec<CallUpdates>,
}

impl UpdateThrottle {
    /// What to write for `event`, arriving at `now`.
    pub fn admit(&mut self, event: &AgentEvent, now: Instant) -> Admitted {
        match event {
            AgentEvent::ToolExecutionUpdate { tool_call_id, .. } => {
                let Some(call) = self.calls.iter_mut().find(|c| &c.call_id == tool_call_id) else {
                    self.calls.push(CallUpdates {
                        call_id: tool_call_id.clone(),
                        written_at: now,
                        held: None,
                    });
                    return Admitted {
                        before: Vec::new(),
                        this: true,
                    };
                };
                if now.saturating_duration_since(call.written_at) >= UPDATE_INTERVAL {
                    call.written_at = now;
                    call.held = None;
                    Admitted {
                        before: Vec::new(),
                        this: true,
                    }
                } else {
                    call.held = Some(event.clone());
                    Admitted::default()
                }
            }
            AgentEvent::ToolExecutionEnd { tool_call_id, .. } => {
                let before = self.flush_all();
                self.calls.retain(|c| &c.call_id != tool_call_id);
                Admitted { before, this: true }
            }
            _ => Admitted {
                before: self.flush_all(),
                this: true,
            },
        }
    }

    /// Held updates whose interval has passed at `now`, taken as written.
    pub fn due(&mut self, now: Instant) -> Vec<AgentEvent> {
        let mut due = Vec::new();
        for call in &mut self.calls {
            if now.saturating_duration_since(call.written_at) >= UPDATE_INTERVAL
                && let Some(held) = call.held.take()
            {
                call.written_at = now;
                due.push(held);
            }
        }
        due
    }

    /// Every held update: another event comes next, and the order of events is kept.
    fn flush_all(&mut self) -> Vec<AgentEvent> {
        self.calls
            .iter_mut()
            .filter_map(|call| call.held.take())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::tool::AgentToolResult;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn update(id: &str, text: &str) -> AgentEvent {
        AgentEvent::ToolExecutionUpdate {
            tool_call_id: id.to_owned(),
            tool_name: "bash".to_owned(),
            args: json!({}),
            partial_result: AgentToolResult::text(text),
        }
    }

    fn end(id: &str) -> AgentEvent {
        AgentEvent::ToolExecutionEnd {
            tool_call_id: id.to_owned(),
            tool_name: "bash".to_owned(),
            result: AgentToolResult::text("done"),
            is_error: false,
        }
    }

    fn text_of(event: &AgentEvent) -> String {
        match event {
            AgentEvent::ToolExecutionUpdate {
                tool_call_id,
                partial_result,
                ..
            } => format!(
                "{tool_call_id}:{}",
                partial_result
                    .content
                    .iter()
                    .find_map(|b| b.as_text())
                    .unwrap_or_default()
            ),
            other => other.type_name().to_owned(),
        }
    }

    #[test]
    fn one_update_per_interval_and_the_last_before_the_end() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let mut throttle = UpdateThrottle::default();
        // (event, time in ms, written before it, the event itself written)
        let table: Vec<(AgentEvent, u64, Vec<&str>, bool)> = vec![
            (update("a", "1"), 0, vec![], true),
            (update("a", "2"), 10, vec![], false),
            (update("a", "3"), 20, vec![], false),
            (update("b", "1"), 30, vec![], true),
            (update("a", "4"), 100, vec![], true),
            (update("a", "5"), 150, vec![], false),
            (update("b", "2"), 160, vec![], true),
            (update("b", "3"), 170, vec![], false),
            (end("a"), 180, vec!["a:5", "b:3"], true),
            (update("b", "4"), 190, vec![], false),
            (end("b"), 195, vec!["b:4"], true),
        ];
        for (event, ms, before, this) in table {
            let admitted = throttle.admit(&event, at(ms));
            let written: Vec<String> = admitted.before.iter().map(text_of).collect();
            assert_eq!(
                (written, admitted.this),
                (before.iter().map(|s| s.to_string()).collect(), this),
                "{} at {ms}",
                text_of(&event)
            );
        }
        assert!(throttle.calls.is_empty());
    }

    #[test]
    fn a_held_update_is_due_once_its_interval_passed() {
        let t0 = Instant::now();
        let mut throttle = UpdateThrottle::default();
        throttle.admit(&update("a", "1"), t0);
        throttle.admit(&update("a", "2"), t0 + Duration::from_millis(30));
        assert_eq!(throttle.due(t0 + Duration::from_millis(60)), Vec::new());
        let due: Vec<String> = throttle
            .due(t0 + Duration::from_millis(100))
            .iter()
            .map(text_of)
            .collect();
        assert_eq!(due, ["a:2"]);
        assert_eq!(throttle.due(t0 + Duration::from_millis(300)), Vec::new());
    }
}
