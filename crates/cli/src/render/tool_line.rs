//! The compact tool activity lines: `▸ read from src/main.rs` when a call starts, `✓ 12 ms`
//! or `✗ <first line of the error>` when it ends.

use std::path::Path;
use std::time::Duration;

use clawloop_core::tool::AgentToolResult;
use clawloop_subscribe::{HomeDisplay, resolve_tool_call_display};
use serde_json::Value;

/// How paths are shortened in tool lines: the workspace drops out (paths become relative),
/// the home directory becomes `~`.
#[derive(Debug, Clone)]
pub struct PathLabels {
    workspace: Option<HomeDisplay>,
    home: Option<HomeDisplay>,
}

impl PathLabels {
    /// Labels relative to `workspace`, with `home` (the user's) shown as `~`.
    pub fn new(workspace: &Path, home: Option<&Path>) -> Self {
        let dir = |path: &Path| {
            let text = path.display().to_string();
            (!text.is_empty() && text != "/").then_some(text)
        };
        PathLabels {
            workspace: dir(workspace)
                .map(|ws| HomeDisplay::with_prefix(format!("{}/", ws.trim_end_matches('/')), "")),
            home: home.and_then(dir).map(HomeDisplay::new),
        }
    }

    fn shorten(&self, text: &str) -> String {
        let text = match &self.workspace {
            Some(ws) => ws.shorten(text).into_owned(),
            None => text.to_owned(),
        };
        match &self.home {
            Some(home) => home.shorten(&text).into_owned(),
            None => text,
        }
    }
}

/// `▸ <verb> <detail>` for a call of `name` with `args` (the detail from the subscribe crate's
/// tool display: secrets masked, paths shortened).
pub fn tool_start_line(name: &str, args: &Value, labels: &PathLabels) -> String {
    let display = resolve_tool_call_display(name, args, None);
    let verb = display.verb.clone().unwrap_or_else(|| display.name.clone());
    let verb = if verb.is_empty() {
        "tool".to_owned()
    } else {
        verb
    };
    match display.detail_text() {
        // The display keeps a multi-line argument to its first line; so does the tool line.
        Some(detail) => format!("▸ {verb} {}", first_line(&labels.shorten(&detail))),
        None => format!("▸ {verb}"),
    }
}

/// Characters of an error's first line the end line shows: the output is the tool's (a
/// command's one-line megabyte), and the transcript keeps all of it.
const MAX_ERROR_CHARS: usize = 160;

/// `✓ 12 ms` for a call that succeeded after `elapsed`, `✗ <first line>` for one that failed
/// (at most [`MAX_ERROR_CHARS`] of it, then `…`).
pub fn tool_end_line(result: &AgentToolResult, is_error: bool, elapsed: Duration) -> String {
    if !is_error {
        return format!("✓ {}", format_duration(elapsed));
    }
    let text = result
        .content
        .iter()
        .find_map(|block| block.as_text())
        .map(first_line)
        .filter(|line| !line.is_empty())
        .unwrap_or("failed");
    match text.char_indices().nth(MAX_ERROR_CHARS) {
        Some((cut, _)) => format!("✗ {}…", &text[..cut]),
        None => format!("✗ {text}"),
    }
}

/// `12 ms` under a second, `1.2 s` under a minute, `2m 5s` above.
pub fn format_duration(elapsed: Duration) -> String {
    let ms = elapsed.as_millis();
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms < 60_000 {
        format!("{}.{} s", ms / 1000, (ms % 1000) / 100)
    } else {
        format!("{}m {}s", ms / 60_000, (ms % 60_000) / 1000)
    }
}

fn first_line(text: &str) -> &str {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn start_lines_shorten_workspace_and_home() {
        let labels = PathLabels::new(Path::new("/w/proj"), Some(Path::new("/home/u")));
        assert_eq!(
            tool_start_line("read", &json!({"path": "/w/proj/src/main.rs"}), &labels),
            "▸ read from src/main.rs"
        );
        assert_eq!(
            tool_start_line(
                "write",
                &json!({"path": "/home/u/a.txt", "content": "hi"}),
                &labels
            ),
            "▸ write to ~/a.txt (2 chars)"
        );
        assert_eq!(tool_start_line("ls", &json!({}), &labels), "▸ ls");
        assert_eq!(
            tool_start_line(
                "bash",
                &json!({"command": "cargo test\necho done"}),
                &labels
            ),
            "▸ bash cargo test"
        );
        assert_eq!(
            tool_start_line("my_tool", &json!({"command": "one\ntwo"}), &labels),
            "▸ my tool one"
        );
    }

    #[test]
    fn end_lines_show_time_or_the_first_error_line() {
        assert_eq!(
            tool_end_line(
                &AgentToolResult::text("ok"),
                false,
                Duration::from_millis(12)
            ),
            "✓ 12 ms"
        );
        assert_eq!(
            tool_end_line(
                &AgentToolResult::text("\nENOENT: no such file\nstack…"),
                true,
                Duration::ZERO
            ),
            "✗ ENOENT: no such file"
        );
        let long = "é".repeat(MAX_ERROR_CHARS + 1);
        assert_eq!(
            tool_end_line(&AgentToolResult::text(&long), true, Duration::ZERO),
            format!("✗ {}…", "é".repeat(MAX_ERROR_CHARS))
        );
        let exact = "x".repeat(MAX_ERROR_CHARS);
        assert_eq!(
            tool_end_line(&AgentToolResult::text(&exact), true, Duration::ZERO),
            format!("✗ {exact}")
        );
        assert_eq!(format_duration(Duration::from_millis(1234)), "1.2 s");
        assert_eq!(format_duration(Duration::from_secs(125)), "2m 5s");
    }
}
