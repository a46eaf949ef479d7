//! A strict parser for the YAML subset `SKILL.md` frontmatter uses.
//!
//! Why not a YAML crate: `serde_yaml` is deprecated, `serde_yml` is unmaintained and flagged
//! unsound, and a full YAML 1.2 parser brings anchors, aliases and tags that a skill file has no
//! use for (and that a hostile workspace could use for alias bombs). The subset below is what
//! OpenClaw's own fallback line parser (`markdown/frontmatter.ts`) reads, plus quoting and block
//! scalars, and every departure from it is an error with a line number instead of a guess:
//!
//! * the file starts with a `---` line and the block ends at the next `---` line;
//! * top-level lines are `key: value` (keys `[A-Za-z0-9_][A-Za-z0-9_.-]*`, unique), blank lines
//!   and `#` comments;
//! * a value is plain text (a trailing ` # comment` dropped; a `: ` inside is kept, as OpenClaw's
//!   fallback does), `"double"` (JSON-style escapes) or `'single'` (`''` for `'`) quoted, or a
//!   `|`/`>` block scalar of the indented lines below; indented lines under a plain or quoted value
//!   continue it;
//! * an empty value with indented lines below is a one-level map of `key: value` lines, a list
//!   of `- item` lines, or, for anything deeper (OpenClaw's `metadata:` JSON spread over lines),
//!   kept verbatim as [`FrontmatterValue::Raw`]; a value starting with `{` or `[` is kept verbatim
//!   the same way;
//! * tabs in indentation, anchors (`&`), aliases (`*`), tags (`!`), the reserved `@` and `` ` ``,
//!   an unclosed block or quote and a top-level list are errors.
//!
//! Text values are trimmed, as OpenClaw's `coerceFrontmatterValue` does.

use std::collections::BTreeMap;

/// One frontmatter value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrontmatterValue {
    /// A scalar, unquoted and trimmed.
    Text(String),
    /// An indented block of `key: value` lines.
    Map(BTreeMap<String, String>),
    /// An indented block of `- item` lines.
    List(Vec<String>),
    /// A flow collection (`{…}`/`[…]`) or a deeper block, as written (dedented, trimmed).
    Raw(String),
}

/// The parsed frontmatter block: every key, known or not.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Frontmatter {
    /// The top-level keys and their values.
    pub fields: BTreeMap<String, FrontmatterValue>,
}

impl Frontmatter {
    /// The text of `key`; `Ok(None)` when absent, an error naming the key when it is not text.
    pub fn text(&self, key: &str) -> Result<Option<&str>, String> {
        match self.fields.get(key) {
            None => Ok(None),
            Some(FrontmatterValue::Text(text)) => Ok(Some(text)),
            Some(_) => Err(format!("`{key}` must be a single line of text")),
        }
    }
}

/// Why a frontmatter block could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("frontmatter line {line}: {message}")]
pub struct FrontmatterError {
    /// 1-based line number in the file.
    pub line: usize,
    /// What is wrong there.
    pub message: String,
}

/// Parses the frontmatter at the start of `text`; `Ok(None)` when the file has none.
pub fn parse_frontmatter(text: &str) -> Result<Option<Frontmatter>, FrontmatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let normalized = text.replace("\r\n", "\n").replace('\r', "\n");
    let lines: Vec<&str> = normalized.split('\n').collect();
    if lines.first().map(|l| l.trim_end()) != Some("---") {
        return Ok(None);
    }
    let Some(close) = lines.iter().skip(1).position(|l| l.trim_end() == "---") else {
        return Err(error(
            1,
            "the frontmatter opened with `---` is never closed by a `---` line",
        ));
    };
    let body = &lines[1..=close];
    let mut fields = BTreeMap::new();
    let mut i = 0;
    while i < body.len() {
        let line_no = i + 2;
        let line = body[i];
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            i += 1;
            continue;
        }
        if line.starts_with('\t') {
            return Err(error(line_no, "tabs are not allowed for indentation"));
        }
        if line.starts_with(' ') {
            return Err(error(
                line_no,
                "unexpected indentation (top-level keys start in column 1)",
            ));
        }
        if trimmed == "-" || trimmed.starts_with("- ") {
            return Err(error(
                line_no,
                "the frontmatter must be `key: value` lines, not a list",
            ));
        }
        let (key, value) =
            split_key(line).ok_or_else(|| error(line_no, "expected `key: value`"))?;
        let mut end = i + 1;
        while end < body.len() && is_continuation(body[end]) {
            end += 1;
        }
        let children = &body[i + 1..end];
        let parsed = parse_value(value, children, line_no)?;
        if fields.insert(key.to_owned(), parsed).is_some() {
            return Err(error(line_no, format!("duplicate key `{key}`")));
        }
        i = end;
    }
    Ok(Some(Frontmatter { fields }))
}

fn error(line: usize, message: impl Into<String>) -> FrontmatterError {
    FrontmatterError {
        line,
        message: message.into(),
    }
}

fn is_continuation(line: &str) -> bool {
    line.trim().is_empty() || line.starts_with(' ') || line.starts_with('\t')
}

/// Splits `key: value` at the first `:` followed by a space or the end of the line.
fn split_key(line: &str) -> Option<(&str, &str)> {
    let bytes = line.as_bytes();
    let colon = (0..bytes.len()).find(|&at| {
        bytes[at] == b':' && bytes.get(at + 1).is_none_or(|&b| b == b' ' || b == b'\t')
    })?;
    let key = line[..colon].trim_end();
    let valid = key.bytes().enumerate().all(|(at, b)| {
        b.is_ascii_alphanumeric() || b == b'_' || (at > 0 && (b == b'-' || b == b'.'))
    });
    (valid && !key.is_empty()).then(|| (key, line[colon + 1..].trim()))
}

fn check_indentation(lines: &[&str], first_line_no: usize) -> Result<(), FrontmatterError> {
    for (offset, line) in lines.iter().enumerate() {
        let indent: &str = &line[..line.len() - line.trim_start().len()];
        if indent.contains('\t') && !line.trim().is_empty() {
            return Err(error(
                first_line_no + offset,
                "tabs are not allowed for indentation",
            ));
        }
    }
    Ok(())
}

fn parse_value(
    value: &str,
    children: &[&str],
    line_no: usize,
) -> Result<FrontmatterValue, FrontmatterError> {
    check_indentation(children, line_no + 1)?;
    let has_children = children.iter().any(|l| !l.trim().is_empty());
    if value.is_empty() {
        return if has_children {
            parse_nested(children, line_no + 1)
        } else {
            Ok(FrontmatterValue::Text(String::new()))
        };
    }
    if value.starts_with('|') || value.starts_with('>') {
        return block_scalar(value, children, line_no);
    }
    if value.starts_with('{') || value.starts_with('[') {
        let mut raw = value.to_owned();
        for child in children {
            raw.push('\n');
            raw.push_str(child);
        }
        return Ok(FrontmatterValue::Raw(raw.trim().to_owned()));
    }
    let mut joined = value.to_owned();
    for child in children.iter().map(|c| c.trim()).filter(|c| !c.is_empty()) {
        joined.push(' ');
        joined.push_str(child);
    }
    parse_scalar(&joined, line_no).map(FrontmatterValue::Text)
}

/// A scalar on one line: quoted, or plain with a trailing comment dropped.
fn parse_scalar(value: &str, line_no: usize) -> Result<String, FrontmatterError> {
    let value = value.trim();
    let (text, rest) = if let Some(body) = value.strip_prefix('"') {
        double_quoted(body, line_no)?
    } else if let Some(body) = value.strip_prefix('\'') {
        single_quoted(body, line_no)?
    } else {
        match value.chars().next() {
            Some('&' | '*' | '!') => {
                return Err(error(
                    line_no,
                    "YAML anchors, aliases and tags are not supported",
                ));
            }
            Some('@' | '`') => {
                return Err(error(
                    line_no,
                    "a plain value may not start with `@` or `` ` ``",
                ));
            }
            _ => {}
        }
        let text = match value.find(" #") {
            Some(at) => &value[..at],
            None => value,
        };
        return Ok(text.trim().to_owned());
    };
    let rest = rest.trim();
    if !rest.is_empty() && !rest.starts_with('#') {
        return Err(error(
            line_no,
            format!("unexpected text after the closing quote: {rest:?}"),
        ));
    }
    Ok(text.trim().to_owned())
}

/// The text of a `"…"` scalar (after the opening quote) and what follows its closing quote.
fn double_quoted(body: &str, line_no: usize) -> Result<(String, &str), FrontmatterError> {
    let mut out = String::new();
    let mut chars = body.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => return Ok((out, &body[at + 1..])),
            '\\' => {
                let escaped = match chars.next().map(|(_, e)| e) {
                    Some('"') => '"',
                    Some('\\') => '\\',
                    Some('/') => '/',
                    Some('n') => '\n',
                    Some('t') => '\t',
                    Some('r') => '\r',
                    Some('0') => '\0',
                    Some('u') => {
                        let hex: String = chars.by_ref().take(4).map(|(_, h)| h).collect();
                        u32::from_str_radix(&hex, 16)
                            .ok()
                            .filter(|_| hex.len() == 4)
                            .and_then(char::from_u32)
                            .ok_or_else(|| error(line_no, format!("invalid escape \\u{hex}")))?
                    }
                    Some(other) => {
                        return Err(error(
                            line_no,
                            format!("unknown escape \\{other} in a quoted value"),
                        ));
                    }
                    None => return Err(error(line_no, "unterminated double-quoted value")),
                };
                out.push(escaped);
            }
            other => out.push(other),
        }
    }
    Err(error(line_no, "unterminated double-quoted value"))
}

/// The text of a `'…'` scalar (after the opening quote) and what follows its closing quote.
fn single_quoted(body: &str, line_no: usize) -> Result<(String, &str), FrontmatterError> {
    let mut out = String::new();
    let mut chars = body.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if c != '\'' {
            out.push(c);
        } else if chars.peek().map(|&(_, n)| n) == Some('\'') {
            chars.next();
            out.push('\'');
        } else {
            return Ok((out, &body[at + 1..]));
        }
    }
    Err(error(line_no, "unterminated single-quoted value"))
}

/// `|` keeps line breaks, `>` folds lines into spaces (a blank line stays a break); the result
/// is trimmed, so the chomping indicators `-`/`+` change nothing.
fn block_scalar(
    indicator: &str,
    children: &[&str],
    line_no: usize,
) -> Result<FrontmatterValue, FrontmatterError> {
    let indicator = match indicator.find(" #") {
        Some(at) => indicator[..at].trim_end(),
        None => indicator,
    };
    let literal = match indicator {
        "|" | "|-" | "|+" => true,
        ">" | ">-" | ">+" => false,
        other => {
            return Err(error(
                line_no,
                format!("unsupported block scalar indicator `{other}`"),
            ));
        }
    };
    let lines = dedent(children);
    let text = if literal {
        lines.join("\n")
    } else {
        let mut folded = String::new();
        for line in &lines {
            if line.is_empty() {
                folded.push('\n');
            } else {
                if !folded.is_empty() && !folded.ends_with('\n') {
                    folded.push(' ');
                }
                folded.push_str(line);
            }
        }
        folded
    };
    Ok(FrontmatterValue::Text(text.trim().to_owned()))
}

/// The lines with their common indentation removed (blank lines become empty).
fn dedent(lines: &[&str]) -> Vec<String> {
    // Only ASCII spaces count as indentation: cutting at a count that included other
    // whitespace could land inside a multi-byte character.
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start_matches(' ').len())
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(|l| {
            if l.trim().is_empty() {
                String::new()
            } else {
                l[indent..].trim_end().to_owned()
            }
        })
        .collect()
}

fn parse_nested(
    children: &[&str],
    first_line_no: usize,
) -> Result<FrontmatterValue, FrontmatterError> {
    let lines = dedent(children);
    let content: Vec<(usize, &String)> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .map(|(offset, l)| (first_line_no + offset, l))
        .collect();
    let flat = content.iter().all(|(_, l)| !l.starts_with(' '));
    if flat
        && content
            .iter()
            .all(|(_, l)| l.as_str() == "-" || l.starts_with("- "))
    {
        let mut items = Vec::new();
        for (line_no, line) in &content {
            let item = line.strip_prefix('-').unwrap_or(line);
            if item.trim().starts_with('{') || item.trim().starts_with('[') {
                return Ok(FrontmatterValue::Raw(lines.join("\n").trim().to_owned()));
            }
            items.push(parse_scalar(item, *line_no)?);
        }
        return Ok(FrontmatterValue::List(items));
    }
    let pairs: Option<Vec<(usize, &str, &str)>> = content
        .iter()
        .map(|(line_no, line)| split_key(line).map(|(k, v)| (*line_no, k, v)))
        .collect();
    if let Some(pairs) = pairs.filter(|p| flat && p.iter().all(|(_, _, v)| is_inline_scalar(v))) {
        let mut map = BTreeMap::new();
        for (line_no, key, value) in pairs {
            let value = parse_scalar(value, line_no)?;
            if map.insert(key.to_owned(), value).is_some() {
                return Err(error(line_no, format!("duplicate key `{key}`")));
            }
        }
        return Ok(FrontmatterValue::Map(map));
    }
    Ok(FrontmatterValue::Raw(lines.join("\n").trim().to_owned()))
}

fn is_inline_scalar(value: &str) -> bool {
    !value.is_empty() && !value.starts_with(['|', '>', '{', '['])
}

/// Parses a flow mapping kept as [`FrontmatterValue::Raw`] (`{A: x, "B": "y"}`, JSON included)
/// into text pairs; an error names the entry that is not `key: text`.
pub fn parse_flow_map(raw: &str) -> Result<BTreeMap<String, String>, String> {
    let inner = raw
        .trim()
        .strip_prefix('{')
        .and_then(|r| r.strip_suffix('}'))
        .ok_or_else(|| "expected a `{ KEY: value }` mapping".to_owned())?;
    let mut map = BTreeMap::new();
    for entry in split_flow_entries(inner) {
        let entry = entry.trim();
        if entry.is_empty() {
            continue;
        }
        let (key, value) = split_flow_entry(entry)
            .ok_or_else(|| format!("expected `key: value`, found {entry:?}"))?;
        if value.starts_with(['{', '[']) {
            return Err(format!("the value of `{key}` must be text"));
        }
        let value = parse_scalar(value, 0).map_err(|e| e.message)?;
        if map.insert(key.clone(), value).is_some() {
            return Err(format!("duplicate key `{key}`"));
        }
    }
    Ok(map)
}

/// Splits at commas outside quotes and nested brackets.
fn split_flow_entries(inner: &str) -> Vec<&str> {
    let mut entries = Vec::new();
    let (mut start, mut depth, mut quote) = (0, 0i32, None::<char>);
    let mut escaped = false;
    for (at, c) in inner.char_indices() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' && q == '"' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
            }
            None => match c {
                '"' | '\'' => quote = Some(c),
                '{' | '[' => depth += 1,
                '}' | ']' => depth -= 1,
                ',' if depth == 0 => {
                    entries.push(&inner[start..at]);
                    start = at + 1;
                }
                _ => {}
            },
        }
    }
    entries.push(&inner[start..]);
    entries
}

/// `key: value` or `"key": value` inside a flow mapping.
fn split_flow_entry(entry: &str) -> Option<(String, &str)> {
    if let Some(body) = entry.strip_prefix('"') {
        let (key, rest) = double_quoted(body, 0).ok()?;
        let value = rest.trim_start().strip_prefix(':')?;
        return Some((key, value.trim()));
    }
    let colon = entry.find(':')?;
    let key = entry[..colon].trim();
    (!key.is_empty()).then(|| (key.to_owned(), entry[colon + 1..].trim()))
}
