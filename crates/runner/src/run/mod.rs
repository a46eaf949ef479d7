//! The run loop (`run_embedded_agent`, seed 002, SPEC §8.4): attempts of one model, rotating
//! auth profiles, recovering from overflows, lowering the thinking level, until a reply, a
//! payload, or a failover to the next model. Its decisions are pure functions, one per file.

pub mod cli_verdict;
pub mod decide;
mod embedded;
pub mod limits;
mod model_key;
pub mod overflow;
pub mod profiles;
mod providers;
mod repair;
pub mod request;
pub mod step;

pub use cli_verdict::{CliVerdict, cli_attempt_verdict};
pub use decide::{
    DecisionInput, DecisionStage, FailoverDecision, merge_retry_failover_reason,
    resolve_run_failover_decision,
};
pub use embedded::run_embedded_agent;
pub use limits::{
    MAX_SAME_MODEL_IDLE_TIMEOUT_RETRIES, MAX_TIMEOUT_COMPACTION_ATTEMPTS,
    TIMEOUT_COMPACTION_PROMPT_RATIO, max_run_loop_iterations, tool_round_limit_text,
};
pub use overflow::{
    MAX_OVERFLOW_COMPACTION_ATTEMPTS, OverflowAction, OverflowState, overflow_action, overflow_text,
};
pub use profiles::{ActiveProfile, NoUsableProfile, ProfileCursor};
pub use providers::{http_provider_factory, provider_for_run};
pub use repair::compact_run_session;
pub use request::{EnvLookup, ProviderFactory, RunEnding, RunError, RunOutcome, RunRequest};
pub use step::{
    AttemptFacts, CompactCause, OVERLOADED_FAILOVER_TEXT, RATE_LIMITED_FAILOVER_TEXT, RunPolicy,
    RunState, Step, Tried, at_retry_limit, next,
};
