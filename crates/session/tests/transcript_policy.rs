//! The transcript policy per provider, API and model (OpenClaw 2026.4 `resolveTranscriptPolicy`
//! with its bundled provider policies), as whole policies.

use clawloop_session::transforms::{
    SanitizeMode, ThoughtSignatureSanitation, ToolCallIdMode, TranscriptPolicy,
    resolve_transcript_policy,
};
use pretty_assertions::assert_eq;

const GEMINI_SIGNATURES: Option<ThoughtSignatureSanitation> = Some(ThoughtSignatureSanitation {
    allow_base64_only: true,
    include_camel_case: true,
});

fn base() -> TranscriptPolicy {
    TranscriptPolicy::OPENCLAW_BASE
}

fn strict_anthropic(drop_thinking: bool, native_ids: bool) -> TranscriptPolicy {
    TranscriptPolicy {
        sanitize_mode: SanitizeMode::Full,
        sanitize_tool_call_ids: true,
        tool_call_id_mode: Some(ToolCallIdMode::Strict),
        preserve_native_anthropic_tool_use_ids: native_ids,
        preserve_signatures: true,
        validate_anthropic_turns: true,
        allow_synthetic_tool_results: true,
        drop_thinking_blocks: drop_thinking,
        ..base()
    }
}

fn google() -> TranscriptPolicy {
    TranscriptPolicy {
        sanitize_mode: SanitizeMode::Full,
        sanitize_tool_call_ids: true,
        tool_call_id_mode: Some(ToolCallIdMode::Strict),
        sanitize_thought_signatures: GEMINI_SIGNATURES,
        apply_google_turn_ordering: true,
        validate_gemini_turns: true,
        allow_synthetic_tool_results: true,
        ..base()
    }
}

fn strict_openai_compatible() -> TranscriptPolicy {
    TranscriptPolicy {
        sanitize_tool_call_ids: true,
        tool_call_id_mode: Some(ToolCallIdMode::Strict),
        apply_google_turn_ordering: true,
        validate_gemini_turns: true,
        validate_anthropic_turns: true,
        ..base()
    }
}

fn responses(policy: TranscriptPolicy) -> TranscriptPolicy {
    TranscriptPolicy {
        downgrade_openai_reasoning: true,
        ..policy
    }
}

#[test]
fn policies_per_provider_api_and_model() {
    let strict_ids = TranscriptPolicy {
        sanitize_tool_call_ids: true,
        tool_call_id_mode: Some(ToolCallIdMode::Strict),
        ..base()
    };
    let cases: Vec<(&str, &str, &str, TranscriptPolicy)> = vec![
        // Anthropic, native: Claude 4.x keeps its thinking, 3.x drops it.
        (
            "anthropic",
            "anthropic-messages",
            "claude-opus-4-6",
            strict_anthropic(false, true),
        ),
        (
            "Anthropic ",
            "anthropic-messages",
            "claude-3-7-sonnet-20250219",
            strict_anthropic(true, true),
        ),
        (
            "anthropic-vertex",
            "anthropic-messages",
            "claude-sonnet-4-5",
            strict_anthropic(false, true),
        ),
        (
            "claude-cli",
            "anthropic-messages",
            "claude-3-5-sonnet",
            strict_anthropic(true, true),
        ),
        // Bedrock: the same without native id preservation (also under its alias).
        (
            "amazon-bedrock",
            "bedrock-converse-stream",
            "us.anthropic.claude-opus-4-6-v1",
            strict_anthropic(false, false),
        ),
        (
            "bedrock",
            "bedrock-converse-stream",
            "anthropic.claude-3-5-sonnet",
            strict_anthropic(true, false),
        ),
        // MiniMax: Anthropic on the Anthropic API, OpenAI-compatible on completions.
        (
            "minimax",
            "anthropic-messages",
            "MiniMax-M2.7",
            strict_anthropic(false, false),
        ),
        (
            "minimax-portal",
            "openai-completions",
            "MiniMax-M2.7",
            strict_openai_compatible(),
        ),
        // Google and its hook aliases.
        (
            "google",
            "google-generative-ai",
            "gemini-2.0-flash",
            google(),
        ),
        (
            "google-vertex",
            "google-generative-ai",
            "gemini-2.5-pro",
            google(),
        ),
        (
            "google-gemini-cli",
            "google-gemini-cli",
            "gemini-2.5-pro",
            google(),
        ),
        // OpenAI: images only, no turn fixes; strict ids only on completions.
        ("openai", "openai", "gpt-4o", base()),
        ("openai", "openai-completions", "gpt-5.4", strict_ids),
        ("openai", "openai-responses", "gpt-5.4", responses(base())),
        (
            "openai-codex",
            "openai-codex-responses",
            "gpt-5-codex",
            responses(base()),
        ),
        (
            "azure-openai-responses",
            "azure-openai-responses",
            "gpt-4.1",
            responses(base()),
        ),
        // Copilot drops thinking for Claude only.
        (
            "github-copilot",
            "anthropic-messages",
            "claude-sonnet-4",
            TranscriptPolicy {
                drop_thinking_blocks: true,
                ..base()
            },
        ),
        ("github-copilot", "openai-completions", "gpt-4o", base()),
        // Mistral: strict9 ids whatever the API.
        (
            "mistral",
            "openai-completions",
            "mistral-large-latest",
            TranscriptPolicy {
                sanitize_tool_call_ids: true,
                tool_call_id_mode: Some(ToolCallIdMode::Strict9),
                ..base()
            },
        ),
        // Kimi owns its policy: nothing beyond the base, even on the Anthropic API.
        ("kimi-code", "anthropic-messages", "kimi-code", base()),
        // OpenAI-compatible families.
        (
            "moonshot",
            "openai-completions",
            "kimi-k2.5",
            strict_openai_compatible(),
        ),
        (
            "ollama",
            "openai-completions",
            "llama3",
            strict_openai_compatible(),
        ),
        ("ollama", "ollama", "llama3", base()),
        ("xai", "openai-responses", "grok-4", responses(strict_ids)),
        (
            "z.ai",
            "openai-completions",
            "glm-4.6",
            strict_openai_compatible(),
        ),
        // Gemini passthrough routers: no turn fixes; signatures cleaned for Gemini models.
        ("openrouter", "openai-completions", "openai/gpt-4.1", base()),
        (
            "openrouter",
            "openai-completions",
            "google/gemini-2.5-pro-preview",
            TranscriptPolicy {
                sanitize_thought_signatures: GEMINI_SIGNATURES,
                ..base()
            },
        ),
        (
            "opencode",
            "openai-completions",
            "google/gemini-2.5-flash",
            TranscriptPolicy {
                sanitize_thought_signatures: GEMINI_SIGNATURES,
                ..base()
            },
        ),
        (
            "kilocode",
            "openai-completions",
            "gemini-2.0-flash",
            TranscriptPolicy {
                sanitize_thought_signatures: GEMINI_SIGNATURES,
                ..base()
            },
        ),
        // Unowned providers: defaults of the wire API.
        (
            "custom-openai-proxy",
            "openai-completions",
            "demo-model",
            strict_openai_compatible(),
        ),
        (
            "vllm",
            "openai-completions",
            "gemma-3-27b",
            strict_openai_compatible(),
        ),
        (
            "custom-anthropic-proxy",
            "anthropic-messages",
            "claude-opus-4-6",
            strict_anthropic(false, false),
        ),
        (
            "custom-anthropic-proxy",
            "anthropic-messages",
            "claude-3-7-sonnet-20250219",
            strict_anthropic(true, false),
        ),
        // A non-Claude model on an unowned Anthropic API states nothing about thinking.
        (
            "proxy",
            "anthropic-messages",
            "some-model",
            strict_anthropic(false, false),
        ),
        (
            "my-gemini",
            "google-generative-ai",
            "gemini-2.0-flash",
            google(),
        ),
        (
            "proxy",
            "openai-responses",
            "gpt-4.1",
            responses(strict_ids),
        ),
        ("lmstudio", "ollama", "qwen", base()),
        ("", "", "", base()),
    ];
    let actual: Vec<(&str, &str, &str, TranscriptPolicy)> = cases
        .iter()
        .map(|&(p, a, m, _)| (p, a, m, resolve_transcript_policy(p, a, m)))
        .collect();
    assert_eq!(actual, cases);
}

#[test]
fn provider_owned_thinking_replay() {
    let minimax = resolve_transcript_policy("minimax", "anthropic-messages", "MiniMax-M2.7");
    assert!(minimax.allows_provider_owned_thinking_replay("anthropic-messages"));
    let bedrock = resolve_transcript_policy(
        "amazon-bedrock",
        "bedrock-converse-stream",
        "us.anthropic.claude-opus-4-6-v1",
    );
    assert!(bedrock.allows_provider_owned_thinking_replay("bedrock-converse-stream"));
    let copilot =
        resolve_transcript_policy("github-copilot", "anthropic-messages", "claude-sonnet-4");
    assert!(!copilot.allows_provider_owned_thinking_replay("anthropic-messages"));
    let vllm = resolve_transcript_policy("vllm", "openai-completions", "gemma-3-27b");
    assert!(!vllm.allows_provider_owned_thinking_replay("openai-completions"));
    let old_claude = resolve_transcript_policy(
        "anthropic",
        "anthropic-messages",
        "claude-3-7-sonnet-20250219",
    );
    assert!(!old_claude.allows_provider_owned_thinking_replay("anthropic-messages"));
}
