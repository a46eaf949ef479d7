//! The warning about the last unresolved tool failure (reference §7 step 5, OpenClaw
//! `resolveToolErrorWarningPolicy`): when a failed tool call is worth a separate message, and
//! whether it carries the error text.

use clawloop_core::js_text::js_trim;
use clawloop_subscribe::{LastToolError, VerboseLevel, format_tool_aggregate};

/// Words that mark a tool error the model can fix by itself on its next call (a missing or
/// invalid argument): such an error is not worth a warning when nothing else went wrong.
const RECOVERABLE_TOOL_ERROR_KEYWORDS: [&str; 7] = [
    "required",
    "missing",
    "invalid",
    "must be",
    "must have",
    "needs",
    "requires",
];

/// What decides the warning besides the error itself.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct WarningContext {
    /// The run's verbose level; `on` and `full` include the error text.
    pub(super) verbose: VerboseLevel,
    /// The run was started by cron (an exec timeout then includes its text).
    pub(super) cron_run: bool,
    /// The caller turned tool-error warnings off for this run.
    pub(super) suppress_tool_error_warnings: bool,
    /// `messages.suppressToolErrors` (does not hide failures of mutating actions).
    pub(super) suppress_tool_errors: bool,
    /// Tool summaries are formatted for markdown.
    pub(super) markdown: bool,
}

/// `⚠️ <tool summary> failed[: <error>]`, or `None` when the policy hides the failure.
///
/// Policy, first match wins: warnings suppressed → hide; `exec`/`bash` without details → hide;
/// `sessions_send` → hide (the message may still have arrived); a mutating action → show;
/// `suppress_tool_errors` → hide; otherwise show only when there is no user-facing reply and the
/// error is not recoverable.
pub(super) fn tool_error_warning(
    error: &LastToolError,
    ctx: &WarningContext,
    has_user_facing_reply: bool,
) -> Option<String> {
    let tool = js_trim(&error.tool_name).to_lowercase();
    let exec_like = tool == "exec" || tool == "bash";
    let include_details = matches!(ctx.verbose, VerboseLevel::On | VerboseLevel::Full)
        || (exec_like && ctx.cron_run && is_timeout(error.error.as_deref()));
    let show = if ctx.suppress_tool_error_warnings
        || (exec_like && !include_details)
        || tool == "sessions_send"
    {
        false
    } else if error.mutating_action {
        true
    } else if ctx.suppress_tool_errors {
        false
    } else {
        !has_user_facing_reply && !is_recoverable(error.error.as_deref())
    };
    if !show {
        return None;
    }
    let metas: Vec<&str> = error.meta.as_deref().into_iter().collect();
    let summary = format_tool_aggregate(&error.tool_name, &metas, ctx.markdown, None);
    let suffix = match error.error.as_deref() {
        Some(text) if include_details && !text.is_empty() => format!(": {text}"),
        _ => String::new(),
    };
    Some(format!("⚠️ {summary} failed{suffix}"))
}

fn is_recoverable(error: Option<&str>) -> bool {
    let lower = error.unwrap_or("").to_lowercase();
    RECOVERABLE_TOOL_ERROR_KEYWORDS
        .iter()
        .any(|keyword| lower.contains(keyword))
}

/// The bash tool's timeout text (`Command timed out after …`), or any other `timed out`.
fn is_timeout(error: Option<&str>) -> bool {
    error.is_some_and(|e| e.to_lowercase().contains("timed out"))
}
