//! The turn (`run_agent_turn_with_fallback`, seed 001, SPEC §8.6): a user's message for a
//! session key, through the model fallback, into the user-facing result.

pub mod compact;
mod compaction_notice;
mod decide;
pub mod env;
pub mod final_text;
pub mod guards;
mod on_worker;
pub mod result;
mod run;
mod scope;
mod single_session_runtime;

pub use crate::attempt::TurnIo;
pub use compact::compact_session_direct;
pub use compaction_notice::COMPACTION_NOTICE;
pub use env::{TurnEnv, TurnEnvBuilder, TurnEnvError};
pub use final_text::{TurnFailure, turn_failure_text};
pub use guards::TurnGuards;
pub use result::{AgentRunLoopResult, RunResult, TurnSuccess};
pub use run::{
    NO_MODEL_TEXT, TURN_COMPACTION_RESET_TEXT, TURN_HISTORY_CORRUPTED_TEXT,
    TURN_OVERFLOW_NO_REPLY_TEXT, TURN_ROLE_ORDERING_RESET_TEXT, TurnRequest,
    run_agent_turn_with_fallback,
};
pub use single_session_runtime::single_session_runtime;
