//! `clawloop-subscribe`: turning a streamed assistant reply into what the user sees (SPEC §6).
//!
//! This crate is synchronous and does no I/O. Today it provides two pure building blocks of the
//! subscription (reference §18.5 and §19):
//!
//! * [`TagFilter`]: a stateful filter over text deltas that removes `<think>`, `<thinking>`,
//!   `<thought>` and `<antthinking>` blocks and `<final>` tags (or, with
//!   [`TagFilterOptions::enforce_final_tag`], keeps only the text inside `<final>…</final>`).
//!   Tags inside fenced code blocks and inline code spans are text, and a tag split across
//!   deltas is recognized without its prefix ever being shown. Its output is the same however
//!   the text is split, and work per delta is proportional to the delta.
//! * [`BlockChunker`]: cuts the streamed text into reply blocks between `min_chars` and
//!   `max_chars`, preferring paragraph, then newline, then sentence, then whitespace breaks, and
//!   closing and reopening a code fence when a block must be split inside one (with SPEC §6's
//!   fix: it never emits an empty reopened code block). [`fences`] holds the fence parser both
//!   rely on.
//!
//! All lengths are counted in Unicode scalar values (`char`s), never bytes.
//!
//! The full subscription state machine over agent events (SPEC §6, reference §18.3: block
//! replies, tool metas and the last tool error, messaging-tool dedupe, usage accumulation and the
//! compaction-retry wait) arrives later and is built on these pieces. It depends only on
//! `clawloop-core`.
//!
//! # Example
//!
//! Stream deltas through the tag filter, chunk the visible text, and force out the tail at the
//! end of the message:
//!
//! ```
//! use clawloop_subscribe::{
//!     BlockChunker, BreakPreference, ChunkingOptions, TagFilter, TagFilterOptions,
//! };
//!
//! let mut filter = TagFilter::new(TagFilterOptions::default());
//! let mut chunker = BlockChunker::new(ChunkingOptions {
//!     min_chars: 10,
//!     max_chars: 200,
//!     break_preference: BreakPreference::Paragraph,
//!     flush_on_paragraph: false,
//! });
//!
//! let mut blocks = Vec::new();
//! for delta in ["<thi", "nk>plan the answer</th", "ink>Here is the summary.\n\nIt has ", "two parts."] {
//!     chunker.push(&filter.push(delta));
//!     chunker.drain(false, |block| blocks.push(block));
//! }
//! chunker.push(&filter.finish());
//! chunker.drain(true, |block| blocks.push(block));
//!
//! assert_eq!(blocks, ["Here is the summary.", "It has two parts."]);
//! assert_eq!(filter.reasoning(), "plan the answer");
//! ```

#![deny(missing_docs)]

pub mod block_chunker;
pub mod fences;
mod js;
pub mod tag_filter;

pub use block_chunker::{BlockChunker, BreakPreference, ChunkingOptions};
pub use fences::{FenceSpan, find_fence_span_at, is_safe_fence_break, parse_fence_spans};
pub use tag_filter::{TagFilter, TagFilterOptions};
