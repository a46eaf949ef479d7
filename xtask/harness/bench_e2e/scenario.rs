//! The bench's exchanges: what the scripted server answers and what a run must print.

use clawloop_testkit::ScriptedExchange;
use serde_json::json;

/// Tokens of the streamed reply.
pub const STREAM_TOKENS: usize = 1000;
/// Tokens of the answer after the tool call.
pub const ANSWER_TOKENS: usize = 200;
/// The file the `read` tool call reads, in the workspace.
pub const TOOL_FILE: &str = "notes.txt";
/// Its content; the second request must carry it as the tool result.
pub const TOOL_FILE_TEXT: &str = "bench marker 7f3c: the build is green\n";
/// The provider id and model of the bench config.
pub const PROVIDER: &str = "bench";
/// The model id.
pub const MODEL: &str = "bench-model";

/// Which exchange a turn plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scenario {
    /// One reply of [`STREAM_TOKENS`] tokens, one delta each.
    Stream,
    /// A `read` tool call, then an answer of [`ANSWER_TOKENS`] tokens.
    Tool,
    /// A `bash` call of [`BASH_COMMAND`], then the same answer: what a sandbox adds to a
    /// command (clawloop only, once per backend).
    Bash,
}

/// The command of [`Scenario::Bash`]: nothing to do but start and end.
pub const BASH_COMMAND: &str = "true";

impl Scenario {
    /// Both, in table order.
    pub const ALL: [Scenario; 2] = [Scenario::Stream, Scenario::Tool];

    /// The name in tables and report.json.
    pub fn name(self) -> &'static str {
        match self {
            Scenario::Stream => "stream-1000",
            Scenario::Tool => "tool-read",
            Scenario::Bash => "tool-bash",
        }
    }

    /// The prompt a peer is given.
    pub fn prompt(self) -> &'static str {
        match self {
            Scenario::Stream => "Write a long answer.",
            Scenario::Tool => "Read notes.txt and tell me what it says.",
            Scenario::Bash => "Run `true`.",
        }
    }

    /// The scripted exchanges of one turn.
    pub fn script(self) -> Result<Vec<ScriptedExchange>, serde_json::Error> {
        let steps = match self {
            Scenario::Stream => vec![json!({"reply": {"textChunks": deltas(STREAM_TOKENS)}})],
            Scenario::Tool => vec![
                json!({"reply": {"toolCalls": [
                    {"name": "read", "arguments": {"path": TOOL_FILE}}]}}),
                json!({
                    "expectRequest": {"bodyContains": ["bench marker 7f3c"]},
                    "reply": {"textChunks": deltas(ANSWER_TOKENS)}}),
            ],
            Scenario::Bash => vec![
                json!({"reply": {"toolCalls": [
                    {"name": "bash", "arguments": {"command": BASH_COMMAND}}]}}),
                json!({
                    "expectRequest": {"bodyContains": ["(no output)"]},
                    "reply": {"textChunks": deltas(ANSWER_TOKENS)}}),
            ],
        };
        steps.into_iter().map(serde_json::from_value).collect()
    }

    /// The final reply text the turn must end with.
    pub fn reply_text(self) -> String {
        match self {
            Scenario::Stream => deltas(STREAM_TOKENS).concat(),
            Scenario::Tool | Scenario::Bash => deltas(ANSWER_TOKENS).concat(),
        }
    }

    /// Requests the server sees per turn.
    pub fn requests(self) -> usize {
        match self {
            Scenario::Stream => 1,
            Scenario::Tool | Scenario::Bash => 2,
        }
    }
}

/// `n` one-token deltas: `w0`, ` w1`, ` w2`, …
pub fn deltas(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            if i == 0 {
                "w0".to_owned()
            } else {
                format!(" w{i}")
            }
        })
        .collect()
}

/// A clawloop `config.toml` whose provider [`PROVIDER`] is the scripted server at
/// `provider_url` (`…/p/bench`), speaking openai-completions.
pub fn clawloop_config(provider_url: &str) -> String {
    format!(
        r#"[agents.defaults.model]
primary = "{PROVIDER}/{MODEL}"

[models.providers.{PROVIDER}]
api = "openai-completions"
baseUrl = "{provider_url}/v1"
apiKey = "bench-key"
models = [{{ id = "{MODEL}", contextWindow = 128000, maxTokens = 4096 }}]
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn scripts_parse_and_replies_add_up() {
        for scenario in [Scenario::Stream, Scenario::Tool, Scenario::Bash] {
            let script = scenario.script().unwrap();
            assert_eq!(script.len(), scenario.requests(), "{}", scenario.name());
        }
        assert_eq!(deltas(3), ["w0", " w1", " w2"]);
        assert_eq!(
            Scenario::Tool.reply_text().split(' ').count(),
            ANSWER_TOKENS
        );
        assert_eq!(
            Scenario::Stream.reply_text().split(' ').count(),
            STREAM_TOKENS
        );
    }
}
