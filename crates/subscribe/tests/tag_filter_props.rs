//! Property tests for the tag filter: the streamed output equals a direct, one-shot port of
//! OpenClaw's `stripBlockTags` (regexes plus `buildCodeSpanIndex`), however the text is split.

// Test helpers outside `#[test]` fns: a panic is how a broken vector or fixture is reported.
#![allow(clippy::unwrap_used)]

use clawloop_subscribe::{TagFilter, TagFilterOptions};
use proptest::prelude::*;
use regex::Regex;
use std::sync::LazyLock;

/// JS `\s`, spelled out because Rust's `\s` is Unicode `White_Space` (it differs at U+0085 and
/// U+FEFF).
const JS_SPACE: &str = r"[\t\n\x0B\x0C\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}]";

fn ci(word: &str) -> String {
    word.chars()
        .map(|c| format!("[{}{}]", c.to_ascii_lowercase(), c.to_ascii_uppercase()))
        .collect()
}

static THINKING_RE: LazyLock<Regex> = LazyLock::new(thinking_re);
static FINAL_RE: LazyLock<Regex> = LazyLock::new(final_re);
static FENCE_LINE_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^( {0,3})(`{3,}|~{3,})([^\n\r\x{2028}\x{2029}]*)$").unwrap());

fn thinking_re() -> Regex {
    let names = format!(
        "(?:{}(?:{})?|{}|{})",
        ci("think"),
        ci("ing"),
        ci("thought"),
        ci("antthinking")
    );
    Regex::new(&format!("<{JS_SPACE}*(/?){JS_SPACE}*{names}{JS_SPACE}*>")).unwrap()
}

fn final_re() -> Regex {
    Regex::new(&format!(
        "<{JS_SPACE}*(/?){JS_SPACE}*{}{JS_SPACE}*>",
        ci("final")
    ))
    .unwrap()
}

/// Byte ranges of code: fences (per-line regex with JS `.`) plus inline backtick spans.
fn code_spans(text: &str) -> Vec<(usize, usize)> {
    let fence_line = &*FENCE_LINE_RE;
    let mut fences: Vec<(usize, usize)> = Vec::new();
    let mut open: Option<(usize, char, usize)> = None;
    let mut offset = 0;
    loop {
        let line_end = text[offset..].find('\n').map_or(text.len(), |p| offset + p);
        let line = &text[offset..line_end];
        if let Some(caps) = fence_line.captures(line) {
            let marker = caps.get(2).unwrap().as_str();
            let ch = marker.chars().next().unwrap();
            let len = marker.len();
            match open {
                None => open = Some((offset, ch, len)),
                Some((start, och, olen)) if och == ch && len >= olen => {
                    fences.push((start, line_end));
                    open = None;
                }
                Some(_) => {}
            }
        }
        if line_end >= text.len() {
            break;
        }
        offset = line_end + 1;
    }
    if let Some((start, _, _)) = open {
        fences.push((start, text.len()));
    }

    let bytes = text.as_bytes();
    let mut spans = fences.clone();
    let (mut inline_open, mut ticks, mut open_start) = (false, 0usize, 0usize);
    let mut i = 0;
    while i < bytes.len() {
        if let Some(&(_, end)) = fences.iter().find(|&&(s, e)| i >= s && i < e) {
            i = end;
            continue;
        }
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let run_start = i;
        while i < bytes.len() && bytes[i] == b'`' {
            i += 1;
        }
        let run = i - run_start;
        if !inline_open {
            inline_open = true;
            ticks = run;
            open_start = run_start;
        } else if run == ticks {
            spans.push((open_start, i));
            inline_open = false;
        }
    }
    if inline_open {
        spans.push((open_start, text.len()));
    }
    spans
}

fn inside(spans: &[(usize, usize)], index: usize) -> bool {
    spans.iter().any(|&(s, e)| index >= s && index < e)
}

fn strip_outside_code(text: &str, re: &Regex) -> String {
    let spans = code_spans(text);
    let mut out = String::new();
    let mut last = 0;
    for m in re.find_iter(text) {
        if inside(&spans, m.start()) {
            continue;
        }
        out.push_str(&text[last..m.start()]);
        last = m.end();
    }
    out.push_str(&text[last..]);
    out
}

/// OpenClaw `stripBlockTags(text, fresh state)`.
fn oracle(text: &str, enforce: bool) -> String {
    let think = &*THINKING_RE;
    let fin = &*FINAL_RE;
    let spans = code_spans(text);
    let mut processed = String::new();
    let mut last = 0;
    let mut in_thinking = false;
    for caps in think.captures_iter(text) {
        let m = caps.get(0).unwrap();
        if inside(&spans, m.start()) {
            continue;
        }
        if !in_thinking {
            processed.push_str(&text[last..m.start()]);
        }
        in_thinking = caps.get(1).unwrap().as_str() != "/";
        last = m.end();
    }
    if !in_thinking {
        processed.push_str(&text[last..]);
    }
    if !enforce {
        return strip_outside_code(&processed, fin);
    }
    let spans = code_spans(&processed);
    let mut result = String::new();
    let mut last = 0;
    let mut in_final = false;
    let mut ever = false;
    for caps in fin.captures_iter(&processed) {
        let m = caps.get(0).unwrap();
        if inside(&spans, m.start()) {
            continue;
        }
        let close = caps.get(1).unwrap().as_str() == "/";
        if !in_final && !close {
            in_final = true;
            ever = true;
            last = m.end();
        } else if in_final && close {
            result.push_str(&processed[last..m.start()]);
            in_final = false;
            last = m.end();
        }
    }
    if in_final {
        result.push_str(&processed[last..]);
    }
    if !ever {
        return String::new();
    }
    strip_outside_code(&result, fin)
}

fn streamed(pieces: &[String], enforce: bool) -> String {
    let mut filter = TagFilter::new(TagFilterOptions {
        enforce_final_tag: enforce,
    });
    let mut out = String::new();
    for piece in pieces {
        out.push_str(&filter.push(piece));
    }
    out.push_str(&filter.finish());
    out
}

fn token() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "<think>",
        "</think>",
        "<thinking>",
        "</thinking>",
        "< Thought >",
        "</ ANTTHINKING>",
        "<thi",
        "nk>",
        "</",
        "<final>",
        "</final>",
        "<FINAL >",
        "fin",
        "al>",
        "<",
        ">",
        "/",
        "`",
        "``",
        "```",
        "~~~",
        "````",
        "\n",
        "\n",
        "\n",
        " ",
        "   ",
        "\t",
        "\r",
        "a",
        "text",
        "é",
        "🎉",
        "日本",
        "\u{FEFF}",
        "\u{2028}",
    ])
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(token(), 0..40).prop_map(|tokens| tokens.concat())
}

fn split(text: &str, cuts: &[usize]) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut points: Vec<usize> = cuts.iter().map(|c| c % (chars.len() + 1)).collect();
    points.push(0);
    points.push(chars.len());
    points.sort_unstable();
    points.dedup();
    points
        .windows(2)
        .map(|w| chars[w[0]..w[1]].iter().collect())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, .. ProptestConfig::default() })]

    #[test]
    fn any_split_matches_the_one_shot_reference(
        text in text(),
        cuts in prop::collection::vec(any::<usize>(), 0..10),
        enforce in any::<bool>(),
    ) {
        let expected = oracle(&text, enforce);
        let pieces = split(&text, &cuts);
        prop_assert_eq!(&streamed(&pieces, enforce), &expected, "pieces {:?}", pieces);
        let chars: Vec<String> = text.chars().map(String::from).collect();
        prop_assert_eq!(&streamed(&chars, enforce), &expected);
        prop_assert_eq!(&streamed(std::slice::from_ref(&text), enforce), &expected);
    }

    #[test]
    fn output_is_monotonic_and_never_shows_a_tag_prefix_early(
        text in text(),
        cuts in prop::collection::vec(any::<usize>(), 0..10),
    ) {
        // Every intermediate output is a prefix of the final output (nothing is retracted).
        let pieces = split(&text, &cuts);
        let mut filter = TagFilter::new(TagFilterOptions::default());
        let mut so_far = String::new();
        let full = oracle(&text, false);
        for piece in &pieces {
            so_far.push_str(&filter.push(piece));
            prop_assert!(full.starts_with(&so_far), "{so_far:?} is not a prefix of {full:?}");
        }
        so_far.push_str(&filter.finish());
        prop_assert_eq!(so_far, full);
    }
}
