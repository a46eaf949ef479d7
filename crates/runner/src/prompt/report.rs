//! What a built prompt is made of (OpenClaw's `systemPromptReport`): chars per section and per
//! injected file, for `/context`-style diagnostics and the run's metadata.

use std::path::PathBuf;

use super::PromptMode;

/// A section of the prompt, in the order they appear.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PromptSection {
    /// The first line: who the agent is.
    Identity,
    /// `## Current Date & Time`.
    DateTime,
    /// `## Authorized Senders`.
    AuthorizedSenders,
    /// `## Skills (mandatory)`.
    Skills,
    /// `## Memory Recall`.
    Memory,
    /// `## Tooling`.
    Tooling,
    /// `## Workspace`.
    Workspace,
    /// `## Runtime`.
    Runtime,
    /// `## Messaging`.
    Messaging,
    /// `## Reply Tags`.
    ReplyTags,
    /// `## Documentation`.
    Documentation,
    /// `## Group Chat Context` or `## Subagent Context`.
    ExtraSystemPrompt,
    /// `## Reasoning Format`.
    ReasoningFormat,
    /// `# Project Context` and the files under it.
    ProjectContext,
    /// The coding profile's `Guidelines:` list.
    Guidelines,
    /// The coding profile's closing date and working-directory lines.
    Environment,
}

/// One section's size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SectionReport {
    /// Which section.
    pub section: PromptSection,
    /// Its length in chars, without the line break that joins it to the next.
    pub chars: usize,
}

/// One injected context file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InjectedFileReport {
    /// File name (`AGENTS.md`).
    pub name: String,
    /// Path shown in the prompt.
    pub path: PathBuf,
    /// The file's length (trailing whitespace dropped) before any cut, in chars.
    pub raw_chars: usize,
    /// What went into the prompt, in chars.
    pub injected_chars: usize,
    /// Whether it was cut.
    pub truncated: bool,
}

/// Sizes of a built prompt. Chars are Unicode scalar values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemPromptReport {
    /// The mode it was built in.
    pub mode: PromptMode,
    /// The whole prompt's length.
    pub chars: usize,
    /// The `# Project Context` part's length.
    pub project_context_chars: usize,
    /// Everything else.
    pub non_project_context_chars: usize,
    /// The sections present, in order.
    pub sections: Vec<SectionReport>,
    /// The context files inlined, in order.
    pub injected_files: Vec<InjectedFileReport>,
    /// The tools listed, in list order.
    pub tools_listed: Vec<String>,
    /// Problems with the inputs that the builder worked around (an unknown time zone).
    pub warnings: Vec<String>,
}
