//! The `## Tooling` list: OpenClaw's ordering (known tools in a fixed order, then the rest
//! sorted), its own one-line summaries for the built-in tools, names deduplicated without regard
//! to case while keeping the caller's casing.

use std::collections::{BTreeMap, HashMap};

use super::ToolSummary;

/// Built-in tools in list order, with their summaries (OpenClaw's `coreToolSummaries` for the
/// tools clawloop has; `bash` in pi's words, as clawloop's shell tool is pi's).
const CORE_TOOLS: [(&str, &str); 8] = [
    ("read", "Read file contents"),
    ("write", "Create or overwrite files"),
    ("edit", "Make precise edits to files"),
    ("grep", "Search file contents for patterns"),
    ("find", "Find files by glob pattern"),
    ("ls", "List directory contents"),
    ("bash", "Execute bash commands (ls, grep, find, etc.)"),
    ("message", "Send messages and channel actions"),
];

/// The tools as the prompt sees them.
pub(crate) struct ToolList {
    /// `- name: summary` lines in order.
    pub lines: Vec<String>,
    /// Names in list order, with the caller's casing.
    pub names: Vec<String>,
    /// Lowercase name → the caller's casing.
    by_lower: HashMap<String, String>,
    /// Lowercase name → the summary the caller gave.
    external: HashMap<String, String>,
}

impl ToolList {
    pub(crate) fn new(tools: &[ToolSummary]) -> Self {
        let mut by_lower: HashMap<String, String> = HashMap::new();
        let mut external: HashMap<String, String> = HashMap::new();
        let mut order: Vec<String> = Vec::new();
        for tool in tools {
            let name = tool.name.trim();
            if name.is_empty() {
                continue;
            }
            let lower = name.to_lowercase();
            if !by_lower.contains_key(&lower) {
                by_lower.insert(lower.clone(), name.to_owned());
                order.push(lower.clone());
            }
            let summary = tool.summary.trim();
            if !summary.is_empty() {
                external.insert(lower, summary.to_owned());
            }
        }
        let core: BTreeMap<&str, &str> = CORE_TOOLS.into_iter().collect();
        let mut ordered: Vec<String> = CORE_TOOLS
            .iter()
            .map(|(name, _)| (*name).to_owned())
            .filter(|name| by_lower.contains_key(name))
            .collect();
        let mut extra: Vec<String> = order
            .into_iter()
            .filter(|name| !core.contains_key(name.as_str()))
            .collect();
        extra.sort();
        ordered.extend(extra);
        let mut lines = Vec::with_capacity(ordered.len());
        let mut names = Vec::with_capacity(ordered.len());
        for lower in &ordered {
            let name = by_lower
                .get(lower)
                .cloned()
                .unwrap_or_else(|| lower.clone());
            let summary = core
                .get(lower.as_str())
                .map(|s| (*s).to_owned())
                .or_else(|| external.get(lower).cloned());
            lines.push(match summary {
                Some(summary) => format!("- {name}: {summary}"),
                None => format!("- {name}"),
            });
            names.push(name);
        }
        ToolList {
            lines,
            names,
            by_lower,
            external,
        }
    }

    /// The summary the caller gave the tool of this (lowercase) name.
    pub(crate) fn caller_summary(&self, lower: &str) -> Option<&str> {
        self.external.get(lower).map(String::as_str)
    }

    /// Whether a tool of this (lowercase) name is offered.
    pub(crate) fn has(&self, lower: &str) -> bool {
        self.by_lower.contains_key(lower)
    }

    /// The caller's spelling of a tool name, or the name itself when not offered.
    pub(crate) fn resolve(&self, lower: &str) -> String {
        self.by_lower
            .get(lower)
            .cloned()
            .unwrap_or_else(|| lower.to_owned())
    }
}
