//! The one-line description of a shell command (OpenClaw `tool-display-exec.ts` and
//! `tool-display-exec-shell.ts`): `cd /repo && git status` is shown as
//! ``check git status (in /repo) · `cd /repo && git status` ``.
//!
//! The shell is only approximated: words are split on whitespace outside quotes, a backslash
//! escapes the next character, and `;`, `&&`, `||` and `|` separate stages outside quotes.

use clawloop_core::js_text::{is_js_whitespace, js_trim, js_trim_start};
use serde_json::Value;

use super::{truncate_with_ellipsis, utf16_len};

/// The detail of an `exec` call (OpenClaw `resolveExecDetail`), before home shortening.
pub(super) fn resolve_exec_detail(args: &Value) -> Option<String> {
    let raw = js_trim(args.get("command")?.as_str()?);
    if raw.is_empty() {
        return None;
    }
    let unwrapped = unwrap_shell_wrapper(raw);
    let result = summarize_exec_command(&unwrapped).or_else(|| summarize_exec_command(raw));
    let summary = result
        .as_ref()
        .map(|r| r.text.as_str())
        .filter(|t| !t.is_empty())
        .unwrap_or("run command");
    // A string `workdir` wins over `cwd` even when blank; blank then defers to a `cd`.
    let dir_arg = args
        .get("workdir")
        .and_then(Value::as_str)
        .or_else(|| args.get("cwd").and_then(Value::as_str))
        .map(js_trim)
        .filter(|s| !s.is_empty());
    let cwd = dir_arg.or_else(|| {
        result
            .as_ref()
            .and_then(|r| r.chdir_path.as_deref())
            .filter(|s| !s.is_empty())
    });
    let compact = compact_raw_command(&unwrapped);
    let all_generic = result.as_ref().and_then(|r| r.all_generic).unwrap_or(true);
    if all_generic && is_generic_summary(summary) {
        return Some(match cwd {
            Some(cwd) => format!("{compact} (in {cwd})"),
            None => compact,
        });
    }
    let display_summary = match cwd {
        Some(cwd) => format!("{summary} (in {cwd})"),
        None => summary.to_owned(),
    };
    if !compact.is_empty() && compact != display_summary && compact != summary {
        return Some(format!("{display_summary} · `{compact}`"));
    }
    Some(display_summary)
}

struct ExecSummary {
    text: String,
    chdir_path: Option<String>,
    /// `None` when the command was only a `cd` (OpenClaw leaves `allGeneric` unset).
    all_generic: Option<bool>,
}

fn summarize_exec_command(command: &str) -> Option<ExecSummary> {
    let (cleaned, chdir_path) = strip_shell_preamble(command);
    if cleaned.is_empty() {
        return chdir_path.map(|path| ExecSummary {
            text: String::new(),
            chdir_path: Some(path),
            all_generic: None,
        });
    }
    let stages = split_top_level_stages(&cleaned);
    if stages.is_empty() {
        return None;
    }
    let summaries: Vec<String> = stages.iter().map(|s| summarize_pipeline(s)).collect();
    Some(ExecSummary {
        all_generic: Some(summaries.iter().all(|s| is_generic_summary(s))),
        text: summaries.join(" → "),
        chdir_path,
    })
}

fn summarize_pipeline(stage: &str) -> String {
    let summarize =
        |part: &str| summarize_known_exec(&trim_leading_env(split_shell_words(part, 48)));
    let pipeline = split_top_level_pipes(stage);
    match pipeline.as_slice() {
        [first, .., last] => {
            let extra = match pipeline.len() - 2 {
                0 => String::new(),
                n => format!(" (+{n} steps)"),
            };
            format!("{} -> {}{extra}", summarize(first), summarize(last))
        }
        _ => summarize(stage),
    }
}

/// Summaries that say something more specific than "run <binary>".
const KNOWN_SUMMARY_PREFIXES: &[&str] = &[
    "check git",
    "view git",
    "show git",
    "list git",
    "switch git",
    "create git",
    "pull git",
    "push git",
    "fetch git",
    "merge git",
    "rebase git",
    "stage git",
    "restore git",
    "reset git",
    "stash git",
    "search ",
    "find files",
    "list files",
    "show first",
    "show last",
    "print line",
    "print text",
    "copy ",
    "move ",
    "remove ",
    "create folder",
    "create file",
    "fetch http",
    "install dependencies",
    "run tests",
    "run build",
    "start app",
    "run lint",
    "run openclaw",
    "run node script",
    "run node ",
    "run python",
    "run ruby",
    "run php",
    "run sed",
    "run git ",
    "run npm ",
    "run pnpm ",
    "run yarn ",
    "run bun ",
    "check js syntax",
];

fn is_generic_summary(summary: &str) -> bool {
    summary == "run command"
        || (summary.starts_with("run ")
            && !KNOWN_SUMMARY_PREFIXES
                .iter()
                .any(|p| summary.starts_with(p)))
}

/// The command on one line: whitespace runs that contain a newline or are longer than one
/// character become one space; at most 120 UTF-16 units (119 and `…` when longer).
fn compact_raw_command(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String| {
        if run.chars().count() >= 2 || run.contains('\n') {
            out.push(' ');
        } else {
            out.push_str(run);
        }
        run.clear();
    };
    for c in raw.chars() {
        if is_js_whitespace(c) {
            run.push(c);
        } else {
            if !run.is_empty() {
                flush(&mut run, &mut out);
            }
            out.push(c);
        }
    }
    if !run.is_empty() {
        flush(&mut run, &mut out);
    }
    let one_line = js_trim(&out);
    if utf16_len(one_line) <= 120 {
        one_line.to_owned()
    } else {
        truncate_with_ellipsis(one_line, 119)
    }
}

// ---- shell words -------------------------------------------------------------------------

/// Trims, and drops one pair of matching outer `"` or `'` quotes (trimming again inside).
fn strip_outer_quotes(value: &str) -> &str {
    let trimmed = js_trim(value);
    let quoted = trimmed.len() >= 2
        && ((trimmed.starts_with('"') && trimmed.ends_with('"'))
            || (trimmed.starts_with('\'') && trimmed.ends_with('\'')));
    if quoted {
        js_trim(&trimmed[1..trimmed.len() - 1])
    } else {
        trimmed
    }
}

/// Shell-like words: whitespace separates outside quotes, quotes group, `\` escapes. At most
/// `max_words` words.
fn split_shell_words(input: &str, max_words: usize) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in input.chars() {
        if escaped {
            current.push(c);
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if let Some(q) = quote {
            if c == q {
                quote = None;
            } else {
                current.push(c);
            }
        } else if c == '"' || c == '\'' {
            quote = Some(c);
        } else if is_js_whitespace(c) {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
                if words.len() >= max_words {
                    return words;
                }
            }
        } else {
            current.push(c);
        }
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// The lowercased file name of a command word (`/usr/bin/Git` → `git`).
fn binary_name(token: Option<&str>) -> Option<String> {
    let token = token.filter(|t| !t.is_empty())?;
    let cleaned = strip_outer_quotes(token);
    let last = cleaned.rsplit('/').next().unwrap_or(cleaned);
    Some(js_trim(last).to_lowercase())
}

/// The value of the first option in `names` (`-n 5` or `--lines=5`); a following word that
/// starts with `-` is not a value.
fn option_value<'a>(words: &'a [String], names: &[&str]) -> Option<&'a str> {
    for (i, token) in words.iter().enumerate() {
        if token.is_empty() {
            continue;
        }
        if names.contains(&token.as_str()) {
            match words.get(i + 1) {
                Some(value) if !value.is_empty() && !value.starts_with('-') => {
                    return Some(value);
                }
                _ => continue,
            }
        }
        for name in names {
            if name.starts_with("--")
                && let Some(rest) = token.strip_prefix(name)
                && let Some(value) = rest.strip_prefix('=')
            {
                return Some(value);
            }
        }
    }
    None
}

/// The words from `from` on that are not options or option values; everything after `--`.
fn positional_args<'a>(words: &'a [String], from: usize, with_value: &[&str]) -> Vec<&'a str> {
    let mut args = Vec::new();
    let mut i = from;
    while i < words.len() {
        let token = words[i].as_str();
        if token == "--" {
            args.extend(
                words[i + 1..]
                    .iter()
                    .map(String::as_str)
                    .filter(|w| !w.is_empty()),
            );
            break;
        }
        if token.starts_with("--") {
            if !token.contains('=') && with_value.contains(&token) {
                i += 1;
            }
        } else if token.starts_with('-') {
            if with_value.contains(&token) {
                i += 1;
            }
        } else if !token.is_empty() {
            args.push(token);
        }
        i += 1;
    }
    args
}

fn first_positional<'a>(words: &'a [String], from: usize, with_value: &[&str]) -> Option<&'a str> {
    positional_args(words, from, with_value).first().copied()
}

/// `NAME=value` (a leading environment assignment).
fn is_env_assignment(token: &str) -> bool {
    let Some((name, _)) = token.split_once('=') else {
        return false;
    };
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Drops `env [-opts] [NAME=value…]` or leading `NAME=value` assignments.
fn trim_leading_env(words: Vec<String>) -> Vec<String> {
    let mut index = 0;
    if binary_name(words.first().map(String::as_str)).as_deref() == Some("env") {
        index = 1;
        while let Some(token) = words.get(index).filter(|t| !t.is_empty()) {
            if token.starts_with('-') || is_env_assignment(token) {
                index += 1;
            } else {
                break;
            }
        }
    } else {
        while words.get(index).is_some_and(|t| is_env_assignment(t)) {
            index += 1;
        }
    }
    words.into_iter().skip(index).collect()
}

/// `bash -lc "<script>"` (also `sh`, `zsh`, `fish`; `-c`, `-ic`) → `<script>`.
fn unwrap_shell_wrapper(command: &str) -> String {
    let words = split_shell_words(command, 10);
    if words.len() < 3 {
        return command.to_owned();
    }
    let is_shell = matches!(
        binary_name(Some(&words[0])).as_deref(),
        Some("bash" | "sh" | "zsh" | "fish")
    );
    if !is_shell {
        return command.to_owned();
    }
    let Some(flag_index) = words
        .iter()
        .skip(1)
        .position(|t| matches!(t.as_str(), "-c" | "-lc" | "-ic"))
        .map(|p| p + 1)
    else {
        return command.to_owned();
    };
    let inner = words[flag_index + 1..].join(" ");
    let inner = js_trim(&inner);
    if inner.is_empty() {
        command.to_owned()
    } else {
        strip_outer_quotes(inner).to_owned()
    }
}

/// Visits the characters outside quotes and escapes with their byte offsets until `visit`
/// returns `false`.
fn scan_top_level_chars(command: &str, mut visit: impl FnMut(char, usize) -> bool) {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in command.char_indices() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if let Some(q) = quote {
            if c == q {
                quote = None;
            }
        } else if c == '"' || c == '\'' {
            quote = Some(c);
        } else if !visit(c, i) {
            return;
        }
    }
}

/// The byte after offset `i` (all separators are ASCII, so a byte compare is exact).
fn byte_at(s: &str, i: usize) -> Option<u8> {
    s.as_bytes().get(i).copied()
}

/// Top-level stages split at `;`, `&&` and `||`, trimmed, empty ones dropped.
fn split_top_level_stages(command: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut start = 0;
    // A run like `&&&` yields an empty (reversed) slice, as JS `slice` does.
    let slice = |start: usize, end: usize| command.get(start..end).unwrap_or("");
    scan_top_level_chars(command, |c, i| {
        if c == ';' {
            parts.push(slice(start, i));
            start = i + 1;
        } else if (c == '&' || c == '|') && byte_at(command, i + 1) == Some(c as u8) {
            parts.push(slice(start, i));
            start = i + 2;
        }
        true
    });
    parts.push(command.get(start..).unwrap_or(""));
    trimmed_non_empty(parts)
}

/// Pipeline parts split at single `|`, trimmed, empty ones dropped.
fn split_top_level_pipes(command: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut start = 0;
    scan_top_level_chars(command, |c, i| {
        let prev_pipe = i > 0 && byte_at(command, i - 1) == Some(b'|');
        if c == '|' && !prev_pipe && byte_at(command, i + 1) != Some(b'|') {
            parts.push(command.get(start..i).unwrap_or(""));
            start = i + 1;
        }
        true
    });
    parts.push(command.get(start..).unwrap_or(""));
    trimmed_non_empty(parts)
}

/// The shared tail of the splitters: JS-trim every part and drop the empty ones.
fn trimmed_non_empty(parts: Vec<&str>) -> Vec<String> {
    parts
        .into_iter()
        .map(js_trim)
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect()
}

fn first_word_binary(head: &str, max_words: usize) -> Option<String> {
    binary_name(
        split_shell_words(head, max_words)
            .first()
            .map(String::as_str),
    )
}

fn is_chdir_command(head: &str) -> bool {
    matches!(
        first_word_binary(head, 2).as_deref(),
        Some("cd" | "pushd" | "popd")
    )
}

/// The directory of `cd <dir>` / `pushd <dir>`.
fn parse_chdir_target(head: &str) -> Option<String> {
    let words = split_shell_words(head, 3);
    match binary_name(words.first().map(String::as_str)).as_deref() {
        Some("cd" | "pushd") => words.get(1).filter(|w| !w.is_empty()).cloned(),
        _ => None,
    }
}

struct Separator {
    index: usize,
    len: usize,
    is_or: bool,
}

/// Drops up to four leading `set …`, `export …`, `unset …` and `cd`/`pushd`/`popd` commands,
/// remembering the directory changed to.
fn strip_shell_preamble(command: &str) -> (String, Option<String>) {
    let mut rest = js_trim(command).to_owned();
    let mut chdir_path: Option<String> = None;
    for i in 0..4 {
        let mut first: Option<Separator> = None;
        scan_top_level_chars(&rest, |c, idx| {
            let next = byte_at(&rest, idx + 1);
            let (len, is_or) = match c {
                '&' if next == Some(b'&') => (2, false),
                '|' if next == Some(b'|') => (2, true),
                ';' | '\n' => (1, false),
                _ => return true,
            };
            first = Some(Separator {
                index: idx,
                len,
                is_or,
            });
            false
        });
        let head = js_trim(first.as_ref().map_or(rest.as_str(), |f| &rest[..f.index]));
        let chdir_allowed = first.as_ref().map_or(i > 0, |f| !f.is_or);
        let is_chdir = chdir_allowed && is_chdir_command(head);
        let is_preamble = head.starts_with("set ")
            || head.starts_with("export ")
            || head.starts_with("unset ")
            || is_chdir;
        if !is_preamble {
            break;
        }
        if is_chdir {
            if first_word_binary(head, 2).as_deref() == Some("popd") {
                chdir_path = None;
            } else if let Some(target) = parse_chdir_target(head) {
                chdir_path = Some(target);
            }
        }
        rest = match &first {
            Some(f) => js_trim_start(&rest[f.index + f.len..]).to_owned(),
            None => String::new(),
        };
        if rest.is_empty() {
            break;
        }
    }
    (js_trim(&rest).to_owned(), chdir_path)
}

// ---- known commands ----------------------------------------------------------------------

fn git_summary(words: &[String]) -> String {
    const GLOBAL_WITH_VALUE: &[&str] = &[
        "-C",
        "-c",
        "--git-dir",
        "--work-tree",
        "--namespace",
        "--config-env",
    ];
    let git_cwd = option_value(words, &["-C"]);
    let mut sub: Option<&str> = None;
    let mut i = 1;
    while i < words.len() {
        let token = words[i].as_str();
        if token.is_empty() {
            i += 1;
            continue;
        }
        if token == "--" {
            sub = first_positional(words, i + 1, &[]);
            break;
        }
        if token.starts_with("--") {
            if !token.contains('=') && GLOBAL_WITH_VALUE.contains(&token) {
                i += 1;
            }
        } else if token.starts_with('-') {
            if GLOBAL_WITH_VALUE.contains(&token) {
                i += 1;
            }
        } else {
            sub = Some(token);
            break;
        }
        i += 1;
    }
    let known = match sub {
        Some("status") => Some("check git status"),
        Some("diff") => Some("check git diff"),
        Some("log") => Some("view git history"),
        Some("show") => Some("show git object"),
        Some("branch") => Some("list git branches"),
        Some("checkout" | "switch") => Some("switch git branch"),
        Some("commit") => Some("create git commit"),
        Some("pull") => Some("pull git changes"),
        Some("push") => Some("push git changes"),
        Some("fetch") => Some("fetch git changes"),
        Some("merge") => Some("merge git changes"),
        Some("rebase") => Some("rebase git branch"),
        Some("add") => Some("stage git changes"),
        Some("restore") => Some("restore git files"),
        Some("reset") => Some("reset git state"),
        Some("stash") => Some("stash git changes"),
        _ => None,
    };
    if let Some(known) = known {
        return known.to_owned();
    }
    match sub {
        Some(sub) if !(sub.starts_with('/') || sub.starts_with('~') || sub.contains('/')) => {
            format!("run git {sub}")
        }
        _ => match git_cwd.filter(|c| !c.is_empty()) {
            Some(cwd) => format!("run git command in {cwd}"),
            None => "run git command".to_owned(),
        },
    }
}

fn grep_summary(words: &[String]) -> String {
    let positional = positional_args(
        words,
        1,
        &[
            "-e",
            "--regexp",
            "-f",
            "--file",
            "-m",
            "--max-count",
            "-A",
            "--after-context",
            "-B",
            "--before-context",
            "-C",
            "--context",
        ],
    );
    let pattern = option_value(words, &["-e", "--regexp"]).or_else(|| positional.first().copied());
    let target = if positional.len() > 1 {
        positional.last().copied()
    } else {
        None
    };
    match (pattern.filter(|p| !p.is_empty()), target) {
        (Some(p), Some(t)) => format!("search \"{p}\" in {t}"),
        (Some(p), None) => format!("search \"{p}\""),
        (None, _) => "search text".to_owned(),
    }
}

fn head_tail_summary(bin: &str, words: &[String]) -> String {
    let lines = option_value(words, &["-n", "--lines"]).or_else(|| {
        words[1..]
            .iter()
            .find(|t| {
                t.strip_prefix('-')
                    .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
            })
            .map(|t| &t[1..])
    });
    let positional = positional_args(words, 1, &["-n", "--lines"]);
    let mut target = positional.last().copied();
    if target.is_some_and(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
        && positional.len() == 1
    {
        target = None;
    }
    let side = if bin == "head" { "first" } else { "last" };
    let lines = lines.filter(|l| !l.is_empty());
    let unit = if lines == Some("1") { "line" } else { "lines" };
    match (lines, target.filter(|t| !t.is_empty())) {
        (Some(n), Some(t)) => format!("show {side} {n} {unit} of {t}"),
        (Some(n), None) => format!("show {side} {n} {unit}"),
        (None, Some(t)) => format!("show {t}"),
        (None, None) => format!("show {bin} output"),
    }
}

/// `N,Mp` → `(N, M)` and `Np` → `(N, N)`-style sed print scripts.
fn sed_print_range(compact: &str) -> Option<(&str, Option<&str>)> {
    let body = compact.strip_suffix('p')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    match body.split_once(',') {
        Some((a, b)) if digits(a) && digits(b) => Some((a, Some(b))),
        None if digits(body) => Some((body, None)),
        _ => None,
    }
}

fn sed_summary(words: &[String]) -> String {
    let expression = option_value(words, &["-e", "--expression"]);
    let positional = positional_args(words, 1, &["-e", "--expression", "-f", "--file"]);
    let script = expression.or_else(|| positional.first().copied());
    // An empty `--expression=` still counts as the script but not for picking the target.
    let target = if expression.is_some_and(|e| !e.is_empty()) {
        positional.first().copied()
    } else {
        positional.get(1).copied()
    }
    .filter(|t| !t.is_empty());
    if let Some(script) = script.filter(|s| !s.is_empty()) {
        let compact: String = strip_outer_quotes(script)
            .chars()
            .filter(|c| !is_js_whitespace(*c))
            .collect();
        match (sed_print_range(&compact), target) {
            (Some((a, Some(b))), Some(t)) => return format!("print lines {a}-{b} from {t}"),
            (Some((a, Some(b))), None) => return format!("print lines {a}-{b}"),
            (Some((a, None)), Some(t)) => return format!("print line {a} from {t}"),
            (Some((a, None)), None) => return format!("print line {a}"),
            (None, _) => {}
        }
    }
    match target {
        Some(t) => format!("run sed on {t}"),
        None => "run sed transform".to_owned(),
    }
}

fn package_manager_summary(bin: &str, words: &[String]) -> String {
    let positional = positional_args(words, 1, &["--prefix", "-C", "--cwd", "--config"]);
    let sub = positional.first().copied().unwrap_or("command");
    match sub {
        "install" => "install dependencies".to_owned(),
        "test" => "run tests".to_owned(),
        "build" => "run build".to_owned(),
        "start" => "start app".to_owned(),
        "lint" => "run lint".to_owned(),
        "run" => match positional.get(1).filter(|s| !s.is_empty()) {
            Some(script) => format!("run {script}"),
            None => "run script".to_owned(),
        },
        _ => format!("run {bin} {sub}"),
    }
}

fn interpreter_summary(bin: &str, words: &[String]) -> String {
    if words[1..].iter().any(|t| t.starts_with("<<")) {
        return format!("run {bin} inline script (heredoc)");
    }
    let inline = match bin {
        "node" => option_value(words, &["-e", "--eval"]),
        "python" | "python3" => option_value(words, &["-c"]),
        _ => None,
    };
    if inline.is_some() {
        return format!("run {bin} inline script");
    }
    let with_value: &[&str] = if bin == "node" {
        &["-e", "--eval", "-m"]
    } else {
        &["-c", "-e", "--eval", "-m"]
    };
    let Some(script) = first_positional(words, 1, with_value) else {
        return format!("run {bin}");
    };
    if bin == "node" {
        let check = words.iter().any(|w| w == "--check" || w == "-c");
        let what = if check {
            "check js syntax for"
        } else {
            "run node script"
        };
        return format!("{what} {script}");
    }
    format!("run {bin} {script}")
}

/// What one command (already split into words) does.
fn summarize_known_exec(words: &[String]) -> String {
    let Some(bin) = binary_name(words.first().map(String::as_str)) else {
        return "run command".to_owned();
    };
    let first_arg = || first_positional(words, 1, &[]).filter(|t| !t.is_empty());
    match bin.as_str() {
        "git" => git_summary(words),
        "grep" | "rg" | "ripgrep" => grep_summary(words),
        "find" => {
            let path = words
                .get(1)
                .filter(|w| !w.is_empty() && !w.starts_with('-'))
                .map_or(".", String::as_str);
            match option_value(words, &["-name", "-iname"]).filter(|n| !n.is_empty()) {
                Some(name) => format!("find files named \"{name}\" in {path}"),
                None => format!("find files in {path}"),
            }
        }
        "ls" => {
            first_arg().map_or_else(|| "list files".to_owned(), |t| format!("list files in {t}"))
        }
        "head" | "tail" => head_tail_summary(&bin, words),
        "cat" => first_arg().map_or_else(|| "show output".to_owned(), |t| format!("show {t}")),
        "sed" => sed_summary(words),
        "printf" | "echo" => "print text".to_owned(),
        "cp" | "mv" => {
            let positional =
                positional_args(words, 1, &["-t", "--target-directory", "-S", "--suffix"]);
            let action = if bin == "cp" { "copy" } else { "move" };
            match (positional.first(), positional.get(1)) {
                (Some(src), Some(dst)) => format!("{action} {src} to {dst}"),
                (Some(src), None) => format!("{action} {src}"),
                _ => format!("{action} files"),
            }
        }
        "rm" => first_arg().map_or_else(|| "remove files".to_owned(), |t| format!("remove {t}")),
        "mkdir" => first_arg().map_or_else(
            || "create folder".to_owned(),
            |t| format!("create folder {t}"),
        ),
        "touch" => {
            first_arg().map_or_else(|| "create file".to_owned(), |t| format!("create file {t}"))
        }
        "curl" | "wget" => {
            let url = words.iter().find(|t| {
                let lower = t.get(..8).unwrap_or(t).to_ascii_lowercase();
                lower.starts_with("http://") || lower.starts_with("https://")
            });
            url.map_or_else(|| "fetch url".to_owned(), |u| format!("fetch {u}"))
        }
        "npm" | "pnpm" | "yarn" | "bun" => package_manager_summary(&bin, words),
        "node" | "python" | "python3" | "ruby" | "php" => interpreter_summary(&bin, words),
        "openclaw" => first_arg().map_or_else(
            || "run openclaw".to_owned(),
            |s| format!("run openclaw {s}"),
        ),
        _ => match first_arg() {
            Some(arg)
                if utf16_len(arg) <= 48
                    && arg
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"._/-".contains(&b)) =>
            {
                format!("run {bin} {arg}")
            }
            _ => format!("run {bin}"),
        },
    }
}
