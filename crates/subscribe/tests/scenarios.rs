//! Conformance vectors for the tag filter and the block chunker, transcribed from
//! `shared/conformance/scenarios/{tags,chunker}/*.json` and reference §18.5 / §19 / §24.
//!
//! The JSON files themselves are also run when the shared folder sits beside the repository
//! (as in CI), so a transcription slip or a newly added vector shows up here too.

// Test helpers outside `#[test]` fns: a panic is how a broken vector or fixture is reported.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use clawloop_subscribe::{
    BlockChunker, BreakPreference, ChunkingOptions, TagFilter, TagFilterOptions,
};

struct ChunkerCase {
    name: &'static str,
    min: usize,
    max: usize,
    pref: BreakPreference,
    flush: bool,
    pushes: &'static [&'static str],
    drain_each_push: bool,
    force_at_end: bool,
    chunks: &'static [&'static str],
    buffer: &'static str,
}

/// FORMAT.md `chunker`: push, non-forced drain after each push when asked, forced drain at the
/// end when asked.
fn run_chunker(
    options: ChunkingOptions,
    pushes: &[&str],
    drain_each_push: bool,
    force_at_end: bool,
) -> (Vec<String>, String) {
    let mut chunker = BlockChunker::new(options);
    let mut chunks = Vec::new();
    for push in pushes {
        chunker.push(push);
        if drain_each_push {
            chunker.drain(false, |c| chunks.push(c));
        }
    }
    if force_at_end {
        chunker.drain(true, |c| chunks.push(c));
    }
    (chunks, chunker.buffer().to_owned())
}

/// FORMAT.md `tags`: the chunks as given, the concatenation one char at a time and whole must
/// all give the same text.
fn run_tags(chunks: &[&str], enforce: bool) -> String {
    let options = TagFilterOptions {
        enforce_final_tag: enforce,
    };
    let feed = |pieces: &mut dyn Iterator<Item = String>| {
        let mut filter = TagFilter::new(options);
        let mut out = String::new();
        for piece in pieces {
            out.push_str(&filter.push(&piece));
        }
        out.push_str(&filter.finish());
        out
    };
    let whole: String = chunks.concat();
    let as_given = feed(&mut chunks.iter().map(|c| (*c).to_owned()));
    let by_char = feed(&mut whole.chars().map(String::from));
    let at_once = feed(&mut std::iter::once(whole.clone()));
    assert_eq!(as_given, at_once, "chunks vs whole for {chunks:?}");
    assert_eq!(
        by_char, at_once,
        "one char at a time vs whole for {chunks:?}"
    );
    at_once
}

const CHUNKER_CASES: &[ChunkerCase] = &[
    // shared/conformance/scenarios/chunker/chunker.json
    ChunkerCase {
        name: "paragraph_breaks_while_streaming",
        min: 10,
        max: 60,
        pref: BreakPreference::Paragraph,
        flush: false,
        pushes: &[
            "First paragraph",
            " here.\n\nSecond paragraph is",
            " here too.\n\nThird.",
        ],
        drain_each_push: true,
        force_at_end: false,
        chunks: &["First paragraph here.", "Second paragraph is here too."],
        buffer: "Third.",
    },
    ChunkerCase {
        name: "below_min_keeps_buffering",
        min: 50,
        max: 100,
        pref: BreakPreference::Paragraph,
        flush: false,
        pushes: &["Short ", "reply."],
        drain_each_push: true,
        force_at_end: false,
        chunks: &[],
        buffer: "Short reply.",
    },
    ChunkerCase {
        name: "force_at_end_flushes_tail",
        min: 50,
        max: 100,
        pref: BreakPreference::Paragraph,
        flush: false,
        pushes: &["Short ", "reply."],
        drain_each_push: true,
        force_at_end: true,
        chunks: &["Short reply."],
        buffer: "",
    },
    ChunkerCase {
        name: "newline_preference",
        min: 5,
        max: 20,
        pref: BreakPreference::Newline,
        flush: false,
        pushes: &["line one\nline two\nline three\nline four"],
        drain_each_push: true,
        force_at_end: false,
        chunks: &["line one\nline two", "line three"],
        buffer: "line four",
    },
    ChunkerCase {
        name: "sentence_preference",
        min: 5,
        max: 20,
        pref: BreakPreference::Sentence,
        flush: false,
        pushes: &["Hello there. How are you? I am fine! Thanks."],
        drain_each_push: true,
        force_at_end: false,
        chunks: &["Hello there.", "How are you?"],
        buffer: "I am fine! Thanks.",
    },
    ChunkerCase {
        name: "code_fence_not_split",
        min: 1,
        max: 40,
        pref: BreakPreference::Paragraph,
        flush: false,
        pushes: &["Intro\n```js\nconsole.log('x')\n```\n\nAfter first line\nAfter second line"],
        drain_each_push: true,
        force_at_end: false,
        chunks: &["Intro\n```js\nconsole.log('x')\n```"],
        buffer: "After first line\nAfter second line",
    },
    ChunkerCase {
        name: "flush_on_paragraph",
        min: 30,
        max: 200,
        pref: BreakPreference::Paragraph,
        flush: true,
        pushes: &["First paragraph.\n\nSecond paragraph.\n\nThird paragraph."],
        drain_each_push: true,
        force_at_end: false,
        chunks: &["First paragraph.\n\nSecond paragraph."],
        buffer: "Third paragraph.",
    },
    ChunkerCase {
        name: "flush_on_paragraph_hard_cut",
        min: 1,
        max: 10,
        pref: BreakPreference::Paragraph,
        flush: true,
        pushes: &["abcdefghijk\n\nRest"],
        drain_each_push: true,
        force_at_end: false,
        chunks: &["abcdefghij", "k"],
        buffer: "Rest",
    },
    ChunkerCase {
        name: "forced_fence_split_reopens_fence",
        min: 10,
        max: 30,
        pref: BreakPreference::Paragraph,
        flush: false,
        pushes: &[
            "```txt\naaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n```",
        ],
        drain_each_push: false,
        force_at_end: true,
        chunks: &[
            "```txt\naaaaaaaaaaaaaaaaaaaaaaa\n```\n",
            "```txt\naaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n```\n",
            "```txt\naaaaaaaaaaaaaaaaaaaaaaaaaaa\n```",
        ],
        buffer: "",
    },
    // Reference §19 vectors not covered above.
    ChunkerCase {
        name: "ref19_flush_on_paragraph_below_min",
        min: 100,
        max: 200,
        pref: BreakPreference::Paragraph,
        flush: true,
        pushes: &["First paragraph.\n \nSecond paragraph."],
        drain_each_push: true,
        force_at_end: false,
        chunks: &[],
        buffer: "First paragraph.\n \nSecond paragraph.",
    },
    ChunkerCase {
        name: "ref19_flush_on_paragraph_below_min_forced",
        min: 100,
        max: 200,
        pref: BreakPreference::Paragraph,
        flush: true,
        pushes: &["First paragraph.\n \nSecond paragraph."],
        drain_each_push: true,
        force_at_end: true,
        chunks: &["First paragraph.\n \nSecond paragraph."],
        buffer: "",
    },
    ChunkerCase {
        name: "ref19_flush_on_paragraph_hard_cut_no_break",
        min: 1,
        max: 10,
        pref: BreakPreference::Paragraph,
        flush: true,
        pushes: &["abcdefghijKLMNOP"],
        drain_each_push: true,
        force_at_end: false,
        chunks: &["abcdefghij"],
        buffer: "KLMNOP",
    },
    ChunkerCase {
        name: "ref19_flush_on_paragraph_ignores_break_inside_fence",
        min: 10,
        max: 200,
        pref: BreakPreference::Paragraph,
        flush: true,
        pushes: &["Intro\n```js\nconst a = 1;\n\nconst b = 2;\n```\n\nAfter fence"],
        drain_each_push: true,
        force_at_end: false,
        chunks: &["Intro\n```js\nconst a = 1;\n\nconst b = 2;\n```"],
        buffer: "After fence",
    },
    // Reference §19 subscribe-level vectors (`message_end` break: one forced drain at the end).
    ChunkerCase {
        name: "ref19_message_end_two_paragraphs",
        min: 5,
        max: 25,
        pref: BreakPreference::Paragraph,
        flush: false,
        pushes: &["First block line\n\nSecond block line"],
        drain_each_push: false,
        force_at_end: true,
        chunks: &["First block line", "Second block line"],
        buffer: "",
    },
    ChunkerCase {
        name: "ref19_message_end_backtick_fence",
        min: 5,
        max: 25,
        pref: BreakPreference::Paragraph,
        flush: false,
        pushes: &["Intro\n\n```bash\nline1\nline2\n```\n\nOutro"],
        drain_each_push: false,
        force_at_end: true,
        chunks: &["Intro", "```bash\nline1\nline2\n```", "Outro"],
        buffer: "",
    },
    ChunkerCase {
        name: "ref19_message_end_tilde_fence",
        min: 5,
        max: 25,
        pref: BreakPreference::Paragraph,
        flush: false,
        pushes: &["Intro\n\n~~~sh\nline1\nline2\n~~~\n\nOutro"],
        drain_each_push: false,
        force_at_end: true,
        chunks: &["Intro", "~~~sh\nline1\nline2\n~~~", "Outro"],
        buffer: "",
    },
    // subscribe/chunking.json drives the chunker the same way with these deltas.
    ChunkerCase {
        name: "subscribe_chunking_deltas",
        min: 5,
        max: 25,
        pref: BreakPreference::Paragraph,
        flush: false,
        pushes: &["Intro\n\n```ba", "sh\nline1\nli", "ne2\n```\n\nOutro"],
        drain_each_push: false,
        force_at_end: true,
        chunks: &["Intro", "```bash\nline1\nline2\n```", "Outro"],
        buffer: "",
    },
];

#[test]
fn chunker_vectors() {
    for case in CHUNKER_CASES {
        let options = ChunkingOptions {
            min_chars: case.min,
            max_chars: case.max,
            break_preference: case.pref,
            flush_on_paragraph: case.flush,
        };
        let (chunks, buffer) = run_chunker(
            options,
            case.pushes,
            case.drain_each_push,
            case.force_at_end,
        );
        assert_eq!(chunks, case.chunks, "{}: chunks", case.name);
        assert_eq!(buffer, case.buffer, "{}: buffer", case.name);
    }
}

#[test]
fn reference_forced_fence_split_properties() {
    // Reference §19: min 10, max 30, forced, "```txt\n" + 80×a + "\n```": every chunk starts
    // with the open line, holds at least two fence markers and never cuts a marker in two.
    let text = format!("```txt\n{}\n```", "a".repeat(80));
    let options = ChunkingOptions {
        min_chars: 10,
        max_chars: 30,
        break_preference: BreakPreference::Paragraph,
        flush_on_paragraph: false,
    };
    let (chunks, buffer) = run_chunker(options, &[&text], false, true);
    assert!(chunks.len() > 1);
    for chunk in &chunks {
        assert!(chunk.starts_with("```txt"), "{chunk:?}");
        assert!(chunk.matches("```").count() >= 2, "{chunk:?}");
        let trimmed = chunk.trim_end();
        assert!(trimmed.ends_with("```"), "{chunk:?}");
        assert!(!trimmed.ends_with("````"), "{chunk:?}");
    }
    assert_eq!(buffer, "");
}

struct TagsCase {
    name: &'static str,
    chunks: &'static [&'static str],
    enforce: bool,
    text: &'static str,
}

const TAGS_CASES: &[TagsCase] = &[
    // shared/conformance/scenarios/tags/tags.json
    TagsCase {
        name: "think_block_removed",
        chunks: &["<think>Let me check the file.</think>The file has 3 lines."],
        enforce: false,
        text: "The file has 3 lines.",
    },
    TagsCase {
        name: "all_thinking_tag_variants",
        chunks: &["<thinking>a</thinking>A <thought>b</thought>B <antthinking>c</antthinking>C"],
        enforce: false,
        text: "A B C",
    },
    TagsCase {
        name: "tags_split_across_chunks",
        chunks: &["Hi <thi", "nk>secret plan</th", "ink>there"],
        enforce: false,
        text: "Hi there",
    },
    TagsCase {
        name: "inline_code_protects_tags",
        chunks: &["Use `<think>` to open a block."],
        enforce: false,
        text: "Use `<think>` to open a block.",
    },
    TagsCase {
        name: "fenced_code_protects_tags",
        chunks: &["```xml\n<think>kept</think>\n```\nDone"],
        enforce: false,
        text: "```xml\n<think>kept</think>\n```\nDone",
    },
    TagsCase {
        name: "final_tags_removed_without_enforcement",
        chunks: &["<final>The answer is 42.</final>"],
        enforce: false,
        text: "The answer is 42.",
    },
    TagsCase {
        name: "enforce_final_keeps_only_final_content",
        chunks: &["Let me think... <final>The answer is 42.</final> (done)"],
        enforce: true,
        text: "The answer is 42.",
    },
    TagsCase {
        name: "enforce_final_without_final_tag_is_empty",
        chunks: &["Just thinking out loud, no final tag."],
        enforce: true,
        text: "",
    },
    TagsCase {
        name: "unclosed_think_hides_rest",
        chunks: &["Visible <think>hidden and never closed"],
        enforce: false,
        text: "Visible ",
    },
    // Reference §24 (subscribe tests) and subscribe/tags.json deltas.
    TagsCase {
        name: "ref24_final_enforced",
        chunks: &["<final>Hi there</final>"],
        enforce: true,
        text: "Hi there",
    },
    TagsCase {
        name: "ref24_final_not_required_without_enforcement",
        chunks: &["Hi there"],
        enforce: false,
        text: "Hi there",
    },
    TagsCase {
        name: "subscribe_think_tag_split_across_deltas",
        chunks: &[
            "<thin",
            "k>First I will read the file.\n\nThen I will",
            " summarize it.</thi",
            "nk>Here is the summary.\n\nIt has ",
            "two parts.",
        ],
        enforce: false,
        text: "Here is the summary.\n\nIt has two parts.",
    },
    TagsCase {
        name: "subscribe_final_tag_enforced_no_final",
        chunks: &["Let me think about ", "this carefully."],
        enforce: true,
        text: "",
    },
    TagsCase {
        name: "subscribe_final_tag_enforced_split",
        chunks: &[
            "Scratch work. <fin",
            "al>The answer is ",
            "42.</fi",
            "nal> trailing junk",
        ],
        enforce: true,
        text: "The answer is 42.",
    },
    TagsCase {
        name: "tilde_fence_protects_tags",
        chunks: &["~~~\n<thinking>x</thinking>\n~~~\n<thinking>y</thinking>z"],
        enforce: false,
        text: "~~~\n<thinking>x</thinking>\n~~~\nz",
    },
];

#[test]
fn tags_vectors() {
    for case in TAGS_CASES {
        assert_eq!(
            run_tags(case.chunks, case.enforce),
            case.text,
            "{}",
            case.name
        );
    }
}

/// `shared/conformance/scenarios` next to the repository, when present.
fn shared_scenarios() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance/scenarios");
    dir.is_dir().then_some(dir)
}

fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

fn cases_of(path: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    match value.get("cases") {
        Some(serde_json::Value::Array(cases)) => cases.clone(),
        _ => vec![value],
    }
}

fn strings(value: &serde_json::Value) -> Vec<String> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn shared_json_scenarios() {
    let Some(root) = shared_scenarios() else {
        eprintln!("shared/conformance/scenarios not found; transcribed vectors only");
        return;
    };
    let mut ran = 0;
    for path in json_files(&root.join("chunker")) {
        for case in cases_of(&path) {
            let name = case["name"].as_str().unwrap_or("?");
            let input = &case["input"];
            let options = ChunkingOptions {
                min_chars: input["minChars"].as_u64().unwrap() as usize,
                max_chars: input["maxChars"].as_u64().unwrap() as usize,
                break_preference: BreakPreference::parse(
                    input["breakPreference"].as_str().unwrap_or("paragraph"),
                )
                .unwrap(),
                flush_on_paragraph: input["flushOnParagraph"].as_bool().unwrap_or(false),
            };
            let pushes = strings(&input["pushes"]);
            let pushes: Vec<&str> = pushes.iter().map(String::as_str).collect();
            let (chunks, buffer) = run_chunker(
                options,
                &pushes,
                input["drainEachPush"].as_bool().unwrap_or(true),
                input["forceAtEnd"].as_bool().unwrap_or(false),
            );
            let expect = &case["expect"];
            if let Some(want) = expect.get("chunks") {
                assert_eq!(chunks, strings(want), "{}#{name}", path.display());
            }
            if let Some(want) = expect.get("buffer") {
                assert_eq!(buffer, want.as_str().unwrap(), "{}#{name}", path.display());
            }
            ran += 1;
        }
    }
    for path in json_files(&root.join("tags")) {
        for case in cases_of(&path) {
            let name = case["name"].as_str().unwrap_or("?");
            let input = &case["input"];
            let chunks = strings(&input["chunks"]);
            let chunks: Vec<&str> = chunks.iter().map(String::as_str).collect();
            let enforce = input["enforceFinalTag"].as_bool().unwrap_or(false);
            let want = case["expect"]["text"].as_str().unwrap();
            assert_eq!(
                run_tags(&chunks, enforce),
                want,
                "{}#{name}",
                path.display()
            );
            ran += 1;
        }
    }
    assert!(
        ran > 0,
        "no chunker or tags scenario found under {}",
        root.display()
    );
}
