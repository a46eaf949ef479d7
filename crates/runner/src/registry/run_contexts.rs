//! The run-context registry (OpenClaw's `registerAgentRunContext`, `infra/agent-events.ts`):
//! what a run id belongs to, so events and logs tagged only with the run id can be attributed
//! to their session. The turn registers the context when a run starts and clears it when the
//! run ends.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use parking_lot::Mutex;

/// How much of a run's tool activity the user sees (OpenClaw's `VerboseLevel`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerboseLevel {
    /// No tool summaries.
    Off,
    /// Tool summaries.
    On,
    /// Tool summaries with their output.
    Full,
}

impl VerboseLevel {
    /// The level as OpenClaw writes it: `off`, `on`, `full`.
    pub fn as_str(self) -> &'static str {
        match self {
            VerboseLevel::Off => "off",
            VerboseLevel::On => "on",
            VerboseLevel::Full => "full",
        }
    }
}

/// What a run id belongs to. Every field is optional: a later registration fills in or
/// overrides only the fields it sets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunContext {
    /// The session key the run serves.
    pub session_key: Option<String>,
    /// The verbosity the run's replies use.
    pub verbose_level: Option<VerboseLevel>,
    /// Whether the run is a heartbeat.
    pub is_heartbeat: Option<bool>,
    /// Whether control UIs should receive the run's updates.
    pub is_control_ui_visible: Option<bool>,
}

/// The run contexts of one runtime, keyed by run id. Clones share the same registry.
#[derive(Clone, Default)]
pub struct RunContexts {
    contexts: Arc<Mutex<HashMap<String, RunContext>>>,
}

impl fmt::Debug for RunContexts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunContexts")
            .field("runs", &self.contexts.lock().len())
            .finish()
    }
}

impl RunContexts {
    /// An empty registry.
    pub fn new() -> Self {
        RunContexts::default()
    }

    /// Registers the context of `run_id`, or merges into the one already there: a non-empty
    /// session key and any field that is set replace the stored value; unset fields keep it.
    /// An empty run id is ignored.
    pub fn register(&self, run_id: &str, context: RunContext) {
        if run_id.is_empty() {
            return;
        }
        let mut contexts = self.contexts.lock();
        let Some(existing) = contexts.get_mut(run_id) else {
            contexts.insert(run_id.to_owned(), context);
            return;
        };
        if let Some(key) = context.session_key.filter(|key| !key.is_empty()) {
            existing.session_key = Some(key);
        }
        if context.verbose_level.is_some() {
            existing.verbose_level = context.verbose_level;
        }
        if context.is_heartbeat.is_some() {
            existing.is_heartbeat = context.is_heartbeat;
        }
        if context.is_control_ui_visible.is_some() {
            existing.is_control_ui_visible = context.is_control_ui_visible;
        }
    }

    /// The context of `run_id`.
    pub fn get(&self, run_id: &str) -> Option<RunContext> {
        self.contexts.lock().get(run_id).cloned()
    }

    /// Forgets `run_id`; returns whether it was registered.
    pub fn clear(&self, run_id: &str) -> bool {
        self.contexts.lock().remove(run_id).is_some()
    }

    /// How many runs have a context.
    pub fn len(&self) -> usize {
        self.contexts.lock().len()
    }

    /// Whether no run has a context.
    pub fn is_empty(&self) -> bool {
        self.contexts.lock().is_empty()
    }
}
