//! The closed vocabularies of the scenario format (FORMAT.md): APIs, event types, roles and
//! other enumerations that are not already types of `clawloop-core`.

use serde::Deserialize;

/// Chunker break preference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BreakPreference {
    /// Break at blank lines.
    Paragraph,
    /// Break at newlines.
    Newline,
    /// Break at sentence ends.
    Sentence,
}

/// A provider wire API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum Api {
    /// OpenAI Chat Completions.
    #[serde(rename = "openai-completions")]
    OpenaiCompletions,
    /// OpenAI Responses.
    #[serde(rename = "openai-responses")]
    OpenaiResponses,
    /// Anthropic Messages.
    #[serde(rename = "anthropic-messages")]
    AnthropicMessages,
    /// Google Generative AI.
    #[serde(rename = "google-generative-ai")]
    GoogleGenerativeAi,
    /// Ollama native chat.
    #[serde(rename = "ollama")]
    Ollama,
}

/// A normalized provider stream event type (SPEC §Providers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StreamEventType {
    /// `start`
    Start,
    /// `text_start`
    TextStart,
    /// `text_delta`
    TextDelta,
    /// `text_end`
    TextEnd,
    /// `thinking_start`
    ThinkingStart,
    /// `thinking_delta`
    ThinkingDelta,
    /// `thinking_end`
    ThinkingEnd,
    /// `toolcall_start`
    ToolcallStart,
    /// `toolcall_delta`
    ToolcallDelta,
    /// `toolcall_end`
    ToolcallEnd,
    /// `done`
    Done,
    /// `error`
    Error,
}

/// An agent event type (pi-mono §2.2 plus the compaction and retry events).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentEventType {
    /// `agent_start`
    AgentStart,
    /// `agent_end`
    AgentEnd,
    /// `turn_start`
    TurnStart,
    /// `turn_end`
    TurnEnd,
    /// `message_start`
    MessageStart,
    /// `message_update`
    MessageUpdate,
    /// `message_end`
    MessageEnd,
    /// `tool_execution_start`
    ToolExecutionStart,
    /// `tool_execution_update`
    ToolExecutionUpdate,
    /// `tool_execution_end`
    ToolExecutionEnd,
    /// `auto_compaction_start`
    AutoCompactionStart,
    /// `auto_compaction_end`
    AutoCompactionEnd,
    /// `auto_retry_start`
    AutoRetryStart,
    /// `auto_retry_end`
    AutoRetryEnd,
}

/// A session entry type (pi-mono §3.3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryType {
    /// `message`
    Message,
    /// `thinking_level_change`
    ThinkingLevelChange,
    /// `model_change`
    ModelChange,
    /// `compaction`
    Compaction,
    /// `branch_summary`
    BranchSummary,
    /// `custom`
    Custom,
    /// `custom_message`
    CustomMessage,
    /// `label`
    Label,
    /// `session_info`
    SessionInfo,
}

/// The role of a message in summary form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SummaryRole {
    /// `user`
    User,
    /// `assistant`
    Assistant,
    /// `toolResult`
    ToolResult,
    /// `compactionSummary`
    CompactionSummary,
    /// `branchSummary`
    BranchSummary,
    /// `custom`
    Custom,
    /// `bashExecution`
    BashExecution,
}

/// A message role as sent on the wire, normalized.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WireRole {
    /// `system` (also `developer`)
    System,
    /// `user`
    User,
    /// `assistant`
    Assistant,
    /// `tool`
    Tool,
}

/// The stop reason a scripted reply may ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ReplyStopReason {
    /// `stop`
    Stop,
    /// `length`
    Length,
    /// `toolUse`
    ToolUse,
}

/// Where the context window came from (guard kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum WindowSource {
    /// `model`
    Model,
    /// `modelsConfig`
    ModelsConfig,
    /// `agentContextTokens`
    AgentContextTokens,
    /// `default`
    Default,
}

/// When block replies are cut (subscribe kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockReplyBreak {
    /// `text_end`
    TextEnd,
    /// `message_end`
    MessageEnd,
}

/// Whether and how reasoning is delivered (subscribe kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReasoningLevel {
    /// `off`
    Off,
    /// `on`
    On,
    /// `stream`
    Stream,
}

/// The kind of an auth profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProfileType {
    /// `api_key`
    ApiKey,
    /// `token`
    Token,
    /// `oauth`
    Oauth,
}

/// The kind of a turn result (run kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ResultKind {
    /// `success`
    Success,
    /// `final`
    Final,
}

/// An input modality of a model (wire kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Modality {
    /// `text`
    Text,
    /// `image`
    Image,
}
