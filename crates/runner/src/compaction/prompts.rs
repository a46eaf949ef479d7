//! The texts of a summary request: pi 0.58.3's prompts verbatim
//! (`packages/coding-agent/src/core/compaction/{compaction,utils}.ts`) and OpenClaw's merge
//! instructions for the chunked path.

/// The system prompt of every summary request (pi's `SUMMARIZATION_SYSTEM_PROMPT`).
pub const SUMMARIZATION_SYSTEM_PROMPT: &str = "You are a context summarization assistant. Your task is to read a conversation between a user and an AI coding assistant, then produce a structured summary following the exact format specified.

Do NOT continue the conversation. Do NOT respond to any questions in the conversation. ONLY output the structured summary.";

/// Instructions of a first summary (pi's `SUMMARIZATION_PROMPT`).
pub const SUMMARIZATION_PROMPT: &str = "The messages above are a conversation to summarize. Create a structured context checkpoint summary that another LLM will use to continue the work.

Use this EXACT format:

## Goal
[What is the user trying to accomplish? Can be multiple items if the session covers different tasks.]

## Constraints & Preferences
- [Any constraints, preferences, or requirements mentioned by user]
- [Or \"(none)\" if none were mentioned]

## Progress
### Done
- [x] [Completed tasks/changes]

### In Progress
- [ ] [Current work]

### Blocked
- [Issues preventing progress, if any]

## Key Decisions
- **[Decision]**: [Brief rationale]

## Next Steps
1. [Ordered list of what should happen next]

## Critical Context
- [Any data, examples, or references needed to continue]
- [Or \"(none)\" if not applicable]

Keep each section concise. Preserve exact file paths, function names, and error messages.";

/// Instructions when a previous summary is updated (pi's `UPDATE_SUMMARIZATION_PROMPT`).
pub const UPDATE_SUMMARIZATION_PROMPT: &str = "The messages above are NEW conversation messages to incorporate into the existing summary provided in <previous-summary> tags.

Update the existing structured summary with new information. RULES:
- PRESERVE all existing information from the previous summary
- ADD new progress, decisions, and context from the new messages
- UPDATE the Progress section: move items from \"In Progress\" to \"Done\" when completed
- UPDATE \"Next Steps\" based on what was accomplished
- PRESERVE exact file paths, function names, and error messages
- If something is no longer relevant, you may remove it

Use this EXACT format:

## Goal
[Preserve existing goals, add new ones if the task expanded]

## Constraints & Preferences
- [Preserve existing, add new ones discovered]

## Progress
### Done
- [x] [Include previously done items AND newly completed items]

### In Progress
- [ ] [Current work - update based on progress]

### Blocked
- [Current blockers - remove if resolved]

## Key Decisions
- **[Decision]**: [Brief rationale] (preserve all previous, add new)

## Next Steps
1. [Update based on current state]

## Critical Context
- [Preserve important context, add new if needed]

Keep each section concise. Preserve exact file paths, function names, and error messages.";

/// Instructions of the summary of a split turn's beginning (pi's
/// `TURN_PREFIX_SUMMARIZATION_PROMPT`).
pub const TURN_PREFIX_SUMMARIZATION_PROMPT: &str =
    "This is the PREFIX of a turn that was too large to keep. The SUFFIX (recent work) is retained.

Summarize the prefix to provide context for the retained suffix:

## Original Request
[What did the user ask for in this turn?]

## Early Progress
- [Key decisions and work done in the prefix]

## Context for Suffix
- [Information needed to understand the retained recent work]

Be concise. Focus on what's needed to understand the kept suffix.";

/// The focus of the request that merges the partial summaries of a chunked summarization
/// (OpenClaw's `MERGE_SUMMARIES_INSTRUCTIONS`).
pub const MERGE_SUMMARIES_INSTRUCTIONS: &str =
    "Merge these partial summaries into a single cohesive summary.

MUST PRESERVE:
- Active tasks and their current status (in-progress, blocked, pending)
- Batch operation progress (e.g., '5/17 items completed')
- The last thing the user requested and what was being done about it
- Decisions made and their rationale
- TODOs, open questions, and constraints
- Any commitments or follow-ups promised

PRIORITIZE recent context over older history. The agent needs to know
what it was doing, not just what was discussed.";

/// The history summary is `"No prior history."` when a split turn has nothing before it.
pub const NO_PRIOR_HISTORY: &str = "No prior history.";

/// What separates the history summary from the turn-prefix summary of a split turn.
pub const SPLIT_TURN_SEPARATOR: &str = "\n\n---\n\n**Turn Context (split turn):**\n\n";

/// The user prompt of a history summary (pi's `generateSummary`):
/// `<conversation>\n…\n</conversation>\n\n`, then `<previous-summary>\n…\n</previous-summary>\n\n`
/// when there is a (non-empty) previous summary, then the first or the update instructions,
/// then `\n\nAdditional focus: <focus>` when a (non-empty) focus is given.
pub fn history_prompt(
    conversation: &str,
    previous_summary: Option<&str>,
    focus: Option<&str>,
) -> String {
    let previous_summary = previous_summary.filter(|s| !s.is_empty());
    let mut prompt = format!("<conversation>\n{conversation}\n</conversation>\n\n");
    if let Some(previous) = previous_summary {
        prompt.push_str("<previous-summary>\n");
        prompt.push_str(previous);
        prompt.push_str("\n</previous-summary>\n\n");
    }
    prompt.push_str(if previous_summary.is_some() {
        UPDATE_SUMMARIZATION_PROMPT
    } else {
        SUMMARIZATION_PROMPT
    });
    push_focus(&mut prompt, focus);
    prompt
}

/// The user prompt of a turn-prefix summary: the conversation, then
/// [`TURN_PREFIX_SUMMARIZATION_PROMPT`]. pi never adds a focus; the chunked path adds the
/// merge instructions as one when it merges partial prefix summaries.
pub fn turn_prefix_prompt(conversation: &str, focus: Option<&str>) -> String {
    let mut prompt = format!(
        "<conversation>\n{conversation}\n</conversation>\n\n{TURN_PREFIX_SUMMARIZATION_PROMPT}"
    );
    push_focus(&mut prompt, focus);
    prompt
}

/// The focus of a merge request: the merge instructions, then the caller's own focus
/// (OpenClaw: `MERGE\n\nAdditional focus:\n<custom>`).
pub fn merge_focus(custom_instructions: Option<&str>) -> String {
    match custom_instructions.filter(|s| !s.is_empty()) {
        Some(custom) => format!("{MERGE_SUMMARIES_INSTRUCTIONS}\n\nAdditional focus:\n{custom}"),
        None => MERGE_SUMMARIES_INSTRUCTIONS.to_owned(),
    }
}

fn push_focus(prompt: &mut String, focus: Option<&str>) {
    if let Some(focus) = focus.filter(|s| !s.is_empty()) {
        prompt.push_str("\n\nAdditional focus: ");
        prompt.push_str(focus);
    }
}
