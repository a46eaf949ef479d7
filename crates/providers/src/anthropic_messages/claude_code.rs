//! Claude Code OAuth tokens (pi's "stealth mode", pi-mono §1.7).
//!
//! A Claude subscription token (`sk-ant-oat…`) is only accepted from requests that look like
//! Claude Code: Bearer auth, Claude Code's betas, user agent and identity system block, and
//! Claude Code's tool-name casing. pi maps its tool names to that casing on the way out and
//! back to the caller's names on the way in.

/// The Claude Code version pi 0.58.3 presents itself as.
pub const CLAUDE_CODE_VERSION: &str = "2.1.75";

/// The first system block of every OAuth request.
pub const CLAUDE_CODE_IDENTITY: &str = "You are Claude Code, Anthropic's official CLI for Claude.";

/// Claude Code 2.x tool names in their canonical casing.
const CLAUDE_CODE_TOOLS: [&str; 17] = [
    "Read",
    "Write",
    "Edit",
    "Bash",
    "Grep",
    "Glob",
    "AskUserQuestion",
    "EnterPlanMode",
    "ExitPlanMode",
    "KillShell",
    "NotebookEdit",
    "Skill",
    "Task",
    "TaskOutput",
    "TodoWrite",
    "WebFetch",
    "WebSearch",
];

/// Whether `api_key` is a Claude OAuth token rather than an API key.
pub fn is_oauth_token(api_key: &str) -> bool {
    api_key.contains("sk-ant-oat")
}

/// `name` in Claude Code casing when it names a Claude Code tool (case-insensitively), else
/// unchanged.
pub fn to_claude_code_name(name: &str) -> String {
    CLAUDE_CODE_TOOLS
        .iter()
        .find(|tool| tool.eq_ignore_ascii_case(name))
        .map_or_else(|| name.to_owned(), |tool| (*tool).to_owned())
}

/// The caller's spelling of a tool name the model answered with: the first of `tools` that
/// matches case-insensitively, else `name` unchanged.
pub fn from_claude_code_name<'a>(name: &str, tools: impl IntoIterator<Item = &'a str>) -> String {
    tools
        .into_iter()
        .find(|tool| tool.to_lowercase() == name.to_lowercase())
        .unwrap_or(name)
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        assert!(is_oauth_token("sk-ant-oat01-abc"));
        assert!(!is_oauth_token("sk-ant-api03-abc"));
        assert_eq!(to_claude_code_name("read"), "Read");
        assert_eq!(to_claude_code_name("todowrite"), "TodoWrite");
        assert_eq!(to_claude_code_name("my_tool"), "my_tool");
        assert_eq!(from_claude_code_name("Read", ["ls", "read"]), "read");
        assert_eq!(from_claude_code_name("Other", ["ls"]), "Other");
    }
}
