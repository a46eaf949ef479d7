//! Block boundaries never show a tag or the text it hides (issue 10 item 2).
//!
//! Block replies are cut from the tag-filtered text, so wherever the chunker breaks (a hard
//! break at `max_chars` through `<think>`, a whitespace break inside `< think >`) and however
//! the stream is split into deltas, no block reply, partial reply or assistant event carries a
//! piece of a tag or the reasoning inside one, and the blocks put together are the filtered text.

mod common;

use clawloop_core::AgentEvent;
use clawloop_subscribe::{
    BlockReply, BlockReplyBreak, BreakPreference, ChunkingOptions, ReasoningUpdate, Subscription,
    SubscriptionEvent, SubscriptionOptions, SubscriptionSink, TagFilter, TagFilterOptions,
};
use common::{agent_end, delta, end, start, text_end};
use pretty_assertions::assert_eq;
use proptest::prelude::*;

/// Everything the user could see, as texts.
#[derive(Debug, Default)]
struct Seen {
    blocks: Vec<String>,
    partials: Vec<String>,
    assistant_events: Vec<String>,
}

impl SubscriptionSink for Seen {
    fn on_block_reply(&mut self, reply: BlockReply) {
        self.blocks.push(reply.text);
    }
    fn on_partial_reply(&mut self, text: &str) {
        self.partials.push(text.to_owned());
    }
    fn on_reasoning(&mut self, _update: ReasoningUpdate<'_>) {}
    fn on_agent_event(&mut self, event: SubscriptionEvent<'_>) {
        if let SubscriptionEvent::Assistant { text, .. } = event {
            self.assistant_events.push(text.to_owned());
        }
    }
}

/// The events of one message whose text is cut at the given char positions.
fn message_events(text: &str, cuts: &[usize]) -> Vec<AgentEvent> {
    let chars: Vec<char> = text.chars().collect();
    let mut points: Vec<usize> = cuts.iter().map(|&c| c % (chars.len() + 1)).collect();
    points.sort_unstable();
    points.dedup();
    let mut events = vec![start()];
    let mut prev = 0;
    for p in points.into_iter().chain([chars.len()]) {
        if p > prev {
            events.push(delta(&chars[prev..p].iter().collect::<String>()));
            prev = p;
        }
    }
    events.extend([text_end(text), end(text), agent_end()]);
    events
}

fn run(options: SubscriptionOptions, events: &[AgentEvent]) -> Seen {
    let mut sub = Subscription::new(options, Seen::default());
    for event in events {
        sub.handle(event);
    }
    sub.into_sink()
}

fn options(mode: BlockReplyBreak, chunking: ChunkingOptions) -> SubscriptionOptions {
    SubscriptionOptions {
        block_reply_break: mode,
        chunking: Some(chunking),
        ..SubscriptionOptions::default()
    }
}

#[test]
fn reasoning_after_a_long_reply_stays_hidden_at_the_default_block_boundary() {
    // The example: with 800/1200 chunking the hard break at 1200 chars fell inside
    // `<think>`, and the blocks were `…<thin` and then `k>SECRET visible`.
    let reply = "x".repeat(1195);
    let text = format!("{reply}<think>SECRET</think> visible");
    for mode in [BlockReplyBreak::TextEnd, BlockReplyBreak::MessageEnd] {
        for cuts in [vec![], (1..text.len()).collect::<Vec<_>>()] {
            let seen = run(
                options(mode, ChunkingOptions::default()),
                &message_events(&text, &cuts),
            );
            assert_eq!(
                seen.blocks,
                vec![reply.clone(), "visible".to_owned()],
                "{mode:?}, {} deltas",
                cuts.len() + 1
            );
            assert_eq!(seen.partials.last(), Some(&format!("{reply} visible")));
        }
    }
}

#[test]
fn spaced_tag_split_at_its_whitespace_stays_hidden() {
    // A whitespace break inside `< think >`: the chunk ended in `<` and the next one started
    // with `think >` after the skipped space.
    let text = "abcdefghij < think >SECRET</ think > after";
    for max in 10..16 {
        let chunking = ChunkingOptions {
            min_chars: 5,
            max_chars: max,
            break_preference: BreakPreference::Sentence,
            flush_on_paragraph: false,
        };
        for mode in [BlockReplyBreak::TextEnd, BlockReplyBreak::MessageEnd] {
            let seen = run(options(mode, chunking), &message_events(text, &[]));
            assert_eq!(
                without_whitespace(&seen.blocks.concat()),
                "abcdefghijafter",
                "max {max}, {mode:?}: {:?}",
                seen.blocks
            );
        }
    }
}

#[test]
fn a_partial_tag_that_never_completes_is_text_at_the_end() {
    let text = "Reply ends with a lone <thin";
    for mode in [BlockReplyBreak::TextEnd, BlockReplyBreak::MessageEnd] {
        let seen = run(
            options(
                mode,
                ChunkingOptions {
                    min_chars: 3,
                    max_chars: 8,
                    ..ChunkingOptions::default()
                },
            ),
            &message_events(text, &[24, 26]),
        );
        assert_eq!(
            without_whitespace(&seen.blocks.concat()),
            "Replyendswithalone<thin",
            "{mode:?}: {:?}",
            seen.blocks
        );
    }
}

const SECRET: &str = "SECRET";

/// One token of visible prose. Letters are made unique per reply (see [`reply`]), so no two
/// blocks are ever equal and the subscription's repeat suppression never drops one: the blocks
/// put together must then be the whole filtered text.
#[derive(Debug, Clone)]
enum Token {
    Letter,
    /// A letter followed by a sentence end.
    Sentence(char),
    Space,
    Newline,
    /// A run of letters with no break in it, so hard breaks at `max_chars` happen too.
    Run(usize),
}

fn visible_run() -> impl Strategy<Value = Vec<Token>> {
    prop::collection::vec(
        prop_oneof![
            4 => Just(Token::Letter),
            1 => prop::sample::select(vec!['.', '!', '?']).prop_map(Token::Sentence),
            2 => Just(Token::Space),
            1 => Just(Token::Newline),
            1 => (1usize..60).prop_map(Token::Run),
        ],
        1..12,
    )
}

/// The `n`th letter of a reply: ASCII first, then CJK ideographs (multibyte).
fn letter(n: &mut u32) -> char {
    // One case only: repeats are compared case-insensitively.
    const ASCII: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let i = *n;
    *n += 1;
    match ASCII.get(i as usize) {
        Some(&b) => char::from(b),
        None => char::from_u32(0x4E00 + i).unwrap_or('\u{4E00}'),
    }
}

fn open_tag() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["think", "thinking", "thought", "antthinking", "THINK"]),
        prop::sample::select(vec!["", " ", "\n", "  "]),
        prop::sample::select(vec!["", " ", "\n\n"]),
    )
        .prop_map(|(name, before, after)| format!("<{before}{name}{after}>"))
}

fn close_tag() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["think", "thinking", "thought", "antthinking"]),
        prop::sample::select(vec!["", " ", "\n"]),
    )
        .prop_map(|(name, space)| format!("<{space}/{space}{name}{space}>"))
}

/// Hidden reasoning (whitespace and sentence ends inside, so breaks fall there too), or a
/// `<final>` tag.
fn tagged() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => (open_tag(), "[a-z .\n]{0,30}", close_tag())
            .prop_map(|(open, inner, close)| format!("{open}{SECRET} {inner}{SECRET}{close}")),
        1 => prop::sample::select(vec!["<final>", "</final>", "< final >", "</ FINAL>"])
            .prop_map(str::to_owned),
    ]
}

#[derive(Debug, Clone)]
enum Part {
    Visible(Vec<Token>),
    Tagged(String),
}

fn reply() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            2 => visible_run().prop_map(Part::Visible),
            1 => tagged().prop_map(Part::Tagged),
        ],
        1..14,
    )
    .prop_map(|parts| {
        let mut next = 0u32;
        let mut text = String::new();
        for part in parts {
            match part {
                Part::Tagged(tagged) => text.push_str(&tagged),
                Part::Visible(tokens) => {
                    for token in tokens {
                        match token {
                            Token::Letter => text.push(letter(&mut next)),
                            Token::Sentence(end) => {
                                text.push(letter(&mut next));
                                text.push(end);
                            }
                            Token::Space => text.push(' '),
                            Token::Newline => text.push('\n'),
                            Token::Run(n) => {
                                for _ in 0..n {
                                    text.push(letter(&mut next));
                                }
                            }
                        }
                    }
                }
            }
        }
        text
    })
}

fn chunking() -> impl Strategy<Value = ChunkingOptions> {
    (
        1usize..40,
        0usize..40,
        prop::sample::select(vec![
            BreakPreference::Paragraph,
            BreakPreference::Newline,
            BreakPreference::Sentence,
        ]),
        any::<bool>(),
    )
        .prop_map(|(min, extra, break_preference, flush_on_paragraph)| {
            ChunkingOptions {
                min_chars: min,
                // Small too: down to one char.
                max_chars: min + extra,
                break_preference,
                flush_on_paragraph,
            }
        })
}

fn without_whitespace(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, .. ProptestConfig::default() })]

    /// No chunk setting and no delta split lets a tag fragment or hidden text reach a block
    /// reply, a partial reply or an assistant event, and the blocks put together are the
    /// tag-filtered text (the chunker drops only whitespace at its breaks).
    #[test]
    fn block_boundaries_never_show_tags_or_hidden_text(
        text in reply(),
        chunking in chunking(),
        cuts in prop::collection::vec(0usize..400, 0..30),
        text_end_break in any::<bool>(),
        enforce_final_tag in any::<bool>(),
    ) {
        let options = SubscriptionOptions {
            block_reply_break: if text_end_break {
                BlockReplyBreak::TextEnd
            } else {
                BlockReplyBreak::MessageEnd
            },
            chunking: Some(chunking),
            enforce_final_tag,
            ..SubscriptionOptions::default()
        };
        let seen = run(options, &message_events(&text, &cuts));
        let filtered = TagFilter::strip(&text, TagFilterOptions { enforce_final_tag });

        for shown in seen.blocks.iter().chain(&seen.partials).chain(&seen.assistant_events) {
            prop_assert!(!shown.contains(SECRET), "hidden text shown: {shown:?}");
            prop_assert!(
                !shown.contains(['<', '>']),
                "tag fragment shown: {shown:?}"
            );
        }
        prop_assert_eq!(
            without_whitespace(&seen.blocks.concat()),
            without_whitespace(&filtered)
        );
        let last_partial = seen.partials.last().map(String::as_str).unwrap_or_default();
        prop_assert_eq!(last_partial, filtered.trim());
    }
}
