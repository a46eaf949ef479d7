//! The system prompt as a whole string: section order, exact headings and wording, full and
//! minimal modes, and the report.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use clawloop_core::{ManualClock, ThinkLevel, ToolDefinition};
use clawloop_runner::prompt::{
    ContextFile, HourFormat, PromptMode, PromptSection, RuntimeInfo, SystemPromptParams,
    ToolSummary, UserTime, build_system_prompt, build_system_prompt_with_report,
};
use pretty_assertions::assert_eq;
use serde_json::json;

fn definition(name: &str, description: &str) -> ToolDefinition {
    ToolDefinition {
        name: name.into(),
        description: description.into(),
        parameters: json!({"type": "object"}),
    }
}

fn context_file(name: &str, content: &str) -> ContextFile {
    ContextFile {
        name: name.into(),
        path: format!("/work/app/{name}").into(),
        content: content.into(),
        raw_chars: content.chars().count(),
        truncated: false,
    }
}

/// 2026-01-05T14:04:00Z: 15:04 in Berlin (UTC+1 in winter).
const MONDAY_AFTERNOON_MS: u64 = 1_767_621_840_000;

fn params(mode: PromptMode) -> SystemPromptParams {
    SystemPromptParams {
        mode,
        workspace_dir: "/work/app".into(),
        tools: ToolSummary::from_definitions(&[
            definition("web_fetch", "Fetch a URL.\nReturns markdown."),
            definition("bash", "Execute a bash command in the current working directory."),
            definition("Deploy_Site", "  Deploy the site  "),
            definition("read", "Read the contents of a file."),
            definition("READ", "a second spelling is the same tool"),
            definition("message", "Send a message."),
        ]),
        runtime: RuntimeInfo {
            host: Some("devbox".into()),
            os: Some("linux".into()),
            arch: Some("x86_64".into()),
            shell: Some("bash".into()),
            channel: Some("CLI".into()),
            ..RuntimeInfo::default()
        }
        .with_model("anthropic", "claude-sonnet-4-5"),
        think_level: ThinkLevel::High,
        user_time: Some(UserTime::now(
            "Europe/Berlin",
            &ManualClock::new(MONDAY_AFTERNOON_MS),
            HourFormat::Twelve,
        )),
        owner_ids: vec![" +15551234567 ".into(), String::new(), "alice".into()],
        skills_prompt: Some(
            "\n\n<available_skills>\n  <skill>\n    <name>deploy</name>\n  </skill>\n</available_skills>\n"
                .into(),
        ),
        extra_system_prompt: Some("  You are in #general.  ".into()),
        context_files: vec![
            context_file("AGENTS.md", "Be brief.\n\nUse tabs."),
            context_file("SOUL.md", "Warm and direct."),
        ],
        reasoning_tag_hint: true,
        docs_path: Some("/usr/share/doc/clawloop".into()),
        ..SystemPromptParams::default()
    }
}

const REASONING: &str = "## Reasoning Format\nALL internal reasoning MUST be inside <think>...</think>. Do not output any analysis outside <think>. Format every reply as <think>...</think> then <final>...</final>, with no other text. Only the final user-visible reply may appear inside <final>. Only text inside <final> is shown to the user; everything else is discarded and never seen by the user. Example: <think>Short internal reasoning.</think> <final>Hey there! What would you like to do next?</final>";

const PROJECT_CONTEXT: &str = "# Project Context
The following project context files have been loaded:
If SOUL.md is present, embody its persona and tone. Avoid stiff, generic replies; follow its guidance unless higher-priority instructions override it.
## /work/app/AGENTS.md
Be brief.

Use tabs.
## /work/app/SOUL.md
Warm and direct.";

#[test]
fn full_prompt_has_every_section_in_the_seed_order() {
    let prompt = build_system_prompt_with_report(&params(PromptMode::Full));
    let expected = format!(
        "You are a personal assistant running inside clawloop.
## Current Date & Time
Time zone: Europe/Berlin
Date: Monday, January 5th, 2026 - 3:04 PM
## Authorized Senders
Authorized senders: +15551234567, alice. These senders are allowlisted; do not assume they are the owner.
## Skills (mandatory)
Before replying: scan <available_skills> <description> entries.
- If exactly one skill clearly applies: read its SKILL.md at <location> with `read`, then follow it.
- If multiple could apply: choose the most specific one, then read/follow it.
- If none clearly apply: do not read any SKILL.md.
Constraints: never read more than one skill up front; only read after selecting.
<available_skills>
  <skill>
    <name>deploy</name>
  </skill>
</available_skills>
## Tooling
Tool availability (filtered by policy):
Tool names are case-sensitive. Call tools exactly as listed.
- read: Read file contents
- bash: Execute bash commands (ls, grep, find, etc.)
- message: Send messages and channel actions
- Deploy_Site: Deploy the site
- web_fetch: Fetch a URL.
TOOLS.md does not control tool availability; it is user guidance for how to use external tools.
## Workspace
Your working directory is: /work/app
Treat this directory as the single global workspace for file operations unless explicitly instructed otherwise.
## Runtime
Runtime: host=devbox | os=linux (x86_64) | model=anthropic/claude-sonnet-4-5 | shell=bash | channel=cli | thinking=high
## Messaging
- Reply in current session → automatically routes to the source channel.
- Never use bash/curl for provider messaging; clawloop handles all routing internally.
### message tool
- Use `message` for proactive sends to the current conversation or another target.
- For `action=send`, include `message`; add `target` only to send somewhere other than the current conversation.
- If you use `message` (`action=send`) to deliver your user-visible reply, respond with ONLY: NO_REPLY (avoid duplicate replies).
## Reply Tags
To request a native reply/quote on supported surfaces, include one tag in your reply:
- Reply tags must be the very first token in the message (no leading text/newlines): [[reply_to_current]] your reply.
- [[reply_to_current]] replies to the triggering message.
- Prefer [[reply_to_current]]. Use [[reply_to:<id>]] only when an id was explicitly provided (e.g. by the user or a tool).
Whitespace inside the tag is allowed (e.g. [[ reply_to_current ]] / [[ reply_to: 123 ]]).
Tags are stripped before sending; support depends on the current channel config.
## Documentation
clawloop docs: /usr/share/doc/clawloop
For clawloop behavior, commands, config, or architecture: consult local docs first.
## Group Chat Context
You are in #general.
{REASONING}
{PROJECT_CONTEXT}"
    );
    assert_eq!(prompt.text, expected);
    assert_eq!(
        prompt
            .report
            .sections
            .iter()
            .map(|s| s.section)
            .collect::<Vec<_>>(),
        vec![
            PromptSection::Identity,
            PromptSection::DateTime,
            PromptSection::AuthorizedSenders,
            PromptSection::Skills,
            PromptSection::Tooling,
            PromptSection::Workspace,
            PromptSection::Runtime,
            PromptSection::Messaging,
            PromptSection::ReplyTags,
            PromptSection::Documentation,
            PromptSection::ExtraSystemPrompt,
            PromptSection::ReasoningFormat,
            PromptSection::ProjectContext,
        ]
    );
}

#[test]
fn minimal_prompt_keeps_what_openclaw_keeps_for_subagents() {
    let prompt = build_system_prompt(&params(PromptMode::Minimal));
    let expected = format!(
        "You are a personal assistant running inside clawloop.
## Current Date & Time
Time zone: Europe/Berlin
Date: Monday, January 5th, 2026 - 3:04 PM
## Tooling
Tool availability (filtered by policy):
Tool names are case-sensitive. Call tools exactly as listed.
- read: Read file contents
- bash: Execute bash commands (ls, grep, find, etc.)
- message: Send messages and channel actions
- Deploy_Site: Deploy the site
- web_fetch: Fetch a URL.
TOOLS.md does not control tool availability; it is user guidance for how to use external tools.
## Workspace
Your working directory is: /work/app
Treat this directory as the single global workspace for file operations unless explicitly instructed otherwise.
## Runtime
Runtime: host=devbox | os=linux (x86_64) | model=anthropic/claude-sonnet-4-5 | shell=bash | channel=cli | thinking=high
## Subagent Context
You are in #general.
{REASONING}
{PROJECT_CONTEXT}"
    );
    assert_eq!(prompt, expected);
}

#[test]
fn report_sizes_add_up_to_the_prompt() {
    let prompt = build_system_prompt_with_report(&params(PromptMode::Full));
    let report = &prompt.report;
    assert_eq!(report.chars, prompt.text.chars().count());
    let joined: usize =
        report.sections.iter().map(|s| s.chars).sum::<usize>() + report.sections.len() - 1;
    assert_eq!(joined, report.chars);
    assert_eq!(
        report.project_context_chars,
        PROJECT_CONTEXT.chars().count()
    );
    assert_eq!(
        report.non_project_context_chars,
        report.chars - PROJECT_CONTEXT.chars().count()
    );
    assert_eq!(
        report.tools_listed,
        vec!["read", "bash", "message", "Deploy_Site", "web_fetch"]
    );
    assert_eq!(
        report
            .injected_files
            .iter()
            .map(|f| (f.name.as_str(), f.injected_chars, f.truncated))
            .collect::<Vec<_>>(),
        vec![("AGENTS.md", 20, false), ("SOUL.md", 16, false)]
    );
    assert_eq!(report.warnings, Vec::<String>::new());
}

#[test]
fn bare_params_give_identity_tooling_workspace_and_runtime_only() {
    let prompt = build_system_prompt_with_report(&SystemPromptParams {
        workspace_dir: "/ws".into(),
        ..SystemPromptParams::default()
    });
    assert_eq!(
        prompt.text,
        "You are a personal assistant running inside clawloop.
## Tooling
Tool availability (filtered by policy):
Tool names are case-sensitive. Call tools exactly as listed.
No tools are available in this session.
TOOLS.md does not control tool availability; it is user guidance for how to use external tools.
## Workspace
Your working directory is: /ws
Treat this directory as the single global workspace for file operations unless explicitly instructed otherwise.
## Runtime
Runtime: thinking=off
## Messaging
- Reply in current session → automatically routes to the source channel.
- Never use bash/curl for provider messaging; clawloop handles all routing internally.
## Reply Tags
To request a native reply/quote on supported surfaces, include one tag in your reply:
- Reply tags must be the very first token in the message (no leading text/newlines): [[reply_to_current]] your reply.
- [[reply_to_current]] replies to the triggering message.
- Prefer [[reply_to_current]]. Use [[reply_to:<id>]] only when an id was explicitly provided (e.g. by the user or a tool).
Whitespace inside the tag is allowed (e.g. [[ reply_to_current ]] / [[ reply_to: 123 ]]).
Tags are stripped before sending; support depends on the current channel config."
    );
}

#[test]
fn date_section_uses_the_given_zone_and_clock_never_the_process_zone() {
    // 2026-07-22T21:09Z is 17:09 in New York (EDT, UTC-4).
    let base = SystemPromptParams {
        workspace_dir: "/ws".into(),
        mode: PromptMode::Minimal,
        ..SystemPromptParams::default()
    };
    let section = |user_time: UserTime| {
        let prompt = build_system_prompt_with_report(&SystemPromptParams {
            user_time: Some(user_time),
            ..base.clone()
        });
        let start = prompt.text.find("## Current Date & Time").unwrap();
        let end = prompt.text.find("## Tooling").unwrap();
        (prompt.text[start..end].to_owned(), prompt.report.warnings)
    };
    assert_eq!(
        section(UserTime {
            timezone: "America/New_York".into(),
            now_ms: Some(1_784_754_540_000),
            hour_format: HourFormat::TwentyFour,
        }),
        (
            "## Current Date & Time\nTime zone: America/New_York\nDate: Wednesday, July 22nd, 2026 - 17:09\n".to_owned(),
            vec![]
        )
    );
    assert_eq!(
        section(UserTime {
            timezone: "Asia/Tokyo".into(),
            now_ms: None,
            hour_format: HourFormat::Twelve,
        }),
        (
            "## Current Date & Time\nTime zone: Asia/Tokyo\n".to_owned(),
            vec![]
        )
    );
    assert_eq!(
        section(UserTime {
            timezone: "Mars/Olympus_Mons".into(),
            now_ms: Some(MONDAY_AFTERNOON_MS),
            hour_format: HourFormat::Twelve,
        }),
        (
            "## Current Date & Time\nTime zone: UTC\nDate: Monday, January 5th, 2026 - 2:04 PM\n"
                .to_owned(),
            vec![
                "unknown time zone \"Mars/Olympus_Mons\" in the system prompt; using UTC"
                    .to_owned()
            ]
        )
    );
}

#[test]
fn memory_and_cross_session_lines_follow_the_tools_offered() {
    let prompt = build_system_prompt_with_report(&SystemPromptParams {
        workspace_dir: "/ws".into(),
        tools: vec![
            ToolSummary::new("memory_search", "Search memory"),
            ToolSummary::new("sessions_send", ""),
            ToolSummary::new("sessions_spawn", ""),
        ],
        ..SystemPromptParams::default()
    });
    let text = &prompt.text;
    let memory = "## Memory Recall\nBefore answering anything about prior work, decisions, dates, people, preferences, or todos: run memory_search on MEMORY.md + memory/*.md; then use memory_get to pull only the needed lines. If low confidence after search, say you checked.\nCitations: include Source: <path#line> when it helps the user verify memory snippets.\n## Tooling\n";
    assert!(text.contains(memory), "{text}");
    assert!(text.contains("\n- sessions_send\n- sessions_spawn\nTOOLS.md does not control tool availability; it is user guidance for how to use external tools.\nIf a task is more complex or takes longer, spawn a sub-agent."));
    assert!(
        text.contains("\n- Cross-session messaging → use sessions_send(sessionKey, message)\n")
    );
    // The skills section needs a non-blank skills list.
    let blank_skills = build_system_prompt_with_report(&SystemPromptParams {
        skills_prompt: Some(" \n ".into()),
        ..SystemPromptParams::default()
    });
    assert!(!blank_skills.text.contains("## Skills"));
}
