//! The coding-agent prompt profile (pi's default system prompt with clawloop's name): the whole
//! text, a custom prompt that replaces its head, and the project context files it loads from the
//! workspace and its parents.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use clawloop_core::{ManualClock, ToolDefinition};
use clawloop_runner::prompt::context_files::{ContextBudget, load_project_context_files};
use clawloop_runner::prompt::{
    ContextFile, HourFormat, PromptProfile, PromptSection, SystemPromptParams, ToolSummary,
    UserTime, build_system_prompt_with_report,
};
use pretty_assertions::assert_eq;
use serde_json::json;

/// 2026-01-05T14:04:00Z.
const MONDAY_AFTERNOON_MS: u64 = 1_767_621_840_000;

fn definition(name: &str, description: &str) -> ToolDefinition {
    ToolDefinition {
        name: name.into(),
        description: description.into(),
        parameters: json!({"type": "object"}),
    }
}

fn coding(tools: &[&str]) -> SystemPromptParams {
    SystemPromptParams {
        profile: PromptProfile::Coding,
        workspace_dir: "/work/app".into(),
        tools: ToolSummary::from_definitions(
            &tools
                .iter()
                .map(|name| definition(name, "The tool's own words."))
                .chain([definition("deploy", "Deploy the site.\nSecond line.")])
                .collect::<Vec<_>>(),
        ),
        user_time: Some(UserTime::now(
            "Europe/Berlin",
            &ManualClock::new(MONDAY_AFTERNOON_MS),
            HourFormat::Twelve,
        )),
        extra_system_prompt: Some("  Answer in French.  ".into()),
        context_files: vec![ContextFile {
            name: "AGENTS.md".into(),
            path: "/work/app/AGENTS.md".into(),
            content: "Run `make test`.\n\nUse tabs.".into(),
            raw_chars: 25,
            truncated: false,
        }],
        skills_prompt: Some("<available_skills>\n</available_skills>".into()),
        ..SystemPromptParams::default()
    }
}

#[test]
fn the_coding_prompt_is_pis_with_clawloops_name() {
    let prompt = build_system_prompt_with_report(&coding(&[
        "read", "write", "edit", "bash", "grep", "find", "ls",
    ]));
    let expected = "You are an expert coding assistant operating inside clawloop, a coding agent harness. You help users by reading files, executing commands, editing code, and writing new files.

Available tools:
- read: Read file contents
- bash: Execute bash commands (ls, grep, find, etc.)
- edit: Make surgical edits to files (find exact text and replace)
- write: Create or overwrite files
- grep: Search file contents for patterns (respects .gitignore)
- find: Find files by glob pattern (respects .gitignore)
- ls: List directory contents
- deploy: Deploy the site.

In addition to the tools above, you may have access to other custom tools depending on the project.

Guidelines:
- Prefer grep/find/ls tools over bash for file exploration (faster, respects .gitignore)
- Use read to examine files before editing. You must use this tool instead of cat or sed.
- Use edit for precise changes (old text must match exactly)
- Use write only for new files or complete rewrites
- When summarizing your actions, output plain text directly - do NOT use cat or bash to display what you did
- Be concise in your responses
- Show file paths clearly when working with files

Answer in French.

# Project Context

Project-specific instructions and guidelines:

## /work/app/AGENTS.md

Run `make test`.

Use tabs.

The following skills provide specialized instructions for specific tasks. Use the read tool to load a skill's file when the task matches its description.
<available_skills>
</available_skills>

Current date and time: Monday, January 5th, 2026 - 3:04 PM (Europe/Berlin)
Current working directory: /work/app";
    assert_eq!(prompt.text, expected);
    for gateway in [
        "personal assistant",
        "Reply Tags",
        "routes to the source channel",
        "Group Chat Context",
    ] {
        assert!(!prompt.text.contains(gateway), "{gateway}");
    }
    let sections: Vec<PromptSection> = prompt.report.sections.iter().map(|s| s.section).collect();
    assert_eq!(
        sections,
        [
            PromptSection::Identity,
            PromptSection::Tooling,
            PromptSection::Guidelines,
            PromptSection::ExtraSystemPrompt,
            PromptSection::ProjectContext,
            PromptSection::Skills,
            PromptSection::Environment,
        ]
    );
    assert_eq!(prompt.report.chars, prompt.text.chars().count());
}

#[test]
fn guidelines_follow_the_tools_offered() {
    let bash_only = build_system_prompt_with_report(&SystemPromptParams {
        skills_prompt: None,
        ..coding(&["bash"])
    })
    .text;
    assert!(
        bash_only.contains(
            "Guidelines:\n- Use bash for file operations like ls, rg, find\n- Be concise"
        )
    );
    assert!(!bash_only.contains("Use edit"));
    let none = build_system_prompt_with_report(&SystemPromptParams {
        tools: Vec::new(),
        ..coding(&[])
    })
    .text;
    assert!(none.contains("Available tools:\n(none)\n"), "{none}");
    // Skills are listed only when the model can read them.
    assert!(!none.contains("<available_skills>"));
}

#[test]
fn a_custom_prompt_replaces_the_head_and_keeps_context_and_environment() {
    let prompt = build_system_prompt_with_report(&SystemPromptParams {
        custom_prompt: Some("You are a terse reviewer.".into()),
        ..coding(&["read"])
    })
    .text;
    assert!(
        prompt.starts_with("You are a terse reviewer.\n\nAnswer in French.\n\n# Project Context")
    );
    assert!(!prompt.contains("Available tools:"));
    assert!(!prompt.contains("Guidelines:"));
    assert!(prompt.ends_with("Current working directory: /work/app"));
    // A custom prompt under the gateway profile is pi's custom prompt too.
    let gateway = build_system_prompt_with_report(&SystemPromptParams {
        profile: PromptProfile::Gateway,
        custom_prompt: Some("Only this.".into()),
        ..coding(&["read"])
    })
    .text;
    assert!(gateway.starts_with("Only this.\n\n"));
    assert!(!gateway.contains("personal assistant"));
}

#[test]
fn project_context_comes_from_the_workspace_and_its_parents_outermost_first() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    let workspace = repo.join("crates/app");
    std::fs::create_dir_all(&workspace).unwrap();
    std::fs::write(repo.join("AGENTS.md"), "repo rules\n").unwrap();
    // AGENTS.md wins over CLAUDE.md in one directory, as in pi.
    std::fs::write(repo.join("CLAUDE.md"), "not read").unwrap();
    std::fs::write(workspace.join("CLAUDE.md"), "app rules").unwrap();
    std::fs::write(workspace.join("SOUL.md"), "gateway-only file").unwrap();
    let loaded = load_project_context_files(&workspace, ContextBudget::default());
    let files: Vec<(String, String)> = loaded
        .files
        .iter()
        .map(|f| (f.path.display().to_string(), f.content.clone()))
        .collect();
    let repo = std::fs::canonicalize(&repo).unwrap();
    assert_eq!(
        files,
        [
            (
                repo.join("AGENTS.md").display().to_string(),
                "repo rules".to_owned()
            ),
            (
                repo.join("crates/app/CLAUDE.md").display().to_string(),
                "app rules".to_owned()
            ),
        ]
    );
    assert_eq!(loaded.warnings, Vec::<String>::new());
}
