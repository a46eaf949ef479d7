//! Workspace context files (OpenClaw's bootstrap files, pi's `AGENTS.md`/`CLAUDE.md`): which
//! files, how they are read, and the per-file and total character budgets with OpenClaw's
//! truncation marker (`pi-embedded-helpers/bootstrap.ts` `buildBootstrapContextFiles`).
//!
//! Loading is the only I/O here ([`load_context_files`]); the budget is a pure function over the
//! raw texts ([`apply_context_budget`]). Nothing is fatal: a missing file is skipped, a file that
//! may not be read (a FIFO, a device, a link leading out of the workspace, an oversized file) or
//! fails to read becomes a warning.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use clawloop_core::js_text::js_trim_end;

use super::PromptMode;
use super::confined_read::{NotRead, read_confined};

/// The files looked for in the workspace root, in prompt order: OpenClaw's bootstrap set
/// (`workspace.ts` `loadWorkspaceBootstrapFiles`) with pi's `CLAUDE.md` beside `AGENTS.md`.
/// `MEMORY.md` and `memory.md` are one file on a case-insensitive disk and are then read once.
pub const CONTEXT_FILE_NAMES: [&str; 10] = [
    "AGENTS.md",
    "CLAUDE.md",
    "SOUL.md",
    "TOOLS.md",
    "IDENTITY.md",
    "USER.md",
    "HEARTBEAT.md",
    "BOOTSTRAP.md",
    "MEMORY.md",
    "memory.md",
];

/// The files a minimal (subagent) prompt keeps: OpenClaw's `SUBAGENT_BOOTSTRAP_ALLOWLIST`
/// (`AGENTS.md`, `TOOLS.md`) plus `CLAUDE.md`, which plays `AGENTS.md`'s part.
pub const MINIMAL_CONTEXT_FILE_NAMES: [&str; 3] = ["AGENTS.md", "CLAUDE.md", "TOOLS.md"];

/// OpenClaw's `DEFAULT_BOOTSTRAP_MAX_CHARS`: the most one file contributes.
pub const DEFAULT_MAX_CHARS_PER_FILE: usize = 20_000;
/// OpenClaw's `DEFAULT_BOOTSTRAP_TOTAL_MAX_CHARS`: the most all files contribute together.
pub const DEFAULT_MAX_TOTAL_CHARS: usize = 150_000;
/// OpenClaw's `MAX_WORKSPACE_BOOTSTRAP_FILE_BYTES`: larger files are refused unread.
pub const MAX_CONTEXT_FILE_BYTES: u64 = 2 * 1024 * 1024;

/// Below this many chars left in the total budget no further file is started
/// (`MIN_BOOTSTRAP_FILE_BUDGET_CHARS`).
const MIN_FILE_BUDGET_CHARS: usize = 64;
/// Tenths of a file's budget kept from its start when it is cut (`BOOTSTRAP_HEAD_RATIO` 0.7).
const HEAD_TENTHS: usize = 7;
/// Tenths kept from its end (`BOOTSTRAP_TAIL_RATIO` 0.2).
const TAIL_TENTHS: usize = 2;

/// Character budgets for the injected files. Characters are Unicode scalar values (OpenClaw
/// counts UTF-16 units; the two differ only outside the Basic Multilingual Plane).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextBudget {
    /// The most one file contributes (`agents.defaults.bootstrapMaxChars`).
    pub max_chars_per_file: usize,
    /// The most all files contribute together (`agents.defaults.bootstrapTotalMaxChars`).
    pub max_total_chars: usize,
}

impl Default for ContextBudget {
    fn default() -> Self {
        ContextBudget {
            max_chars_per_file: DEFAULT_MAX_CHARS_PER_FILE,
            max_total_chars: DEFAULT_MAX_TOTAL_CHARS,
        }
    }
}

/// A file as read, before any budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawContextFile {
    /// The file name (`AGENTS.md`), used in the truncation marker and warnings.
    pub name: String,
    /// The path shown in the prompt: the workspace directory joined with the name.
    pub path: PathBuf,
    /// The whole text.
    pub content: String,
}

/// A file as it goes into the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextFile {
    /// The file name (`AGENTS.md`).
    pub name: String,
    /// The path shown as the file's heading in the prompt.
    pub path: PathBuf,
    /// The text injected: the file without trailing whitespace, cut to the budget.
    pub content: String,
    /// Length of the file without trailing whitespace, in chars, before any cut.
    pub raw_chars: usize,
    /// Whether `content` is shorter than the file.
    pub truncated: bool,
}

/// What [`load_context_files`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadedContextFiles {
    /// The files to inject, in [`CONTEXT_FILE_NAMES`] order.
    pub files: Vec<ContextFile>,
    /// One line per file refused, unreadable or cut, naming it.
    pub warnings: Vec<String>,
}

/// Reads the workspace's context files and applies the budget. Files are read only from the
/// workspace root itself; a file that is a link is followed only while it stays inside the
/// workspace. Two names that lead to the same file (`CLAUDE.md` linked to `AGENTS.md`, or
/// `MEMORY.md`/`memory.md` on a case-insensitive disk) are injected once.
pub fn load_context_files(
    workspace_dir: &Path,
    mode: PromptMode,
    budget: ContextBudget,
) -> LoadedContextFiles {
    let mut warnings = Vec::new();
    let root = match std::fs::canonicalize(workspace_dir) {
        Ok(root) => root,
        Err(err) => {
            if err.kind() != std::io::ErrorKind::NotFound {
                warnings.push(format!(
                    "context files: cannot resolve workspace {}: {err}",
                    workspace_dir.display()
                ));
            }
            return LoadedContextFiles {
                files: Vec::new(),
                warnings,
            };
        }
    };
    let names: &[&str] = match mode {
        PromptMode::Full => &CONTEXT_FILE_NAMES,
        PromptMode::Minimal => &MINIMAL_CONTEXT_FILE_NAMES,
    };
    let mut seen = HashSet::new();
    let mut raw = Vec::new();
    for name in names {
        let path = workspace_dir.join(name);
        match read_confined(&path, Some(&root), MAX_CONTEXT_FILE_BYTES) {
            Ok(file) => {
                if seen.insert(file.canonical) {
                    raw.push(RawContextFile {
                        name: (*name).to_owned(),
                        path,
                        content: file.text,
                    });
                }
            }
            Err(NotRead::Missing) => {}
            Err(NotRead::Refused(why)) => {
                warnings.push(format!("context file {name} skipped: {why}"));
            }
            Err(NotRead::Failed(why)) => {
                warnings.push(format!("context file {name} skipped: {why}"));
            }
        }
    }
    let budgeted = apply_context_budget(raw, budget);
    warnings.extend(budgeted.warnings);
    LoadedContextFiles {
        files: budgeted.files,
        warnings,
    }
}

/// pi's project context files for the coding prompt: in the workspace and in each of its
/// parents, `AGENTS.md` or else `CLAUDE.md`, the outermost first (pi's order, so the nearest
/// instructions come last and win), each file once, within the budget. Parents lie outside the
/// workspace by design, so only the file's type and size are checked, not its containment.
pub fn load_project_context_files(
    workspace_dir: &Path,
    budget: ContextBudget,
) -> LoadedContextFiles {
    let mut warnings = Vec::new();
    let start =
        std::fs::canonicalize(workspace_dir).unwrap_or_else(|_| workspace_dir.to_path_buf());
    let mut seen = HashSet::new();
    let mut raw = Vec::new();
    for dir in start.ancestors() {
        for name in ["AGENTS.md", "CLAUDE.md"] {
            let path = dir.join(name);
            match read_confined(&path, None, MAX_CONTEXT_FILE_BYTES) {
                Ok(file) => {
                    if seen.insert(file.canonical) {
                        raw.push(RawContextFile {
                            name: name.to_owned(),
                            path,
                            content: file.text,
                        });
                    }
                    break;
                }
                Err(NotRead::Missing) => {}
                Err(NotRead::Refused(why) | NotRead::Failed(why)) => {
                    warnings.push(format!("context file {} skipped: {why}", path.display()));
                }
            }
        }
    }
    raw.reverse();
    let budgeted = apply_context_budget(raw, budget);
    warnings.extend(budgeted.warnings);
    LoadedContextFiles {
        files: budgeted.files,
        warnings,
    }
}

/// OpenClaw's budget over files already read, in order: each file loses its trailing whitespace
/// and, when longer than its share, keeps 70 % from the start and 20 % from the end around a
/// marker naming it; the running total caps what later files get (ending in `…` when cut
/// there); once fewer than 64 chars are left no further file starts; an empty file is dropped.
pub fn apply_context_budget(
    files: Vec<RawContextFile>,
    budget: ContextBudget,
) -> LoadedContextFiles {
    let max_per_file = budget.max_chars_per_file.max(1);
    let mut remaining = budget.max_total_chars.max(1);
    let mut out = LoadedContextFiles::default();
    for file in files {
        if remaining == 0 {
            break;
        }
        if remaining < MIN_FILE_BUDGET_CHARS {
            out.warnings.push(format!(
                "remaining bootstrap budget is {remaining} chars (<{MIN_FILE_BUDGET_CHARS}); skipping additional bootstrap files"
            ));
            break;
        }
        let file_max = max_per_file.min(remaining).max(1);
        let trimmed = trim_to_budget(&file.content, &file.name, file_max);
        let within = clamp_to_budget(&trimmed.content, remaining);
        if within.is_empty() {
            continue;
        }
        let within_chars = within.chars().count();
        let truncated = trimmed.truncated || within_chars < trimmed.content_chars;
        if truncated {
            out.warnings.push(format!(
                "workspace bootstrap file {} is {} chars (limit {file_max}); truncating in injected context",
                file.name, trimmed.original_chars
            ));
        }
        remaining = remaining.saturating_sub(within_chars);
        out.files.push(ContextFile {
            name: file.name,
            path: file.path,
            content: within,
            raw_chars: trimmed.original_chars,
            truncated,
        });
    }
    out
}

/// Keeps only the files a prompt of `mode` shows (see [`MINIMAL_CONTEXT_FILE_NAMES`]).
pub fn context_files_for_mode(files: Vec<ContextFile>, mode: PromptMode) -> Vec<ContextFile> {
    match mode {
        PromptMode::Full => files,
        PromptMode::Minimal => files
            .into_iter()
            .filter(|file| MINIMAL_CONTEXT_FILE_NAMES.contains(&file.name.as_str()))
            .collect(),
    }
}

struct Trimmed {
    content: String,
    content_chars: usize,
    original_chars: usize,
    truncated: bool,
}

/// `trimBootstrapContent`.
fn trim_to_budget(content: &str, name: &str, max_chars: usize) -> Trimmed {
    let trimmed = js_trim_end(content);
    let original_chars = trimmed.chars().count();
    if original_chars <= max_chars {
        return Trimmed {
            content: trimmed.to_owned(),
            content_chars: original_chars,
            original_chars,
            truncated: false,
        };
    }
    let head_chars = share(max_chars, HEAD_TENTHS);
    let tail_chars = share(max_chars, TAIL_TENTHS);
    let head: String = trimmed.chars().take(head_chars).collect();
    let tail: String = trimmed
        .chars()
        .skip(original_chars.saturating_sub(tail_chars))
        .collect();
    let content = format!(
        "{head}\n\n[...truncated, read {name} for full content...]\n…(truncated {name}: kept {head_chars}+{tail_chars} chars of {original_chars})…\n\n{tail}"
    );
    Trimmed {
        content_chars: content.chars().count(),
        content,
        original_chars,
        truncated: true,
    }
}

/// `Math.floor(max * tenths / 10)` in integers: for whole numbers the float product OpenClaw
/// floors never strays across an integer, so both give the same count.
fn share(max_chars: usize, tenths: usize) -> usize {
    max_chars / 10 * tenths + max_chars % 10 * tenths / 10
}

/// `clampToBudget`: the text cut to `budget` chars, the last one replaced by `…` when cut.
fn clamp_to_budget(content: &str, budget: usize) -> String {
    if budget == 0 {
        return String::new();
    }
    let mut chars = content.char_indices();
    let Some((cut, _)) = chars.nth(budget) else {
        return content.to_owned();
    };
    if budget <= 3 {
        return content[..cut].to_owned();
    }
    let keep = content
        .char_indices()
        .nth(budget - 1)
        .map_or(content.len(), |(at, _)| at);
    format!("{}…", &content[..keep])
}
