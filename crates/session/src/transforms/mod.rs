//! Transcript transforms: pure functions over messages that shape what is replayed to a model
//! (reference openclaw-runner §8–§10, SPEC §5), plus the one transform that writes back to a
//! session file, tool-result truncation ([`truncate_oversized_tool_results_in_file`]).
//!
//! * History limiting (§8): [`limit_history_turns`], [`history_limit_from_session_key`].
//! * The per-provider policy (§9 step 1): [`resolve_transcript_policy`]; the whole replay
//!   pipeline of an attempt in one call: [`prepare_replay_history`].
//! * Replay sanitation (§9): [`sanitize_session_history`] runs the chain — inter-session
//!   annotation, image sanitation, thinking drop, tool-call input sanitation, tool-use/result
//!   pairing repair, detail stripping, stale usage zeroing, Google turn ordering — and each
//!   step is public on its own; [`validate_replay_turns`] runs the Gemini and Anthropic turn
//!   validators.
//! * OpenAI Responses downgrades (§9 step 6): [`downgrade_openai_reasoning_blocks`],
//!   [`downgrade_openai_function_call_reasoning_pairs`].
//! * The live context guard of the tool loop (§10.3): [`guard_tool_result_context`].
//! * Tool-result size control (§10.1): [`max_tool_result_chars`], [`truncate_tool_result_text`],
//!   [`truncate_tool_result_message`], the recovery plan over a whole transcript and
//!   [`session_likely_has_oversized_tool_results`].
//!
//! Every length is counted in Unicode scalar values (`char`s), never bytes (SPEC §3), and no
//! function slices a string off a char boundary or panics on any input.

mod context_guard;
mod dangling_calls;
mod google_turn_ordering;
mod history_limit;
mod images;
mod inter_session;
mod openai_reasoning;
mod provider_id;
mod replay_history;
mod sanitize;
mod stale_usage;
mod text_truncation;
mod thinking;
mod tool_call_inputs;
mod tool_ids;
mod tool_pairing;
mod tool_result_budget;
pub(crate) mod tool_result_rewrite;
mod transcript_policy;
mod turn_validation;

pub use context_guard::{
    ContextGuardLimits, ContextOverflow, PREEMPTIVE_CONTEXT_OVERFLOW_MESSAGE,
    guard_tool_result_context,
};
pub use dangling_calls::dangling_tool_call_results;
pub use google_turn_ordering::{GOOGLE_TURN_ORDER_BOOTSTRAP_TEXT, sanitize_google_turn_ordering};
pub use history_limit::{history_limit_from_session_key, limit_history_turns};
pub use images::{SanitizeMode, sanitize_session_messages_images};
pub use inter_session::{INTER_SESSION_PREFIX_BASE, annotate_inter_session_user_messages};
pub use openai_reasoning::{
    downgrade_openai_function_call_reasoning_pairs, downgrade_openai_reasoning_blocks,
};
pub use provider_id::normalize_provider_id;
pub use replay_history::{ReplayHistoryOptions, prepare_replay_history};
pub use sanitize::{
    SanitizeOptions, sanitize_session_history, strip_tool_result_details, validate_replay_turns,
};
pub use stale_usage::strip_stale_assistant_usage_before_latest_compaction;
pub use text_truncation::{
    MIDDLE_OMISSION_MARKER, MIN_KEEP_CHARS, context_limit_truncation_notice,
    truncate_tool_result_text,
};
pub use thinking::drop_thinking_blocks;
pub use tool_call_inputs::{
    TOOL_CALL_NAME_MAX_CHARS, ToolCallInputReport, sanitize_tool_call_inputs,
};
pub use tool_pairing::{
    ErroredAssistantPolicy, MISSING_TOOL_RESULT_TEXT, ToolPairingOptions, ToolPairingReport,
    repair_tool_pairing,
};
pub use tool_result_budget::{
    HARD_MAX_TOOL_RESULT_CHARS, MAX_TOOL_RESULT_CONTEXT_SHARE, RECOVERY_MIN_KEEP_CHARS,
    RecoveryPlan, ToolResultBudget, ToolResultReductionPotential, TruncatedMessages,
    estimate_tool_result_reduction_potential, max_tool_result_chars,
    max_tool_result_chars_with_cap, plan_tool_result_recovery,
    session_likely_has_oversized_tool_results, tool_result_text_chars,
    truncate_oversized_tool_results_in_messages, truncate_tool_result_message,
};
pub use tool_result_rewrite::{ToolResultRewrite, truncate_oversized_tool_results_in_file};
pub use transcript_policy::{
    ThoughtSignatureSanitation, ToolCallIdMode, TranscriptPolicy, is_openai_responses_api,
    resolve_transcript_policy,
};
pub use turn_validation::{
    TOOL_CALLS_OMITTED_TEXT, validate_anthropic_turns, validate_gemini_turns,
};
