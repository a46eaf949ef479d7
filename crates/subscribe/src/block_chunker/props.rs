//! Property tests for the block chunker over random markdown-ish streams.

use proptest::prelude::*;

use super::{BlockChunker, BreakPreference, ChunkingOptions, Emitted};
use crate::fences::parse_fence_spans;
use clawloop_core::js_text::is_js_whitespace;

/// A word, sometimes multi-byte, sometimes ending a sentence.
fn word() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec![
            "a",
            "lorem",
            "ipsum",
            "é",
            "naïve",
            "🎉",
            "日本語",
            "x1",
            "<think>",
            "`code`",
        ]),
        prop::sample::select(vec!["", "", "", ".", "!", "?", ","]),
    )
        .prop_map(|(w, p)| format!("{w}{p}"))
}

fn line() -> impl Strategy<Value = String> {
    prop::collection::vec(word(), 1..8).prop_map(|words| words.join(" "))
}

fn paragraph() -> impl Strategy<Value = String> {
    prop::collection::vec(line(), 1..4).prop_map(|lines| lines.join("\n"))
}

/// A closed, non-empty fenced block (its first content line always has text).
fn fence() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec![("", "```"), ("", "~~~"), ("  ", "````"), ("", "```")]),
        prop::sample::select(vec!["", "py", "txt", "rust"]),
        line(),
        prop::collection::vec(prop_oneof![line(), Just(String::new())], 0..5),
        0usize..2,
    )
        .prop_map(|((indent, marker), info, first, lines, extra)| {
            let close = format!("{marker}{}", &marker[..extra.min(1)]);
            let mut body = first;
            for line in lines {
                body.push('\n');
                body.push_str(&line);
            }
            format!("{indent}{marker}{info}\n{body}\n{close}")
        })
}

fn document() -> impl Strategy<Value = String> {
    prop::collection::vec(
        (
            prop_oneof![3 => paragraph(), 1 => fence()],
            prop::sample::select(vec!["\n\n", "\n", "\n \n", "\n\n\n", " "]),
        ),
        1..8,
    )
    .prop_map(|blocks| {
        let mut text = String::new();
        let mut after_fence = false;
        for (block, sep) in blocks {
            let is_fence = block.trim_start().starts_with(['`', '~']);
            if !text.is_empty() {
                // A fence opens only at a line start, and text after a closing marker would
                // make a (legal but odd) closing line longer than the window; keep both on
                // their own lines.
                let needs_newline = (is_fence || after_fence) && !sep.contains('\n');
                text.push_str(if needs_newline { "\n" } else { sep });
            }
            text.push_str(&block);
            after_fence = is_fence;
        }
        text
    })
}

fn options() -> impl Strategy<Value = ChunkingOptions> {
    (
        1usize..60,
        0usize..120,
        prop::sample::select(vec![
            BreakPreference::Paragraph,
            BreakPreference::Newline,
            BreakPreference::Sentence,
        ]),
        any::<bool>(),
    )
        .prop_map(|(min, extra, pref, flush)| ChunkingOptions {
            min_chars: min,
            // Below the longest open line plus a newline no cut can keep a fence's content.
            max_chars: (min + extra).max(12),
            break_preference: pref,
            flush_on_paragraph: flush,
        })
}

/// Splits `text` at the given fractions (by chars) into pushes.
fn split(text: &str, cuts: &[f64]) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut points: Vec<usize> = cuts
        .iter()
        .map(|f| ((chars.len() as f64) * f) as usize)
        .collect();
    points.push(0);
    points.push(chars.len());
    points.sort_unstable();
    points.dedup();
    points
        .windows(2)
        .map(|w| chars[w[0]..w[1]].iter().collect())
        .collect()
}

fn run(options: ChunkingOptions, pushes: &[String], drain_each_push: bool) -> Vec<Emitted> {
    let mut chunker = BlockChunker::new(options);
    let mut out = Vec::new();
    for push in pushes {
        chunker.push(push);
        if drain_each_push {
            chunker.drain_detailed(false, |c| out.push(c));
        }
    }
    chunker.drain_detailed(true, |c| out.push(c));
    assert_eq!(chunker.buffer(), "", "a forced drain empties the buffer");
    out
}

/// [`run`] with a drain after every push, with or without the shortcuts that let a drain
/// return early: the fence stall (an open fence holds every break candidate) and the searched
/// prefix (the text before it has no break, see `BlockChunker::searched_to`).
fn run_draining(options: ChunkingOptions, pushes: &[String], shortcut: bool) -> Vec<Emitted> {
    let mut chunker = BlockChunker::new(options);
    let mut out = Vec::new();
    for push in pushes {
        chunker.push(push);
        if !shortcut {
            chunker.fence_stall = None;
            chunker.searched_to = None;
        }
        chunker.drain_detailed(false, |c| out.push(c));
    }
    chunker.drain_detailed(true, |c| out.push(c));
    out
}

/// The pushed text minus the chunker's synthetic fence lines.
fn pieces(chunks: &[Emitted]) -> String {
    chunks
        .iter()
        .map(|c| {
            let chars: Vec<char> = c.text.chars().collect();
            chars[c.synthetic_prefix..chars.len() - c.synthetic_suffix]
                .iter()
                .collect::<String>()
        })
        .collect()
}

/// `true` when `got` is `input` with only whitespace characters removed.
fn is_input_minus_whitespace(input: &str, got: &str) -> bool {
    let mut got = got.chars().peekable();
    for c in input.chars() {
        if got.peek() == Some(&c) {
            got.next();
        } else if !is_js_whitespace(c) {
            return false;
        }
    }
    got.next().is_none()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    #[test]
    fn chunks_keep_fences_balanced_and_lose_only_whitespace(
        text in document(),
        options in options(),
        cuts in prop::collection::vec(0.0f64..1.0, 0..12),
        drain_each_push in any::<bool>(),
    ) {
        let pushes = split(&text, &cuts);
        let chunks = run(options, &pushes, drain_each_push);
        for chunk in &chunks {
            let spans = parse_fence_spans(&chunk.text);
            prop_assert!(
                spans.iter().all(|s| s.is_closed()),
                "unbalanced fence in chunk {:?}", chunk.text
            );
            for span in &spans {
                let content_start = span.start + span.open_line.chars().count() + 1;
                prop_assert!(
                    span.close_line_start != Some(content_start),
                    "empty code block in chunk {:?}", chunk.text
                );
            }
            prop_assert!(!chunk.text.is_empty());
        }
        let rebuilt = pieces(&chunks);
        prop_assert!(
            is_input_minus_whitespace(&text, &rebuilt),
            "rebuilt {rebuilt:?}\nfrom {text:?}"
        );
    }

    /// The fence-stall shortcut only skips drains that would emit nothing: the chunks are the
    /// same with and without it, including fences closed by a line split across pushes.
    #[test]
    fn fence_stall_shortcut_changes_nothing(
        text in document(),
        options in options(),
        cuts in prop::collection::vec(0.0f64..1.0, 0..60),
    ) {
        let pushes = split(&text, &cuts);
        prop_assert_eq!(
            run_draining(options, &pushes, true),
            run_draining(options, &pushes, false)
        );
    }

    /// The searched-prefix shortcut only skips drains that would emit nothing, also with long
    /// runs without a break, sentence ends inside words, partial fence lines and a
    /// `max_chars` far beyond the text.
    #[test]
    fn searched_prefix_shortcut_changes_nothing(
        text in prop::collection::vec(
            prop_oneof![
                3 => word(),
                1 => (1usize..80).prop_map(|n| "y".repeat(n)),
                1 => prop::sample::select(vec!["a.b", "x!y", "end.", "?", "\u{a0}", "\u{2028}", "\t", "\r"])
                    .prop_map(str::to_owned),
                1 => prop::sample::select(vec!["\n", "\n\n", " ", "\n```\n", "\n~~~", "``", "\n \t\n"])
                    .prop_map(str::to_owned),
            ],
            1..40,
        )
        .prop_map(|parts| parts.concat()),
        options in options(),
        huge_max in any::<bool>(),
        cuts in prop::collection::vec(0.0f64..1.0, 0..80),
    ) {
        let options = ChunkingOptions {
            max_chars: if huge_max { 100_000 } else { options.max_chars },
            ..options
        };
        let pushes = split(&text, &cuts);
        prop_assert_eq!(
            run_draining(options, &pushes, true),
            run_draining(options, &pushes, false)
        );
    }

    #[test]
    fn fence_free_chunks_respect_max(
        text in prop::collection::vec((paragraph(), prop::sample::select(vec!["\n\n", "\n", " "])), 1..8)
            .prop_map(|v| v.into_iter().map(|(p, s)| p + s).collect::<String>()),
        options in options(),
        cuts in prop::collection::vec(0.0f64..1.0, 0..12),
        drain_each_push in any::<bool>(),
    ) {
        let pushes = split(&text, &cuts);
        let chunks = run(options, &pushes, drain_each_push);
        let max = options.max_chars.max(options.min_chars.max(1));
        for chunk in &chunks {
            prop_assert!(chunk.text.chars().count() <= max, "{:?} > {max}", chunk.text);
        }
        prop_assert!(is_input_minus_whitespace(&text, &pieces(&chunks)));
    }
}

/// Found by the property above: the view of the second chunk began inside the indentation of a
/// fence's open line (the one whitespace char skipped after a break), so the guard against an
/// empty code block did not see the fence open there and cut right after the open line.
#[test]
fn a_fence_whose_indentation_starts_the_view_never_becomes_an_empty_block() {
    let text = "```\na\n```\n  ````\nlorem lorem a. <think> <think>.\n\n````";
    let options = ChunkingOptions {
        min_chars: 1,
        max_chars: 12,
        break_preference: BreakPreference::Sentence,
        flush_on_paragraph: false,
    };
    let pushes = split(text, &[0.638_765_269_509_046_2]);
    for shortcut in [true, false] {
        for chunk in run_draining(options, &pushes, shortcut) {
            for span in parse_fence_spans(&chunk.text) {
                let content_start = span.start + span.open_line.chars().count() + 1;
                assert_ne!(
                    span.close_line_start,
                    Some(content_start),
                    "empty code block in {:?}",
                    chunk.text
                );
            }
        }
    }
}
