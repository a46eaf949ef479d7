//! The coding-agent prompt ([`PromptProfile::Coding`](super::PromptProfile)), anchored on pi's
//! default system prompt (`core/system-prompt.ts` `buildSystemPrompt`): who the agent is, the
//! tools with one-line summaries, guidelines that depend on which tools are offered, the text
//! the caller appends, the project's context files, the skills, and finally the date and the
//! working directory. A custom prompt (pi's `--system-prompt`) replaces the first three parts
//! only, as in pi.
//!
//! Unlike the gateway prompt, parts are separated by blank lines (pi's layout) and nothing of
//! the chat gateway is said: no persona, no messaging routes, no reply tags.

use super::date_time::resolve_user_time;
use super::report::PromptSection;
use super::sections::{assemble, non_empty};
use super::tool_lines::ToolList;
use super::{SystemPrompt, SystemPromptParams};

const IDENTITY: &str = "You are an expert coding assistant operating inside clawloop, a coding agent harness. You help users by reading files, executing commands, editing code, and writing new files.";

/// pi's order and summaries for the built-in tools.
const PI_TOOLS: [(&str, &str); 7] = [
    ("read", "Read file contents"),
    ("bash", "Execute bash commands (ls, grep, find, etc.)"),
    (
        "edit",
        "Make surgical edits to files (find exact text and replace)",
    ),
    ("write", "Create or overwrite files"),
    (
        "grep",
        "Search file contents for patterns (respects .gitignore)",
    ),
    ("find", "Find files by glob pattern (respects .gitignore)"),
    ("ls", "List directory contents"),
];

/// Builds the coding prompt.
pub(super) fn build(params: &SystemPromptParams) -> SystemPrompt {
    let tools = ToolList::new(&params.tools);
    let mut warnings = Vec::new();
    let mut sections: Vec<(PromptSection, Vec<String>)> = Vec::new();
    match non_empty(params.custom_prompt.as_deref()) {
        Some(custom) => sections.push((PromptSection::Identity, vec![custom.to_owned()])),
        None => {
            sections.push((PromptSection::Identity, vec![IDENTITY.to_owned()]));
            sections.push((PromptSection::Tooling, tooling(&tools)));
            sections.push((PromptSection::Guidelines, guidelines(&tools)));
        }
    }
    if let Some(extra) = non_empty(params.extra_system_prompt.as_deref()) {
        sections.push((PromptSection::ExtraSystemPrompt, vec![extra.to_owned()]));
    }
    if !params.context_files.is_empty() {
        sections.push((PromptSection::ProjectContext, project_context(params)));
    }
    if let Some(skills) = non_empty(params.skills_prompt.as_deref())
        && tools.has("read")
    {
        sections.push((
            PromptSection::Skills,
            vec![
                "The following skills provide specialized instructions for specific tasks. Use the read tool to load a skill's file when the task matches its description.".to_owned(),
                skills.to_owned(),
            ],
        ));
    }
    sections.push((
        PromptSection::Environment,
        environment(params, &mut warnings),
    ));
    assemble(params, sections, &tools, warnings, "\n\n")
}

/// `Available tools:` with pi's summaries for pi's tools (in pi's order), the caller's for the
/// rest.
fn tooling(tools: &ToolList) -> Vec<String> {
    let mut out = vec!["Available tools:".to_owned()];
    let mut listed = Vec::new();
    for (name, summary) in PI_TOOLS {
        if tools.has(name) {
            out.push(format!("- {}: {summary}", tools.resolve(name)));
            listed.push(name.to_owned());
        }
    }
    for name in &tools.names {
        let lower = name.to_lowercase();
        if listed.contains(&lower) {
            continue;
        }
        out.push(match tools.caller_summary(&lower) {
            Some(summary) => format!("- {name}: {summary}"),
            None => format!("- {name}"),
        });
    }
    if out.len() == 1 {
        out.push("(none)".to_owned());
    }
    // A line of its own after a blank one (`assemble` drops empty lines, not line breaks).
    out.push(
        "\nIn addition to the tools above, you may have access to other custom tools depending on the project."
            .to_owned(),
    );
    out
}

/// pi's guidelines, each only when the tools it speaks of are offered.
fn guidelines(tools: &ToolList) -> Vec<String> {
    let has = |name: &str| tools.has(name);
    let explore = has("grep") || has("find") || has("ls");
    let mut out = vec!["Guidelines:".to_owned()];
    if has("bash") && !explore {
        out.push("- Use bash for file operations like ls, rg, find".to_owned());
    } else if has("bash") {
        out.push(
            "- Prefer grep/find/ls tools over bash for file exploration (faster, respects .gitignore)"
                .to_owned(),
        );
    }
    if has("read") && has("edit") {
        out.push(
            "- Use read to examine files before editing. You must use this tool instead of cat or sed."
                .to_owned(),
        );
    }
    if has("edit") {
        out.push("- Use edit for precise changes (old text must match exactly)".to_owned());
    }
    if has("write") {
        out.push("- Use write only for new files or complete rewrites".to_owned());
    }
    if has("edit") || has("write") {
        out.push("- When summarizing your actions, output plain text directly - do NOT use cat or bash to display what you did".to_owned());
    }
    out.push("- Be concise in your responses".to_owned());
    out.push("- Show file paths clearly when working with files".to_owned());
    out
}

/// pi's `# Project Context`: each file under its path, paragraphs apart.
fn project_context(params: &SystemPromptParams) -> Vec<String> {
    let mut parts = vec![
        "# Project Context".to_owned(),
        "Project-specific instructions and guidelines:".to_owned(),
    ];
    for file in &params.context_files {
        parts.push(format!("## {}", file.path.display()));
        parts.push(file.content.clone());
    }
    vec![parts.join("\n\n")]
}

/// The closing lines: the date and time (when the caller gave a clock) and the working
/// directory.
fn environment(params: &SystemPromptParams, warnings: &mut Vec<String>) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(user_time) = &params.user_time {
        let resolved = resolve_user_time(user_time);
        warnings.extend(resolved.warning);
        match resolved.formatted {
            Some(formatted) => out.push(format!(
                "Current date and time: {formatted} ({})",
                resolved.timezone
            )),
            None => out.push(format!("Time zone: {}", resolved.timezone)),
        }
    }
    out.push(format!(
        "Current working directory: {}",
        params.workspace_dir.display()
    ));
    out
}
