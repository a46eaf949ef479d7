//! Registries a runtime owns (SPEC §8.9): the active run of each session, the context of each
//! run id and the spawned subagent runs. They are values held by a [`crate::runtime::Runtime`], never process globals,
//! so two runtimes in one process do not see each other's runs.

pub mod active_runs;
pub mod model_switch;
pub mod run_contexts;
pub mod run_handle;
pub mod subagents;

pub use active_runs::{
    ActiveRuns, DEFAULT_RUN_END_WAIT, MIN_RUN_END_WAIT, Registered, RunSnapshot,
    SNAPSHOT_MESSAGE_LIMIT,
};
pub use model_switch::{AuthProfileIdSource, ModelSwitchRequest};
pub use run_contexts::{RunContext, RunContexts, VerboseLevel};
pub use run_handle::{RunHandle, RunHandleBuilder, StateProbe};
pub use subagents::{
    SubagentCleanup, SubagentEndedReason, SubagentOutcome, SubagentRegistry, SubagentRunRecord,
    SubagentSettings, SubagentStatus,
};
