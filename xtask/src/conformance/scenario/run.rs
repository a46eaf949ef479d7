//! `run` kind: end to end through the runner and the scripted provider server.

use std::collections::BTreeMap;

use clawloop_core::{FailoverReason, ThinkLevel};
use serde::Deserialize;
use serde_json::Value;

use super::auth::{AuthProfilesFile, AuthState};
use super::message::MessageSummary;
use super::values::{
    Check, Checked, Count, HttpStatus, Line, NonEmpty, NonEmptyString, NonEmptyVec, Object,
    ObjectOrString, PosCount,
};
use super::vocab::{AgentEventType, Api, EntryType, ReplyStopReason, ResultKind, WireRole};

/// Input of a `run` case.
#[derive(Debug, Clone, PartialEq)]
pub struct RunInput {
    /// clawloop config, free-form.
    pub config: Object,
    /// auth-profiles.json content.
    pub auth_profiles: Option<AuthProfilesFile>,
    /// auth-state.json content.
    pub auth_state: Option<AuthState>,
    /// Manual clock start.
    pub start_time_ms: Option<f64>,
    /// Workspace files.
    pub workspace: Option<BTreeMap<String, String>>,
    /// Existing session transcript.
    pub session_lines: Option<Vec<Line>>,
    /// Turns, in order.
    pub turns: NonEmptyVec<Checked<Turn>>,
    /// The input exactly as written: the runner writes files and scripts the server from it,
    /// so key order and numbers are kept.
    pub raw: Value,
}

/// The checked shape of a `run` input.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RunInputFields {
    config: Object,
    auth_profiles: Option<AuthProfilesFile>,
    auth_state: Option<AuthState>,
    start_time_ms: Option<f64>,
    workspace: Option<BTreeMap<String, String>>,
    session_lines: Option<Vec<Line>>,
    turns: NonEmptyVec<Checked<Turn>>,
}

impl<'de> Deserialize<'de> for RunInput {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = Value::deserialize(d)?;
        let fields: RunInputFields = super::decode::decode(&raw).map_err(super::decode::nested)?;
        Ok(RunInput {
            config: fields.config,
            auth_profiles: fields.auth_profiles,
            auth_state: fields.auth_state,
            start_time_ms: fields.start_time_ms,
            workspace: fields.workspace,
            session_lines: fields.session_lines,
            turns: fields.turns,
            raw,
        })
    }
}

/// One turn of a `run` case.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Turn {
    /// The user prompt.
    pub prompt: String,
    /// Move the manual clock first.
    pub advance_clock_ms: Option<f64>,
    /// Abort from outside after this wall time.
    pub abort_after_ms: Option<f64>,
    /// Provider override.
    pub provider: Option<String>,
    /// Model override.
    pub model: Option<String>,
    /// Thinking level.
    pub thinking: Option<ThinkLevel>,
    /// Hosted tools offered.
    pub client_tools: Option<NonEmptyVec<ClientTool>>,
    /// Scripted HTTP responses.
    pub responses: Vec<Scripted>,
    /// What the turn must produce.
    pub expect: NonEmpty<TurnExpect>,
}

impl Check for Turn {
    fn check(&self) -> Result<(), String> {
        let Some(tools) = &self.client_tools else {
            return Ok(());
        };
        let mut dups: Vec<&str> = tools
            .iter()
            .enumerate()
            .filter(|(i, t)| tools[..*i].iter().any(|o| o.name.0 == t.name.0))
            .map(|(_, t)| t.name.0.as_str())
            .collect();
        dups.sort_unstable();
        dups.dedup();
        if dups.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "clientTools: duplicate tool name(s) {}",
                dups.join(", ")
            ))
        }
    }
}

/// A hosted tool offered for a turn.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientTool {
    /// Tool name.
    pub name: NonEmptyString,
    /// Description.
    pub description: String,
    /// JSON schema, free-form.
    pub parameters: Object,
}

/// One scripted HTTP response.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Scripted {
    /// May be left unused.
    pub optional: Option<bool>,
    /// What the request must look like.
    pub expect_request: Option<ExpectRequest>,
    /// The reply.
    pub reply: Checked<Reply>,
}

/// Checks on an incoming request.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ExpectRequest {
    /// Provider id (URL prefix).
    pub provider: Option<String>,
    /// Wire API.
    pub api: Option<Api>,
    /// Model id.
    pub model: Option<String>,
    /// API key sent.
    pub api_key: Option<String>,
    /// Normalized wire roles.
    pub roles: Option<Vec<WireRole>>,
    /// Number of wire messages.
    pub message_count: Option<Count>,
    /// Last user text contains.
    pub last_user_text_contains: Option<String>,
    /// System prompt contains each.
    pub system_contains: Option<Vec<String>>,
    /// System prompt contains none.
    pub system_not_contains: Option<Vec<String>>,
    /// Tool names, sorted.
    pub tool_names: Option<Checked<SortedNames>>,
    /// Tool names include each.
    pub tool_names_include: Option<Vec<String>>,
    /// Body contains each.
    pub body_contains: Option<Vec<String>>,
    /// Body contains none.
    pub body_not_contains: Option<Vec<String>>,
    /// JSON pointer checks.
    pub json: Option<Checked<PointerChecks>>,
}

/// A sorted list of names.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(transparent)]
pub struct SortedNames(pub Vec<String>);

impl Check for SortedNames {
    fn check(&self) -> Result<(), String> {
        if self.0.windows(2).all(|w| w[0] <= w[1]) {
            Ok(())
        } else {
            Err("toolNames must be sorted".to_owned())
        }
    }
}

/// JSON pointer → expected value.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(transparent)]
pub struct PointerChecks(pub BTreeMap<String, Value>);

impl Check for PointerChecks {
    fn check(&self) -> Result<(), String> {
        match self
            .0
            .keys()
            .find(|k| !(k.is_empty() || k.starts_with('/')))
        {
            Some(k) => Err(format!(
                "JSON pointer {k:?} must be empty or start with '/'"
            )),
            None => Ok(()),
        }
    }
}

/// A scripted reply.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Reply {
    /// Reply text.
    pub text: Option<String>,
    /// Reply text in chunks.
    pub text_chunks: Option<Vec<String>>,
    /// Thinking text.
    pub thinking: Option<String>,
    /// Tool calls.
    pub tool_calls: Option<Vec<Checked<ReplyToolCall>>>,
    /// Usage to encode.
    pub usage: Option<ReplyUsage>,
    /// Stop reason.
    pub stop_reason: Option<ReplyStopReason>,
    /// HTTP status.
    pub status: Option<HttpStatus>,
    /// Raw body.
    pub body: Option<ObjectOrString>,
    /// Response headers.
    pub headers: Option<BTreeMap<String, String>>,
    /// In-stream error message.
    pub stream_error: Option<String>,
    /// Close after N chunks.
    pub drop_after_chunks: Option<Count>,
    /// Stall duration.
    pub stall_ms: Option<f64>,
    /// Stall after the n-th chunk.
    pub stall_after_chunks: Option<PosCount>,
    /// Delay between chunks.
    pub chunk_delay_ms: Option<f64>,
    /// Raw response text.
    pub raw: Option<String>,
    /// Content type.
    pub content_type: Option<String>,
}

impl Check for Reply {
    fn check(&self) -> Result<(), String> {
        if self.stall_after_chunks.is_some() && self.stall_ms.is_none() {
            return Err("'stallAfterChunks' without 'stallMs': nothing would stall".to_owned());
        }
        if self.text.is_some() && self.text_chunks.is_some() {
            return Err("give 'text' or 'textChunks', not both".to_owned());
        }
        Ok(())
    }
}

/// A scripted tool call.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ReplyToolCall {
    /// Call id.
    pub id: Option<String>,
    /// Tool name.
    pub name: NonEmptyString,
    /// Arguments object.
    pub arguments: Option<Object>,
    /// Raw arguments text.
    pub arguments_raw: Option<String>,
}

impl Check for ReplyToolCall {
    fn check(&self) -> Result<(), String> {
        if self.arguments.is_some() && self.arguments_raw.is_some() {
            Err("give 'arguments' or 'argumentsRaw', not both".to_owned())
        } else {
            Ok(())
        }
    }
}

/// Usage a scripted reply encodes.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ReplyUsage {
    /// Non-cached input.
    pub input: Option<f64>,
    /// Output.
    pub output: Option<f64>,
    /// Cache read.
    pub cache_read: Option<f64>,
    /// Cache write.
    pub cache_write: Option<f64>,
}

/// What a turn must produce.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TurnExpect {
    /// The turn result.
    pub result: Option<ResultExpect>,
    /// HTTP requests made.
    pub requests: Option<f64>,
    /// Subsequence of agent event types.
    pub events: Option<Vec<AgentEventType>>,
    /// Block replies.
    pub block_replies: Option<Vec<String>>,
    /// Session file checks.
    pub session: Option<SessionAfterTurn>,
    /// Workspace files (null: must not exist).
    pub workspace: Option<BTreeMap<String, Option<String>>>,
    /// Auth state per profile.
    pub auth: Option<BTreeMap<String, AuthAfterTurn>>,
}

/// The turn result.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ResultExpect {
    /// `success` or `final`.
    pub kind: Option<ResultKind>,
    /// Payload texts.
    pub texts: Option<Vec<String>>,
    /// Joined texts contain each.
    pub text_contains: Option<Vec<String>>,
    /// Any payload is an error.
    pub is_error: Option<bool>,
    /// Error kind.
    pub error_kind: Option<String>,
    /// Provider used.
    pub provider: Option<String>,
    /// Model used.
    pub model: Option<String>,
    /// Stop reason.
    pub stop_reason: Option<String>,
    /// Pending client tool calls.
    pub pending_tool_calls: Option<Vec<String>>,
    /// Compactions.
    pub compaction_count: Option<f64>,
    /// Aborted.
    pub aborted: Option<bool>,
    /// Accumulated usage.
    pub usage: Option<RunUsage>,
    /// Last call's usage.
    pub last_call_usage: Option<RunUsage>,
    /// Prompt tokens.
    pub prompt_tokens: Option<f64>,
}

/// Usage in a turn result.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RunUsage {
    /// Input.
    pub input: Option<f64>,
    /// Output.
    pub output: Option<f64>,
    /// Cache read.
    pub cache_read: Option<f64>,
    /// Cache write.
    pub cache_write: Option<f64>,
    /// Total (OpenClaw name).
    pub total: Option<f64>,
    /// Total (pi name).
    pub total_tokens: Option<f64>,
}

/// Session checks after a turn.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SessionAfterTurn {
    /// Subsequence of appended entry types.
    pub appended_types: Option<Vec<EntryType>>,
    /// Rebuilt context.
    pub messages: Option<Vec<MessageSummary>>,
    /// Every line parses.
    pub file_lines_valid_json: Option<bool>,
}

/// Auth state of one profile after a turn.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AuthAfterTurn {
    /// Any active cooldown.
    pub in_cooldown: Option<bool>,
    /// Disabled.
    pub disabled: Option<bool>,
    /// Errors (missing is 0).
    pub error_count: Option<f64>,
    /// Cooldown reason.
    pub cooldown_reason: Option<FailoverReason>,
}
