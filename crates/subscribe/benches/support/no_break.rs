//! The no-break chunker workload, shared by `benches/chunker.rs` and
//! `examples/chunk_no_break.rs` (the latter runs it once, for `valgrind --tool=callgrind`
//! instruction counts).
//!
//! A long text with no break the chunker may take (no whitespace, no sentence end) is pushed in
//! small deltas with a non-forced drain after each, as the subscription does while a reply
//! streams, with `max_chars` far beyond the text, so no hard break comes either. Every drain
//! finds nothing; what matters is how much of the buffer each one looks at again.

use clawloop_subscribe::{BlockChunker, BreakPreference, ChunkingOptions};

/// `len` bytes of letters, without whitespace or sentence ends.
pub fn text(len: usize) -> String {
    "abcdefghij".chars().cycle().take(len).collect()
}

/// Pushes `text` in `delta`-byte pieces (ASCII, so every cut is a char boundary), draining
/// after each, then forces the rest out; returns how many chunks came out.
pub fn run(text: &str, delta: usize) -> usize {
    let mut chunker = BlockChunker::new(ChunkingOptions {
        min_chars: 800,
        max_chars: 1_000_000_000,
        break_preference: BreakPreference::Paragraph,
        flush_on_paragraph: false,
    });
    let mut chunks = 0;
    for piece in text.as_bytes().chunks(delta.max(1)) {
        chunker.push(std::str::from_utf8(piece).unwrap_or_default());
        chunker.drain(false, |_| chunks += 1);
    }
    chunker.drain(true, |_| chunks += 1);
    chunks
}
