//! Parsing a CLI's stdout into the answer (OpenClaw's `cli-output.ts`): `text` is the trimmed
//! stdout; `json` scans the output's JSON records; `jsonl` reads one record per line. When a
//! structured format finds nothing it recognizes, the trimmed stdout is the answer, so a CLI
//! that ignored its format flag still gets through.

mod error_text;
mod records;
mod text;
mod usage;

use clawloop_core::Usage;
use serde_json::{Map, Value};

use super::config::CliBackendConfig;
use super::settings::CliOutputFormat;

pub(crate) use error_text::extract_cli_error_message;
use records::json_records;
use text::{pick_session_id, record_text, unwrap_nested_result};
use usage::record_usage;

/// What a CLI answered.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CliOutput {
    /// The final assistant text, trimmed.
    pub text: String,
    /// The CLI's own session id, when it reported one.
    pub session_id: Option<String>,
    /// Token usage, when the CLI reported it.
    pub usage: Option<Usage>,
}

/// Parses `raw` (the whole stdout) as `format` for `backend`; `fallback_session_id` is the
/// session id that was sent, used when the output names none.
pub fn parse_cli_output(
    raw: &str,
    backend: &CliBackendConfig,
    format: CliOutputFormat,
    fallback_session_id: Option<&str>,
) -> CliOutput {
    let parsed = match format {
        CliOutputFormat::Text => None,
        CliOutputFormat::Json => parse_json(raw, backend),
        CliOutputFormat::Jsonl => parse_jsonl(raw, backend),
    };
    let mut output = parsed.unwrap_or_else(|| CliOutput {
        text: raw.trim().to_owned(),
        ..CliOutput::default()
    });
    if output.session_id.is_none() {
        output.session_id = fallback_session_id.map(str::to_owned);
    }
    output
}

fn record_type(record: &Map<String, Value>) -> Option<&str> {
    record.get("type").and_then(Value::as_str)
}

/// Every record counts; the last non-empty text wins. `None` when nothing was recognized.
fn parse_json(raw: &str, backend: &CliBackendConfig) -> Option<CliOutput> {
    let records = json_records(raw);
    if records.is_empty() {
        return None;
    }
    let claude = backend.uses_claude_dialect();
    let mut output = CliOutput::default();
    let mut structured = false;
    for record in &records {
        if let Some(id) = pick_session_id(record, &backend.session_id_fields) {
            output.session_id = Some(id);
        }
        if let Some(usage) = record_usage(record) {
            output.usage = Some(usage);
        }
        let mut next = record_text(record);
        if claude && matches!(record_type(record), None | Some("result")) {
            next = unwrap_nested_result(&next);
        }
        let next = next.trim();
        if !next.is_empty() {
            next.clone_into(&mut output.text);
            structured = true;
        } else if output.session_id.is_some() || output.usage.is_some() {
            structured = true;
        }
    }
    structured.then_some(output)
}

/// Claude's `stream_event` text delta, if `record` is one.
fn claude_text_delta(record: &Map<String, Value>) -> Option<&str> {
    if record_type(record) != Some("stream_event") {
        return None;
    }
    let event = record.get("event")?.as_object()?;
    if event.get("type")?.as_str()? != "content_block_delta" {
        return None;
    }
    let delta = event.get("delta")?.as_object()?;
    if delta.get("type")?.as_str()? != "text_delta" {
        return None;
    }
    delta.get("text")?.as_str().filter(|t| !t.is_empty())
}

/// One record per line. A Claude `result` line ends the answer; otherwise the `item.text` of
/// message items are joined with newlines (Codex), falling back to streamed Claude deltas.
fn parse_jsonl(raw: &str, backend: &CliBackendConfig) -> Option<CliOutput> {
    let claude = backend.uses_claude_dialect();
    let mut session_id: Option<String> = None;
    let mut usage: Option<Usage> = None;
    let mut streamed = String::new();
    let mut texts: Vec<String> = Vec::new();
    let mut saw_record = false;
    for line in raw.lines().map(str::trim).filter(|l| !l.is_empty()) {
        for record in json_records(line) {
            saw_record = true;
            if let Some(id) = pick_session_id(&record, &backend.session_id_fields) {
                session_id = Some(id);
            }
            if session_id.is_none()
                && let Some(Value::String(thread)) = record.get("thread_id")
                && !thread.trim().is_empty()
            {
                session_id = Some(thread.trim().to_owned());
            }
            let is_claude_result = claude && record_type(&record) == Some("result");
            // Claude's result line repeats the whole session's usage; the per-message usage
            // seen before it describes this answer.
            if (!is_claude_result || usage.is_none())
                && let Some(next) = record_usage(&record)
            {
                usage = Some(next);
            }
            if is_claude_result && let Some(Value::String(result)) = record.get("result") {
                let mut text = unwrap_nested_result(result).trim().to_owned();
                if text.is_empty() {
                    // A tool-only turn ends with an empty result: keep what was streamed.
                    text = if streamed.is_empty() {
                        texts.join("\n").trim().to_owned()
                    } else {
                        streamed.trim().to_owned()
                    };
                }
                return Some(CliOutput {
                    text,
                    session_id,
                    usage,
                });
            }
            if let Some(Value::Object(item)) = record.get("item")
                && let Some(Value::String(text)) = item.get("text")
            {
                let kind = item
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_lowercase();
                if kind.is_empty() || kind.contains("message") {
                    texts.push(text.clone());
                }
            }
            if claude && let Some(delta) = claude_text_delta(&record) {
                streamed.push_str(delta);
            }
        }
    }
    if !saw_record {
        return None;
    }
    let mut text = texts.join("\n").trim().to_owned();
    if text.is_empty() {
        streamed.trim().clone_into(&mut text);
    }
    Some(CliOutput {
        text,
        session_id,
        usage,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn backend(id: &str, value: Value) -> CliBackendConfig {
        CliBackendConfig::resolve(id, Some(&value)).unwrap()
    }

    #[test]
    fn claude_json_result() {
        let claude = backend("claude-cli", json!({}));
        let raw = json!({
            "type": "result", "subtype": "success", "is_error": false, "result": "Hello!",
            "session_id": "sess-1", "usage": {"input_tokens": 3, "output_tokens": 2}
        })
        .to_string();
        let out = parse_cli_output(&raw, &claude, CliOutputFormat::Json, Some("sent"));
        assert_eq!(
            (
                out.text.as_str(),
                out.session_id.as_deref(),
                out.usage.map(|u| u.output)
            ),
            ("Hello!", Some("sess-1"), Some(2))
        );
    }

    #[test]
    fn claude_stream_json_ends_at_the_result_line() {
        let claude = backend("claude-cli", json!({}));
        let raw = [
            json!({"type": "system", "subtype": "init", "session_id": "s-9"}),
            json!({"type": "stream_event", "event": {"type": "content_block_delta", "delta": {"type": "text_delta", "text": "Hel"}}}),
            json!({"type": "assistant", "message": {"content": [{"type": "text", "text": "Hello"}], "usage": {"input_tokens": 4, "output_tokens": 1}}}),
            json!({"type": "result", "result": "Hello", "usage": {"input_tokens": 99}}),
            json!({"type": "result", "result": "ignored"}),
        ]
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join("\n");
        let out = parse_cli_output(&raw, &claude, CliOutputFormat::Jsonl, None);
        assert_eq!(
            (
                out.text.as_str(),
                out.session_id.as_deref(),
                out.usage.map(|u| u.input)
            ),
            ("Hello", Some("s-9"), Some(4))
        );
        let empty_result = [
            json!({"type": "stream_event", "event": {"type": "content_block_delta", "delta": {"type": "text_delta", "text": "streamed"}}}),
            json!({"type": "result", "result": ""}),
        ]
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join("\n");
        assert_eq!(
            parse_cli_output(&empty_result, &claude, CliOutputFormat::Jsonl, None).text,
            "streamed"
        );
    }

    #[test]
    fn codex_jsonl_items() {
        let codex = backend("codex-cli", json!({}));
        let raw = [
            json!({"type": "thread.started", "thread_id": "th-1"}),
            json!({"type": "item.completed", "item": {"type": "reasoning", "text": "thinking"}}),
            json!({"type": "item.completed", "item": {"type": "agent_message", "text": "one"}}),
            json!({"type": "item.completed", "item": {"text": "two"}}),
            json!({"type": "turn.completed", "usage": {"input_tokens": 10, "cached_input_tokens": 4, "output_tokens": 2}}),
        ]
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join("\n");
        let out = parse_cli_output(&raw, &codex, CliOutputFormat::Jsonl, None);
        assert_eq!(
            (
                out.text.as_str(),
                out.session_id.as_deref(),
                out.usage.map(|u| (u.input, u.cache_read))
            ),
            ("one\ntwo", Some("th-1"), Some((10, 4)))
        );
    }

    #[test]
    fn unrecognized_output_is_the_answer() {
        let generic = backend("x", json!({"command": "x"}));
        for format in [
            CliOutputFormat::Json,
            CliOutputFormat::Jsonl,
            CliOutputFormat::Text,
        ] {
            let out = parse_cli_output("  just words \n", &generic, format, Some("sent-id"));
            assert_eq!(
                out,
                CliOutput {
                    text: "just words".into(),
                    session_id: Some("sent-id".into()),
                    usage: None
                }
            );
        }
        let mixed = "banner v1\n{\"result\":\"ok\",\"sessionId\":\"abc\"}\n";
        let out = parse_cli_output(mixed, &generic, CliOutputFormat::Json, None);
        assert_eq!(
            (out.text.as_str(), out.session_id.as_deref()),
            ("ok", Some("abc"))
        );
    }
}
