//! The run loop (`run_embedded_agent`, seed 002, SPEC §8.4): attempts of one model, rotating
//! auth profiles, recovering from overflows, lowering the thinking level, until a reply, a
//! payload, or a failover to the next model. Its decisions are pure functions, one per file.

pub mod decide;
pub mod limits;
pub mod overflow;

pub use decide::{
    DecisionInput, DecisionStage, FailoverDecision, merge_retry_failover_reason,
    resolve_run_failover_decision,
};
pub use limits::{
    MAX_SAME_MODEL_IDLE_TIMEOUT_RETRIES, MAX_TIMEOUT_COMPACTION_ATTEMPTS,
    TIMEOUT_COMPACTION_PROMPT_RATIO, max_run_loop_iterations,
};
pub use overflow::{
    MAX_OVERFLOW_COMPACTION_ATTEMPTS, OverflowAction, OverflowKind, OverflowState, overflow_action,
    overflow_text,
};
