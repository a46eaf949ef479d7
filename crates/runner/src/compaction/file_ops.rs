//! The files a compacted history touched (pi's `FileOperations`, `computeFileLists`,
//! `formatFileOperations`): kept in the compaction's `details` and appended to its summary so
//! the model still knows which files it read and changed.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use clawloop_core::message::{AgentMessage, ContentBlock};

/// Paths seen in `read`, `write` and `edit` tool calls.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileOperations {
    /// Paths passed to `read`.
    pub read: BTreeSet<String>,
    /// Paths passed to `write`.
    pub written: BTreeSet<String>,
    /// Paths passed to `edit` (and a previous compaction's modified files).
    pub edited: BTreeSet<String>,
}

/// The two lists a compaction reports (pi's `CompactionDetails`), each sorted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileLists {
    /// Files only read, never written or edited.
    pub read_files: Vec<String>,
    /// Files written or edited.
    pub modified_files: Vec<String>,
}

impl FileOperations {
    /// Records the non-empty string `path` argument of every `read`, `write` and `edit` tool
    /// call of an assistant message; other messages and tools add nothing.
    pub fn record_message(&mut self, message: &AgentMessage) {
        let AgentMessage::Assistant(assistant) = message else {
            return;
        };
        for block in &assistant.content {
            let ContentBlock::ToolCall(call) = block else {
                continue;
            };
            let Some(path) = call
                .arguments
                .get("path")
                .and_then(Value::as_str)
                .filter(|p| !p.is_empty())
            else {
                continue;
            };
            let set = match call.name.as_str() {
                "read" => &mut self.read,
                "write" => &mut self.written,
                "edit" => &mut self.edited,
                _ => continue,
            };
            set.insert(path.to_owned());
        }
    }

    /// Adds a previous compaction's `details` (`readFiles` to read, `modifiedFiles` to edited);
    /// anything that is not a list of strings is ignored.
    pub fn record_details(&mut self, details: &Value) {
        let strings = |key: &str| {
            details
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        self.read.extend(strings("readFiles"));
        self.edited.extend(strings("modifiedFiles"));
    }

    /// Read-only files (read minus modified) and modified files (written ∪ edited), sorted.
    pub fn file_lists(&self) -> FileLists {
        let modified: BTreeSet<&String> = self.written.iter().chain(&self.edited).collect();
        FileLists {
            read_files: self
                .read
                .iter()
                .filter(|f| !modified.contains(f))
                .cloned()
                .collect(),
            modified_files: modified.into_iter().cloned().collect(),
        }
    }
}

impl FileLists {
    /// The text appended to a summary: `\n\n<read-files>\n…\n</read-files>` and/or
    /// `\n\n<modified-files>\n…\n</modified-files>`, each only when its list is non-empty.
    pub fn format(&self) -> String {
        let mut sections = Vec::with_capacity(2);
        if !self.read_files.is_empty() {
            sections.push(format!(
                "<read-files>\n{}\n</read-files>",
                self.read_files.join("\n")
            ));
        }
        if !self.modified_files.is_empty() {
            sections.push(format!(
                "<modified-files>\n{}\n</modified-files>",
                self.modified_files.join("\n")
            ));
        }
        if sections.is_empty() {
            String::new()
        } else {
            format!("\n\n{}", sections.join("\n\n"))
        }
    }

    /// The compaction entry's `details`: `{"readFiles": […], "modifiedFiles": […]}`.
    pub fn to_details(&self) -> Value {
        json!({"readFiles": self.read_files, "modifiedFiles": self.modified_files})
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::message::{AssistantMessage, ToolCall};
    use pretty_assertions::assert_eq;

    fn calls(calls: &[(&str, Value)]) -> AgentMessage {
        let mut m = AssistantMessage::empty("anthropic-messages", "p", "m", 0);
        for (i, (name, args)) in calls.iter().enumerate() {
            m.content.push(ContentBlock::ToolCall(ToolCall::new(
                format!("c{i}"),
                *name,
                args.clone(),
            )));
        }
        AgentMessage::Assistant(m)
    }

    #[test]
    fn lists_split_read_only_from_modified_and_sort() {
        let mut ops = FileOperations::default();
        ops.record_message(&calls(&[
            ("read", json!({"path": "b.rs"})),
            ("read", json!({"path": "a.rs"})),
            ("edit", json!({"path": "b.rs"})),
            ("write", json!({"path": "z.md"})),
            ("bash", json!({"path": "ignored"})),
            ("read", json!({"path": ""})),
            ("read", json!({"path": 7})),
        ]));
        ops.record_details(&json!({"readFiles": ["c.rs", 1], "modifiedFiles": ["y.rs"]}));
        let lists = ops.file_lists();
        assert_eq!(
            lists,
            FileLists {
                read_files: vec!["a.rs".into(), "c.rs".into()],
                modified_files: vec!["b.rs".into(), "y.rs".into(), "z.md".into()],
            }
        );
        assert_eq!(
            lists.format(),
            "\n\n<read-files>\na.rs\nc.rs\n</read-files>\n\n<modified-files>\nb.rs\ny.rs\nz.md\n</modified-files>"
        );
        assert_eq!(
            lists.to_details(),
            json!({"readFiles": ["a.rs", "c.rs"], "modifiedFiles": ["b.rs", "y.rs", "z.md"]})
        );
        assert_eq!(FileLists::default().format(), "");
    }
}
