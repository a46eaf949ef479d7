//! The sessions clawloop writes for the interop check: a whole realistic session, and a turn
//! appended to a session pi wrote.

use std::path::Path;
use std::sync::Arc;

use serde_json::json;

use clawloop_core::clock::ManualClock;
use clawloop_core::message::{
    AgentMessage, AssistantMessage, BashExecutionMessage, ContentBlock, JsonObject,
    ThinkingContent, ToolCall, ToolResultMessage, UserContent, UserMessage,
};
use clawloop_core::{ModelCost, StopReason, ThinkLevel};
use clawloop_session::{SessionOptions, Transcript};

/// A 1×1 transparent PNG, base64.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/// A model the session's assistant messages come from.
struct Model {
    api: &'static str,
    provider: &'static str,
    id: &'static str,
    /// USD per million tokens, so costs get the many decimals real ones have.
    prices: ModelCost,
}

const SONNET: Model = Model {
    api: "anthropic-messages",
    provider: "anthropic",
    id: "claude-sonnet-4-5",
    prices: ModelCost {
        input: 3.0,
        output: 15.0,
        cache_read: 0.3,
        cache_write: 3.75,
    },
};

const GPT5: Model = Model {
    api: "openai-responses",
    provider: "openai",
    id: "gpt-5",
    prices: ModelCost {
        input: 1.25,
        output: 10.0,
        cache_read: 0.125,
        cache_write: 0.0,
    },
};

/// 2026-01-01T00:00:00Z: every time in the session steps from here, so runs are reproducible.
const START_MS: u64 = 1_767_225_600_000;

/// The ids of the entries the checks refer to.
#[derive(Debug, Clone)]
pub struct Written {
    /// The ids of every entry, in the order written.
    pub ids: Vec<String>,
}

/// A transcript whose clock steps one second before every append, so entry times (and the
/// message times taken from the same clock) are distinct and reproducible.
struct Scribe {
    session: Transcript,
    clock: ManualClock,
    ids: Vec<String>,
}

impl Scribe {
    /// Moves the clock on and returns the new time, for the next entry and its message.
    fn tick(&self) -> u64 {
        self.clock.advance(1_000)
    }

    fn note(
        &mut self,
        id: Result<String, clawloop_session::SessionError>,
    ) -> Result<String, String> {
        let id = id.map_err(|e| format!("clawloop could not append: {e}"))?;
        self.ids.push(id.clone());
        Ok(id)
    }

    fn message(&mut self, message: impl Into<AgentMessage>) -> Result<String, String> {
        let r = self.session.append_message(message);
        self.note(r)
    }

    /// Closes the session at `path` and hands back the ids of the entries written.
    fn close(self, path: &Path) -> Result<Written, String> {
        self.session
            .close()
            .map_err(|e| format!("clawloop could not close {}: {e}", path.display()))?;
        Ok(Written { ids: self.ids })
    }
}

fn options(clock: &ManualClock, cwd: &str) -> SessionOptions {
    SessionOptions {
        clock: Arc::new(clock.clone()),
        cwd: Some(cwd.to_owned()),
        ..SessionOptions::default()
    }
}

/// An assistant message from `model` with `tokens` = [input, output, cacheRead, cacheWrite],
/// priced as pi's `calculateCost` prices them.
fn assistant(
    model: &Model,
    content: Vec<ContentBlock>,
    tokens: [u64; 4],
    stop_reason: StopReason,
    timestamp: u64,
) -> AssistantMessage {
    let mut m = AssistantMessage::empty(model.api, model.provider, model.id, timestamp);
    m.content = content;
    let [input, output, cache_read, cache_write] = tokens;
    m.usage.input = input;
    m.usage.output = output;
    m.usage.cache_read = cache_read;
    m.usage.cache_write = cache_write;
    m.usage.total_tokens = input + output + cache_read + cache_write;
    m.usage.apply_cost(&model.prices);
    m.stop_reason = stop_reason;
    m
}

fn thinking(text: &str, signature: &str) -> ContentBlock {
    ContentBlock::Thinking(ThinkingContent {
        thinking: text.to_owned(),
        thinking_signature: Some(signature.to_owned()),
        ..ThinkingContent::default()
    })
}

/// Writes, with clawloop alone, a session using every entry type: messages of each role with
/// thinking, tool calls, images, errors and costs; thinking-level and model changes; a
/// compaction; a branch left with a summary; labels set and cleared; extension entries; a
/// session name set and then blanked. The session's leaf path holds the compaction and the
/// branch summary, so the leaf's context exercises both.
pub fn write_session(path: &Path) -> Result<Written, String> {
    let clock = ManualClock::new(START_MS);
    let session = Transcript::open(path, options(&clock, "/home/user/proj"))
        .map_err(|e| format!("clawloop could not open {}: {e}", path.display()))?;
    let mut s = Scribe {
        session,
        clock,
        ids: Vec::new(),
    };

    s.tick();
    let r = s.session.append_thinking_level_change(ThinkLevel::Low);
    s.note(r)?;
    s.tick();
    let r = s
        .session
        .append_model_change("anthropic", "claude-sonnet-4-5");
    s.note(r)?;
    let t = s.tick();
    let u1 = s.message(UserMessage {
        content: UserContent::Blocks(vec![
            // Non-ASCII and U+2028 are written raw by JSON.stringify; serde must too.
            ContentBlock::text("Describe this image, then read a.txt — «ünïcødé» \u{2028} 🦀"),
            ContentBlock::image(PNG, "image/png"),
        ]),
        timestamp: t,
        extra: JsonObject::new(),
    })?;
    let t = s.tick();
    let mut a1 = assistant(
        &SONNET,
        vec![
            thinking("A 1×1 pixel; then two tools.", "EqQBCkYIBxgCKkA="),
            ContentBlock::text("A single transparent pixel. Reading the file:"),
            ContentBlock::ToolCall(ToolCall::new(
                "toolu_01A",
                "read",
                json!({"path": "a.txt", "offset": 1, "limit": 2000}),
            )),
            ContentBlock::ToolCall(ToolCall::new(
                "toolu_01B",
                "bash",
                json!({"command": "ls /nope", "timeout": 30.5}),
            )),
        ],
        [1234, 87, 2048, 512],
        StopReason::ToolUse,
        t,
    );
    // A field later pi versions add (pi-mono §5): both sides must carry it through.
    a1.extra.insert("responseId".to_owned(), json!("msg_01XYZ"));
    let a1 = s.message(a1)?;
    let t = s.tick();
    s.message(ToolResultMessage {
        content: vec![
            ContentBlock::text("hello\nworld\n"),
            ContentBlock::image(PNG, "image/png"),
        ],
        details: Some(json!({"truncation": null, "lines": 2})),
        ..ToolResultMessage::text("toolu_01A", "read", "", false, t)
    })?;
    let t = s.tick();
    s.message(ToolResultMessage::text(
        "toolu_01B",
        "bash",
        "ls: cannot access '/nope': No such file or directory\n\nCommand exited with code 2",
        true,
        t,
    ))?;
    let t = s.tick();
    let a2 = s.message(assistant(
        &SONNET,
        vec![ContentBlock::text(
            "a.txt says \"hello world\"; /nope does not exist.",
        )],
        [310, 24, 3282, 0],
        StopReason::Stop,
        t,
    ))?;
    s.tick();
    let r = s
        .session
        .append_custom("my-ext", Some(json!({"state": [1, 2, 3]})));
    s.note(r)?;
    s.tick();
    let r = s.session.append_thinking_level_change(ThinkLevel::High);
    s.note(r)?;
    let t = s.tick();
    s.message(UserMessage {
        content: UserContent::Text("Now in one word, please.".to_owned()),
        timestamp: t,
        extra: JsonObject::new(),
    })?;
    s.tick();
    let r = s.session.append_model_change("openai", "gpt-5");
    s.note(r)?;
    let t = s.tick();
    s.message(assistant(
        &GPT5,
        vec![
            thinking("", r#"{"type":"reasoning","id":"rs_1","summary":[]}"#),
            ContentBlock::Text(clawloop_core::message::TextContent {
                text: "Hello.".to_owned(),
                text_signature: Some(r#"{"v":1,"id":"msg_1","phase":"final_answer"}"#.to_owned()),
                extra: JsonObject::new(),
            }),
        ],
        [3400, 120, 0, 0],
        StopReason::Stop,
        t,
    ))?;
    s.tick();
    let r = s.session.append_compaction(
        "The user shared an image and asked about a.txt, which says hello world.",
        a2.as_str(),
        4321,
        Some(json!({"readFiles": ["a.txt"], "modifiedFiles": []})),
        Some(false),
    );
    let compaction = s.note(r)?;
    s.tick();
    let r = s.session.append_label(&u1, Some("start"));
    s.note(r)?;
    s.tick();
    let r = s.session.append_label(&a1, Some("tools"));
    s.note(r)?;
    let t = s.tick();
    s.message(UserMessage::text("Write it to b.txt", t))?;
    let t = s.tick();
    let mut failed = assistant(&GPT5, Vec::new(), [0, 0, 0, 0], StopReason::Error, t);
    failed.error_message = Some("529 {\"type\":\"overloaded_error\"}".to_owned());
    s.message(failed)?;

    // Back to the compaction, leaving the failed attempt behind with a summary of it.
    s.tick();
    let r = s.session.branch_with_summary(
        Some(compaction.as_str()),
        "Tried to write b.txt; the provider was overloaded.",
        Some(json!({"readFiles": [], "modifiedFiles": ["b.txt"]})),
        Some(false),
    );
    s.note(r)?;
    s.tick();
    let r = s.session.append_custom_message(
        "my-ext",
        UserContent::Blocks(vec![
            ContentBlock::text("injected"),
            ContentBlock::image(PNG, "image/png"),
        ]),
        false,
        Some(json!({"k": 1})),
    );
    s.note(r)?;
    s.tick();
    let r = s.session.append_session_info("  clawloop interop  ");
    s.note(r)?;
    s.tick();
    let r = s.session.append_label(&a1, None);
    s.note(r)?;
    let t = s.tick();
    s.message(UserMessage::text("And what is 0.1 + 0.2?", t))?;
    let t = s.tick();
    s.message(assistant(
        &SONNET,
        vec![ContentBlock::text("0.30000000000000004 in floating point.")],
        [17, 13, 3300, 0],
        StopReason::Stop,
        t,
    ))?;
    let t = s.tick();
    s.message(AgentMessage::BashExecution(BashExecutionMessage {
        command: "sleep 100".to_owned(),
        output: String::new(),
        exit_code: None,
        cancelled: true,
        truncated: false,
        full_output_path: None,
        timestamp: t,
        exclude_from_context: Some(true),
        extra: JsonObject::new(),
    }))?;
    // Blank names are stored (trimmed) but name nothing; pi keeps showing the last real name.
    s.tick();
    let r = s.session.append_session_info("   ");
    s.note(r)?;

    s.close(path)
}

/// Opens a session pi wrote (under the write lock, as a runtime does) and appends a turn: a
/// user message, a tool call and its result, the answer, a thinking-level change, a label on
/// one of pi's entries and a new name. Returns the new entries' ids.
pub fn append_turn(path: &Path, label_target: &str) -> Result<Written, String> {
    let clock = ManualClock::new(START_MS + 3_600_000);
    let session = Transcript::open_locked(path, options(&clock, "/ignored/for/existing"))
        .map_err(|e| format!("clawloop could not open {}: {e}", path.display()))?;
    let mut s = Scribe {
        session,
        clock,
        ids: Vec::new(),
    };
    let t = s.tick();
    s.message(UserMessage::text("clawloop here: count the files", t))?;
    let t = s.tick();
    s.message(assistant(
        &SONNET,
        vec![
            thinking("Use bash.", "c2lnbmF0dXJl"),
            ContentBlock::ToolCall(ToolCall::new(
                "toolu_02",
                "bash",
                json!({"command": "ls | wc -l"}),
            )),
        ],
        [42, 17, 3400, 64],
        StopReason::ToolUse,
        t,
    ))?;
    let t = s.tick();
    s.message(ToolResultMessage::text("toolu_02", "bash", "1\n", false, t))?;
    let t = s.tick();
    s.message(assistant(
        &SONNET,
        vec![ContentBlock::text("One file.")],
        [8, 4, 3470, 0],
        StopReason::Stop,
        t,
    ))?;
    s.tick();
    let r = s.session.append_thinking_level_change(ThinkLevel::Minimal);
    s.note(r)?;
    s.tick();
    let r = s.session.append_label(label_target, Some("from clawloop"));
    s.note(r)?;
    s.tick();
    let r = s.session.append_session_info("renamed by clawloop");
    s.note(r)?;
    s.close(path)
}
