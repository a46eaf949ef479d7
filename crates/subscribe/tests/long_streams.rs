//! Long streams must stay linear: quadratic work would make these tests take minutes.

use std::time::Instant;

use clawloop_subscribe::{
    BlockChunker, BreakPreference, ChunkingOptions, TagFilter, TagFilterOptions,
};

fn long_text(paragraphs: usize) -> String {
    let mut text = String::new();
    for i in 0..paragraphs {
        match i % 7 {
            0 => text.push_str("```rust\nfn main() {\n    println!(\"é🎉\");\n}\n```\n\n"),
            3 => text.push_str("<think>hidden reasoning here</think>visible `<think>` text. "),
            _ => text.push_str("Some words in a sentence. Another one follows here!\n\n"),
        }
    }
    text
}

#[test]
fn tag_filter_char_by_char_over_a_long_stream() {
    let text = long_text(6000);
    let started = Instant::now();
    let mut filter = TagFilter::new(TagFilterOptions::default());
    let mut out = String::new();
    for c in text.chars() {
        out.push_str(&filter.push(c.encode_utf8(&mut [0u8; 4])));
    }
    out.push_str(&filter.finish());
    assert_eq!(out, TagFilter::strip(&text, TagFilterOptions::default()));
    assert!(!out.contains("hidden reasoning"));
    eprintln!(
        "tag filter: {} chars in {:?}",
        text.chars().count(),
        started.elapsed()
    );
}

#[test]
fn chunker_drains_each_small_push_and_one_huge_forced_buffer() {
    let text = long_text(6000);
    let options = ChunkingOptions {
        min_chars: 80,
        max_chars: 200,
        break_preference: BreakPreference::Paragraph,
        flush_on_paragraph: false,
    };

    let started = Instant::now();
    let mut streaming = BlockChunker::new(options);
    let mut streamed = 0usize;
    let chars: Vec<char> = text.chars().collect();
    for piece in chars.chunks(3) {
        streaming.push(&piece.iter().collect::<String>());
        streaming.drain(false, |_| streamed += 1);
    }
    streaming.drain(true, |_| streamed += 1);
    assert!(streamed > 1000);
    eprintln!("drain per push: {:?}", started.elapsed());

    let started = Instant::now();
    let mut whole = BlockChunker::new(options);
    whole.push(&text);
    let mut forced = 0usize;
    whole.drain(true, |_| forced += 1);
    assert!(forced > 1000);
    assert_eq!(whole.buffer(), "");
    eprintln!("one forced drain: {:?}", started.elapsed());
}
