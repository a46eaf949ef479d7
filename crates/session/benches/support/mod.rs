//! A generated long session for the benchmarks: an agent loop of user turns, thinking, tool
//! calls with results of realistic sizes (a few KB, some tens of KB), a few compactions and
//! branches (with summaries and abandoned continuations), labels, model and thinking changes.
//! Deterministic for a seed, so runs compare.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;

use clawloop_core::message::{
    AssistantMessage, ContentBlock, ThinkingContent, ToolCall, ToolResultMessage, UserMessage,
};
use clawloop_core::{ManualClock, StopReason, ThinkLevel};
use clawloop_session::{FsyncPolicy, SessionError, SessionOptions, Transcript};
use serde_json::json;

/// Entries in the benchmark session.
pub const ENTRIES: usize = 100_000;

/// 2026-01-01T00:00:00.000Z.
const T0: u64 = 1_767_225_600_000;

/// xorshift64: no dependency, same file for the same seed.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below((hi - lo) as u64) as usize
    }

    /// Text of a length between `lo` and `hi` bytes.
    pub fn text_between(&mut self, lo: usize, hi: usize) -> String {
        let len = self.range(lo, hi);
        self.text(len)
    }

    /// About `len` bytes of prose and code: words, punctuation, newlines, quotes and some
    /// non-ASCII, so JSON escaping costs what it does in real transcripts.
    pub fn text(&mut self, len: usize) -> String {
        const WORDS: &[&str] = &[
            "the",
            "file",
            "function",
            "returns",
            "error",
            "in",
            "src/main.rs",
            "let",
            "x",
            "=",
            "Some(value)",
            "config",
            "test",
            "passed",
            "failed",
            "line",
            "42",
            "{",
            "}",
            "=>",
            "\"quoted\"",
            "path/to/module",
            "fn",
            "impl",
            "über",
            "naïve",
            "→",
            "cargo",
            "build",
            "warning:",
            "unused",
            "variable",
            "self",
            "async",
            "await",
            "match",
            "ok",
            "é",
        ];
        let mut out = String::with_capacity(len + 16);
        while out.len() < len {
            out.push_str(WORDS[self.below(WORDS.len() as u64) as usize]);
            out.push(match self.below(12) {
                0 => '\n',
                1 => '\t',
                _ => ' ',
            });
        }
        out
    }
}

fn options(clock: &Arc<ManualClock>) -> SessionOptions {
    SessionOptions {
        fsync: FsyncPolicy::Never,
        clock: clock.clone(),
        cwd: Some("/home/dev/project".into()),
        session_id: Some("0b5e7a4c-1d2e-4f3a-8b9c-0d1e2f3a4b5c".into()),
        ..SessionOptions::default()
    }
}

fn assistant(rng: &mut Rng, now: u64, model: &str, calls: Option<&str>) -> AssistantMessage {
    let mut m = AssistantMessage::empty("anthropic-messages", "anthropic", model, now);
    m.content.push(ContentBlock::Thinking(ThinkingContent {
        thinking: rng.text_between(60, 350),
        thinking_signature: Some(format!("sig{:016x}", rng.next()).repeat(3)),
        ..ThinkingContent::default()
    }));
    let text_len = if calls.is_some() {
        rng.range(0, 100)
    } else {
        rng.range(80, 600)
    };
    if text_len > 0 {
        m.content.push(ContentBlock::text(rng.text(text_len)));
    }
    if let Some(id) = calls {
        let tool = ["read", "bash", "edit", "grep"][rng.below(4) as usize];
        let args = match tool {
            "bash" => json!({"command": rng.text_between(20, 120), "timeout": 120}),
            "edit" => json!({"path": "src/lib.rs", "oldText": rng.text_between(40, 300),
                "newText": rng.text_between(40, 300)}),
            _ => json!({"path": format!("src/module_{}.rs", rng.below(200))}),
        };
        m.content
            .push(ContentBlock::ToolCall(ToolCall::new(id, tool, args)));
        m.stop_reason = StopReason::ToolUse;
    }
    m.usage.input = rng.below(50_000);
    m.usage.output = rng.below(4_000);
    m.usage.cache_read = rng.below(100_000);
    m.usage.total_tokens = m.usage.input + m.usage.output + m.usage.cache_read;
    m
}

/// Remembers `id` as the newest entry on the current path (the last 400 are kept).
fn push(recent: &mut VecDeque<String>, id: String) {
    recent.push_back(id);
    if recent.len() > 400 {
        recent.pop_front();
    }
}

/// Writes a session of about `entries` entries (~0.75 KB each on average) to `path`.
pub fn generate(
    path: &Path,
    entries: usize,
    seed: u64,
    recent_compaction: bool,
) -> Result<(), SessionError> {
    // A fresh file: opening an old one would only add to it.
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(SessionError::Io {
                path: path.to_owned(),
                action: "remove",
                source: e,
            });
        }
        _ => {}
    }
    let clock = Arc::new(ManualClock::new(T0));
    let mut rng = Rng(seed | 1);
    let mut t = Transcript::open(path, options(&clock))?;
    // Ids on the current path, newest last: compactions keep from and branches return to them.
    let mut recent: VecDeque<String> = VecDeque::new();
    // A few compactions. With `recent_compaction` the last is near the end, as in a live
    // session, which is compacted whenever its context nears the model's window: what follows
    // the last compaction is then at most a window's worth (~1 000 entries, ~1 MB). Without it
    // the context is the last tenth of the session (~10 000 entries, ~10 MB): no model could
    // take it, but it shows what rebuilding a huge context costs.
    let last = if recent_compaction {
        entries * 99 / 100
    } else {
        entries * 9 / 10
    };
    let compactions = [entries / 5, entries * 9 / 20, entries * 7 / 10, last];
    let branches = [
        entries / 10,
        entries * 7 / 20,
        entries * 3 / 5,
        entries * 4 / 5,
    ];
    let mut model = "claude-sonnet-4-5";
    let mut turn = 0u64;
    while t.entry_count() < entries {
        turn += 1;
        let before = t.entry_count();
        let now = clock.advance(rng.below(30_000));
        let user = UserMessage::text(rng.text_between(40, 400), now);
        push(&mut recent, t.append_message(user)?);
        for call in 0..rng.below(7) {
            let id = format!("toolu_{turn}_{call}");
            let m = assistant(&mut rng, clock.advance(2_000), model, Some(&id));
            push(&mut recent, t.append_message(m)?);
            let size = if rng.below(40) == 0 {
                rng.range(3_000, 12_000)
            } else {
                rng.range(80, 900)
            };
            let result = ToolResultMessage::text(
                &id,
                "read",
                rng.text(size),
                rng.below(15) == 0,
                clock.advance(500),
            );
            push(&mut recent, t.append_message(result)?);
        }
        let m = assistant(&mut rng, clock.advance(3_000), model, None);
        push(&mut recent, t.append_message(m)?);
        let after = t.entry_count();
        let crossed = |at: &usize| before < *at && *at <= after;
        if compactions.iter().any(crossed) {
            let kept = recent[recent.len().saturating_sub(120)].clone();
            let summary = rng.text_between(2_000, 4_000);
            let id = t.append_compaction(summary, kept, 150_000 + rng.below(40_000), None, None)?;
            push(&mut recent, id);
        }
        if branches.iter().any(crossed) {
            // Abandon the last few entries: go back, summarize what was left, continue there.
            let back = recent[recent.len().saturating_sub(12)].clone();
            let id = t.branch_with_summary(Some(&back), rng.text(600), None, None)?;
            push(&mut recent, id);
        }
        match turn % 97 {
            13 => {
                model = if model == "claude-sonnet-4-5" {
                    "claude-opus-4-1"
                } else {
                    "claude-sonnet-4-5"
                }
            }
            29 => push(&mut recent, t.append_model_change("anthropic", model)?),
            41 => push(
                &mut recent,
                t.append_thinking_level_change(ThinkLevel::High)?,
            ),
            53 => {
                let target = recent[recent.len() / 2].clone();
                push(&mut recent, t.append_label(&target, Some("checkpoint"))?);
            }
            67 => push(
                &mut recent,
                t.append_custom("ext-state", Some(json!({"turn": turn})))?,
            ),
            _ => {}
        }
    }
    t.close()
}
