//! The run's payloads, terminal texts, liveness, usage and meta (reference §7, §4.7, §20),
//! through the crate's public API with `AttemptResult` values as input. One table row per rule.

use std::collections::BTreeSet;

use clawloop_core::error_text::{
    CONTEXT_OVERFLOW_ERROR_TEXT, IDLE_TIMEOUT_PARTIAL_TEXT, IDLE_TIMEOUT_TEXT,
    INCOMPLETE_TURN_SIDE_EFFECTS_TEXT, INCOMPLETE_TURN_TEXT, RUN_TIMEOUT_PARTIAL_TEXT,
    RUN_TIMEOUT_TEXT, UNKNOWN_ERROR_TEXT,
};
use clawloop_core::message::{AssistantMessage, ContentBlock, ThinkingContent};
use clawloop_core::{StopReason, Usage};
use clawloop_runner::attempt::{AttemptResult, PromptError, PromptErrorSource};
use clawloop_runner::payloads::{
    AgentMeta, DeliveredEvidence, NormalizedUsage, PayloadInput, ReplyPayload, RunErrorKind,
    RunMeta, RunUsage, TerminalSignals, build_run_payloads, derive_prompt_tokens,
    drop_delivered_payloads, incomplete_turn_payload, incomplete_turn_text,
    partial_timeout_payload, resolve_liveness, resolve_replay_invalid, run_stop_reason,
    timeout_payload,
};
use clawloop_subscribe::{
    LastToolError, LivenessState, ReasoningMode, SubscriptionReport, ToolMeta, ToolResultFormat,
    UsageTotals, VerboseLevel, block_reply_payload_key,
};
use clawloop_tools::client_tools::PendingToolCall;
use pretty_assertions::assert_eq;

// ---- builders -----------------------------------------------------------------------------

fn assistant(stop: StopReason, blocks: Vec<ContentBlock>) -> AssistantMessage {
    let mut message = AssistantMessage::empty("openai-completions", "acme", "m1", 1);
    message.stop_reason = stop;
    message.content = blocks;
    message
}

fn errored(error: &str) -> AssistantMessage {
    let mut message = assistant(StopReason::Error, Vec::new());
    message.error_message = Some(error.to_owned());
    message
}

fn thinking(text: &str) -> ContentBlock {
    ContentBlock::Thinking(ThinkingContent {
        thinking: text.to_owned(),
        ..ThinkingContent::default()
    })
}

fn texts(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

/// `attempt` with its subscription report changed by `edit`.
fn reported(
    mut attempt: AttemptResult,
    edit: impl FnOnce(&mut SubscriptionReport),
) -> AttemptResult {
    edit(&mut attempt.subscription);
    attempt
}

fn answered(items: &[&str]) -> AttemptResult {
    AttemptResult {
        subscription: SubscriptionReport {
            assistant_texts: texts(items),
            ..SubscriptionReport::default()
        },
        last_assistant: Some(assistant(
            StopReason::Stop,
            vec![ContentBlock::text(items.join("\n"))],
        )),
        ..AttemptResult::default()
    }
}

fn tool_error(tool: &str, meta: Option<&str>, error: &str, mutating: bool) -> LastToolError {
    LastToolError {
        tool_name: tool.to_owned(),
        meta: meta.map(str::to_owned),
        error: Some(error.to_owned()),
        mutating_action: mutating,
        action_fingerprint: None,
    }
}

fn media(text: Option<&str>, urls: &[&str]) -> ReplyPayload {
    ReplyPayload {
        text: text.map(str::to_owned),
        media_urls: texts(urls),
        ..ReplyPayload::default()
    }
}

fn usage(input: u64, output: u64, cache_read: u64, cache_write: u64, total: u64) -> Usage {
    Usage {
        input,
        output,
        cache_read,
        cache_write,
        total_tokens: total,
        ..Usage::default()
    }
}

fn totals(input: u64, output: u64, cache_read: u64, total: u64) -> UsageTotals {
    let some = |n: u64| (n > 0).then_some(n);
    UsageTotals {
        input: some(input),
        output: some(output),
        cache_read: some(cache_read),
        cache_write: None,
        total: some(total),
    }
}

/// Display settings a row changes on top of the attempt's input.
#[derive(Clone, Copy, Default)]
struct Settings {
    verbose: VerboseLevel,
    reasoning: ReasoningMode,
    plain: bool,
    inline_tools: bool,
    suppress_warnings: bool,
    suppress_tool_errors: bool,
    cron: bool,
    approval_prompt: bool,
}

fn build(attempt: &AttemptResult, settings: Settings) -> Vec<ReplyPayload> {
    let input = PayloadInput {
        provider: Some("acme"),
        model: Some("m1"),
        verbose: settings.verbose,
        reasoning: settings.reasoning,
        tool_result_format: if settings.plain {
            ToolResultFormat::Plain
        } else {
            ToolResultFormat::Markdown
        },
        inline_tool_results_allowed: settings.inline_tools,
        suppress_tool_error_warnings: settings.suppress_warnings,
        suppress_tool_errors: settings.suppress_tool_errors,
        cron_run: settings.cron,
        did_send_deterministic_approval_prompt: settings.approval_prompt,
        current_message_id: Some("msg-7"),
        ..PayloadInput::from_attempt(attempt)
    };
    build_run_payloads(&input)
}

// ---- §7: buildEmbeddedRunPayloads ---------------------------------------------------------

#[test]
fn build_run_payloads_follows_every_rule_of_reference_7() {
    let raw_json =
        r#"{"type":"error","error":{"type":"api_error","message":"Internal server error"}}"#;
    let mut raw_echo = answered(&[raw_json, "Here is what I found."]);
    raw_echo.last_assistant = Some(errored(raw_json));

    let mut overflow = answered(&["prompt is too long: 250000 tokens > 200000 maximum"]);
    overflow.last_assistant = Some(errored(
        "prompt is too long: 250000 tokens > 200000 maximum",
    ));

    let mut generic_echo = answered(&[
        "The AI service returned an error. Please try again.",
        "Partial answer.",
    ]);
    generic_echo.last_assistant = Some(errored(""));

    let mut echo_in_other_json_form = answered(&[
        r#"{ "error": { "message": "Internal server error", "type": "api_error" }, "type": "error" }"#,
    ]);
    echo_in_other_json_form.last_assistant = Some(errored(raw_json));

    let fallback_visible = AttemptResult {
        last_assistant: Some(assistant(
            StopReason::Stop,
            vec![ContentBlock::text(
                "<think>hidden plan</think>Visible answer.",
            )],
        )),
        ..AttemptResult::default()
    };

    let mut with_reasoning = answered(&["The answer is 4."]);
    with_reasoning.last_assistant = Some(assistant(
        StopReason::Stop,
        vec![
            thinking("add two\n\nand two"),
            ContentBlock::text("The answer is 4."),
        ],
    ));

    let mut approval = answered(&["Should I proceed?"]);
    approval.last_assistant = Some(errored("500 Internal Server Error"));

    let inline_tools = reported(answered(&["Done."]), |r| {
        r.tool_metas = vec![ToolMeta {
            tool_name: "read".into(),
            meta: Some("/tmp/notes.md".into()),
        }];
    });

    let exec_failed = |error: &str| {
        reported(AttemptResult::default(), |r| {
            r.last_tool_error = Some(tool_error("exec", Some("ls /nope"), error, true));
        })
    };
    let read_failed = |error: &str, reply: bool| {
        let base = if reply {
            answered(&["I could not read it."])
        } else {
            AttemptResult::default()
        };
        reported(base, |r| {
            r.last_tool_error = Some(tool_error("read", Some("/tmp/x.txt"), error, false));
        })
    };
    let write_failed = reported(answered(&["Saved the file."]), |r| {
        r.last_tool_error = Some(tool_error("write", Some("/tmp/out.txt"), "EACCES", true));
    });
    let send_failed = reported(AttemptResult::default(), |r| {
        r.last_tool_error = Some(tool_error("sessions_send", None, "timeout", true));
    });
    let warning_already_said = reported(AttemptResult::default(), |r| {
        r.last_tool_error = Some(tool_error("read", Some("/tmp/x.txt"), "ENOENT", false));
        r.assistant_texts = texts(&["⚠️ 📖 Read: `/tmp/x.txt` failed"]);
    });

    let on = Settings {
        verbose: VerboseLevel::On,
        ..Settings::default()
    };
    let rows: Vec<(&str, AttemptResult, Settings, Vec<ReplyPayload>)> = vec![
        (
            "answer texts, in order",
            answered(&["First.", "  Second.  "]),
            Settings::default(),
            vec![ReplyPayload::text("First."), ReplyPayload::text("Second.")],
        ),
        (
            "no collected text: the last assistant's visible text",
            fallback_visible,
            Settings::default(),
            vec![ReplyPayload::text("Visible answer.")],
        ),
        (
            "blank texts are dropped",
            answered(&["  ", "\n", "Real."]),
            Settings::default(),
            vec![ReplyPayload::text("Real.")],
        ),
        (
            "errored assistant: its copy first, the echo of the raw error dropped",
            overflow,
            Settings::default(),
            vec![ReplyPayload::error(CONTEXT_OVERFLOW_ERROR_TEXT)],
        ),
        (
            "errored assistant: raw API payload dropped, other text kept",
            raw_echo,
            Settings::default(),
            vec![
                ReplyPayload::error("LLM error api_error: Internal server error"),
                ReplyPayload::text("Here is what I found."),
            ],
        ),
        (
            "errored assistant: the same payload in another key order is dropped",
            echo_in_other_json_form,
            Settings::default(),
            vec![ReplyPayload::error(
                "LLM error api_error: Internal server error",
            )],
        ),
        (
            "errored assistant without text: unknown-error copy, generic copy dropped",
            generic_echo,
            Settings::default(),
            vec![
                ReplyPayload::error(UNKNOWN_ERROR_TEXT),
                ReplyPayload::text("Partial answer."),
            ],
        ),
        (
            "approval prompt sent: no error, reasoning or answer of the assistant",
            approval,
            Settings {
                approval_prompt: true,
                reasoning: ReasoningMode::On,
                ..Settings::default()
            },
            vec![],
        ),
        (
            "reasoning on: a reasoning payload before the answer",
            with_reasoning.clone(),
            Settings {
                reasoning: ReasoningMode::On,
                ..Settings::default()
            },
            vec![
                ReplyPayload {
                    is_reasoning: true,
                    ..ReplyPayload::text("Reasoning:\n_add two_\n\n_and two_")
                },
                ReplyPayload::text("The answer is 4."),
            ],
        ),
        (
            "reasoning streamed or off: no reasoning payload",
            with_reasoning,
            Settings {
                reasoning: ReasoningMode::Stream,
                ..Settings::default()
            },
            vec![ReplyPayload::text("The answer is 4.")],
        ),
        (
            "MEDIA lines become media, the voice tag spreads to every item with media",
            answered(&[
                "Chart attached.\nMEDIA: /tmp/chart.png",
                "[[audio_as_voice]] Listen.\nMEDIA: /tmp/a.ogg",
                "No media here.",
            ]),
            Settings::default(),
            vec![
                ReplyPayload {
                    audio_as_voice: true,
                    ..media(Some("Chart attached."), &["/tmp/chart.png"])
                },
                ReplyPayload {
                    audio_as_voice: true,
                    ..media(Some("Listen."), &["/tmp/a.ogg"])
                },
                ReplyPayload::text("No media here."),
            ],
        ),
        (
            "a media-only answer keeps its media without text",
            answered(&["MEDIA: https://x.test/cat.png"]),
            Settings::default(),
            vec![media(None, &["https://x.test/cat.png"])],
        ),
        (
            "reply-to tags thread the reply",
            answered(&["[[reply_to_current]] Sure.", "[[reply_to: m42]] Also this."]),
            Settings::default(),
            vec![
                ReplyPayload {
                    reply_to_id: Some("msg-7".into()),
                    reply_to_tag: true,
                    reply_to_current: true,
                    ..ReplyPayload::text("Sure.")
                },
                ReplyPayload {
                    reply_to_id: Some("m42".into()),
                    reply_to_tag: true,
                    ..ReplyPayload::text("Also this.")
                },
            ],
        ),
        (
            "silent replies are dropped (token and JSON form, any case)",
            answered(&[
                "NO_REPLY",
                "  no_reply  ",
                r#"{"action":"NO_REPLY"}"#,
                "Kept.",
            ]),
            Settings::default(),
            vec![ReplyPayload::text("Kept.")],
        ),
        (
            "a JSON action with more keys is not silent",
            answered(&[r#"{"action":"NO_REPLY","why":"x"}"#]),
            Settings::default(),
            vec![ReplyPayload::text(r#"{"action":"NO_REPLY","why":"x"}"#)],
        ),
        (
            "inline tool summaries only when allowed and verbose",
            inline_tools.clone(),
            Settings {
                inline_tools: true,
                ..on
            },
            vec![
                ReplyPayload::text("📖 Read: `/tmp/notes.md`"),
                ReplyPayload::text("Done."),
            ],
        ),
        (
            "inline tool summaries off (the runner's setting)",
            inline_tools,
            on,
            vec![ReplyPayload::text("Done.")],
        ),
        (
            "tool warning: suppressed warnings hide even a mutating failure",
            write_failed.clone(),
            Settings {
                suppress_warnings: true,
                ..Settings::default()
            },
            vec![ReplyPayload::text("Saved the file.")],
        ),
        (
            "tool warning: exec without details is hidden",
            exec_failed("exit code 2"),
            Settings::default(),
            vec![],
        ),
        (
            "tool warning: exec with verbose on shows the error",
            exec_failed("exit code 2"),
            on,
            vec![ReplyPayload::error(
                "⚠️ 🛠️ Exec: `ls /nope` failed: exit code 2",
            )],
        ),
        (
            "tool warning: an exec timeout in a cron run shows the error",
            exec_failed("Command timed out after 30 seconds"),
            Settings {
                cron: true,
                ..Settings::default()
            },
            vec![ReplyPayload::error(
                "⚠️ 🛠️ Exec: `ls /nope` failed: Command timed out after 30 seconds",
            )],
        ),
        (
            "tool warning: sessions_send is hidden",
            send_failed,
            on,
            vec![],
        ),
        (
            "tool warning: a mutating failure shows even after a reply",
            write_failed.clone(),
            Settings::default(),
            vec![
                ReplyPayload::text("Saved the file."),
                ReplyPayload::error("⚠️ ✍️ Write: `/tmp/out.txt` failed"),
            ],
        ),
        (
            "tool warning: a mutating failure shows despite suppressToolErrors",
            write_failed,
            Settings {
                suppress_tool_errors: true,
                plain: true,
                ..Settings::default()
            },
            vec![
                ReplyPayload::text("Saved the file."),
                ReplyPayload::error("⚠️ ✍️ Write: /tmp/out.txt failed"),
            ],
        ),
        (
            "tool warning: suppressToolErrors hides a non-mutating failure",
            read_failed("ENOENT", false),
            Settings {
                suppress_tool_errors: true,
                ..Settings::default()
            },
            vec![],
        ),
        (
            "tool warning: a non-mutating failure with no reply shows",
            read_failed("ENOENT: no such file", false),
            Settings::default(),
            vec![ReplyPayload::error("⚠️ 📖 Read: `/tmp/x.txt` failed")],
        ),
        (
            "tool warning: a non-mutating failure after a reply is hidden",
            read_failed("ENOENT: no such file", true),
            Settings::default(),
            vec![ReplyPayload::text("I could not read it.")],
        ),
        (
            "tool warning: a recoverable failure is hidden",
            read_failed("path is required", false),
            Settings::default(),
            vec![],
        ),
        (
            "tool warning: not repeated when an item already says it",
            warning_already_said,
            Settings::default(),
            vec![ReplyPayload::text("⚠️ 📖 Read: `/tmp/x.txt` failed")],
        ),
    ];
    for (name, attempt, settings, expected) in rows {
        assert_eq!(build(&attempt, settings), expected, "{name}");
    }
}

// ---- delivery dedupe ----------------------------------------------------------------------

#[test]
fn delivered_payloads_are_dropped_by_each_kind_of_evidence() {
    let sent_texts = texts(&["The deployment finished without errors."]);
    let sent_media = texts(&["file:///tmp/report%20final.pdf"]);
    let block_keys: BTreeSet<String> = [block_reply_payload_key("Streamed already.", &[])].into();
    let payloads = vec![
        ReplyPayload::text("Deployment finished without errors."),
        ReplyPayload::text("Ok."),
        media(
            Some("Report:"),
            &["/tmp/report final.pdf", "/tmp/extra.png"],
        ),
        media(None, &["/tmp/report final.pdf"]),
        media(
            Some("The deployment finished without errors."),
            &["/tmp/log.txt"],
        ),
        ReplyPayload::text("  Streamed already.  "),
        ReplyPayload::text("Not streamed."),
        ReplyPayload::error("⚠️ ✍️ Write: `/tmp/out.txt` failed"),
    ];
    let evidence = DeliveredEvidence {
        messaging_tool_sent_texts: &sent_texts,
        messaging_tool_sent_media_urls: &sent_media,
        directly_sent_block_keys: Some(&block_keys),
        replied_via_messaging_tool: false,
    };
    assert_eq!(
        drop_delivered_payloads(payloads.clone(), &evidence),
        vec![
            ReplyPayload::text("Ok."),
            media(Some("Report:"), &["/tmp/extra.png"]),
            media(
                Some("The deployment finished without errors."),
                &["/tmp/log.txt"]
            ),
            ReplyPayload::text("Not streamed."),
            ReplyPayload::error("⚠️ ✍️ Write: `/tmp/out.txt` failed"),
        ],
        "messaging-tool media and text dedupe; the block key compares trimmed text"
    );

    let built = build_run_payloads(&PayloadInput::from_attempt(&answered(&[
        "Streamed already.\n",
        "Not streamed.",
    ])));
    assert_eq!(
        drop_delivered_payloads(built, &evidence),
        vec![ReplyPayload::text("Not streamed.")],
        "a built payload matches the key of the block streamed with it"
    );

    let replied = DeliveredEvidence {
        replied_via_messaging_tool: true,
        ..DeliveredEvidence::default()
    };
    assert_eq!(
        drop_delivered_payloads(payloads.clone(), &replied),
        vec![ReplyPayload::error("⚠️ ✍️ Write: `/tmp/out.txt` failed")],
        "a messaging tool answered the conversation: only errors remain"
    );
    assert_eq!(
        drop_delivered_payloads(payloads.clone(), &DeliveredEvidence::default()),
        payloads,
        "no evidence, nothing dropped"
    );

    let attempt = reported(
        answered(&["Hi.", "Update: your build passed on main.", "Bye."]),
        |r| {
            r.messaging_tool_sent_texts = texts(&["Your build passed on main."]);
            r.directly_sent_block_keys = [block_reply_payload_key("Hi.", &[])].into();
        },
    );
    let built = build_run_payloads(&PayloadInput::from_attempt(&attempt));
    assert_eq!(
        drop_delivered_payloads(built, &DeliveredEvidence::from_attempt(&attempt)),
        vec![ReplyPayload::text("Bye.")],
        "evidence from the attempt"
    );
}

// ---- §4.7 steps 3–4: timeout and incomplete turn -----------------------------------------

#[test]
fn timeout_payload_rows() {
    let timed_out = |idle: bool, during_compaction: bool| AttemptResult {
        aborted: true,
        timed_out: true,
        idle_timed_out: idle,
        timed_out_during_compaction: during_compaction,
        ..AttemptResult::default()
    };
    let rows: Vec<(&str, AttemptResult, usize, Option<ReplyPayload>)> = vec![
        (
            "idle timeout",
            timed_out(true, false),
            0,
            Some(ReplyPayload::error(IDLE_TIMEOUT_TEXT)),
        ),
        (
            "overall timeout",
            timed_out(false, false),
            0,
            Some(ReplyPayload::error(RUN_TIMEOUT_TEXT)),
        ),
        ("timeout during compaction", timed_out(false, true), 0, None),
        ("timeout after payloads", timed_out(true, false), 1, None),
        ("no timeout", AttemptResult::default(), 0, None),
    ];
    for (name, attempt, count, expected) in rows {
        assert_eq!(timeout_payload(&attempt, count), expected, "{name}");
    }
}

#[test]
fn a_timeout_after_partial_text_is_an_error_payload_after_it() {
    let timed_out = |idle: bool, during_compaction: bool| AttemptResult {
        aborted: true,
        timed_out: true,
        idle_timed_out: idle,
        timed_out_during_compaction: during_compaction,
        ..AttemptResult::default()
    };
    let rows: Vec<(&str, AttemptResult, usize, Option<ReplyPayload>)> = vec![
        (
            "idle timeout after text",
            timed_out(true, false),
            1,
            Some(ReplyPayload::error(IDLE_TIMEOUT_PARTIAL_TEXT)),
        ),
        (
            "overall timeout after text",
            timed_out(false, false),
            2,
            Some(ReplyPayload::error(RUN_TIMEOUT_PARTIAL_TEXT)),
        ),
        (
            "nothing produced: timeout_payload speaks",
            timed_out(true, false),
            0,
            None,
        ),
        ("timeout during compaction", timed_out(false, true), 1, None),
        ("no timeout", AttemptResult::default(), 1, None),
    ];
    for (name, attempt, count, expected) in rows {
        assert_eq!(partial_timeout_payload(&attempt, count), expected, "{name}");
    }
}

#[test]
fn incomplete_turn_rows() {
    let ended = |stop: StopReason| AttemptResult {
        last_assistant: Some(assistant(stop, Vec::new())),
        ..AttemptResult::default()
    };
    let pending = PendingToolCall {
        id: "a1b2c3d4e".into(),
        name: "lookup".into(),
        arguments: "{}".into(),
        tool_call_id: "call_1".into(),
    };
    let none = TerminalSignals::default();
    let rows: Vec<(&str, AttemptResult, usize, TerminalSignals, Option<&str>)> = vec![
        (
            "tool use, nothing after",
            ended(StopReason::ToolUse),
            0,
            none,
            Some(INCOMPLETE_TURN_TEXT),
        ),
        (
            "errored, no payload",
            ended(StopReason::Error),
            0,
            none,
            Some(INCOMPLETE_TURN_TEXT),
        ),
        (
            "side effects ran",
            reported(ended(StopReason::ToolUse), |r| {
                r.had_potential_side_effects = true;
            }),
            0,
            none,
            Some(INCOMPLETE_TURN_SIDE_EFFECTS_TEXT),
        ),
        ("a clean stop", ended(StopReason::Stop), 0, none, None),
        ("length stop", ended(StopReason::Length), 0, none, None),
        (
            "no assistant at all",
            AttemptResult::default(),
            0,
            none,
            None,
        ),
        ("payloads exist", ended(StopReason::ToolUse), 1, none, None),
        (
            "aborted",
            ended(StopReason::ToolUse),
            0,
            TerminalSignals {
                aborted: true,
                ..none
            },
            None,
        ),
        (
            "timed out",
            ended(StopReason::Error),
            0,
            TerminalSignals {
                timed_out: true,
                ..none
            },
            None,
        ),
        (
            "client tool call",
            AttemptResult {
                pending_tool_calls: vec![pending],
                ..ended(StopReason::ToolUse)
            },
            0,
            none,
            None,
        ),
        (
            "yield",
            ended(StopReason::ToolUse),
            0,
            TerminalSignals {
                yield_detected: true,
                ..none
            },
            None,
        ),
        (
            "approval prompt",
            ended(StopReason::ToolUse),
            0,
            TerminalSignals {
                did_send_deterministic_approval_prompt: true,
                ..none
            },
            None,
        ),
        (
            "tool error explains it",
            reported(ended(StopReason::ToolUse), |r| {
                r.last_tool_error = Some(tool_error("read", None, "ENOENT", false));
            }),
            0,
            none,
            None,
        ),
    ];
    for (name, attempt, count, signals, expected) in rows {
        assert_eq!(
            incomplete_turn_text(&attempt, count, &signals),
            expected,
            "{name}"
        );
        assert_eq!(
            incomplete_turn_payload(&attempt, count, &signals),
            expected.map(ReplyPayload::error),
            "{name}"
        );
    }
}

// ---- §4.7 step 7: liveness and replay safety -----------------------------------------------

#[test]
fn liveness_and_replay_rows() {
    let with_stop = |stop: StopReason| AttemptResult {
        last_assistant: Some(assistant(stop, Vec::new())),
        ..AttemptResult::default()
    };
    let compaction_abort = AttemptResult {
        prompt_error: Some(PromptError {
            message: "aborted".into(),
            source: PromptErrorSource::Compaction,
        }),
        ..AttemptResult::default()
    };
    let prompt_abort = AttemptResult {
        prompt_error: Some(PromptError {
            message: "aborted".into(),
            source: PromptErrorSource::Prompt,
        }),
        ..AttemptResult::default()
    };
    let compaction_timeout = AttemptResult {
        timed_out: true,
        timed_out_during_compaction: true,
        ..AttemptResult::default()
    };
    let none = TerminalSignals::default();
    let aborted = TerminalSignals {
        aborted: true,
        ..none
    };
    let timed_out = TerminalSignals {
        timed_out: true,
        ..none
    };
    // name, attempt, payloads, signals, incomplete, liveness, replay invalid
    let rows: Vec<(
        &str,
        AttemptResult,
        usize,
        TerminalSignals,
        bool,
        LivenessState,
        bool,
    )> = vec![
        (
            "normal answer",
            with_stop(StopReason::Stop),
            1,
            none,
            false,
            LivenessState::Working,
            false,
        ),
        (
            "incomplete turn",
            with_stop(StopReason::ToolUse),
            0,
            none,
            true,
            LivenessState::Abandoned,
            true,
        ),
        (
            "compaction abort",
            compaction_abort,
            0,
            none,
            false,
            LivenessState::Paused,
            true,
        ),
        (
            "prompt error elsewhere",
            prompt_abort,
            0,
            none,
            false,
            LivenessState::Working,
            false,
        ),
        (
            "timeout during compaction",
            compaction_timeout,
            0,
            timed_out,
            false,
            LivenessState::Paused,
            true,
        ),
        (
            "aborted, nothing produced",
            with_stop(StopReason::Aborted),
            0,
            aborted,
            false,
            LivenessState::Blocked,
            false,
        ),
        (
            "timed out, nothing produced",
            AttemptResult::default(),
            0,
            timed_out,
            false,
            LivenessState::Blocked,
            false,
        ),
        (
            "aborted after a reply",
            with_stop(StopReason::Aborted),
            1,
            aborted,
            false,
            LivenessState::Working,
            false,
        ),
        (
            "errored assistant",
            with_stop(StopReason::Error),
            1,
            none,
            false,
            LivenessState::Blocked,
            false,
        ),
        (
            "side effects ran",
            reported(with_stop(StopReason::Stop), |r| {
                r.had_potential_side_effects = true;
            }),
            1,
            none,
            false,
            LivenessState::Working,
            true,
        ),
        (
            "subscription marked replay invalid",
            reported(with_stop(StopReason::Stop), |r| r.replay_invalid = true),
            1,
            none,
            false,
            LivenessState::Working,
            true,
        ),
    ];
    for (name, attempt, count, signals, incomplete, liveness, replay) in rows {
        assert_eq!(
            resolve_liveness(&attempt, count, &signals, incomplete),
            liveness,
            "{name}"
        );
        assert_eq!(
            resolve_replay_invalid(&attempt, incomplete),
            replay,
            "{name}"
        );
    }
}

// ---- §20: usage at run level --------------------------------------------------------------

fn call(stop: StopReason, u: Usage) -> AssistantMessage {
    let mut message = assistant(stop, Vec::new());
    message.usage = u;
    message
}

#[test]
fn run_usage_sums_attempts_and_takes_context_from_the_latest_call() {
    let mut run = RunUsage::new();
    assert_eq!(
        (run.usage(), run.last_call_usage(), run.prompt_tokens()),
        (None, None, None)
    );

    // Attempt 1: two calls (tool round trip), then a rate limit on the third.
    run.record_attempt(&AttemptResult {
        subscription: SubscriptionReport {
            usage_totals: Some(totals(300, 40, 160_000, 160_340)),
            last_call_usage: Some(usage(150, 20, 80_000, 0, 80_170)),
            ..SubscriptionReport::default()
        },
        last_assistant: Some(call(StopReason::Error, Usage::default())),
        ..AttemptResult::default()
    });
    assert_eq!(
        run.prompt_tokens(),
        Some(80_150),
        "the subscription's last call"
    );

    // Attempt 2 failed before any call: nothing summed, no latest call.
    run.record_attempt(&AttemptResult::default());
    assert_eq!(run.prompt_tokens(), None);

    // Attempt 3: one call, the subscription counted nothing (usage from the message).
    run.record_attempt(&AttemptResult {
        last_assistant: Some(call(StopReason::Stop, usage(100, 10, 90_000, 500, 90_610))),
        ..AttemptResult::default()
    });

    assert_eq!(
        run.usage(),
        Some(NormalizedUsage {
            input: Some(400),
            output: Some(50),
            cache_read: Some(250_000),
            cache_write: Some(500),
            total: Some(90_610),
        }),
        "sums over attempts, total of the latest call"
    );
    assert_eq!(
        run.last_call_usage(),
        Some(NormalizedUsage {
            input: Some(100),
            output: Some(10),
            cache_read: Some(90_000),
            cache_write: Some(500),
            total: Some(90_610),
        })
    );
    assert_eq!(
        run.prompt_tokens(),
        Some(90_600),
        "promptTokens from the latest call, not the accumulated 250 900"
    );
}

#[test]
fn run_usage_edge_rows() {
    // A call without a reported total adds the sum of its parts; the total is then the sum.
    let mut run = RunUsage::new();
    run.record_attempt(&AttemptResult {
        last_assistant: Some(call(StopReason::Stop, usage(10, 5, 0, 0, 0))),
        ..AttemptResult::default()
    });
    assert_eq!(
        run.usage(),
        Some(NormalizedUsage {
            input: Some(10),
            output: Some(5),
            total: Some(15),
            ..NormalizedUsage::default()
        })
    );
    assert_eq!(
        run.last_call_usage(),
        Some(NormalizedUsage {
            input: Some(10),
            output: Some(5),
            cache_read: Some(0),
            cache_write: Some(0),
            total: Some(0),
        }),
        "a call's usage keeps its zero fields"
    );

    // All-zero usage counts nothing.
    let mut zero = RunUsage::new();
    zero.record_attempt(&AttemptResult {
        subscription: SubscriptionReport {
            usage_totals: Some(UsageTotals::default()),
            ..SubscriptionReport::default()
        },
        last_assistant: Some(call(StopReason::Stop, Usage::default())),
        ..AttemptResult::default()
    });
    assert_eq!(zero, RunUsage::new());

    // Server counts near u64::MAX saturate instead of wrapping.
    let mut huge = RunUsage::new();
    for _ in 0..2 {
        huge.record_attempt(&reported(AttemptResult::default(), |r| {
            r.usage_totals = Some(totals(u64::MAX, 1, 0, u64::MAX));
        }));
    }
    assert_eq!(
        huge.usage(),
        Some(NormalizedUsage {
            input: Some(u64::MAX),
            output: Some(2),
            total: Some(u64::MAX),
            ..NormalizedUsage::default()
        })
    );

    let rows = [
        (NormalizedUsage::default(), None),
        (
            NormalizedUsage {
                input: Some(0),
                output: Some(900),
                ..NormalizedUsage::default()
            },
            None,
        ),
        (
            NormalizedUsage {
                input: Some(7),
                output: Some(900),
                cache_read: Some(3),
                cache_write: Some(2),
                total: Some(912),
            },
            Some(12),
        ),
    ];
    for (u, expected) in rows {
        assert_eq!(derive_prompt_tokens(&u), expected, "{u:?}");
    }
}

// ---- meta ---------------------------------------------------------------------------------

#[test]
fn terminal_meta_serializes_to_openclaws_shape() {
    let attempt = AttemptResult {
        session_id_used: "sess-1".into(),
        subscription: SubscriptionReport {
            assistant_texts: texts(&["Looking it up."]),
            ..SubscriptionReport::default()
        },
        last_assistant: Some({
            let mut m = call(StopReason::ToolUse, usage(1_000, 50, 2_000, 0, 3_050));
            m.provider = "acme-eu".into();
            m.model = "m1-large".into();
            m.content = vec![ContentBlock::text("Looking it up.")];
            m
        }),
        pending_tool_calls: vec![PendingToolCall {
            id: "0a1b2c3d4".into(),
            name: "lookup".into(),
            arguments: r#"{"q":"weather"}"#.into(),
            tool_call_id: "call_9".into(),
        }],
        ..AttemptResult::default()
    };
    let mut usage = RunUsage::new();
    usage.record_attempt(&attempt);
    let agent = AgentMeta::new(&attempt, "acme", "m1", &usage, 0);
    let signals = TerminalSignals::from_attempt(&attempt);
    let meta = RunMeta::terminal(&attempt, agent, 1_234, 1, &signals, false);
    assert_eq!(
        serde_json::to_value(&meta).unwrap(),
        serde_json::json!({
            "durationMs": 1234,
            "agentMeta": {
                "sessionId": "sess-1",
                "provider": "acme-eu",
                "model": "m1-large",
                "usage": {"input": 1000, "output": 50, "cacheRead": 2000, "total": 3050},
                "lastCallUsage": {"input": 1000, "output": 50, "cacheRead": 2000, "cacheWrite": 0, "total": 3050},
                "promptTokens": 3000
            },
            "aborted": false,
            "finalAssistantVisibleText": "Looking it up.",
            "replayInvalid": false,
            "livenessState": "working",
            "stopReason": "tool_calls",
            "pendingToolCalls": [{"id": "0a1b2c3d4", "name": "lookup", "arguments": "{\"q\":\"weather\"}"}]
        })
    );
}

#[test]
fn agent_meta_and_stop_reason_rows() {
    let plain = AttemptResult {
        session_id_used: "s".into(),
        last_assistant: Some({
            let mut m = assistant(StopReason::Stop, Vec::new());
            m.provider = String::new();
            m.model = " ".into();
            m
        }),
        ..AttemptResult::default()
    };
    let agent = AgentMeta::new(&plain, "acme", "m1", &RunUsage::new(), 2);
    assert_eq!(
        serde_json::to_value(&agent).unwrap(),
        serde_json::json!({"sessionId": "s", "provider": "acme", "model": "m1", "compactionCount": 2}),
        "the run's provider and model when the message names none; compactionCount when > 0"
    );
    assert_eq!(
        AgentMeta::new(&AttemptResult::default(), "acme", "m1", &RunUsage::new(), 0)
            .compaction_count,
        None
    );

    let stop = |attempt: &AttemptResult, yielded: bool| {
        run_stop_reason(attempt, yielded).map(|r| r.as_str())
    };
    assert_eq!(stop(&plain, false), Some("stop"));
    assert_eq!(stop(&plain, true), Some("end_turn"));
    assert_eq!(stop(&AttemptResult::default(), false), None);
    let tool_use = AttemptResult {
        last_assistant: Some(assistant(StopReason::ToolUse, Vec::new())),
        ..AttemptResult::default()
    };
    assert_eq!(stop(&tool_use, false), Some("toolUse"));
}

#[test]
fn error_meta_serializes_kind_and_blocked_liveness() {
    let attempt = AttemptResult {
        session_id_used: "sess-2".into(),
        subscription: SubscriptionReport {
            had_potential_side_effects: true,
            ..SubscriptionReport::default()
        },
        ..AttemptResult::default()
    };
    let agent = AgentMeta::new(&attempt, "acme", "m1", &RunUsage::new(), 3);
    let rows = [
        (RunErrorKind::ContextOverflow, "context_overflow"),
        (RunErrorKind::CompactionFailure, "compaction_failure"),
        (RunErrorKind::RoleOrdering, "role_ordering"),
        (RunErrorKind::ImageSize, "image_size"),
        (RunErrorKind::RetryLimit, "retry_limit"),
        (RunErrorKind::ToolRoundLimit, "tool_round_limit"),
        (RunErrorKind::PromptTooLarge, "prompt_too_large"),
    ];
    for (kind, name) in rows {
        let meta = RunMeta::error(&attempt, agent.clone(), 9, kind, "prompt is too long");
        assert_eq!(
            serde_json::to_value(&meta).unwrap(),
            serde_json::json!({
                "durationMs": 9,
                "agentMeta": {"sessionId": "sess-2", "provider": "acme", "model": "m1", "compactionCount": 3},
                "aborted": false,
                "replayInvalid": true,
                "livenessState": "blocked",
                "error": {"kind": name, "message": "prompt is too long"}
            }),
            "{name}"
        );
    }
}
