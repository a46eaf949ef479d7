//! `buildEmbeddedRunPayloads` (reference §7): the replies a finished attempt gives the user.

use clawloop_core::StopReason;
use clawloop_core::error_text::{BILLING_TEXT, ErrorTextContext};
use clawloop_core::js_text::js_trim;
use clawloop_core::message::AssistantMessage;
use clawloop_subscribe::messaging_dedupe::normalize_text_for_comparison;
use clawloop_subscribe::{
    LastToolError, ReasoningMode, ReplyDirectiveOptions, ReplyDirectives, ToolMeta,
    ToolResultFormat, VerboseLevel, extract_assistant_text, extract_assistant_thinking,
    format_reasoning_message, format_tool_aggregate, parse_reply_directives,
};

use super::error_filter::{AssistantErrorState, GENERIC_ERROR_TEXT};
use super::reply_payload::ReplyPayload;
use super::tool_error_warning::{WarningContext, tool_error_warning};
use crate::attempt::AttemptResult;

/// What [`build_run_payloads`] reads: the attempt's texts and last messages, and the run's
/// display settings.
#[derive(Debug, Clone, Copy, Default)]
pub struct PayloadInput<'a> {
    /// The visible texts the subscription collected, in order.
    pub assistant_texts: &'a [String],
    /// One meta per finished tool call.
    pub tool_metas: &'a [ToolMeta],
    /// The attempt's last assistant message.
    pub last_assistant: Option<&'a AssistantMessage>,
    /// The last tool failure no later success resolved.
    pub last_tool_error: Option<&'a LastToolError>,
    /// The run's provider (named in the billing copy).
    pub provider: Option<&'a str>,
    /// The run's model id (named in the billing copy).
    pub model: Option<&'a str>,
    /// Tool verbosity; `on`/`full` put the error text in tool warnings.
    pub verbose: VerboseLevel,
    /// Reasoning display; only [`ReasoningMode::On`] adds a reasoning payload.
    pub reasoning: ReasoningMode,
    /// Markdown or plain tool summaries.
    pub tool_result_format: ToolResultFormat,
    /// One payload per tool call (OpenClaw `inlineToolResultsAllowed`; the embedded runner
    /// passes `false`).
    pub inline_tool_results_allowed: bool,
    /// Hide every tool-error warning.
    pub suppress_tool_error_warnings: bool,
    /// `messages.suppressToolErrors`: hide warnings about non-mutating tool failures.
    pub suppress_tool_errors: bool,
    /// The run was started by cron (an exec timeout warning then includes its text).
    pub cron_run: bool,
    /// A deterministic approval prompt was sent: the assistant's own texts, reasoning and error
    /// are not shown.
    pub did_send_deterministic_approval_prompt: bool,
    /// The id `[[reply_to_current]]` resolves to.
    pub current_message_id: Option<&'a str>,
}

impl<'a> PayloadInput<'a> {
    /// The attempt's part of the input; display settings stay at their defaults (markdown,
    /// verbose and reasoning off, nothing suppressed).
    pub fn from_attempt(attempt: &'a AttemptResult) -> Self {
        PayloadInput {
            assistant_texts: &attempt.subscription.assistant_texts,
            tool_metas: &attempt.subscription.tool_metas,
            last_assistant: attempt.last_assistant.as_ref(),
            last_tool_error: attempt.subscription.last_tool_error.as_ref(),
            ..PayloadInput::default()
        }
    }
}

/// Builds the run's reply payloads, in this order (reference §7):
///
/// 1. the user-facing error copy of an errored last assistant message (`isError`);
/// 2. one summary per tool call, only with `inline_tool_results_allowed` and verbose on;
/// 3. the reasoning (`Reasoning:` and `_line_`s) with reasoning `on` (`isReasoning`);
/// 4. the answer: the collected texts, else the last assistant's visible text, without the
///    texts that repeat an error (the copy, the generic and billing copy, the raw error, its UI
///    form, the same provider payload, any raw provider payload); each read for `MEDIA:` lines,
///    `[[audio_as_voice]]` and reply-to tags;
/// 5. the warning about the last tool failure, unless its policy hides it or an item already
///    says the same (`isError`).
///
/// Texts are trimmed; `[[audio_as_voice]]` on any item applies to every item with media;
/// items with neither text nor media, and silent replies (`NO_REPLY`, `{"action":"NO_REPLY"}`),
/// are dropped.
pub fn build_run_payloads(input: &PayloadInput<'_>) -> Vec<ReplyPayload> {
    let suppress_assistant = input.did_send_deterministic_approval_prompt;
    let markdown = input.tool_result_format.is_markdown();
    let directive_options = ReplyDirectiveOptions {
        current_message_id: input.current_message_id,
        silent_token: None,
    };
    let mut items: Vec<ReplyPayload> = Vec::new();

    let errored = input
        .last_assistant
        .filter(|a| !suppress_assistant && a.stop_reason == StopReason::Error);
    let ctx = ErrorTextContext {
        provider: input.provider,
        model: input.model,
    };
    let error_state = errored
        .map(|a| AssistantErrorState::of(a, &ctx))
        .unwrap_or_default();
    if let Some(text) = &error_state.error_text {
        items.push(ReplyPayload::error(text.clone()));
    }

    if input.inline_tool_results_allowed
        && input.verbose != VerboseLevel::Off
        && !input.tool_metas.is_empty()
    {
        for meta in input.tool_metas {
            let metas: Vec<&str> = meta.meta.as_deref().into_iter().collect();
            let line = format_tool_aggregate(&meta.tool_name, &metas, markdown, None);
            let parsed = parse_reply_directives(&line, &directive_options);
            if !parsed.text.is_empty() {
                items.push(directive_payload(parsed));
            }
        }
    }

    if !suppress_assistant
        && input.reasoning == ReasoningMode::On
        && let Some(last) = input.last_assistant
    {
        let reasoning = format_reasoning_message(&extract_assistant_thinking(last));
        if !reasoning.is_empty() {
            items.push(ReplyPayload {
                is_reasoning: true,
                ..ReplyPayload::text(reasoning)
            });
        }
    }

    let fallback;
    let raw_answers: &[String] = if suppress_assistant {
        &[]
    } else if !input.assistant_texts.is_empty() {
        input.assistant_texts
    } else {
        fallback = input
            .last_assistant
            .map(extract_assistant_text)
            .filter(|t| !t.is_empty())
            .map(|t| vec![t])
            .unwrap_or_default();
        &fallback
    };
    let billing = errored.map(|_| normalize_text_for_comparison(BILLING_TEXT));
    let mut has_user_facing_reply = false;
    for text in raw_answers {
        let trimmed = js_trim(text);
        if trimmed.is_empty() {
            continue;
        }
        if errored.is_some() && repeats_error(trimmed, &error_state, billing.as_deref()) {
            continue;
        }
        let parsed = parse_reply_directives(text, &directive_options);
        if parsed.text.is_empty() && parsed.media_urls.is_empty() && !parsed.audio_as_voice {
            continue;
        }
        items.push(directive_payload(parsed));
        has_user_facing_reply = true;
    }

    if let Some(error) = input.last_tool_error {
        let ctx = WarningContext {
            verbose: input.verbose,
            cron_run: input.cron_run,
            suppress_tool_error_warnings: input.suppress_tool_error_warnings,
            suppress_tool_errors: input.suppress_tool_errors,
            markdown,
        };
        if let Some(warning) = tool_error_warning(error, &ctx, has_user_facing_reply) {
            let normalized = normalize_text_for_comparison(&warning);
            let duplicate = !normalized.is_empty()
                && items.iter().any(|item| {
                    item.text
                        .as_deref()
                        .map(normalize_text_for_comparison)
                        .is_some_and(|existing| !existing.is_empty() && existing == normalized)
                });
            if !duplicate {
                items.push(ReplyPayload::error(warning));
            }
        }
    }

    finish(items, &directive_options)
}

/// Whether an answer text only repeats the error the error payload already reports.
fn repeats_error(trimmed: &str, state: &AssistantErrorState, billing: Option<&str>) -> bool {
    if state.repeats_raw_error(trimmed) || trimmed == GENERIC_ERROR_TEXT {
        return true;
    }
    let normalized = normalize_text_for_comparison(trimmed);
    state.normalized_error_text.as_deref() == Some(normalized.as_str())
        || (!normalized.is_empty() && billing.is_some_and(|b| !b.is_empty() && b == normalized))
}

fn directive_payload(parsed: ReplyDirectives) -> ReplyPayload {
    ReplyPayload {
        text: Some(parsed.text),
        media_urls: parsed.media_urls,
        reply_to_id: parsed.reply_to_id,
        reply_to_tag: parsed.reply_to_tag,
        reply_to_current: parsed.reply_to_current,
        audio_as_voice: parsed.audio_as_voice,
        ..ReplyPayload::default()
    }
}

/// OpenClaw's final mapping: trimmed text (`None` when blank), the voice flag spread to every
/// item with media, then items without content and silent replies dropped.
fn finish(items: Vec<ReplyPayload>, options: &ReplyDirectiveOptions<'_>) -> Vec<ReplyPayload> {
    let any_voice = items.iter().any(|item| item.audio_as_voice);
    items
        .into_iter()
        .map(|mut item| {
            item.text = item
                .text
                .as_deref()
                .map(js_trim)
                .filter(|t| !t.is_empty())
                .map(str::to_owned);
            item.audio_as_voice |= any_voice && !item.media_urls.is_empty();
            item
        })
        .filter(|item| {
            item.has_content()
                && !item
                    .text
                    .as_deref()
                    .is_some_and(|text| parse_reply_directives(text, options).is_silent)
        })
        .collect()
}
