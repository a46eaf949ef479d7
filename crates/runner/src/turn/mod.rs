//! The turn (`run_agent_turn_with_fallback`, seed 001, SPEC §8.6): a user's message for a
//! session key, through the model fallback, into the user-facing result.

pub mod final_text;
pub mod guards;

pub use final_text::{TurnFailure, turn_failure_text};
pub use guards::TurnGuards;
