//! What a provider needs done to a transcript before it is replayed (reference openclaw-runner
//! §9 step 1, OpenClaw 2026.4 `resolveTranscriptPolicy`).
//!
//! OpenClaw asks the provider's plugin for a replay policy and, for a provider without one,
//! falls back to defaults by wire API. The bundled plugins' policies are few shapes ("strict
//! Anthropic", "Google Gemini", "OpenAI-compatible", "passthrough Gemini", OpenAI's own), so
//! they are written here as a table over the normalized provider id; everything else gets the
//! transport fallback. The resolver is pure: same inputs, same policy.

use super::images::SanitizeMode;
use super::provider_id::normalize_provider_id;

/// How tool-call ids are rewritten for a provider with strict id rules (OpenClaw
/// `ToolCallIdMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolCallIdMode {
    /// `[a-zA-Z0-9_-]`, at most 64 characters (Anthropic, Google, OpenAI-compatible APIs).
    Strict,
    /// Exactly 9 characters of `[a-zA-Z0-9]` (Mistral).
    Strict9,
}

/// How Gemini thought signatures are cleaned (OpenClaw `sanitizeThoughtSignatures`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ThoughtSignatureSanitation {
    /// Keep only signatures that are valid base64.
    pub allow_base64_only: bool,
    /// Look at `thoughtSignature` (camel case) as well as `thought_signature`.
    pub include_camel_case: bool,
}

/// What a provider needs done to a transcript (OpenClaw's `TranscriptPolicy`), as resolved by
/// [`resolve_transcript_policy`].
///
/// [`super::sanitize_session_history`] and [`super::validate_replay_turns`] apply the flags
/// that shape messages. The tool-call id mode and thought-signature sanitation describe the
/// request-time rewrites the provider layer makes (clawloop keeps a transcript's own ids and
/// rewrites them per request, deterministically); they are here so the runner reads every
/// per-provider decision from one place.
///
/// `Default` turns every step off (and keeps [`SanitizeMode::Full`]); OpenClaw's base policy,
/// which a provider's policy is merged onto, is [`TranscriptPolicy::OPENCLAW_BASE`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TranscriptPolicy {
    /// How far image sanitation goes.
    pub sanitize_mode: SanitizeMode,
    /// Rewrite tool-call ids to the provider's rules ([`TranscriptPolicy::tool_call_id_mode`]).
    pub sanitize_tool_call_ids: bool,
    /// The id rules, when ids are rewritten.
    pub tool_call_id_mode: Option<ToolCallIdMode>,
    /// Keep Anthropic's own `toolu_…` ids as they are when rewriting ids.
    pub preserve_native_anthropic_tool_use_ids: bool,
    /// Repair tool-call/result pairing.
    pub repair_tool_use_result_pairing: bool,
    /// Keep thinking signatures (the provider checks them on replay).
    pub preserve_signatures: bool,
    /// Clean Gemini thought signatures.
    pub sanitize_thought_signatures: Option<ThoughtSignatureSanitation>,
    /// Clean thinking signatures (off for every provider in OpenClaw 2026.4).
    pub sanitize_thinking_signatures: bool,
    /// Remove past reasoning blocks.
    pub drop_thinking_blocks: bool,
    /// Downgrade OpenAI Responses reasoning items and `fc_*` call/reasoning pairs
    /// ([`super::downgrade_openai_reasoning_blocks`],
    /// [`super::downgrade_openai_function_call_reasoning_pairs`]); set for the Responses APIs,
    /// which also get their pairing repaired before the downgrade rather than after.
    pub downgrade_openai_reasoning: bool,
    /// Put a user turn before a history that starts with the assistant.
    pub apply_google_turn_ordering: bool,
    /// Merge consecutive assistant messages ([`super::validate_replay_turns`]).
    pub validate_gemini_turns: bool,
    /// Strip dangling tool calls and merge consecutive user messages
    /// ([`super::validate_replay_turns`]).
    pub validate_anthropic_turns: bool,
    /// The provider accepts synthetic results for calls without one.
    pub allow_synthetic_tool_results: bool,
}

impl TranscriptPolicy {
    /// OpenClaw's `DEFAULT_TRANSCRIPT_POLICY`: images-only sanitation and pairing repair,
    /// nothing else.
    pub const OPENCLAW_BASE: TranscriptPolicy = TranscriptPolicy {
        sanitize_mode: SanitizeMode::ImagesOnly,
        sanitize_tool_call_ids: false,
        tool_call_id_mode: None,
        preserve_native_anthropic_tool_use_ids: false,
        repair_tool_use_result_pairing: true,
        preserve_signatures: false,
        sanitize_thought_signatures: None,
        sanitize_thinking_signatures: false,
        drop_thinking_blocks: false,
        downgrade_openai_reasoning: false,
        apply_google_turn_ordering: false,
        validate_gemini_turns: false,
        validate_anthropic_turns: false,
        allow_synthetic_tool_results: false,
    };

    /// Whether signed thinking is replayed exactly as the provider produced it (OpenClaw
    /// `shouldAllowProviderOwnedThinkingReplay`): an Anthropic API, Anthropic turn validation,
    /// signatures preserved and thinking kept.
    pub fn allows_provider_owned_thinking_replay(&self, api: &str) -> bool {
        is_anthropic_api(api)
            && self.validate_anthropic_turns
            && self.preserve_signatures
            && !self.drop_thinking_blocks
    }
}

/// The OpenAI Responses wire APIs, whose replays keep `call|item` ids and reasoning items.
pub fn is_openai_responses_api(api: &str) -> bool {
    matches!(
        api,
        "openai-responses" | "openai-codex-responses" | "azure-openai-responses"
    )
}

/// The transcript policy for a provider, wire API and model id (OpenClaw 2026.4
/// `resolveTranscriptPolicy` with its bundled provider plugins).
///
/// The provider id is normalized ([`normalize_provider_id`]). Providers OpenClaw ships a
/// replay policy for get that policy merged onto [`TranscriptPolicy::OPENCLAW_BASE`]:
///
/// * `anthropic`, `claude-cli`, `anthropic-vertex`, `amazon-bedrock`: strict Anthropic (full
///   sanitation, strict ids — native `toolu_` ids kept except on Bedrock — signatures kept,
///   Anthropic turn validation, synthetic results); thinking dropped for Claude models older
///   than 4.x (`opus-4`, `sonnet-4`, `haiku-4`, `claude-5`+ keep theirs).
/// * `minimax` (and `-cn`, `-portal`): strict Anthropic on the Anthropic APIs, else as
///   OpenAI-compatible.
/// * `google`, `google-vertex`, `google-antigravity`, `google-gemini-cli`: full sanitation,
///   strict ids, thought signatures cleaned, Google turn ordering, Gemini turn validation.
/// * `openai`, `openai-codex`, `azure-openai`: images only, no turn fixes; strict ids on
///   `openai-completions` only.
/// * `github-copilot`: thinking dropped for Claude models.
/// * `mistral`: `strict9` ids.
/// * `kimi`: signatures not kept (the base policy).
/// * OpenAI-compatible (`moonshot`, `ollama`, `xai`, `zai`, `fireworks`, `arcee`): strict ids
///   on the OpenAI APIs, plus turn ordering and both turn validations on
///   `openai-completions`.
/// * Gemini passthrough (`openrouter`, `opencode`, `opencode-go`, `kilocode`): no turn fixes;
///   thought signatures cleaned for Gemini models.
///
/// Any other provider gets the defaults of its API: `google-generative-ai` and
/// `google-gemini-cli` as Google; `anthropic-messages` and `bedrock-converse-stream` as strict
/// Anthropic; `openai-completions` strict ids, turn ordering and both validations; the
/// Responses APIs strict ids; anything else the base policy.
///
/// [`TranscriptPolicy::downgrade_openai_reasoning`] follows the API
/// ([`is_openai_responses_api`]).
///
/// ```
/// use clawloop_session::transforms::{resolve_transcript_policy, SanitizeMode, ToolCallIdMode};
///
/// let p = resolve_transcript_policy("mistral", "openai-completions", "mistral-large-latest");
/// assert_eq!(p.tool_call_id_mode, Some(ToolCallIdMode::Strict9));
/// let p = resolve_transcript_policy("anthropic", "anthropic-messages", "claude-3-7-sonnet-20250219");
/// assert!(p.drop_thinking_blocks && p.validate_anthropic_turns);
/// assert_eq!(p.sanitize_mode, SanitizeMode::Full);
/// ```
pub fn resolve_transcript_policy(provider: &str, api: &str, model_id: &str) -> TranscriptPolicy {
    let provider = normalize_provider_id(provider);
    let model = model_id.to_lowercase();
    let overrides = provider_replay_policy(&provider, api, &model)
        .unwrap_or_else(|| transport_fallback(api, &model));
    let mut policy = overrides.merged_onto(TranscriptPolicy::OPENCLAW_BASE);
    policy.downgrade_openai_reasoning = is_openai_responses_api(api);
    policy
}

/// A replay policy as a provider states it: only what it sets (OpenClaw
/// `ProviderReplayPolicy`).
#[derive(Debug, Clone, Copy, Default)]
struct Overrides {
    sanitize_mode: Option<SanitizeMode>,
    sanitize_tool_call_ids: Option<bool>,
    tool_call_id_mode: Option<ToolCallIdMode>,
    preserve_native_anthropic_tool_use_ids: Option<bool>,
    repair_tool_use_result_pairing: Option<bool>,
    preserve_signatures: Option<bool>,
    sanitize_thought_signatures: Option<ThoughtSignatureSanitation>,
    drop_thinking_blocks: Option<bool>,
    apply_google_turn_ordering: Option<bool>,
    validate_gemini_turns: Option<bool>,
    validate_anthropic_turns: Option<bool>,
    allow_synthetic_tool_results: Option<bool>,
}

impl Overrides {
    /// OpenClaw `mergeTranscriptPolicy`: every field the provider set replaces the base's.
    fn merged_onto(self, base: TranscriptPolicy) -> TranscriptPolicy {
        TranscriptPolicy {
            sanitize_mode: self.sanitize_mode.unwrap_or(base.sanitize_mode),
            sanitize_tool_call_ids: self
                .sanitize_tool_call_ids
                .unwrap_or(base.sanitize_tool_call_ids),
            tool_call_id_mode: self.tool_call_id_mode.or(base.tool_call_id_mode),
            preserve_native_anthropic_tool_use_ids: self
                .preserve_native_anthropic_tool_use_ids
                .unwrap_or(base.preserve_native_anthropic_tool_use_ids),
            repair_tool_use_result_pairing: self
                .repair_tool_use_result_pairing
                .unwrap_or(base.repair_tool_use_result_pairing),
            preserve_signatures: self.preserve_signatures.unwrap_or(base.preserve_signatures),
            sanitize_thought_signatures: self
                .sanitize_thought_signatures
                .or(base.sanitize_thought_signatures),
            sanitize_thinking_signatures: base.sanitize_thinking_signatures,
            drop_thinking_blocks: self
                .drop_thinking_blocks
                .unwrap_or(base.drop_thinking_blocks),
            downgrade_openai_reasoning: base.downgrade_openai_reasoning,
            apply_google_turn_ordering: self
                .apply_google_turn_ordering
                .unwrap_or(base.apply_google_turn_ordering),
            validate_gemini_turns: self
                .validate_gemini_turns
                .unwrap_or(base.validate_gemini_turns),
            validate_anthropic_turns: self
                .validate_anthropic_turns
                .unwrap_or(base.validate_anthropic_turns),
            allow_synthetic_tool_results: self
                .allow_synthetic_tool_results
                .unwrap_or(base.allow_synthetic_tool_results),
        }
    }
}

const GEMINI_SIGNATURES: ThoughtSignatureSanitation = ThoughtSignatureSanitation {
    allow_base64_only: true,
    include_camel_case: true,
};

fn is_anthropic_api(api: &str) -> bool {
    matches!(api, "anthropic-messages" | "bedrock-converse-stream")
}

fn is_google_api(api: &str) -> bool {
    matches!(api, "google-gemini-cli" | "google-generative-ai")
}

/// The policy of a provider OpenClaw bundles a replay policy for; `None` for any other
/// provider. A bundled policy that sets nothing for this API is `Some(default)`: the base
/// policy applies, not the transport fallback.
fn provider_replay_policy(provider: &str, api: &str, model: &str) -> Option<Overrides> {
    let policy = match provider {
        "anthropic" | "claude-cli" | "anthropic-vertex" => {
            strict_anthropic(drops_claude_thinking(model), true)
        }
        "amazon-bedrock" => strict_anthropic(drops_claude_thinking(model), false),
        "minimax" | "minimax-cn" | "minimax-portal" | "minimax-portal-cn" => {
            if is_anthropic_api(api) {
                strict_anthropic(drops_claude_thinking(model), false)
            } else {
                openai_compatible(api)
            }
        }
        "google" | "google-vertex" | "google-antigravity" | "google-gemini-cli" | "gemini-cli" => {
            google_gemini()
        }
        "openai" | "openai-codex" | "azure-openai" | "azure-openai-responses" => {
            let completions = api == "openai-completions";
            Overrides {
                sanitize_mode: Some(SanitizeMode::ImagesOnly),
                sanitize_tool_call_ids: Some(completions),
                tool_call_id_mode: completions.then_some(ToolCallIdMode::Strict),
                apply_google_turn_ordering: Some(false),
                validate_gemini_turns: Some(false),
                validate_anthropic_turns: Some(false),
                ..Overrides::default()
            }
        }
        "github-copilot" => Overrides {
            drop_thinking_blocks: model.contains("claude").then_some(true),
            ..Overrides::default()
        },
        "mistral" => Overrides {
            sanitize_tool_call_ids: Some(true),
            tool_call_id_mode: Some(ToolCallIdMode::Strict9),
            ..Overrides::default()
        },
        "kimi" | "kimi-code" | "kimi-coding" => Overrides {
            preserve_signatures: Some(false),
            ..Overrides::default()
        },
        "moonshot" | "ollama" | "xai" | "x-ai" | "zai" | "z-ai" | "z.ai" | "fireworks"
        | "fireworks-ai" | "arcee" => openai_compatible(api),
        "openrouter" | "opencode" | "opencode-go" | "kilocode" => Overrides {
            apply_google_turn_ordering: Some(false),
            validate_gemini_turns: Some(false),
            validate_anthropic_turns: Some(false),
            sanitize_thought_signatures: model.contains("gemini").then_some(GEMINI_SIGNATURES),
            ..Overrides::default()
        },
        _ => return None,
    };
    Some(policy)
}

/// OpenClaw `buildUnownedProviderTransportReplayFallback`: defaults by wire API for a
/// provider without a replay policy of its own.
fn transport_fallback(api: &str, model: &str) -> Overrides {
    let google = is_google_api(api);
    let anthropic = is_anthropic_api(api);
    let completions = api == "openai-completions";
    let openai_ids = completions || is_openai_responses_api(api);
    if !google && !anthropic && !openai_ids {
        return Overrides::default();
    }
    let strict_ids = google || anthropic || openai_ids;
    Overrides {
        sanitize_mode: (google || anthropic).then_some(SanitizeMode::Full),
        sanitize_tool_call_ids: strict_ids.then_some(true),
        tool_call_id_mode: strict_ids.then_some(ToolCallIdMode::Strict),
        preserve_signatures: anthropic.then_some(true),
        sanitize_thought_signatures: google.then_some(GEMINI_SIGNATURES),
        drop_thinking_blocks: (anthropic && model.contains("claude"))
            .then(|| !preserves_thinking_blocks(model)),
        apply_google_turn_ordering: (google || completions).then_some(true),
        validate_gemini_turns: (google || completions).then_some(true),
        validate_anthropic_turns: (anthropic || completions).then_some(true),
        allow_synthetic_tool_results: (google || anthropic).then_some(true),
        ..Overrides::default()
    }
}

/// OpenClaw `buildStrictAnthropicReplayPolicy` (ids always sanitized).
fn strict_anthropic(drop_thinking_blocks: bool, preserve_native_ids: bool) -> Overrides {
    Overrides {
        sanitize_mode: Some(SanitizeMode::Full),
        sanitize_tool_call_ids: Some(true),
        tool_call_id_mode: Some(ToolCallIdMode::Strict),
        preserve_native_anthropic_tool_use_ids: preserve_native_ids.then_some(true),
        preserve_signatures: Some(true),
        repair_tool_use_result_pairing: Some(true),
        validate_anthropic_turns: Some(true),
        allow_synthetic_tool_results: Some(true),
        drop_thinking_blocks: drop_thinking_blocks.then_some(true),
        ..Overrides::default()
    }
}

/// OpenClaw `buildGoogleGeminiReplayPolicy`.
fn google_gemini() -> Overrides {
    Overrides {
        sanitize_mode: Some(SanitizeMode::Full),
        sanitize_tool_call_ids: Some(true),
        tool_call_id_mode: Some(ToolCallIdMode::Strict),
        sanitize_thought_signatures: Some(GEMINI_SIGNATURES),
        repair_tool_use_result_pairing: Some(true),
        apply_google_turn_ordering: Some(true),
        validate_gemini_turns: Some(true),
        validate_anthropic_turns: Some(false),
        allow_synthetic_tool_results: Some(true),
        ..Overrides::default()
    }
}

/// OpenClaw `buildOpenAICompatibleReplayPolicy`: nothing for a non-OpenAI API.
fn openai_compatible(api: &str) -> Overrides {
    let completions = api == "openai-completions";
    if !completions && !is_openai_responses_api(api) {
        return Overrides::default();
    }
    Overrides {
        sanitize_tool_call_ids: Some(true),
        tool_call_id_mode: Some(ToolCallIdMode::Strict),
        apply_google_turn_ordering: Some(completions),
        validate_gemini_turns: Some(completions),
        validate_anthropic_turns: Some(completions),
        ..Overrides::default()
    }
}

/// Whether a Claude model's past thinking is dropped: Claude models before the 4.x families.
fn drops_claude_thinking(model: &str) -> bool {
    model.contains("claude") && !preserves_thinking_blocks(model)
}

/// OpenClaw `shouldPreserveThinkingBlocks`: Claude 4.x families (`opus-4`, `sonnet-4`,
/// `haiku-4`) and `claude-5` onwards keep their thinking in context natively; dropping it
/// would break prompt-cache prefixes. `model` is lowercased.
fn preserves_thinking_blocks(model: &str) -> bool {
    if !model.contains("claude") {
        return false;
    }
    if ["opus-4", "sonnet-4", "haiku-4"]
        .iter()
        .any(|family| model.contains(family))
    {
        return true;
    }
    // `claude-[5-9]` or `claude-` followed by two digits or more.
    model.match_indices("claude-").any(|(at, prefix)| {
        let rest = &model.as_bytes()[at + prefix.len()..];
        match rest {
            [first, second, ..] if first.is_ascii_digit() && second.is_ascii_digit() => true,
            [first, ..] => (b'5'..=b'9').contains(first),
            [] => false,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn claude_thinking_preservation_by_model() {
        let cases = [
            ("claude-opus-4-6", true),
            ("claude-sonnet-4-5-20250929", true),
            ("us.anthropic.claude-haiku-4-5", true),
            ("claude-5-sonnet", true),
            ("claude-10", true),
            ("claude-3-7-sonnet-20250219", false),
            ("claude-3-5-sonnet", false),
            ("claude-", false),
            ("gpt-4o", false),
        ];
        let actual: Vec<(&str, bool)> = cases
            .iter()
            .map(|(m, _)| (*m, preserves_thinking_blocks(m)))
            .collect();
        assert_eq!(actual, cases.to_vec());
    }
}
