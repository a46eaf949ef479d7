//! Tool bookkeeping of the subscription (reference §18.3 `tool_execution_*`): tool metas, the
//! last tool error with its mutating-action fingerprint, error extraction from tool results, and
//! messaging-tool send detection.
//!
//! A failed *mutating* action (a write, an exec, a message send…) stays the last tool error
//! until the same action succeeds, because an unrelated later success does not undo the damage
//! the user should hear about (OpenClaw `tool-mutation.ts`).

use serde_json::{Map, Value};

use clawloop_core::js_text::{is_js_whitespace, js_trim};

use crate::tool_display::{HomeDisplay, resolve_tool_call_display};

/// One finished tool call, in completion order (OpenClaw `toolMetas[]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolMeta {
    /// Normalized tool name.
    pub tool_name: String,
    /// Short description of the call (e.g. the path read), when one can be derived.
    pub meta: Option<String>,
}

/// The last failed tool call that is still unresolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastToolError {
    /// Normalized tool name.
    pub tool_name: String,
    /// The call's meta.
    pub meta: Option<String>,
    /// First line of the error text (at most [`TOOL_ERROR_MAX_CHARS`] chars plus `…`).
    pub error: Option<String>,
    /// Whether the failed call was a mutating action.
    pub mutating_action: bool,
    /// Identity of the mutating action, compared to decide whether a success resolves it.
    pub action_fingerprint: Option<String>,
}

/// Longest error line kept in [`LastToolError::error`].
pub const TOOL_ERROR_MAX_CHARS: usize = 400;

/// What a tool call does to the world, decided at `tool_execution_start`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolCallSummary {
    /// The call's meta.
    pub meta: Option<String>,
    /// Whether it mutates state.
    pub mutating_action: bool,
    /// Its identity when mutating.
    pub action_fingerprint: Option<String>,
}

impl ToolCallSummary {
    /// Summarizes a call from its normalized tool name and arguments; `home` is shortened in
    /// the meta (see [`infer_tool_meta`]).
    pub fn new(tool_name: &str, args: &Value, home: Option<&HomeDisplay>) -> Self {
        let meta = infer_tool_meta(tool_name, args, home);
        let action_fingerprint = tool_action_fingerprint(tool_name, args, meta.as_deref());
        Self {
            meta,
            mutating_action: action_fingerprint.is_some(),
            action_fingerprint,
        }
    }
}

/// Trims and lowercases a tool name (OpenClaw `normalizeToolName`).
///
/// OpenClaw also renames `bash` to `exec` and `apply-patch` to `apply_patch` here; clawloop
/// keeps the name the model called (pi's shell tool is `bash`, and the conformance scenarios
/// report it as `bash`). Code that must treat the aliases alike matches both spellings.
pub fn normalize_tool_name(name: &str) -> String {
    js_trim(name).to_lowercase()
}

/// The name OpenClaw gives a (normalized) tool: `bash` is `exec` and `apply-patch` is
/// `apply_patch` (OpenClaw's `TOOL_NAME_ALIASES`). Displays, metas and trust lists use it so
/// that a `bash` call is shown and trusted exactly as OpenClaw shows an `exec` call.
pub fn openclaw_tool_name(normalized: &str) -> &str {
    match normalized {
        "bash" => "exec",
        "apply-patch" => "apply_patch",
        other => other,
    }
}

fn str_arg<'a>(args: &'a Value, keys: &[&str]) -> Option<&'a str> {
    keys.iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str))
        .map(js_trim)
        .filter(|s| !s.is_empty())
}

/// A short description of a call for summaries and error reports (OpenClaw
/// `inferToolMetaFromArgs` extended by `extendExecMeta`).
///
/// It is the shown detail of the call ([`crate::ToolDisplay::detail_text`]: `from notes.txt`
/// for a read, `` list files in /tmp, `ls -la /tmp` `` for a shell command, `for "rust"` for a
/// web search, argument values for other tools), with `home` shortened and secrets masked.
/// Shell calls (`exec`, `bash`) also say when they run in a pty or elevated (`… · pty`).
pub fn infer_tool_meta(
    tool_name: &str,
    args: &Value,
    home: Option<&HomeDisplay>,
) -> Option<String> {
    let tool = js_trim(tool_name).to_lowercase();
    let base = resolve_tool_call_display(openclaw_tool_name(&tool), args, home).detail_text();
    if tool != "exec" && tool != "bash" {
        return base;
    }
    let flags: Vec<&str> = [("pty", "pty"), ("elevated", "elevated")]
        .into_iter()
        .filter(|(key, _)| args.get(*key) == Some(&Value::Bool(true)))
        .map(|(_, label)| label)
        .collect();
    if flags.is_empty() {
        return base;
    }
    let suffix = flags.join(" · ");
    Some(match base {
        Some(meta) => format!("{meta} · {suffix}"),
        None => suffix,
    })
}

const READ_ONLY_ACTIONS: [&str; 14] = [
    "get", "list", "read", "status", "show", "fetch", "search", "query", "view", "poll", "log",
    "inspect", "check", "probe",
];
const PROCESS_MUTATING_ACTIONS: [&str; 5] = ["write", "send_keys", "submit", "paste", "kill"];
const MESSAGE_MUTATING_ACTIONS: [&str; 9] = [
    "send",
    "reply",
    "thread_reply",
    "threadreply",
    "edit",
    "delete",
    "react",
    "pin",
    "unpin",
];

/// `action` lowercased with whitespace and dash runs turned into `_`.
fn action_name(args: &Value) -> Option<String> {
    let raw = js_trim(args.get("action")?.as_str()?);
    let mut out = String::new();
    let mut in_run = false;
    for c in raw.to_lowercase().chars() {
        if is_js_whitespace(c) || c == '-' {
            if !in_run {
                out.push('_');
            }
            in_run = true;
        } else {
            out.push(c);
            in_run = false;
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Whether a call changes state (OpenClaw `isMutatingToolCall`).
pub fn is_mutating_tool_call(tool_name: &str, args: &Value) -> bool {
    let action = action_name(args);
    let read_only =
        |a: &Option<String>| a.as_deref().is_some_and(|a| READ_ONLY_ACTIONS.contains(&a));
    match tool_name {
        "write" | "edit" | "apply_patch" | "apply-patch" | "exec" | "bash" | "sessions_send" => {
            true
        }
        "process" => action
            .as_deref()
            .is_some_and(|a| PROCESS_MUTATING_ACTIONS.contains(&a)),
        "message" => {
            action
                .as_deref()
                .is_some_and(|a| MESSAGE_MUTATING_ACTIONS.contains(&a))
                || args.get("content").is_some_and(Value::is_string)
                || args.get("message").is_some_and(Value::is_string)
        }
        "session_status" => str_arg(args, &["model"]).is_some(),
        "cron" | "gateway" | "canvas" => !read_only(&action),
        "nodes" => action.as_deref() != Some("list"),
        name if name.ends_with("_actions") => !read_only(&action),
        name => name.starts_with("message_") || name.contains("send"),
    }
}

/// A fingerprint value: trimmed lowercase strings, numbers and booleans.
fn fingerprint_value(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => {
            let t = js_trim(s);
            (!t.is_empty()).then(|| t.to_lowercase())
        }
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The identity of a mutating call, `None` for a non-mutating one (OpenClaw
/// `buildToolActionFingerprint`): the tool, the action and its stable targets, or the meta when
/// no stable target exists.
pub fn tool_action_fingerprint(
    tool_name: &str,
    args: &Value,
    meta: Option<&str>,
) -> Option<String> {
    if !is_mutating_tool_call(tool_name, args) {
        return None;
    }
    let mut parts = vec![format!("tool={}", tool_name.to_lowercase())];
    if let Some(action) = action_name(args) {
        parts.push(format!("action={action}"));
    }
    let aliases: [(&str, &[&str]); 9] = [
        (
            "path",
            &["path", "file_path", "filePath", "filepath", "file"],
        ),
        ("oldpath", &["oldPath", "old_path"]),
        ("newpath", &["newPath", "new_path"]),
        ("to", &["to", "target"]),
        ("messageid", &["messageId", "message_id"]),
        ("sessionkey", &["sessionKey", "session_key"]),
        ("jobid", &["jobId", "job_id"]),
        ("id", &["id"]),
        ("model", &["model"]),
    ];
    let mut has_stable_target = false;
    for (label, keys) in aliases {
        if let Some(value) = keys
            .iter()
            .find_map(|k| args.get(*k).and_then(fingerprint_value))
        {
            parts.push(format!("{label}={value}"));
            has_stable_target = true;
        }
    }
    // Meta often carries volatile details ("N chars"), so it only identifies the action when
    // nothing stable does.
    if !has_stable_target && let Some(meta) = meta {
        let collapsed = meta
            .split(is_js_whitespace)
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase();
        if !collapsed.is_empty() {
            parts.push(format!("meta={collapsed}"));
        }
    }
    Some(parts.join("|"))
}

/// Whether a success of `tool_name`/`meta`/`fingerprint` resolves `error`.
///
/// Mutating flows fail closed: both fingerprints must exist and match.
pub fn is_same_tool_mutation_action(
    error: &LastToolError,
    tool_name: &str,
    meta: Option<&str>,
    fingerprint: Option<&str>,
) -> bool {
    if error.action_fingerprint.is_some() || fingerprint.is_some() {
        return error.action_fingerprint.as_deref().is_some()
            && error.action_fingerprint.as_deref() == fingerprint;
    }
    error.tool_name == tool_name && error.meta.as_deref().unwrap_or("") == meta.unwrap_or("")
}

/// A tool result whose `details.status` is `error` or `timeout` failed even without `isError`.
pub fn is_tool_result_error(result: &Value) -> bool {
    result
        .get("details")
        .and_then(|d| d.get("status"))
        .and_then(Value::as_str)
        .map(|s| js_trim(s).to_lowercase())
        .is_some_and(|s| s == "error" || s == "timeout")
}

/// Longest text block of a tool result kept for display and error extraction, in UTF-16 units
/// (OpenClaw `TOOL_RESULT_MAX_CHARS`).
pub const TOOL_RESULT_MAX_CHARS: usize = 8000;

/// A text block cut to [`TOOL_RESULT_MAX_CHARS`] with a `…(truncated)…` line (OpenClaw
/// `truncateToolText`, part of `sanitizeToolResult`); a character is never split.
fn truncate_tool_text(text: &str) -> std::borrow::Cow<'_, str> {
    let mut units = 0;
    for (i, c) in text.char_indices() {
        units += c.len_utf16();
        if units > TOOL_RESULT_MAX_CHARS {
            return std::borrow::Cow::Owned(format!("{}\n…(truncated)…", &text[..i]));
        }
    }
    std::borrow::Cow::Borrowed(text)
}

/// The text blocks of a tool result as OpenClaw shows them (`extractToolResultText` of the
/// sanitized result): each cut to [`TOOL_RESULT_MAX_CHARS`], trimmed, empty ones dropped,
/// joined with `\n`.
pub fn tool_result_text(result: &Value) -> Option<String> {
    let texts: Vec<String> = result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .map(truncate_tool_text)
        .map(|t| js_trim(&t).to_owned())
        .filter(|t| !t.is_empty())
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

/// The first non-empty line of a trimmed error text, capped at [`TOOL_ERROR_MAX_CHARS`].
fn normalize_tool_error_text(text: &str) -> Option<String> {
    let trimmed = js_trim(text);
    let first = trimmed
        .split('\n')
        .next()
        .map(|l| js_trim(l.trim_end_matches('\r')))
        .filter(|l| !l.is_empty())?;
    if first.chars().count() > TOOL_ERROR_MAX_CHARS {
        let mut cut: String = first.chars().take(TOOL_ERROR_MAX_CHARS).collect();
        cut.push('…');
        Some(cut)
    } else {
        Some(first.to_owned())
    }
}

fn read_error_candidate(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(s) => normalize_tool_error_text(s),
        Value::Object(o) => {
            let s = o
                .get("message")
                .and_then(Value::as_str)
                .or_else(|| o.get("error").and_then(Value::as_str))?;
            normalize_tool_error_text(s)
        }
        _ => None,
    }
}

fn is_error_like_status(status: &str) -> bool {
    let s = js_trim(status).to_lowercase();
    if s.is_empty() || ["0", "ok", "success", "completed", "running"].contains(&s.as_str()) {
        return false;
    }
    [
        "error",
        "fail",
        "timeout",
        "denied",
        "cancel",
        "invalid",
        "forbidden",
    ]
    .iter()
    .any(|w| s.contains(w))
        || timed_out(&s)
}

/// `timed[_\s-]?out` anywhere in `s`.
fn timed_out(s: &str) -> bool {
    s.match_indices("timed").any(|(i, _)| {
        let rest = &s[i + "timed".len()..];
        rest.starts_with("out")
            || rest
                .chars()
                .next()
                .filter(|c| *c == '_' || *c == '-' || is_js_whitespace(*c))
                .is_some_and(|c| rest[c.len_utf8()..].starts_with("out"))
    })
}

fn extract_error_field(value: Option<&Value>) -> Option<String> {
    let record: &Map<String, Value> = value?.as_object()?;
    read_error_candidate(record.get("error"))
        .or_else(|| read_error_candidate(record.get("message")))
        .or_else(|| read_error_candidate(record.get("reason")))
        .or_else(|| {
            let status = js_trim(record.get("status")?.as_str()?);
            if is_error_like_status(status) {
                normalize_tool_error_text(status)
            } else {
                None
            }
        })
}

/// The error text of a failed tool result (OpenClaw `extractToolErrorMessage`): an error field
/// in `details`, then at the root, then in the text parsed as JSON, then the text's first line.
pub fn extract_tool_error_message(result: &Value) -> Option<String> {
    if !result.is_object() {
        return None;
    }
    extract_error_field(result.get("details"))
        .or_else(|| extract_error_field(Some(result)))
        .or_else(|| {
            let text = tool_result_text(result)?;
            serde_json::from_str::<Value>(&text)
                .ok()
                .and_then(|parsed| extract_error_field(Some(&parsed)))
                .or_else(|| normalize_tool_error_text(&text))
        })
}

/// Whether a call sends a message on the user's behalf: `message` with action `send` or
/// `thread-reply`, or `sessions_send`.
///
/// Channel plugins with their own send actions are not known to this crate; the runner lists
/// them in [`crate::SubscriptionOptions::channel_messaging_tools`].
pub fn is_messaging_send(tool_name: &str, args: &Value, channel_tools: &[String]) -> bool {
    let action = args.get("action").and_then(Value::as_str).map(js_trim);
    match tool_name {
        "message" => matches!(action, Some("send" | "thread-reply")),
        "sessions_send" => true,
        name => channel_tools.iter().any(|t| t == name) && action == Some("send"),
    }
}

/// The text a messaging call sends: `args.content`, else `args.message`.
pub fn messaging_text(args: &Value) -> Option<&str> {
    // JS `args.content ?? args.message` picks `content` whenever it is present, string or not.
    match args.get("content") {
        Some(Value::Null) | None => args.get("message").and_then(Value::as_str),
        Some(v) => v.as_str(),
    }
    .filter(|s| !s.is_empty())
}

/// The target of a messaging call (`to`, else `target`), if any.
pub fn messaging_target(tool_name: &str, args: &Value) -> Option<String> {
    if tool_name != "message" {
        return None;
    }
    ["to", "target"]
        .iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str))
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// Media URLs a messaging call attaches (`media`, `mediaUrl`, `path`, `filePath`, `audioPath`,
/// `mediaUrls[]`), trimmed and deduplicated in order.
pub fn messaging_media_urls(record: &Value) -> Vec<String> {
    let mut urls: Vec<String> = Vec::new();
    let mut push = |v: &Value| {
        if let Some(s) = v.as_str() {
            let s = js_trim(s);
            if !s.is_empty() && !urls.iter().any(|u| u == s) {
                urls.push(s.to_owned());
            }
        }
    };
    for key in ["media", "mediaUrl", "path", "filePath", "audioPath"] {
        if let Some(v) = record.get(key) {
            push(v);
        }
    }
    if let Some(list) = record.get("mediaUrls").and_then(Value::as_array) {
        list.iter().for_each(&mut push);
    }
    urls
}

/// Whether a successful call is a `cron` `add` (a reminder the user now relies on).
pub fn is_cron_add(tool_name: &str, args: &Value) -> bool {
    tool_name == "cron"
        && args
            .get("action")
            .and_then(Value::as_str)
            .is_some_and(|a| js_trim(a).eq_ignore_ascii_case("add"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    /// Metas computed with OpenClaw 2026.4.12's `inferToolMetaFromArgs` + `extendExecMeta`.
    #[test]
    fn summaries_of_common_calls() {
        let home = HomeDisplay::new("/home/u");
        let actual = [
            ToolCallSummary::new("read", &json!({"path": "a.txt"}), None),
            ToolCallSummary::new("write", &json!({"path": "A.txt", "content": "x"}), None),
            ToolCallSummary::new("exec", &json!({"command": "ls", "pty": true}), None),
            ToolCallSummary::new(
                "message",
                &json!({"action": "Thread Reply", "to": "u:1"}),
                None,
            ),
            ToolCallSummary::new("cron", &json!({"action": "list"}), None),
            ToolCallSummary::new("read", &json!({"path": "/home/u/p/a.txt"}), Some(&home)),
        ];
        let expected = [
            ToolCallSummary {
                meta: Some("from a.txt".into()),
                mutating_action: false,
                action_fingerprint: None,
            },
            ToolCallSummary {
                meta: Some("to A.txt (1 chars)".into()),
                mutating_action: true,
                action_fingerprint: Some("tool=write|path=a.txt".into()),
            },
            ToolCallSummary {
                meta: Some("list files, `ls` · pty".into()),
                mutating_action: true,
                action_fingerprint: Some("tool=exec|meta=list files, `ls` · pty".into()),
            },
            ToolCallSummary {
                meta: Some("u:1".into()),
                mutating_action: true,
                action_fingerprint: Some("tool=message|action=thread_reply|to=u:1".into()),
            },
            ToolCallSummary::default(),
            ToolCallSummary {
                meta: Some("from ~/p/a.txt".into()),
                mutating_action: false,
                action_fingerprint: None,
            },
        ];
        assert_eq!(actual, expected);
    }

    #[test]
    fn tool_names_are_trimmed_and_lowercased_but_not_renamed() {
        let actual =
            ["  Read ", "BASH", "apply-patch", "exec", "Apply_Patch"].map(normalize_tool_name);
        assert_eq!(
            actual,
            ["read", "bash", "apply-patch", "exec", "apply_patch"]
        );
    }

    #[test]
    fn long_result_texts_are_cut_like_sanitized_results() {
        let long = format!("{}{}", "a".repeat(7999), "😀tail");
        let result = json!({"content": [
            {"type": "text", "text": long},
            {"type": "text", "text": "  second  "},
            {"type": "image", "data": "x"},
            {"type": "text", "text": "   "},
        ]});
        let expected = format!("{}\n…(truncated)…\nsecond", "a".repeat(7999));
        assert_eq!(tool_result_text(&result), Some(expected));
        assert_eq!(tool_result_text(&json!({"content": []})), None);
    }

    #[test]
    fn error_messages_prefer_fields_then_first_line() {
        let cases = [
            (
                json!({"content": [{"type": "text", "text": "ENOENT: missing\n  at x"}], "details": {}}),
                Some("ENOENT: missing"),
            ),
            (
                json!({"content": [], "details": {"status": "error", "error": "boom\nmore"}}),
                Some("boom"),
            ),
            (
                json!({"content": [{"type": "text", "text": "{\"message\":\"bad json arg\"}"}]}),
                Some("bad json arg"),
            ),
            (
                json!({"details": {"status": "timed out"}}),
                Some("timed out"),
            ),
            (json!({"details": {"status": "ok"}}), None),
            (json!("not an object"), None),
        ];
        let actual: Vec<Option<String>> = cases
            .iter()
            .map(|(v, _)| extract_tool_error_message(v))
            .collect();
        let expected: Vec<Option<String>> =
            cases.iter().map(|(_, e)| e.map(str::to_owned)).collect();
        assert_eq!(actual, expected);
        assert!(is_tool_result_error(
            &json!({"details": {"status": " Timeout "}})
        ));
        assert!(!is_tool_result_error(
            &json!({"details": {"status": "done"}})
        ));
    }

    #[test]
    fn long_error_lines_are_capped() {
        let long = "e".repeat(500);
        let msg = extract_tool_error_message(&json!({"content": [{"type": "text", "text": long}]}));
        assert_eq!(
            msg.map(|m| m.chars().count()),
            Some(TOOL_ERROR_MAX_CHARS + 1)
        );
    }

    #[test]
    fn same_action_rules() {
        let err = LastToolError {
            tool_name: "write".into(),
            meta: Some("a.txt".into()),
            error: Some("denied".into()),
            mutating_action: true,
            action_fingerprint: Some("tool=write|path=a.txt".into()),
        };
        assert!(is_same_tool_mutation_action(
            &err,
            "write",
            Some("a.txt"),
            Some("tool=write|path=a.txt")
        ));
        assert!(!is_same_tool_mutation_action(
            &err,
            "write",
            Some("b.txt"),
            Some("tool=write|path=b.txt")
        ));
        assert!(!is_same_tool_mutation_action(
            &err,
            "read",
            Some("a.txt"),
            None
        ));
        let plain = LastToolError {
            mutating_action: false,
            action_fingerprint: None,
            ..err
        };
        assert!(is_same_tool_mutation_action(
            &plain,
            "write",
            Some("a.txt"),
            None
        ));
    }

    #[test]
    fn messaging_detection() {
        let args = json!({"action": "send", "target": "team", "content": "hi there", "mediaUrls": [" a.png ", "a.png", "b.png"]});
        assert!(is_messaging_send("message", &args, &[]));
        assert!(!is_messaging_send(
            "message",
            &json!({"action": "react"}),
            &[]
        ));
        assert!(is_messaging_send("sessions_send", &json!({}), &[]));
        assert!(is_messaging_send("discord", &args, &["discord".to_owned()]));
        assert_eq!(messaging_text(&args), Some("hi there"));
        assert_eq!(messaging_text(&json!({"message": "m"})), Some("m"));
        assert_eq!(messaging_text(&json!({"content": 3, "message": "m"})), None);
        assert_eq!(messaging_target("message", &args), Some("team".to_owned()));
        assert_eq!(
            messaging_media_urls(&args),
            vec!["a.png".to_owned(), "b.png".to_owned()]
        );
        assert!(is_cron_add("cron", &json!({"action": " ADD "})));
        assert!(timed_out("request timed-out"));
        assert!(!timed_out("timedoutnot") || timed_out("timedout"));
    }
}
