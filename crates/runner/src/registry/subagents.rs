//! The subagent registry (seed 004 `SubagentRunRecord`, reference §23): one record per spawned
//! child run — who asked, what for, which session it ran in, how it ended and what happened to
//! its session afterwards. A [`crate::runtime::Runtime`] owns one; nothing is process-global.
//!
//! Records serialize in OpenClaw's camelCase shape (`runs.json` holds `{runId: record}`), so an
//! embedder can persist them; the registry itself keeps them in memory until they are archived.

use std::sync::Arc;
use std::time::Duration;

use indexmap::IndexMap;
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};

/// What happens to a child's session once its run ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SubagentCleanup {
    /// Forget the child's session key and delete its transcript.
    Delete,
    /// Keep the child's session (OpenClaw's default).
    #[default]
    Keep,
}

impl SubagentCleanup {
    /// `delete` or `keep`.
    pub fn as_str(self) -> &'static str {
        match self {
            SubagentCleanup::Delete => "delete",
            SubagentCleanup::Keep => "keep",
        }
    }
}

/// How a child run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SubagentStatus {
    /// It answered.
    Ok,
    /// It failed.
    Error,
    /// It ran out of time.
    Timeout,
    /// Nobody knows (the run was lost).
    Unknown,
}

impl SubagentStatus {
    /// `ok`, `error`, `timeout` or `unknown`.
    pub fn as_str(self) -> &'static str {
        match self {
            SubagentStatus::Ok => "ok",
            SubagentStatus::Error => "error",
            SubagentStatus::Timeout => "timeout",
            SubagentStatus::Unknown => "unknown",
        }
    }
}

/// A child run's outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubagentOutcome {
    /// How it ended.
    pub status: SubagentStatus,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Why a child run's record was closed (OpenClaw's `endedReason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SubagentEndedReason {
    /// The run answered.
    SubagentComplete,
    /// The run failed.
    SubagentError,
    /// The run was killed.
    SubagentKilled,
    /// Its session was reset.
    SessionReset,
    /// Its session was deleted.
    SessionDelete,
}

/// One spawned child run (seed 004, reference §23).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubagentRunRecord {
    /// The child run's id.
    pub run_id: String,
    /// The child's session key (`agent:<agentId>:subagent:<uuid>`).
    pub child_session_key: String,
    /// The session key of the run that spawned it.
    pub requester_session_key: String,
    /// The task, as the requester wrote it.
    pub task: String,
    /// What happens to the child's session afterwards.
    pub cleanup: SubagentCleanup,
    /// A short title for lists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The model the child was asked to use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// When it was registered, ms since the epoch.
    pub created_at: u64,
    /// When its run started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<u64>,
    /// When its run ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<u64>,
    /// How it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<SubagentOutcome>,
    /// Why the record was closed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_reason: Option<SubagentEndedReason>,
    /// The child's answer, captured when it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frozen_result_text: Option<String>,
    /// When the record is dropped from the registry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archive_at_ms: Option<u64>,
    /// When the cleanup (delete or keep) was carried out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cleanup_completed_at: Option<u64>,
}

impl SubagentRunRecord {
    /// Whether the run has not ended yet.
    pub fn is_active(&self) -> bool {
        self.ended_at.is_none()
    }
}

/// The subagent policy (`agents.defaults.subagents` in OpenClaw).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubagentSettings {
    /// How deep spawning nests: 1 lets the main agent spawn and its children not.
    pub max_spawn_depth: u32,
    /// Children one session may have running at once.
    pub max_children_per_agent: usize,
    /// How long a record stays after it was created; `None` keeps it until removed.
    pub archive_after: Option<Duration>,
}

impl Default for SubagentSettings {
    fn default() -> Self {
        SubagentSettings {
            max_spawn_depth: 1,
            max_children_per_agent: 5,
            archive_after: Some(Duration::from_secs(60 * 60)),
        }
    }
}

/// The subagent runs of one runtime. Clones share the records.
#[derive(Debug, Clone, Default)]
pub struct SubagentRegistry {
    runs: Arc<Mutex<IndexMap<String, SubagentRunRecord>>>,
    settings: Option<SubagentSettings>,
}

impl SubagentRegistry {
    /// A registry; `settings` is `None` when the runtime does not offer spawning.
    pub fn new(settings: Option<SubagentSettings>) -> Self {
        SubagentRegistry {
            runs: Arc::default(),
            settings,
        }
    }

    /// The policy, when spawning is on.
    pub fn settings(&self) -> Option<&SubagentSettings> {
        self.settings.as_ref()
    }

    /// Adds (or replaces) the record of `record.run_id`.
    pub fn register(&self, record: SubagentRunRecord) {
        self.runs.lock().insert(record.run_id.clone(), record);
    }

    /// Changes the record of `run_id`; false when there is none.
    pub fn update(&self, run_id: &str, change: impl FnOnce(&mut SubagentRunRecord)) -> bool {
        match self.runs.lock().get_mut(run_id) {
            Some(record) => {
                change(record);
                true
            }
            None => false,
        }
    }

    /// The record of `run_id`.
    pub fn get(&self, run_id: &str) -> Option<SubagentRunRecord> {
        self.runs.lock().get(run_id).cloned()
    }

    /// Every record, oldest first.
    pub fn list(&self) -> Vec<SubagentRunRecord> {
        self.runs.lock().values().cloned().collect()
    }

    /// The records `requester_session_key` spawned, oldest first.
    pub fn for_requester(&self, requester_session_key: &str) -> Vec<SubagentRunRecord> {
        self.runs
            .lock()
            .values()
            .filter(|r| r.requester_session_key == requester_session_key)
            .cloned()
            .collect()
    }

    /// How many children of `requester_session_key` are still running.
    pub fn active_children(&self, requester_session_key: &str) -> usize {
        self.runs
            .lock()
            .values()
            .filter(|r| r.requester_session_key == requester_session_key && r.is_active())
            .count()
    }

    /// Drops the ended records whose archive time is at or before `now_ms` and returns them.
    pub fn sweep_archived(&self, now_ms: u64) -> Vec<SubagentRunRecord> {
        let mut runs = self.runs.lock();
        let due: Vec<String> = runs
            .values()
            .filter(|r| !r.is_active() && r.archive_at_ms.is_some_and(|at| at <= now_ms))
            .map(|r| r.run_id.clone())
            .collect();
        due.iter().filter_map(|id| runs.shift_remove(id)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn record(run_id: &str, requester: &str) -> SubagentRunRecord {
        SubagentRunRecord {
            run_id: run_id.into(),
            child_session_key: format!("agent:main:subagent:{run_id}"),
            requester_session_key: requester.into(),
            task: "count files".into(),
            cleanup: SubagentCleanup::Delete,
            label: None,
            model: None,
            created_at: 1_000,
            started_at: Some(1_000),
            ended_at: None,
            outcome: None,
            ended_reason: None,
            frozen_result_text: None,
            archive_at_ms: Some(5_000),
            cleanup_completed_at: None,
        }
    }

    #[test]
    fn records_serialize_in_openclaws_shape() {
        let mut r = record("r1", "main");
        r.ended_at = Some(2_000);
        r.outcome = Some(SubagentOutcome {
            status: SubagentStatus::Timeout,
            error: Some("request timed out".into()),
        });
        r.ended_reason = Some(SubagentEndedReason::SubagentError);
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({
                "runId": "r1",
                "childSessionKey": "agent:main:subagent:r1",
                "requesterSessionKey": "main",
                "task": "count files",
                "cleanup": "delete",
                "createdAt": 1000,
                "startedAt": 1000,
                "endedAt": 2000,
                "outcome": {"status": "timeout", "error": "request timed out"},
                "endedReason": "subagent-error",
                "archiveAtMs": 5000
            })
        );
    }

    #[test]
    fn active_children_and_archive_sweep() {
        let registry = SubagentRegistry::new(None);
        registry.register(record("r1", "main"));
        registry.register(record("r2", "main"));
        registry.register(record("r3", "other"));
        assert_eq!(registry.active_children("main"), 2);
        assert!(registry.update("r1", |r| r.ended_at = Some(2_000)));
        assert!(!registry.update("missing", |r| r.ended_at = Some(2_000)));
        assert_eq!(registry.active_children("main"), 1);
        // Only ended records are archived, and only once due.
        assert_eq!(registry.sweep_archived(4_999), Vec::new());
        let swept: Vec<String> = registry
            .sweep_archived(5_000)
            .into_iter()
            .map(|r| r.run_id)
            .collect();
        assert_eq!(swept, vec!["r1".to_owned()]);
        let left: Vec<String> = registry.list().into_iter().map(|r| r.run_id).collect();
        assert_eq!(left, vec!["r2".to_owned(), "r3".to_owned()]);
        assert_eq!(registry.for_requester("other").len(), 1);
    }
}
