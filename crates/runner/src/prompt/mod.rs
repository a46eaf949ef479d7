//! The system prompt (SPEC §8.8): OpenClaw's `buildAgentSystemPrompt` with clawloop's name and
//! features, its sections in the seed's order (seed 003 "System Prompt 组装逻辑"), the workspace
//! context files, and skills.
//!
//! Everything that decides text is a pure function over plain data: [`build_system_prompt`]
//! takes [`SystemPromptParams`] and reads nothing (not the clock, not `TZ`, not the disk). The
//! loaders, [`context_files::load_context_files`] and [`skills::load_skills`], are the only I/O,
//! and they never fail: what they cannot use becomes a warning.
//!
//! # Example
//!
//! ```
//! use clawloop_runner::prompt::{
//!     SystemPromptParams, ToolSummary, build_system_prompt, build_system_prompt_with_report,
//! };
//!
//! let params = SystemPromptParams {
//!     workspace_dir: "/work/app".into(),
//!     tools: vec![ToolSummary::new("read", "")],
//!     ..SystemPromptParams::default()
//! };
//! let prompt = build_system_prompt_with_report(&params);
//! assert_eq!(build_system_prompt(&params), prompt.text);
//! assert!(prompt.text.starts_with("You are a personal assistant running inside clawloop.\n## Tooling"));
//! assert!(prompt.text.contains("\n- read: Read file contents\n"));
//! assert_eq!(prompt.report.chars, prompt.text.chars().count());
//! ```

mod coding;
mod confined_read;
pub mod context_files;
pub mod date_time;
mod report;
mod sections;
pub mod skills;
mod tool_lines;

use std::path::PathBuf;

use clawloop_core::{ThinkLevel, ToolDefinition};

pub use context_files::ContextFile;
pub use date_time::{HourFormat, UserTime};
pub use report::{InjectedFileReport, PromptSection, SectionReport, SystemPromptReport};
pub use sections::{build_system_prompt, build_system_prompt_with_report};

/// Which sections a prompt has.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PromptMode {
    /// Every section: the main agent.
    #[default]
    Full,
    /// Subagents (OpenClaw's `minimal`): identity, date and time, tooling, workspace, runtime, the
    /// extra system prompt (as `## Subagent Context`), the reasoning format and the context
    /// files; no skills, memory, senders, messaging, reply tags or documentation.
    Minimal,
}

/// Whose system prompt a turn gets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PromptProfile {
    /// OpenClaw's chat-gateway prompt (identity as a personal assistant, messaging, reply
    /// tags): what an embedder serving channels expects, and what the conformance scenarios pin.
    #[default]
    Gateway,
    /// pi's coding-agent prompt: the tools with one-line summaries, guidelines, the project's
    /// `AGENTS.md`/`CLAUDE.md` from the workspace and its parents, the date and the working
    /// directory. What a terminal user of the CLI expects.
    Coding,
}

/// A tool as the prompt lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSummary {
    /// The name the model calls (its casing is kept).
    pub name: String,
    /// One line on what it does; the built-in tools' own summaries take precedence.
    pub summary: String,
}

impl ToolSummary {
    /// A tool with this name and summary.
    pub fn new(name: impl Into<String>, summary: impl Into<String>) -> Self {
        ToolSummary {
            name: name.into(),
            summary: summary.into(),
        }
    }

    /// The tool's name and the first non-blank line of its description (a multi-line
    /// description would break the list's one-line-per-tool shape).
    pub fn from_definition(definition: &ToolDefinition) -> Self {
        let summary = definition
            .description
            .lines()
            .map(str::trim)
            .find(|line| !line.is_empty())
            .unwrap_or_default();
        ToolSummary::new(definition.name.clone(), summary)
    }

    /// [`ToolSummary::from_definition`] for each definition.
    pub fn from_definitions(definitions: &[ToolDefinition]) -> Vec<Self> {
        definitions.iter().map(Self::from_definition).collect()
    }
}

/// Where the agent runs, for the `## Runtime` line. Empty fields are left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuntimeInfo {
    /// Host name.
    pub host: Option<String>,
    /// Operating system (`linux`, `macos`).
    pub os: Option<String>,
    /// CPU architecture (`x86_64`).
    pub arch: Option<String>,
    /// The model as `provider/id`.
    pub model: Option<String>,
    /// The shell the `bash` tool runs.
    pub shell: Option<String>,
    /// The channel the conversation comes from (`cli`); written lowercase.
    pub channel: Option<String>,
}

impl RuntimeInfo {
    /// Sets the model from its provider and id (`anthropic/claude-sonnet-4-5`).
    pub fn with_model(mut self, provider: &str, model_id: &str) -> Self {
        self.model = Some(format!("{provider}/{model_id}"));
        self
    }
}

/// Everything the system prompt is built from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemPromptParams {
    /// Full or minimal.
    pub mode: PromptMode,
    /// The effective workspace (the tools' root).
    pub workspace_dir: PathBuf,
    /// The tools offered this run, after policy.
    pub tools: Vec<ToolSummary>,
    /// Host, OS, model, shell, channel.
    pub runtime: RuntimeInfo,
    /// The run's thinking level (`thinking=` on the runtime line).
    pub think_level: ThinkLevel,
    /// The user's time zone and, optionally, the current time; `None` leaves the section out.
    pub user_time: Option<UserTime>,
    /// Sender ids allowed to talk to the agent (OpenClaw's `ownerNumbers`), shown as given.
    pub owner_ids: Vec<String>,
    /// The skills list ([`skills::format_skills_prompt`]'s text).
    pub skills_prompt: Option<String>,
    /// Text the caller appends (group chat or subagent context).
    pub extra_system_prompt: Option<String>,
    /// Workspace context files to inline.
    pub context_files: Vec<ContextFile>,
    /// The provider needs reasoning in `<think>` and the reply in `<final>` tags.
    pub reasoning_tag_hint: bool,
    /// Local documentation path for the `## Documentation` section.
    pub docs_path: Option<String>,
    /// Gateway or coding prompt.
    pub profile: PromptProfile,
    /// Replaces the generated prompt (pi's `--system-prompt`): like pi, the appended text, the
    /// project context, the skills, the date and the working directory still follow it.
    pub custom_prompt: Option<String>,
}

impl Default for SystemPromptParams {
    fn default() -> Self {
        SystemPromptParams {
            mode: PromptMode::Full,
            workspace_dir: PathBuf::new(),
            tools: Vec::new(),
            runtime: RuntimeInfo::default(),
            think_level: ThinkLevel::Off,
            user_time: None,
            owner_ids: Vec::new(),
            skills_prompt: None,
            extra_system_prompt: None,
            context_files: Vec::new(),
            reasoning_tag_hint: false,
            docs_path: None,
            profile: PromptProfile::Gateway,
            custom_prompt: None,
        }
    }
}

/// A built prompt and its report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemPrompt {
    /// The prompt text.
    pub text: String,
    /// Sizes of its parts.
    pub report: SystemPromptReport,
}
