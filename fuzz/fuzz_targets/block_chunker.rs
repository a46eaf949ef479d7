//! Arbitrary pushes and drains through `BlockChunker` with arbitrary chunk settings.
//!
//! The blocks together are the pushed text: the same non-whitespace characters in the same
//! order (the chunker trims at breaks and, when it must split a code fence, closes and
//! reopens it, so with fence markers in the text the blocks may add fence lines but never
//! lose a character). A forced drain empties the buffer and no block is empty.
#![no_main]

use arbitrary::Arbitrary;
use clawloop_core::js_text::is_js_whitespace;
use clawloop_subscribe::{BlockChunker, BreakPreference, ChunkingOptions};
use libfuzzer_sys::fuzz_target;

#[derive(Debug, Arbitrary)]
enum Op {
    Push(String),
    Drain { force: bool },
}

#[derive(Debug, Arbitrary)]
struct Input {
    min_chars: u8,
    max_chars: u16,
    preference: u8,
    flush_on_paragraph: bool,
    ops: Vec<Op>,
}

/// The text without whitespace, in the chunker's sense (JavaScript's) or Rust's.
fn visible(text: &str) -> Vec<char> {
    text.chars()
        .filter(|&c| !c.is_whitespace() && !is_js_whitespace(c))
        .collect()
}

fuzz_target!(|input: Input| {
    let options = ChunkingOptions {
        min_chars: usize::from(input.min_chars),
        max_chars: usize::from(input.max_chars),
        break_preference: match input.preference % 3 {
            0 => BreakPreference::Paragraph,
            1 => BreakPreference::Newline,
            _ => BreakPreference::Sentence,
        },
        flush_on_paragraph: input.flush_on_paragraph,
    };
    let mut chunker = BlockChunker::new(options);
    let mut pushed = String::new();
    let mut blocks: Vec<String> = Vec::new();
    for op in input.ops {
        match op {
            Op::Push(text) => {
                pushed.push_str(&text);
                chunker.push(&text);
            }
            Op::Drain { force } => {
                let drained = chunker.drain_to_vec(force);
                if force {
                    assert_eq!(chunker.buffer(), "", "a forced drain left text behind");
                }
                blocks.extend(drained);
            }
        }
    }
    blocks.extend(chunker.drain_to_vec(true));
    assert!(
        !chunker.has_buffered(),
        "the final forced drain left text behind"
    );
    for block in &blocks {
        assert!(!block.is_empty(), "an empty block");
    }

    let input_visible = visible(&pushed);
    let output_visible = visible(&blocks.concat());
    if !pushed.contains("```") && !pushed.contains("~~~") {
        assert_eq!(
            output_visible.iter().collect::<String>(),
            input_visible.iter().collect::<String>(),
            "the blocks are not the pushed text"
        );
    } else {
        let mut rest = output_visible.iter();
        assert!(
            input_visible.iter().all(|c| rest.any(|o| o == c)),
            "the blocks lost pushed text"
        );
    }
});
