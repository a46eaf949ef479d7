//! Tool-call id sanitization for providers with strict id rules (pi-mono §1.5–§1.7, OpenClaw's
//! `sanitizeToolCallIds`): Mistral wants exactly 9 alphanumerics, Anthropic at most 64 of
//! `[a-zA-Z0-9_-]`, OpenAI Chat Completions at most 40.
//!
//! The rewrite is per request and deterministic: the transcript keeps the original ids, and the
//! same history always produces the same wire ids (so prompt caches keep hitting). Calls and
//! their results go through one map, so they still match after the rewrite; ids that already
//! conform are kept and reserved, so a rewritten id can never take the id of another call.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use clawloop_core::message::{ContentBlock, Message};
use clawloop_core::{
    AssistantEventStream, AssistantMessage, AssistantMessageEvent, Context, LlmStream, Model,
    StreamOptions,
};

use super::map_events::map_events;
use super::short_hash::short_hash;

/// Hash attempts before falling back to a counter: collisions after a few re-hashes mean the
/// id space is crowded, and a counter is guaranteed to find a free id.
const MAX_HASH_ATTEMPTS: u32 = 64;

/// The id rules of a provider family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolCallIdMode {
    /// Mistral: exactly 9 characters of `[a-zA-Z0-9]`.
    Strict9,
    /// Anthropic Messages: 1 to 64 characters of `[a-zA-Z0-9_-]`.
    Anthropic,
    /// OpenAI Chat Completions: 1 to 40 characters of `[a-zA-Z0-9_-]` (a Responses-style
    /// `call|item` id keeps its `call` part, as pi does).
    OpenAi,
}

impl ToolCallIdMode {
    /// The mode `model` needs, or `None` when its API takes ids as they are.
    ///
    /// Mistral models are recognized by provider, host or model id (also through OpenAI-style
    /// gateways, which pass the ids through to Mistral). OpenAI Responses is left alone: its ids
    /// pair function calls with reasoning items and must survive verbatim (OpenClaw skips it
    /// too).
    pub fn for_model(model: &Model) -> Option<ToolCallIdMode> {
        let id = model.id.to_ascii_lowercase();
        let mistral = model.provider == "mistral"
            || model.base_url.contains("mistral.ai")
            || [
                "mistral",
                "mixtral",
                "codestral",
                "pixtral",
                "devstral",
                "ministral",
                "magistral",
            ]
            .iter()
            .any(|hint| id.contains(hint));
        if mistral {
            return Some(ToolCallIdMode::Strict9);
        }
        match model.api.as_str() {
            "anthropic-messages" => Some(ToolCallIdMode::Anthropic),
            "openai-completions" => Some(ToolCallIdMode::OpenAi),
            _ => None,
        }
    }

    /// The longest id the provider accepts.
    pub fn max_len(self) -> usize {
        match self {
            ToolCallIdMode::Strict9 => 9,
            ToolCallIdMode::Anthropic => 64,
            ToolCallIdMode::OpenAi => 40,
        }
    }

    /// Whether `id` is acceptable as it is.
    pub fn is_valid(self, id: &str) -> bool {
        let allowed = |c: char| match self {
            ToolCallIdMode::Strict9 => c.is_ascii_alphanumeric(),
            ToolCallIdMode::Anthropic | ToolCallIdMode::OpenAi => {
                c.is_ascii_alphanumeric() || c == '_' || c == '-'
            }
        };
        let len_ok = match self {
            ToolCallIdMode::Strict9 => id.len() == 9,
            _ => !id.is_empty() && id.len() <= self.max_len(),
        };
        len_ok && id.chars().all(allowed)
    }

    /// The replacement for `id` at collision `attempt` (0 = first choice). Always valid.
    fn candidate(self, id: &str, attempt: u32) -> String {
        match self {
            ToolCallIdMode::Strict9 => {
                let alnum: String = id.chars().filter(char::is_ascii_alphanumeric).collect();
                if attempt == 0 && alnum.len() == 9 {
                    alnum
                } else if attempt == 0 {
                    hash9(id)
                } else {
                    hash9(&format!("{id}:{attempt}"))
                }
            }
            ToolCallIdMode::Anthropic | ToolCallIdMode::OpenAi => {
                let head = match self {
                    ToolCallIdMode::OpenAi => id.split('|').next().unwrap_or(id),
                    _ => id,
                };
                let base: String = head
                    .chars()
                    .map(|c| {
                        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                            c
                        } else {
                            '_'
                        }
                    })
                    .collect();
                if attempt == 0 && !base.is_empty() {
                    return truncate_ascii(&base, self.max_len()).to_owned();
                }
                // Keep a readable prefix and make the end unique.
                let seed = if attempt == 0 {
                    id.to_owned()
                } else {
                    format!("{id}:{attempt}")
                };
                let suffix = format!("_{}", short_hash(&seed));
                let prefix = if base.is_empty() { "call" } else { &base };
                let room = self.max_len().saturating_sub(suffix.len());
                format!("{}{suffix}", truncate_ascii(prefix, room))
            }
        }
    }

    /// A valid id from a counter: the last resort when hashing keeps colliding.
    fn counter_id(self, n: u64) -> String {
        match self {
            ToolCallIdMode::Strict9 => format!("{:09}", n % 1_000_000_000),
            _ => format!("call_{n}"),
        }
    }
}

/// The first 9 characters of pi's `shortHash(seed)`, padded with `0` (the hash is base 36, so
/// it is alphanumeric; padding only matters for the rare short hash).
fn hash9(seed: &str) -> String {
    let mut out: String = short_hash(seed).chars().take(9).collect();
    while out.len() < 9 {
        out.push('0');
    }
    out
}

/// The first `max` bytes of an ASCII string (the sanitized ids are ASCII by construction).
fn truncate_ascii(s: &str, max: usize) -> &str {
    s.get(..max.min(s.len())).unwrap_or(s)
}

/// The id rewrite of one request: original → sent, and back.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolCallIdMap {
    forward: HashMap<String, String>,
    back: HashMap<String, String>,
}

impl ToolCallIdMap {
    /// The map for the tool calls and tool results of `context` under `mode`.
    pub fn for_context(context: &Context, mode: ToolCallIdMode) -> Self {
        let mut originals: Vec<&str> = Vec::new();
        for message in &context.messages {
            match message {
                Message::Assistant(a) => originals.extend(a.tool_calls().map(|c| c.id.as_str())),
                Message::ToolResult(r) => originals.push(&r.tool_call_id),
                Message::User(_) => {}
            }
        }
        // Conforming ids stay and are reserved first, whatever their position.
        let mut used: HashSet<String> = originals
            .iter()
            .filter(|id| mode.is_valid(id))
            .map(|id| (*id).to_owned())
            .collect();
        let mut map = ToolCallIdMap::default();
        let mut counter = 0u64;
        for original in originals {
            if mode.is_valid(original) || map.forward.contains_key(original) {
                continue;
            }
            let replacement = (0..MAX_HASH_ATTEMPTS)
                .map(|attempt| mode.candidate(original, attempt))
                .find(|c| !used.contains(c))
                .unwrap_or_else(|| {
                    loop {
                        let c = mode.counter_id(counter);
                        counter += 1;
                        if !used.contains(&c) {
                            break c;
                        }
                    }
                });
            used.insert(replacement.clone());
            map.back.insert(replacement.clone(), original.to_owned());
            map.forward.insert(original.to_owned(), replacement);
        }
        map
    }

    /// Whether nothing needs rewriting.
    pub fn is_identity(&self) -> bool {
        self.forward.is_empty()
    }

    /// The id sent for `original` (itself when it needed no rewrite).
    pub fn sent<'a>(&'a self, original: &'a str) -> &'a str {
        self.forward.get(original).map_or(original, String::as_str)
    }

    /// The original of a rewritten id, if `sent` is one.
    pub fn original(&self, sent: &str) -> Option<&str> {
        self.back.get(sent).map(String::as_str)
    }

    /// `context` with the rewritten ids; borrowed when nothing changes.
    pub fn apply<'a>(&self, context: &'a Context) -> Cow<'a, Context> {
        if self.is_identity() {
            return Cow::Borrowed(context);
        }
        let mut out = context.clone();
        for message in &mut out.messages {
            match message {
                Message::Assistant(a) => {
                    for block in &mut a.content {
                        if let ContentBlock::ToolCall(call) = block
                            && let Some(new) = self.forward.get(&call.id)
                        {
                            call.id.clone_from(new);
                        }
                    }
                }
                Message::ToolResult(r) => {
                    if let Some(new) = self.forward.get(&r.tool_call_id) {
                        r.tool_call_id.clone_from(new);
                    }
                }
                Message::User(_) => {}
            }
        }
        Cow::Owned(out)
    }

    /// `event` with rewritten ids turned back into the caller's (a provider that echoes a
    /// replayed call must not hand the transcript an id it has never seen).
    pub fn map_back(&self, event: AssistantMessageEvent) -> AssistantMessageEvent {
        use AssistantMessageEvent as E;
        match event {
            E::ToolcallStart {
                content_index,
                id,
                tool_name,
            } => E::ToolcallStart {
                content_index,
                id: self.original(&id).map_or(id, str::to_owned),
                tool_name,
            },
            E::ToolcallEnd {
                content_index,
                tool_call,
            } => E::ToolcallEnd {
                content_index,
                tool_call: tool_call.map(|mut call| {
                    if let Some(original) = self.original(&call.id) {
                        call.id = original.to_owned();
                    }
                    call
                }),
            },
            E::Start { partial } => E::Start {
                partial: partial.map(|mut m| {
                    self.map_back_message(&mut m);
                    m
                }),
            },
            E::Done {
                reason,
                mut message,
            } => {
                self.map_back_message(&mut message);
                E::Done { reason, message }
            }
            E::Error { reason, mut error } => {
                self.map_back_message(&mut error);
                E::Error { reason, error }
            }
            other => other,
        }
    }

    fn map_back_message(&self, message: &mut AssistantMessage) {
        for block in &mut message.content {
            if let ContentBlock::ToolCall(call) = block
                && let Some(original) = self.back.get(&call.id)
            {
                call.id.clone_from(original);
            }
        }
    }
}

/// Rewrites tool-call ids in the request for a strict provider and maps them back in the
/// response (see the [module docs](self)).
#[derive(Clone)]
pub struct SanitizeToolCallIds {
    inner: Arc<dyn LlmStream>,
    mode: Option<ToolCallIdMode>,
}

impl SanitizeToolCallIds {
    /// Wraps `inner`. `mode: None` picks the mode per request with
    /// [`ToolCallIdMode::for_model`] (and leaves models that need none alone).
    pub fn new(inner: Arc<dyn LlmStream>, mode: Option<ToolCallIdMode>) -> Self {
        SanitizeToolCallIds { inner, mode }
    }
}

impl LlmStream for SanitizeToolCallIds {
    fn stream(
        &self,
        model: &Model,
        context: &Context,
        options: StreamOptions,
    ) -> AssistantEventStream {
        let Some(mode) = self.mode.or_else(|| ToolCallIdMode::for_model(model)) else {
            return self.inner.stream(model, context, options);
        };
        let map = ToolCallIdMap::for_context(context, mode);
        if map.is_identity() {
            return self.inner.stream(model, context, options);
        }
        let sanitized = map.apply(context);
        let events = self.inner.stream(model, &sanitized, options);
        map_events(events, move |event| map.map_back(event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_are_always_valid() {
        let ids = [
            "",
            "call_abc",
            "toolu_01ABC|fc_9",
            "a b c",
            "ünïcødé-✓",
            &"x".repeat(200),
            "123456789",
            "12345678",
        ];
        for mode in [
            ToolCallIdMode::Strict9,
            ToolCallIdMode::Anthropic,
            ToolCallIdMode::OpenAi,
        ] {
            for id in ids {
                for attempt in [0, 1, 7] {
                    let c = mode.candidate(id, attempt);
                    assert!(mode.is_valid(&c), "{mode:?} {id:?} {attempt} -> {c:?}");
                }
            }
            for n in [0, 5, 123_456_789_012] {
                assert!(mode.is_valid(&mode.counter_id(n)), "{mode:?} {n}");
            }
        }
    }

    #[test]
    fn modes_follow_pi() {
        assert_eq!(ToolCallIdMode::OpenAi.candidate("call_1|fc_2", 0), "call_1");
        assert_eq!(
            ToolCallIdMode::Anthropic.candidate("call_1|fc_2", 0),
            "call_1_fc_2"
        );
        assert_eq!(
            ToolCallIdMode::Strict9.candidate("abc-def-ghi", 0),
            "abcdefghi"
        );
        assert_eq!(
            ToolCallIdMode::Strict9.candidate("call_5019f900a247", 0),
            hash9("call_5019f900a247")
        );
    }
}
