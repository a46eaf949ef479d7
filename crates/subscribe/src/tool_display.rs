//! How tool calls are shown to people (OpenClaw `tool-display.ts` and `auto-reply/tool-meta.ts`).
//!
//! * [`resolve_tool_display`] / [`resolve_tool_call_display`]: the emoji, label, verb and a
//!   one-line detail of a call (`📖 Read: from ~/notes.txt`), from OpenClaw's table of
//!   built-in tools with its fallback for unknown ones. The detail knows shell commands
//!   (`check git status (in /repo) · `…``), reads, writes, web searches and fetches, per-action
//!   argument keys, and masks secrets.
//! * [`format_tool_aggregate`]: the verbose-mode line for one or more calls of a tool
//!   (`` 📖 Read: `~/dir/{a.txt, b.txt}` ``), with paths grouped by directory and shell flags
//!   (`pty`, `elevated`) kept out of the code span.
//! * [`format_tool_output`] / [`format_tool_output_block`]: the line above plus the tool's
//!   output, fenced in markdown.
//!
//! The home directory is shortened to `~` in what is shown; it is passed in as a
//! [`HomeDisplay`] so results do not depend on the environment.

mod config;
mod exec;
mod redact;

use std::borrow::Cow;

use clawloop_core::js_text::{is_js_whitespace, js_trim};
use serde_json::Value;

use config::{FALLBACK_DETAIL_KEYS, FALLBACK_EMOJI, tool_spec};

/// How much tool activity a run reports to the user (OpenClaw `verboseLevel`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum VerboseLevel {
    /// No tool messages.
    #[default]
    Off,
    /// A one-line summary when each tool call starts.
    On,
    /// The summary, and each tool's output when it ends.
    Full,
}

impl VerboseLevel {
    /// Whether tool summaries are sent (OpenClaw `shouldEmitToolResult`: `on` or `full`).
    pub fn emits_tool_summaries(self) -> bool {
        matches!(self, Self::On | Self::Full)
    }

    /// Whether tool outputs are sent (OpenClaw `shouldEmitToolOutput`: `full`).
    pub fn emits_tool_output(self) -> bool {
        self == Self::Full
    }
}

/// How tool messages are formatted for the channel (OpenClaw `toolResultFormat`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum ToolResultFormat {
    /// Details in code spans, output in a fenced `txt` block.
    #[default]
    Markdown,
    /// Bare text, for channels that do not render markdown.
    Plain,
}

impl ToolResultFormat {
    /// `true` for [`ToolResultFormat::Markdown`].
    pub fn is_markdown(self) -> bool {
        self == Self::Markdown
    }
}

/// The home directory and what to show instead of it (OpenClaw `resolveHomeDisplayPrefix`).
///
/// OpenClaw shows `~`, or `$OPENCLAW_HOME` when that variable overrides the home directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HomeDisplay {
    home: String,
    prefix: String,
}

impl HomeDisplay {
    /// `home` shown as `~`.
    pub fn new(home: impl Into<String>) -> Self {
        Self::with_prefix(home, "~")
    }

    /// `home` shown as `prefix`.
    pub fn with_prefix(home: impl Into<String>, prefix: impl Into<String>) -> Self {
        Self {
            home: home.into(),
            prefix: prefix.into(),
        }
    }

    /// The home directory.
    pub fn home(&self) -> &str {
        &self.home
    }

    /// What is shown instead of it.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// Every occurrence of the home directory in `text` replaced by the prefix (OpenClaw
    /// `shortenHomeInString`). An empty home directory changes nothing.
    pub fn shorten<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if self.home.is_empty() || !text.contains(&self.home) {
            Cow::Borrowed(text)
        } else {
            Cow::Owned(text.replace(&self.home, &self.prefix))
        }
    }
}

fn shorten_home<'a>(text: &'a str, home: Option<&HomeDisplay>) -> Cow<'a, str> {
    home.map_or(Cow::Borrowed(text), |h| h.shorten(text))
}

/// How a tool (call) is shown (OpenClaw `ToolDisplay`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolDisplay {
    /// The tool name as given, trimmed.
    pub name: String,
    /// Emoji shown before the label (`🧩` for unknown tools).
    pub emoji: &'static str,
    /// Title: the table's, or the name in title case (`my_tool` → `My Tool`).
    pub title: String,
    /// Label shown after the emoji (the title; OpenClaw's table sets no separate labels).
    pub label: String,
    /// What the call does: the action's label, else the `action` argument, else the name
    /// with `_` and `.` as spaces (`search`/`fetch` for the web tools). `None` for a blank
    /// name.
    pub verb: Option<String>,
    /// A one-line description of the call's arguments, home directory shortened, secrets not
    /// yet masked (see [`ToolDisplay::detail_text`]).
    pub detail: Option<String>,
}

impl ToolDisplay {
    /// The detail as shown (OpenClaw `formatToolDetail`): secrets masked and ` · `-separated
    /// parts joined with `, `.
    pub fn detail_text(&self) -> Option<String> {
        let detail = redact::redact_tool_detail(self.detail.as_deref()?);
        let normalized = if detail.contains(" · ") {
            detail
                .split(" · ")
                .map(js_trim)
                .filter(|p| !p.is_empty())
                .collect::<Vec<_>>()
                .join(", ")
        } else {
            detail
        };
        (!normalized.is_empty()).then_some(normalized)
    }

    /// `<emoji> <label>: <detail>` or `<emoji> <label>` (OpenClaw `formatToolSummary`).
    pub fn summary(&self) -> String {
        match self.detail_text() {
            Some(detail) => format!("{} {}: {detail}", self.emoji, self.label),
            None => format!("{} {}", self.emoji, self.label),
        }
    }
}

/// How a tool is shown when nothing is known about the call (OpenClaw
/// `resolveToolDisplay({ name })`).
///
/// ```
/// use clawloop_subscribe::resolve_tool_display;
///
/// let read = resolve_tool_display("read");
/// assert_eq!((read.emoji, read.label.as_str()), ("📖", "Read"));
/// let custom = resolve_tool_display("my_custom_tool");
/// assert_eq!((custom.emoji, custom.label.as_str()), ("🧩", "My Custom Tool"));
/// ```
pub fn resolve_tool_display(name: &str) -> ToolDisplay {
    resolve_tool_call_display(name, &Value::Null, None)
}

/// How a call is shown, with a detail derived from its arguments (OpenClaw
/// `resolveToolDisplay({ name, args })`); `home` is shortened in the detail.
pub fn resolve_tool_call_display(
    name: &str,
    args: &Value,
    home: Option<&HomeDisplay>,
) -> ToolDisplay {
    let name = js_trim(name);
    let key = name.to_lowercase();
    let spec = tool_spec(&key);
    let title = spec.map_or_else(|| default_title(name), |s| s.title.to_owned());
    let action = args
        .get("action")
        .and_then(Value::as_str)
        .map(js_trim)
        .filter(|a| !a.is_empty());
    let action_spec = spec.zip(action).and_then(|(s, a)| s.action(a));
    let fallback_verb = match key.as_str() {
        "web_search" => Cow::Borrowed("search"),
        "web_fetch" => Cow::Borrowed("fetch"),
        _ => Cow::Owned(key.replace(['_', '.'], " ")),
    };
    let verb = action_spec
        .map(|a| a.label)
        .or(action)
        .unwrap_or(&fallback_verb);
    let verb = Some(js_trim(verb))
        .filter(|v| !v.is_empty())
        .map(|v| v.replace('_', " "));

    let mut detail = match key.as_str() {
        "exec" => exec::resolve_exec_detail(args),
        "read" => resolve_read_detail(args),
        "write" | "edit" | "attach" => resolve_write_detail(&key, args),
        "web_search" => resolve_web_search_detail(args),
        "web_fetch" => resolve_web_fetch_detail(args),
        _ => None,
    };
    if detail.is_none() {
        let keys = action_spec
            .and_then(|a| a.detail_keys)
            .or_else(|| spec.and_then(|s| s.detail_keys))
            .unwrap_or(FALLBACK_DETAIL_KEYS);
        detail = resolve_detail_from_keys(args, keys);
    }
    ToolDisplay {
        name: name.to_owned(),
        emoji: spec.map_or(FALLBACK_EMOJI, |s| s.emoji),
        label: title.clone(),
        title,
        verb,
        detail: detail.map(|d| shorten_home(&d, home).into_owned()),
    }
}

/// `my_tool` → `My Tool`; words of at most two UTF-16 units already in upper case (`ID`) stay.
fn default_title(name: &str) -> String {
    let cleaned = name.replace('_', " ");
    let cleaned = js_trim(&cleaned);
    if cleaned.is_empty() {
        return "Tool".to_owned();
    }
    cleaned
        .split(is_js_whitespace)
        .filter(|p| !p.is_empty())
        .map(|part| {
            if utf16_len(part) <= 2 && part.to_uppercase() == part {
                return part.to_owned();
            }
            let mut chars = part.chars();
            match chars.next() {
                // JS upper-cases the first UTF-16 unit; half a surrogate pair stays as it is.
                Some(first) if first.len_utf16() == 1 => {
                    first.to_uppercase().chain(chars).collect()
                }
                _ => part.to_owned(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

// ---- details -----------------------------------------------------------------------------

/// A finite JSON number as JS `Number`, or `None`.
fn js_number(value: &Value) -> Option<f64> {
    value.as_f64().filter(|n| n.is_finite())
}

/// `String(n)` for a finite number.
fn format_js_number(n: f64) -> String {
    let abs = n.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        // JS switches to exponent form outside [1e-6, 1e21) and always signs the exponent.
        let s = format!("{n:e}");
        match s.split_once('e') {
            Some((mantissa, exp)) if !exp.starts_with('-') => format!("{mantissa}e+{exp}"),
            _ => s,
        }
    } else if n == 0.0 {
        "0".to_owned()
    } else {
        n.to_string()
    }
}

/// The first of `path`, `file_path`, `filePath` that is a non-blank string, trimmed.
fn resolve_path_arg(args: &Value) -> Option<&str> {
    ["path", "file_path", "filePath"]
        .iter()
        .filter_map(|k| args.get(*k)?.as_str())
        .map(js_trim)
        .find(|s| !s.is_empty())
}

fn optional_string<'a>(args: &'a Value, key: &str) -> Option<&'a str> {
    args.get(key)
        .and_then(Value::as_str)
        .map(js_trim)
        .filter(|s| !s.is_empty())
}

/// `from <path>`, `lines 10-14 from <path>`, `from line 10 in <path>`, `first 5 lines of <path>`.
fn resolve_read_detail(args: &Value) -> Option<String> {
    let path = resolve_path_arg(args)?;
    let int_arg = |key: &str| {
        args.get(key)
            .and_then(js_number)
            .map(|n| n.floor().max(1.0))
    };
    let lines = |n: f64| if n == 1.0 { "line" } else { "lines" };
    Some(match (int_arg("offset"), int_arg("limit")) {
        (Some(offset), Some(limit)) => format!(
            "{} {}-{} from {path}",
            lines(limit),
            format_js_number(offset),
            format_js_number(offset + limit - 1.0)
        ),
        (Some(offset), None) => format!("from line {} in {path}", format_js_number(offset)),
        (None, Some(limit)) => format!(
            "first {} {} of {path}",
            format_js_number(limit),
            lines(limit)
        ),
        (None, None) => format!("from {path}"),
    })
}

/// `to <path> (N chars)`, `in <path>` for edits, `from <path>` for attachments.
fn resolve_write_detail(key: &str, args: &Value) -> Option<String> {
    let path = resolve_path_arg(args).or_else(|| optional_string(args, "url"))?;
    if key == "attach" {
        return Some(format!("from {path}"));
    }
    let preposition = if key == "edit" { "in" } else { "to" };
    let content = ["content", "newText", "new_string"]
        .iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str))
        .filter(|c| !c.is_empty());
    Some(match content {
        Some(content) => format!("{preposition} {path} ({} chars)", utf16_len(content)),
        None => format!("{preposition} {path}"),
    })
}

fn positive_int(args: &Value, key: &str) -> Option<f64> {
    args.get(key)
        .and_then(js_number)
        .filter(|n| *n > 0.0)
        .map(f64::floor)
}

/// `for "<query>"` or `for "<query>" (top N)`.
fn resolve_web_search_detail(args: &Value) -> Option<String> {
    let query = optional_string(args, "query")?;
    Some(match positive_int(args, "count") {
        Some(count) => format!("for \"{query}\" (top {})", format_js_number(count)),
        None => format!("for \"{query}\""),
    })
}

/// `from <url>`, with `(mode <m>, max N chars)` when given.
fn resolve_web_fetch_detail(args: &Value) -> Option<String> {
    let url = optional_string(args, "url")?;
    let suffix: Vec<String> = [
        optional_string(args, "extractMode").map(|m| format!("mode {m}")),
        positive_int(args, "maxChars").map(|n| format!("max {} chars", format_js_number(n))),
    ]
    .into_iter()
    .flatten()
    .collect();
    Some(if suffix.is_empty() {
        format!("from {url}")
    } else {
        format!("from {url} ({})", suffix.join(", "))
    })
}

/// Longest string value shown, in UTF-16 units (longer ones end in `…`).
const MAX_DISPLAY_STRING: usize = 160;
/// Array entries shown before `…`.
const MAX_DISPLAY_ARRAY_ENTRIES: usize = 3;
/// Keyed entries in a detail.
const MAX_DETAIL_ENTRIES: usize = 8;

/// A value as shown in a detail (OpenClaw `coerceDisplayValue`): the first line of a string,
/// `true`, a non-zero number, or the first three shown entries of an array. Empty strings,
/// `false`, `0`, `null` and objects show nothing.
fn coerce_display_value(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => {
            let trimmed = js_trim(s);
            let first_line = js_trim(trimmed.split('\n').next().unwrap_or(""));
            if first_line.is_empty() {
                None
            } else if utf16_len(first_line) > MAX_DISPLAY_STRING {
                Some(truncate_with_ellipsis(first_line, MAX_DISPLAY_STRING - 3))
            } else {
                Some(first_line.to_owned())
            }
        }
        Value::Bool(true) => Some("true".to_owned()),
        Value::Number(_) => js_number(value).filter(|n| *n != 0.0).map(format_js_number),
        Value::Array(items) => {
            let values: Vec<String> = items.iter().filter_map(coerce_display_value).collect();
            if values.is_empty() {
                return None;
            }
            let preview = values[..values.len().min(MAX_DISPLAY_ARRAY_ENTRIES)].join(", ");
            Some(if values.len() > MAX_DISPLAY_ARRAY_ENTRIES {
                format!("{preview}…")
            } else {
                preview
            })
        }
        _ => None,
    }
}

/// The value at a dotted path (`request.kind`, `plan.0.step`).
fn lookup_value_by_path<'a>(args: &'a Value, path: &str) -> Option<&'a Value> {
    let mut current = args;
    for segment in path.split('.') {
        if segment.is_empty() {
            return None;
        }
        current = match current {
            Value::Object(map) => map.get(segment)?,
            Value::Array(items) => {
                // Only canonical indices address array entries in JS (`0`, `12`, not `01`).
                let canonical = segment == "0"
                    || (!segment.starts_with('0') && segment.bytes().all(|b| b.is_ascii_digit()));
                if !canonical {
                    return None;
                }
                items.get(segment.parse::<usize>().ok()?)?
            }
            _ => return None,
        };
    }
    Some(current)
}

/// Key labels that differ from the spaced, lowercased key.
const DETAIL_LABEL_OVERRIDES: &[(&str, &str)] = &[
    ("agentId", "agent"),
    ("sessionKey", "session"),
    ("targetId", "target"),
    ("targetUrl", "url"),
    ("nodeId", "node"),
    ("requestId", "request"),
    ("messageId", "message"),
    ("threadId", "thread"),
    ("channelId", "channel"),
    ("guildId", "guild"),
    ("userId", "user"),
    ("runTimeoutSeconds", "timeout"),
    ("timeoutSeconds", "timeout"),
    ("includeTools", "tools"),
    ("pollQuestion", "poll"),
    ("maxChars", "max chars"),
];

/// The label of a detail key: its last segment, `camelCase`/`snake_case`/`kebab-case` as
/// lowercase words, unless overridden.
fn format_detail_key(raw: &str) -> String {
    let last = raw.split('.').rfind(|s| !s.is_empty()).unwrap_or(raw);
    if let Some((_, label)) = DETAIL_LABEL_OVERRIDES.iter().find(|(k, _)| *k == last) {
        return (*label).to_owned();
    }
    let mut spaced = String::with_capacity(last.len() + 4);
    let mut prev: Option<char> = None;
    for c in last.chars() {
        let c = if c == '_' || c == '-' { ' ' } else { c };
        if c.is_ascii_uppercase()
            && prev.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit())
        {
            spaced.push(' ');
        }
        spaced.push(c);
        prev = Some(c);
    }
    let label = js_trim(&spaced).to_lowercase();
    if label.is_empty() {
        js_trim(last).to_lowercase()
    } else {
        label
    }
}

/// The detail from argument keys: one value alone, or up to eight `label value` entries
/// joined with ` · `.
fn resolve_detail_from_keys(args: &Value, keys: &[&str]) -> Option<String> {
    let entries: Vec<(String, String)> = keys
        .iter()
        .filter_map(|key| {
            let value = coerce_display_value(lookup_value_by_path(args, key)?)?;
            Some((format_detail_key(key), value))
        })
        .collect();
    match entries.as_slice() {
        [] => None,
        [(_, value)] => Some(value.clone()),
        _ => {
            // Duplicates are recognized by their `label:value` token, as in OpenClaw.
            let mut seen: Vec<String> = Vec::new();
            let mut shown: Vec<String> = Vec::new();
            for (label, value) in &entries {
                let token = format!("{label}:{value}");
                if !seen.contains(&token) {
                    seen.push(token);
                    shown.push(format!("{label} {value}"));
                }
            }
            shown.truncate(MAX_DETAIL_ENTRIES);
            Some(shown.join(" · "))
        }
    }
}

// ---- aggregates and output ---------------------------------------------------------------

/// Shell flags that [`format_tool_aggregate`] shows outside the code span.
const EXEC_FLAGS: [&str; 2] = ["elevated", "pty"];

/// The verbose-mode line for calls of one tool (OpenClaw `formatToolAggregate`).
///
/// `<emoji> <label>` alone without metas; otherwise `<emoji> <label>: <metas>`, where empty
/// metas are dropped, the home directory is shortened, and absolute (or `~/`) paths without
/// spaces are grouped by directory (`~/dir/{a.txt, b.txt}`) after the other metas, all joined
/// with `; `. With `markdown` the metas are wrapped in backticks unless they contain one; for
/// `exec`/`bash` the `pty` and `elevated` flags stay outside (`` pty · `ls` ``).
///
/// ```
/// use clawloop_subscribe::{HomeDisplay, format_tool_aggregate};
///
/// let home = HomeDisplay::new("/home/ada");
/// let line = format_tool_aggregate(
///     "read",
///     &["/home/ada/notes/a.md", "/home/ada/notes/b.md"],
///     true,
///     Some(&home),
/// );
/// assert_eq!(line, "📖 Read: `~/notes/{a.md, b.md}`");
/// ```
pub fn format_tool_aggregate(
    tool_name: &str,
    metas: &[&str],
    markdown: bool,
    home: Option<&HomeDisplay>,
) -> String {
    let display = resolve_tool_display(tool_name);
    let prefix = format!("{} {}", display.emoji, display.label);
    let metas: Vec<Cow<'_, str>> = metas
        .iter()
        .filter(|m| !m.is_empty())
        .map(|m| shorten_home(m, home))
        .collect();
    if metas.is_empty() {
        return prefix;
    }
    let mut raw_segments: Vec<&str> = Vec::new();
    // Directories in first-seen order with their file names.
    let mut grouped: Vec<(&str, Vec<&str>)> = Vec::new();
    for meta in &metas {
        let meta = meta.as_ref();
        if !is_path_like(meta) || meta.contains('→') {
            raw_segments.push(meta);
            continue;
        }
        let (dir, base) = meta.rsplit_once('/').unwrap_or((".", meta));
        match grouped.iter_mut().find(|(d, _)| *d == dir) {
            Some((_, files)) => files.push(base),
            None => grouped.push((dir, vec![base])),
        }
    }
    let segments = grouped.iter().map(|(dir, files)| {
        let brace = match files.as_slice() {
            [single] => (*single).to_owned(),
            _ => format!("{{{}}}", files.join(", ")),
        };
        if *dir == "." {
            brace
        } else {
            format!("{dir}/{brace}")
        }
    });
    let joined = raw_segments
        .iter()
        .map(|s| (*s).to_owned())
        .chain(segments)
        .collect::<Vec<_>>()
        .join("; ");
    format!(
        "{prefix}: {}",
        format_meta_for_display(tool_name, &joined, markdown)
    )
}

/// An absolute or `~/` path with no whitespace, URL scheme, `·`, `&&` or `||`.
fn is_path_like(value: &str) -> bool {
    if value.is_empty()
        || value.contains(' ')
        || value.contains("://")
        || value.contains('·')
        || value.contains("&&")
        || value.contains("||")
    {
        return false;
    }
    // `^~?(\/[^\s]+)+$`
    let rest = value.strip_prefix('~').unwrap_or(value);
    rest.strip_prefix('/')
        .is_some_and(|tail| !tail.is_empty() && !tail.chars().any(is_js_whitespace))
}

fn format_meta_for_display(tool_name: &str, meta: &str, markdown: bool) -> String {
    let tool = js_trim(tool_name).to_lowercase();
    if tool == "exec" || tool == "bash" {
        let (flags, body): (Vec<&str>, Vec<&str>) = meta
            .split(" · ")
            .map(js_trim)
            .filter(|p| !p.is_empty())
            .partition(|p| EXEC_FLAGS.contains(p));
        if !flags.is_empty() {
            let flags = flags.join(" · ");
            if body.is_empty() {
                return flags;
            }
            return format!("{flags} · {}", wrap_markdown(&body.join(" · "), markdown));
        }
    }
    wrap_markdown(meta, markdown)
}

/// In backticks for markdown, unless the text has its own.
fn wrap_markdown(value: &str, markdown: bool) -> String {
    if !markdown || value.contains('`') {
        value.to_owned()
    } else {
        format!("`{value}`")
    }
}

/// A tool's output as shown under its line: trimmed, in a fenced `txt` block for markdown,
/// `(no output)` when blank.
///
/// ```
/// use clawloop_subscribe::format_tool_output_block;
///
/// assert_eq!(format_tool_output_block(" ok \n", true), "```txt\nok\n```");
/// assert_eq!(format_tool_output_block("ok", false), "ok");
/// assert_eq!(format_tool_output_block(" ", true), "(no output)");
/// ```
pub fn format_tool_output_block(output: &str, markdown: bool) -> String {
    let trimmed = js_trim(output);
    if trimmed.is_empty() {
        "(no output)".to_owned()
    } else if markdown {
        format!("```txt\n{trimmed}\n```")
    } else {
        trimmed.to_owned()
    }
}

/// The verbose-full message for a finished call: its [`format_tool_aggregate`] line, a
/// newline, and [`format_tool_output_block`] (OpenClaw `emitToolOutput`).
pub fn format_tool_output(
    tool_name: &str,
    meta: Option<&str>,
    output: &str,
    markdown: bool,
    home: Option<&HomeDisplay>,
) -> String {
    format!(
        "{}\n{}",
        format_tool_aggregate(tool_name, meta.as_slice(), markdown, home),
        format_tool_output_block(output, markdown)
    )
}

/// Tools whose provider list (`action: "list"`) is shown even when tool output is not.
const COMPACT_PROVIDER_INVENTORY_TOOLS: [&str; 2] = ["image_generate", "video_generate"];

/// Whether a result's output is shown whatever the verbose level (OpenClaw
/// `shouldEmitCompactToolOutput`): a provider inventory (`details.providers` is an array) of
/// `image_generate` or `video_generate` with non-blank output.
pub(crate) fn is_compact_tool_output(
    tool_name: &str,
    result: &Value,
    output: Option<&str>,
) -> bool {
    COMPACT_PROVIDER_INVENTORY_TOOLS.contains(&tool_name)
        && result
            .get("details")
            .and_then(|d| d.get("providers"))
            .is_some_and(Value::is_array)
        && output.is_some_and(|o| !js_trim(o).is_empty())
}

// ---- JS string helpers -------------------------------------------------------------------

/// Length in UTF-16 code units (JS `length`).
fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// The longest prefix of at most `units` UTF-16 units that does not split a character.
fn utf16_prefix(s: &str, units: usize) -> &str {
    let mut count = 0;
    for (i, c) in s.char_indices() {
        count += c.len_utf16();
        if count > units {
            return &s[..i];
        }
    }
    s
}

/// The longest suffix of at most `units` UTF-16 units that does not split a character.
fn utf16_suffix(s: &str, units: usize) -> &str {
    let mut count = 0;
    for (i, c) in s.char_indices().rev() {
        count += c.len_utf16();
        if count > units {
            return &s[i + c.len_utf8()..];
        }
    }
    s
}

/// The first `units` UTF-16 units and `…` (JS `s.slice(0, units) + "…"`).
fn truncate_with_ellipsis(s: &str, units: usize) -> String {
    format!("{}…", utf16_prefix(s, units))
}

#[cfg(test)]
mod tests {
    //! Expected values were computed with OpenClaw 2026.4.12's `resolveToolDisplay`,
    //! `formatToolDetail`, `formatToolSummary` and `formatToolAggregate` (HOME=/home/u).

    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn home() -> HomeDisplay {
        HomeDisplay::new("/home/u")
    }

    fn display(
        name: &str,
        emoji: &'static str,
        title: &str,
        verb: Option<&str>,
        detail: Option<&str>,
    ) -> ToolDisplay {
        ToolDisplay {
            name: name.to_owned(),
            emoji,
            title: title.to_owned(),
            label: title.to_owned(),
            verb: verb.map(str::to_owned),
            detail: detail.map(str::to_owned),
        }
    }

    #[test]
    fn names_resolve_through_the_table_and_the_fallback() {
        let actual = [
            "read",
            " Exec ",
            "sessions_spawn",
            "web_search",
            "my_custom_tool",
            "a_ID_x",
            "ß_tool",
            "x.y_z",
            "",
        ]
        .map(resolve_tool_display);
        let expected = [
            display("read", "📖", "Read", Some("read"), None),
            display("Exec", "🛠️", "Exec", Some("exec"), None),
            display(
                "sessions_spawn",
                "🧑‍🔧",
                "Sub-agent",
                Some("sessions spawn"),
                None,
            ),
            display("web_search", "🔎", "Web Search", Some("search"), None),
            display(
                "my_custom_tool",
                "🧩",
                "My Custom Tool",
                Some("my custom tool"),
                None,
            ),
            display("a_ID_x", "🧩", "A ID X", Some("a id x"), None),
            display("ß_tool", "🧩", "SS Tool", Some("ß tool"), None),
            display("x.y_z", "🧩", "X.y Z", Some("x y z"), None),
            display("", "🧩", "Tool", None, None),
        ];
        assert_eq!(actual, expected);
    }

    #[test]
    fn call_details_follow_the_tool() {
        let home = home();
        let cases = [
            ("read", json!({"path": "a.txt"})),
            (
                "read",
                json!({"path": "/home/u/p/a.txt", "offset": 10, "limit": 5}),
            ),
            ("read", json!({"path": "f", "offset": 2.7, "limit": 1})),
            ("write", json!({"path": "x.md", "content": "héllo😀"})),
            ("edit", json!({"path": "/home/u/y.rs", "new_string": "abc"})),
            ("web_search", json!({"query": "rust", "count": 5})),
            (
                "web_fetch",
                json!({"url": "https://a.b", "extractMode": "text", "maxChars": 2000}),
            ),
            (
                "message",
                json!({"action": "send", "provider": "discord", "to": "#general", "media": "/home/u/pic.png"}),
            ),
            (
                "cron",
                json!({"action": "add", "job": {"name": "daily", "schedule": "0 9 * * *"}}),
            ),
            ("cron", json!({"action": "list"})),
            (
                "update_plan",
                json!({"explanation": "step one\nmore", "plan": [{"step": "do it"}]}),
            ),
            (
                "foo_tool",
                json!({"id": 5, "name": "bob", "to": ["a", "b", "c", "d"]}),
            ),
            (
                "foo",
                json!({"token": "x", "command": "export API_KEY=abcdefghijklmnopqrstuvwxyz"}),
            ),
            ("foo", json!({"id": 1e21})),
            ("exec", json!({"command": "ls", "workdir": "/w"})),
            ("exec", json!({"command": "mycmd", "workdir": "/home/u/w"})),
            ("exec", json!({"command": "  "})),
            ("bash", json!({"command": "ls -la\nsecond line"})),
        ];
        let actual: Vec<(Option<String>, Option<String>, Option<String>)> = cases
            .iter()
            .map(|(name, args)| {
                let d = resolve_tool_call_display(name, args, Some(&home));
                (d.verb.clone(), d.detail.clone(), d.detail_text())
            })
            .collect();
        let some = |s: &str| Some(s.to_owned());
        let expected = vec![
            (some("read"), some("from a.txt"), some("from a.txt")),
            (
                some("read"),
                some("lines 10-14 from ~/p/a.txt"),
                some("lines 10-14 from ~/p/a.txt"),
            ),
            (
                some("read"),
                some("line 2-2 from f"),
                some("line 2-2 from f"),
            ),
            (
                some("write"),
                some("to x.md (7 chars)"),
                some("to x.md (7 chars)"),
            ),
            (
                some("edit"),
                some("in ~/y.rs (3 chars)"),
                some("in ~/y.rs (3 chars)"),
            ),
            (
                some("search"),
                some("for \"rust\" (top 5)"),
                some("for \"rust\" (top 5)"),
            ),
            (
                some("fetch"),
                some("from https://a.b (mode text, max 2000 chars)"),
                some("from https://a.b (mode text, max 2000 chars)"),
            ),
            (
                some("send"),
                some("provider discord · to #general · media ~/pic.png"),
                some("provider discord, to #general, media ~/pic.png"),
            ),
            (
                some("add"),
                some("name daily · schedule 0 9 * * *"),
                some("name daily, schedule 0 9 * * *"),
            ),
            (some("list"), None, None),
            (
                some("update plan"),
                some("explanation step one · step do it"),
                some("explanation step one, step do it"),
            ),
            (
                some("foo tool"),
                some("id 5 · to a, b, c… · name bob"),
                some("id 5, to a, b, c…, name bob"),
            ),
            (
                some("foo"),
                some("export API_KEY=abcdefghijklmnopqrstuvwxyz"),
                some("export API_KEY=abcdef…wxyz"),
            ),
            (some("foo"), some("1e+21"), some("1e+21")),
            (
                some("exec"),
                some("list files (in /w) · `ls`"),
                some("list files (in /w), `ls`"),
            ),
            (some("exec"), some("mycmd (in ~/w)"), some("mycmd (in ~/w)")),
            (some("exec"), None, None),
            (some("bash"), some("ls -la"), some("ls -la")),
        ];
        assert_eq!(actual, expected);
    }

    #[test]
    fn long_values_are_cut() {
        let task = "x".repeat(200);
        let d = resolve_tool_call_display(
            "sessions_spawn",
            &json!({"label": "worker", "task": task, "runTimeoutSeconds": 60, "cleanup": false}),
            None,
        );
        let cut = format!("{}…", "x".repeat(157));
        assert_eq!(
            d.detail_text(),
            Some(format!("label worker, task {cut}, timeout 60"))
        );
        let command = format!("verylongcommand {}", "a".repeat(130));
        let d = resolve_tool_call_display("exec", &json!({ "command": command }), None);
        assert_eq!(
            d.detail,
            Some(format!("verylongcommand {}…", "a".repeat(103)))
        );
    }

    #[test]
    fn shell_commands_are_described() {
        let home = home();
        let cases = [
            ("ls -la /tmp", "list files in /tmp · `ls -la /tmp`"),
            (
                "cd /repo && git status",
                "check git status (in /repo) · `cd /repo && git status`",
            ),
            (
                "git -C /x log --oneline",
                "view git history · `git -C /x log --oneline`",
            ),
            (
                "git push origin main",
                "push git changes · `git push origin main`",
            ),
            ("git /abs", "run git command · `git /abs`"),
            ("git -- status", "check git status · `git -- status`"),
            (
                "\"/usr/bin/Git\" status",
                "check git status · `\"/usr/bin/Git\" status`",
            ),
            (
                "grep -rn foo src",
                "search \"foo\" in src · `grep -rn foo src`",
            ),
            ("rg -e 'a b' .", "search \"a b\" · `rg -e 'a b' .`"),
            (
                "find . -name '*.rs'",
                "find files named \"*.rs\" in . · `find . -name '*.rs'`",
            ),
            (
                "head -n 5 file.txt",
                "show first 5 lines of file.txt · `head -n 5 file.txt`",
            ),
            ("tail -20 log", "show last 20 lines of log · `tail -20 log`"),
            ("head 5", "show head output · `head 5`"),
            (
                "sed -n 10,20p f.rs",
                "print lines 10-20 from f.rs · `sed -n 10,20p f.rs`",
            ),
            ("sed 's/a/b/' f", "run sed on f · `sed 's/a/b/' f`"),
            ("cp a b", "copy a to b · `cp a b`"),
            ("rm -rf dir", "remove dir · `rm -rf dir`"),
            (
                "curl -s https://x.y/z",
                "fetch https://x.y/z · `curl -s https://x.y/z`",
            ),
            ("npm install", "install dependencies · `npm install`"),
            ("pnpm run dev", "pnpm run dev"),
            ("yarn", "run yarn command · `yarn`"),
            (
                "node --check a.js",
                "check js syntax for a.js · `node --check a.js`",
            ),
            (
                "python3 -c 'print(1)'",
                "run python3 inline script · `python3 -c 'print(1)'`",
            ),
            (
                "python - <<'EOF'",
                "run python inline script (heredoc) · `python - <<'EOF'`",
            ),
            ("cargo build --release", "cargo build --release"),
            ("mycmd ./ok-path_1.x", "mycmd ./ok-path_1.x"),
            (
                "cat a | grep b | wc -l",
                "show a -> run wc (+1 steps) · `cat a | grep b | wc -l`",
            ),
            ("a|b|c|d", "a|b|c|d"),
            (
                "set -e; cd /tmp; ls",
                "list files (in /tmp) · `set -e; cd /tmp; ls`",
            ),
            ("cd /a && cd /b && pwd", "cd /a && cd /b && pwd (in /b)"),
            (
                "pushd /x && popd && ls",
                "list files · `pushd /x && popd && ls`",
            ),
            ("cd /only", "cd /only"),
            (
                "env -i A=1 node x.js",
                "run node script x.js · `env -i A=1 node x.js`",
            ),
            (
                "bash -lc \"cd /w && git diff\"",
                "check git diff (in /w) · `cd /w && git diff`",
            ),
            ("fish -c ls -la", "list files · `ls -la`"),
            (
                "echo a;;echo b",
                "print text → print text · `echo a;;echo b`",
            ),
            (
                "true || echo fail",
                "run true → print text · `true || echo fail`",
            ),
            ("x 'a;b' ; y", "x 'a;b' ; y"),
            ("a &&& b", "a &&& b"),
            ("ls\n\n  -la", "list files · `ls -la`"),
            ("echo a \t b", "print text · `echo a b`"),
            ("ls /home/u/docs", "list files in ~/docs · `ls ~/docs`"),
        ];
        let actual: Vec<(&str, Option<String>)> = cases
            .iter()
            .map(|(command, _)| {
                let args = json!({ "command": command });
                let detail = resolve_tool_call_display("exec", &args, Some(&home)).detail;
                (*command, detail)
            })
            .collect();
        let expected: Vec<(&str, Option<String>)> = cases
            .iter()
            .map(|(command, detail)| (*command, Some((*detail).to_owned())))
            .collect();
        assert_eq!(actual, expected);
    }

    #[test]
    fn summaries_join_emoji_label_and_detail() {
        let d = resolve_tool_call_display("exec", &json!({"command": "npm test"}), None);
        assert_eq!(d.summary(), "🛠️ Exec: run tests, `npm test`");
        assert_eq!(resolve_tool_display("cron").summary(), "⏰ Cron");
    }

    #[test]
    fn aggregates_group_paths_and_keep_flags_outside_code() {
        let home = home();
        let cases: [(&str, &[&str]); 14] = [
            ("read", &[]),
            (
                "read",
                &[
                    "/home/u/dir/a.txt",
                    "/home/u/dir/b.txt",
                    "/home/u/other/c.txt",
                    "notes.txt",
                ],
            ),
            ("read", &["/a", "/b/c", "", "/a"]),
            ("exec", &["ls -la · pty"]),
            ("exec", &["pty · elevated"]),
            ("bash", &["`x` · elevated"]),
            ("exec", &["run · pty · `c`"]),
            ("write", &["/x/y → /x/z"]),
            ("web_fetch", &["https://a.b/c"]),
            ("read", &["/home/u"]),
            ("read", &["/dir/"]),
            ("exec", &["a && b"]),
            ("read", &["/x/a\tb"]),
            ("read", &["/home/uX/a"]),
        ];
        let actual: Vec<(String, String)> = cases
            .iter()
            .map(|(tool, metas)| {
                (
                    format_tool_aggregate(tool, metas, true, Some(&home)),
                    format_tool_aggregate(tool, metas, false, Some(&home)),
                )
            })
            .collect();
        let pair = |md: &str, plain: &str| (md.to_owned(), plain.to_owned());
        let expected = vec![
            pair("📖 Read", "📖 Read"),
            pair(
                "📖 Read: `notes.txt; ~/dir/{a.txt, b.txt}; ~/other/c.txt`",
                "📖 Read: notes.txt; ~/dir/{a.txt, b.txt}; ~/other/c.txt",
            ),
            pair("📖 Read: `/{a, a}; /b/c`", "📖 Read: /{a, a}; /b/c"),
            pair("🛠️ Exec: pty · `ls -la`", "🛠️ Exec: pty · ls -la"),
            pair("🛠️ Exec: pty · elevated", "🛠️ Exec: pty · elevated"),
            pair("🛠️ Bash: elevated · `x`", "🛠️ Bash: elevated · `x`"),
            pair("🛠️ Exec: pty · run · `c`", "🛠️ Exec: pty · run · `c`"),
            pair("✍️ Write: `/x/y → /x/z`", "✍️ Write: /x/y → /x/z"),
            pair(
                "📄 Web Fetch: `https://a.b/c`",
                "📄 Web Fetch: https://a.b/c",
            ),
            pair("📖 Read: `~`", "📖 Read: ~"),
            pair("📖 Read: `/dir/`", "📖 Read: /dir/"),
            pair("🛠️ Exec: `a && b`", "🛠️ Exec: a && b"),
            pair("📖 Read: `/x/a\tb`", "📖 Read: /x/a\tb"),
            pair("📖 Read: `~X/a`", "📖 Read: ~X/a"),
        ];
        assert_eq!(actual, expected);
    }

    #[test]
    fn outputs_are_fenced_for_markdown() {
        let home = home();
        let actual = [
            format_tool_output(
                "read",
                Some("from /home/u/a.txt"),
                "  line 1\nline 2\n",
                true,
                Some(&home),
            ),
            format_tool_output("read", Some("from a.txt"), "line 1", false, None),
            format_tool_output("exec", None, "", true, None),
            format_tool_output("exec", Some("ls · pty"), " \n ", false, None),
        ];
        let expected = [
            "📖 Read: `from ~/a.txt`\n```txt\nline 1\nline 2\n```",
            "📖 Read: from a.txt\nline 1",
            "🛠️ Exec\n(no output)",
            "🛠️ Exec: pty · ls\n(no output)",
        ];
        assert_eq!(actual, expected);
    }

    #[test]
    fn home_display_and_levels() {
        let home = HomeDisplay::with_prefix("/home/u", "$OPENCLAW_HOME");
        assert_eq!(
            home.shorten("/home/u/a and /home/u/b"),
            "$OPENCLAW_HOME/a and $OPENCLAW_HOME/b"
        );
        assert_eq!(HomeDisplay::new("").shorten("/x"), "/x");
        let levels = [VerboseLevel::Off, VerboseLevel::On, VerboseLevel::Full]
            .map(|l| (l.emits_tool_summaries(), l.emits_tool_output()));
        assert_eq!(levels, [(false, false), (true, false), (true, true)]);
        assert_eq!(
            [1.5, 1e21, 1e-7, -3.0, 0.1, 123_456_789_012.0].map(format_js_number),
            ["1.5", "1e+21", "1e-7", "-3", "0.1", "123456789012"]
        );
    }

    #[test]
    fn compact_provider_lists() {
        let list = json!({"details": {"providers": []}});
        assert!(is_compact_tool_output("image_generate", &list, Some("veo")));
        assert!(!is_compact_tool_output("image_generate", &list, Some(" ")));
        assert!(!is_compact_tool_output("read", &list, Some("veo")));
        assert!(!is_compact_tool_output(
            "video_generate",
            &json!({"details": {"providers": {}}}),
            Some("veo")
        ));
    }
}
