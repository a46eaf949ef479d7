//! `[agents.defaults]` (SPEC §2), with SPEC's defaults.

use clawloop_core::ThinkLevel;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `agents.defaults.maxToolRounds` when unset: far more than a real task takes, few enough
/// that a model calling tools in a loop stops within minutes.
pub const DEFAULT_MAX_TOOL_ROUNDS: u32 = 200;

/// `[agents]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentsConfig {
    /// `[agents.defaults]`.
    #[serde(default)]
    pub defaults: AgentDefaults,
    /// Keys this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `[agents.defaults]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct AgentDefaults {
    /// Thinking level of a run that does not set one.
    #[schemars(schema_with = "super::schema::think_level")]
    pub thinking_default: ThinkLevel,
    /// The whole run's time limit in seconds; `0` = none.
    pub timeout_seconds: f64,
    /// Global lane concurrency (session lanes are always 1).
    pub max_concurrent: u32,
    /// The most tool rounds (model replies that call tools) one turn may take before it stops
    /// as a failure; `0` = no limit.
    pub max_tool_rounds: u32,
    /// Caps (never raises) a model's context window.
    pub context_tokens: u64,
    /// Primary model and fallbacks.
    pub model: ModelSelection,
    /// `[agents.defaults.llm]`.
    pub llm: LlmConfig,
    /// `[agents.defaults.compaction]`.
    pub compaction: CompactionConfig,
    /// `[agents.defaults.blockStreaming]`.
    pub block_streaming: BlockStreamingConfig,
    /// `[agents.defaults.retry]`.
    pub retry: RetryConfig,
    /// `[agents.defaults.contextPruning]`.
    pub context_pruning: ContextPruningConfig,
    /// `[agents.defaults.session]`.
    pub session: SessionConfig,
    /// `[agents.defaults.tools]`.
    pub tools: ToolsConfig,
    /// Keys this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Default for AgentDefaults {
    fn default() -> Self {
        AgentDefaults {
            thinking_default: ThinkLevel::Off,
            timeout_seconds: 600.0,
            max_concurrent: 4,
            max_tool_rounds: DEFAULT_MAX_TOOL_ROUNDS,
            context_tokens: 200_000,
            model: ModelSelection::default(),
            llm: LlmConfig::default(),
            compaction: CompactionConfig::default(),
            block_streaming: BlockStreamingConfig::default(),
            retry: RetryConfig::default(),
            context_pruning: ContextPruningConfig::default(),
            session: SessionConfig::default(),
            tools: ToolsConfig::default(),
            extra: Map::new(),
        }
    }
}

/// `[agents.defaults.model]`: `provider/model` references.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct ModelSelection {
    /// The model a run uses unless told otherwise.
    pub primary: Option<String>,
    /// Models tried in order when the primary fails.
    pub fallbacks: Vec<String>,
    /// Keys this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `[agents.defaults.llm]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct LlmConfig {
    /// No stream event for this long is a timeout; `0` disables.
    pub idle_timeout_seconds: f64,
    /// Keys this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Default for LlmConfig {
    fn default() -> Self {
        LlmConfig {
            idle_timeout_seconds: 120.0,
            extra: Map::new(),
        }
    }
}

/// `[agents.defaults.compaction]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct CompactionConfig {
    /// Whether sessions compact on their own.
    pub enabled: bool,
    /// Room kept free for the reply: compact past `contextWindow - reserveTokens`.
    pub reserve_tokens: u64,
    /// Recent tokens kept verbatim by a compaction.
    pub keep_recent_tokens: u64,
    /// Lower bound of the reserve applied to a session's settings.
    pub reserve_tokens_floor: u64,
    /// Compaction safety timeout in seconds.
    pub timeout_seconds: f64,
    /// Tell the user when a compaction starts.
    pub notify_user: bool,
    /// Keys this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Default for CompactionConfig {
    fn default() -> Self {
        CompactionConfig {
            enabled: true,
            reserve_tokens: 16_384,
            keep_recent_tokens: 20_000,
            reserve_tokens_floor: 20_000,
            timeout_seconds: 300.0,
            notify_user: false,
            extra: Map::new(),
        }
    }
}

/// When block replies are cut.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum BreakMode {
    /// At the end of every text block (and before tools).
    #[default]
    #[serde(rename = "text_end")]
    TextEnd,
    /// Only at the end of the message.
    #[serde(rename = "message_end")]
    MessageEnd,
}

/// `[agents.defaults.blockStreaming]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct BlockStreamingConfig {
    /// Whether replies stream as blocks.
    pub enabled: bool,
    /// When blocks are cut.
    #[serde(rename = "break")]
    pub break_mode: BreakMode,
    /// Smallest block, in characters.
    pub min_chars: usize,
    /// Largest block, in characters.
    pub max_chars: usize,
    /// `paragraph`, `newline` or `sentence`.
    pub break_preference: String,
    /// Keys this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Default for BlockStreamingConfig {
    fn default() -> Self {
        BlockStreamingConfig {
            enabled: true,
            break_mode: BreakMode::TextEnd,
            min_chars: 800,
            max_chars: 1200,
            break_preference: "paragraph".to_owned(),
            extra: Map::new(),
        }
    }
}

/// `[agents.defaults.retry]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct RetryConfig {
    /// Wait before the one whole-turn retry after a transient HTTP error.
    pub transient_http_retry_delay_ms: u64,
    /// Keys this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Default for RetryConfig {
    fn default() -> Self {
        RetryConfig {
            transient_http_retry_delay_ms: 2500,
            extra: Map::new(),
        }
    }
}

/// Whether the prompt-cache TTL marker is written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ContextPruningMode {
    /// No marker.
    #[default]
    Off,
    /// Append `openclaw.cache-ttl` after each eligible attempt.
    CacheTtl,
}

/// `[agents.defaults.contextPruning]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct ContextPruningConfig {
    /// Whether the prompt-cache TTL marker (`openclaw.cache-ttl`) is appended after each
    /// eligible attempt.
    pub mode: ContextPruningMode,
    /// Keys this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `[agents.defaults.session]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct SessionConfig {
    /// Start a new transcript for the key when an overflow cannot be recovered (SPEC §8.6).
    pub reset_on_overflow: bool,
    /// Keys this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            reset_on_overflow: true,
            extra: Map::new(),
        }
    }
}

/// `[agents.defaults.tools]`: the tool policy.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct ToolsConfig {
    /// Tools offered; empty means all.
    pub allow: Vec<String>,
    /// Tools never offered.
    pub deny: Vec<String>,
    /// Keys this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
