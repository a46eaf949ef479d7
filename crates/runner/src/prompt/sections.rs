//! The sections of the system prompt and their assembly, in the seed's order: identity, date and
//! time, authorized senders, skills, memory, tooling, workspace, runtime, messaging, reply tags,
//! documentation, extra system prompt, (reasoning format,) context files.
//!
//! Wording is OpenClaw's (`agents/system-prompt.ts`) with clawloop for OpenClaw and without what
//! clawloop does not have (gateway, sandbox, TTS, heartbeats, CLI self-update, model aliases).
//! Like OpenClaw, the lines are joined with single line breaks and empty lines are dropped
//! between sections (a context file's own blank lines stay).

use clawloop_subscribe::SILENT_REPLY_TOKEN;

use super::date_time::resolve_user_time;
use super::report::{InjectedFileReport, PromptSection, SectionReport, SystemPromptReport};
use super::tool_lines::ToolList;
use super::{PromptMode, PromptProfile, RuntimeInfo, SystemPrompt, SystemPromptParams};

const IDENTITY: &str = "You are a personal assistant running inside clawloop.";

/// Builds the system prompt. Pure: the same params give the same text.
pub fn build_system_prompt(params: &SystemPromptParams) -> String {
    build_system_prompt_with_report(params).text
}

/// Builds the system prompt and its report (OpenClaw's `systemPromptReport`).
pub fn build_system_prompt_with_report(params: &SystemPromptParams) -> SystemPrompt {
    if params.profile == PromptProfile::Coding || params.custom_prompt.is_some() {
        return super::coding::build(params);
    }
    let tools = ToolList::new(&params.tools);
    let full = params.mode == PromptMode::Full;
    let mut warnings = Vec::new();
    let mut sections: Vec<(PromptSection, Vec<String>)> =
        vec![(PromptSection::Identity, vec![IDENTITY.to_owned()])];
    let mut push = |section: PromptSection, lines: Option<Vec<String>>| {
        if let Some(lines) = lines {
            sections.push((section, lines));
        }
    };
    push(PromptSection::DateTime, date_time(params, &mut warnings));
    if full {
        push(
            PromptSection::AuthorizedSenders,
            authorized_senders(&params.owner_ids),
        );
        push(
            PromptSection::Skills,
            skills(params.skills_prompt.as_deref(), &tools),
        );
        push(PromptSection::Memory, memory(&tools));
    }
    push(PromptSection::Tooling, Some(tooling(&tools)));
    push(PromptSection::Workspace, Some(workspace(params)));
    push(
        PromptSection::Runtime,
        Some(runtime(&params.runtime, params)),
    );
    if full {
        push(PromptSection::Messaging, Some(messaging(&tools)));
        push(PromptSection::ReplyTags, Some(reply_tags()));
        push(
            PromptSection::Documentation,
            documentation(params.docs_path.as_deref()),
        );
    }
    push(PromptSection::ExtraSystemPrompt, extra(params));
    push(
        PromptSection::ReasoningFormat,
        params.reasoning_tag_hint.then(reasoning_format),
    );
    push(PromptSection::ProjectContext, project_context(params));
    assemble(params, sections, &tools, warnings, "\n")
}

/// Joins the sections with `separator` (empty lines inside a section are dropped) and reports
/// their sizes.
pub(super) fn assemble(
    params: &SystemPromptParams,
    sections: Vec<(PromptSection, Vec<String>)>,
    tools: &ToolList,
    warnings: Vec<String>,
    separator: &str,
) -> SystemPrompt {
    let mut text = String::new();
    let mut reports = Vec::with_capacity(sections.len());
    let mut project_context_chars = 0;
    for (section, lines) in sections {
        let body = lines
            .into_iter()
            .filter(|line| !line.is_empty())
            .collect::<Vec<_>>()
            .join("\n");
        let chars = body.chars().count();
        if section == PromptSection::ProjectContext {
            project_context_chars = chars;
        }
        if !text.is_empty() {
            text.push_str(separator);
        }
        text.push_str(&body);
        reports.push(SectionReport { section, chars });
    }
    let chars = text.chars().count();
    let report = SystemPromptReport {
        mode: params.mode,
        chars,
        project_context_chars,
        non_project_context_chars: chars - project_context_chars,
        sections: reports,
        injected_files: params
            .context_files
            .iter()
            .map(|file| InjectedFileReport {
                name: file.name.clone(),
                path: file.path.clone(),
                raw_chars: file.raw_chars,
                injected_chars: file.content.chars().count(),
                truncated: file.truncated,
            })
            .collect(),
        tools_listed: tools.names.clone(),
        warnings,
    };
    SystemPrompt { text, report }
}

fn lines(items: &[&str]) -> Vec<String> {
    items.iter().map(|line| (*line).to_owned()).collect()
}

pub(super) fn non_empty(text: Option<&str>) -> Option<&str> {
    text.map(str::trim).filter(|t| !t.is_empty())
}

fn date_time(params: &SystemPromptParams, warnings: &mut Vec<String>) -> Option<Vec<String>> {
    let user_time = params.user_time.as_ref()?;
    let resolved = resolve_user_time(user_time);
    warnings.extend(resolved.warning);
    let mut out = vec![
        "## Current Date & Time".to_owned(),
        format!("Time zone: {}", resolved.timezone),
    ];
    if let Some(formatted) = resolved.formatted {
        out.push(format!("Date: {formatted}"));
    }
    Some(out)
}

fn authorized_senders(owner_ids: &[String]) -> Option<Vec<String>> {
    let ids: Vec<&str> = owner_ids
        .iter()
        .map(|id| id.trim())
        .filter(|id| !id.is_empty())
        .collect();
    if ids.is_empty() {
        return None;
    }
    Some(vec![
        "## Authorized Senders".to_owned(),
        format!(
            "Authorized senders: {}. These senders are allowlisted; do not assume they are the owner.",
            ids.join(", ")
        ),
    ])
}

fn skills(skills_prompt: Option<&str>, tools: &ToolList) -> Option<Vec<String>> {
    let prompt = non_empty(skills_prompt)?;
    let read = tools.resolve("read");
    Some(vec![
        "## Skills (mandatory)".to_owned(),
        "Before replying: scan <available_skills> <description> entries.".to_owned(),
        format!(
            "- If exactly one skill clearly applies: read its SKILL.md at <location> with `{read}`, then follow it."
        ),
        "- If multiple could apply: choose the most specific one, then read/follow it.".to_owned(),
        "- If none clearly apply: do not read any SKILL.md.".to_owned(),
        "Constraints: never read more than one skill up front; only read after selecting."
            .to_owned(),
        prompt.to_owned(),
    ])
}

fn memory(tools: &ToolList) -> Option<Vec<String>> {
    if !tools.has("memory_search") && !tools.has("memory_get") {
        return None;
    }
    Some(lines(&[
        "## Memory Recall",
        "Before answering anything about prior work, decisions, dates, people, preferences, or todos: run memory_search on MEMORY.md + memory/*.md; then use memory_get to pull only the needed lines. If low confidence after search, say you checked.",
        "Citations: include Source: <path#line> when it helps the user verify memory snippets.",
    ]))
}

fn tooling(tools: &ToolList) -> Vec<String> {
    let mut out = lines(&[
        "## Tooling",
        "Tool availability (filtered by policy):",
        "Tool names are case-sensitive. Call tools exactly as listed.",
    ]);
    if tools.lines.is_empty() {
        out.push("No tools are available in this session.".to_owned());
    } else {
        out.extend(tools.lines.iter().cloned());
    }
    out.push(
        "TOOLS.md does not control tool availability; it is user guidance for how to use external tools."
            .to_owned(),
    );
    if tools.has("sessions_spawn") {
        out.push("If a task is more complex or takes longer, spawn a sub-agent. It will do the work for you and ping you when it's done. You can always check up on it.".to_owned());
    }
    out
}

fn workspace(params: &SystemPromptParams) -> Vec<String> {
    vec![
        "## Workspace".to_owned(),
        format!("Your working directory is: {}", params.workspace_dir.display()),
        "Treat this directory as the single global workspace for file operations unless explicitly instructed otherwise.".to_owned(),
    ]
}

/// OpenClaw's `buildRuntimeLine`, with the fields clawloop knows.
fn runtime(info: &RuntimeInfo, params: &SystemPromptParams) -> Vec<String> {
    let field = |value: &Option<String>| non_empty(value.as_deref()).map(str::to_owned);
    let mut parts = Vec::new();
    if let Some(host) = field(&info.host) {
        parts.push(format!("host={host}"));
    }
    match (field(&info.os), field(&info.arch)) {
        (Some(os), Some(arch)) => parts.push(format!("os={os} ({arch})")),
        (Some(os), None) => parts.push(format!("os={os}")),
        (None, Some(arch)) => parts.push(format!("arch={arch}")),
        (None, None) => {}
    }
    if let Some(model) = field(&info.model) {
        parts.push(format!("model={model}"));
    }
    if let Some(shell) = field(&info.shell) {
        parts.push(format!("shell={shell}"));
    }
    if let Some(channel) = field(&info.channel) {
        parts.push(format!("channel={}", channel.to_lowercase()));
    }
    parts.push(format!("thinking={}", params.think_level.as_str()));
    vec![
        "## Runtime".to_owned(),
        format!("Runtime: {}", parts.join(" | ")),
    ]
}

fn messaging(tools: &ToolList) -> Vec<String> {
    let shell = tools.resolve("bash");
    let mut out = vec![
        "## Messaging".to_owned(),
        "- Reply in current session → automatically routes to the source channel.".to_owned(),
    ];
    if tools.has("sessions_send") {
        let send = tools.resolve("sessions_send");
        out.push(format!(
            "- Cross-session messaging → use {send}(sessionKey, message)"
        ));
    }
    out.push(format!(
        "- Never use {shell}/curl for provider messaging; clawloop handles all routing internally."
    ));
    if tools.has("message") {
        let message = tools.resolve("message");
        out.push(format!("### {message} tool"));
        out.push(format!(
            "- Use `{message}` for proactive sends to the current conversation or another target."
        ));
        out.push("- For `action=send`, include `message`; add `target` only to send somewhere other than the current conversation.".to_owned());
        out.push(format!("- If you use `{message}` (`action=send`) to deliver your user-visible reply, respond with ONLY: {SILENT_REPLY_TOKEN} (avoid duplicate replies)."));
    }
    out
}

fn reply_tags() -> Vec<String> {
    lines(&[
        "## Reply Tags",
        "To request a native reply/quote on supported surfaces, include one tag in your reply:",
        "- Reply tags must be the very first token in the message (no leading text/newlines): [[reply_to_current]] your reply.",
        "- [[reply_to_current]] replies to the triggering message.",
        "- Prefer [[reply_to_current]]. Use [[reply_to:<id>]] only when an id was explicitly provided (e.g. by the user or a tool).",
        "Whitespace inside the tag is allowed (e.g. [[ reply_to_current ]] / [[ reply_to: 123 ]]).",
        "Tags are stripped before sending; support depends on the current channel config.",
    ])
}

fn documentation(docs_path: Option<&str>) -> Option<Vec<String>> {
    let path = non_empty(docs_path)?;
    Some(vec![
        "## Documentation".to_owned(),
        format!("clawloop docs: {path}"),
        "For clawloop behavior, commands, config, or architecture: consult local docs first."
            .to_owned(),
    ])
}

fn extra(params: &SystemPromptParams) -> Option<Vec<String>> {
    let text = non_empty(params.extra_system_prompt.as_deref())?;
    let heading = match params.mode {
        PromptMode::Full => "## Group Chat Context",
        PromptMode::Minimal => "## Subagent Context",
    };
    Some(vec![heading.to_owned(), text.to_owned()])
}

fn reasoning_format() -> Vec<String> {
    let hint = [
        "ALL internal reasoning MUST be inside <think>...</think>.",
        "Do not output any analysis outside <think>.",
        "Format every reply as <think>...</think> then <final>...</final>, with no other text.",
        "Only the final user-visible reply may appear inside <final>.",
        "Only text inside <final> is shown to the user; everything else is discarded and never seen by the user.",
        "Example:",
        "<think>Short internal reasoning.</think>",
        "<final>Hey there! What would you like to do next?</final>",
    ]
    .join(" ");
    vec!["## Reasoning Format".to_owned(), hint]
}

fn project_context(params: &SystemPromptParams) -> Option<Vec<String>> {
    if params.context_files.is_empty() {
        return None;
    }
    let has_soul = params.context_files.iter().any(|file| {
        let path = file.path.to_string_lossy().replace('\\', "/");
        let base = path.rsplit('/').next().unwrap_or(&path);
        base.trim().eq_ignore_ascii_case("soul.md")
    });
    let mut out = lines(&[
        "# Project Context",
        "The following project context files have been loaded:",
    ]);
    if has_soul {
        out.push("If SOUL.md is present, embody its persona and tone. Avoid stiff, generic replies; follow its guidance unless higher-priority instructions override it.".to_owned());
    }
    for file in &params.context_files {
        out.push(format!("## {}", file.path.display()));
        out.push(file.content.clone());
    }
    Some(out)
}
