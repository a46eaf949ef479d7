//! The fault matrix: one provider fault per test, each through `run_agent_turn_with_fallback`
//! over real HTTP (the scripted server), real auth files and a real session file. Each asserts
//! what the decision tables (`run/decide.rs`, `fallback/`, `turn/`; reference §5, §14, §21)
//! make of the fault — which key the next request carries, which model answers, how many
//! requests were made, the exact user-facing text — and that `auth-state.json` and the
//! transcript are left consistent: the state parses with the expected cooldown, and the
//! transcript reopens and rebuilds with no unanswered tool call.
//!
//! The two providers: `acme` (OpenAI chat completions, profiles `acme:a` = `key-a` and
//! `acme:b` = `key-b`) and, where a fallback is configured, `bolt` (Anthropic messages,
//! configured key `sk-bolt`).

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use clawloop_core::error_text::{
    IDLE_TIMEOUT_PARTIAL_TEXT, IDLE_TIMEOUT_TEXT, TURN_CONTEXT_LIMIT_RESET_TEXT,
    format_billing_error_message,
};
use clawloop_runner::payloads::RunErrorKind;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use support::{
    ProfileFacts, START_MS, Scene, acme_config, call, http_error, msg, one_key, text, two_keys,
};

/// The schedule's first cooldown window (SPEC §8.5: 10 s).
const FIRST_WINDOW_MS: u64 = 10_000;

fn no_defaults() -> Value {
    json!({})
}

/// A reply that reads `notes.txt` with the `read` tool.
fn read_notes() -> Value {
    json!({"reply": {"toolCalls": [{"id": "call_notes", "name": "read", "arguments": {"path": "notes.txt"}}]}})
}

fn cooldown_until(scene: &Scene, id: &str) -> Option<u64> {
    scene.auth_state()["usageStats"][id]["cooldownUntil"].as_u64()
}

#[tokio::test]
async fn a_401_rotates_to_the_second_key_then_surfaces_the_rejection() {
    let scene = Scene::new(acme_config(false, no_defaults()), Some(two_keys())).await;
    let turn = scene
        .turn(
            "Summarize the notes.",
            vec![
                http_error(401, "Incorrect API key provided."),
                http_error(401, "Incorrect API key provided."),
            ],
        )
        .await;
    assert_eq!(
        turn.calls(),
        vec![call("acme", "key-a"), call("acme", "key-b")]
    );
    // No fallback: the last errored reply becomes the payload (reference §16: a status with no
    // error wording is shown as it came).
    assert_eq!(
        turn.payloads(),
        vec![("401 Incorrect API key provided.".to_owned(), true)]
    );
    assert_eq!(
        scene.profile_facts("acme:a"),
        ProfileFacts::cooling("auth", 1)
    );
    assert_eq!(
        scene.profile_facts("acme:b"),
        ProfileFacts::cooling("auth", 1)
    );
    assert_eq!(
        scene.rebuilt(),
        vec![
            msg("user", "Summarize the notes."),
            msg("assistant", ""),
            msg("user", "Summarize the notes."),
            msg("assistant", ""),
        ]
    );
}

#[tokio::test]
async fn a_402_disables_both_keys_and_surfaces_the_billing_copy() {
    let scene = Scene::new(acme_config(false, no_defaults()), Some(two_keys())).await;
    let turn = scene
        .turn(
            "Summarize the notes.",
            vec![
                http_error(402, "Insufficient credits."),
                http_error(402, "Insufficient credits."),
            ],
        )
        .await;
    assert_eq!(
        turn.calls(),
        vec![call("acme", "key-a"), call("acme", "key-b")]
    );
    assert_eq!(
        turn.payloads(),
        vec![(format_billing_error_message(Some("acme"), Some("m1")), true)]
    );
    assert_eq!(
        scene.profile_facts("acme:a"),
        ProfileFacts::disabled("billing", 1)
    );
    assert_eq!(
        scene.profile_facts("acme:b"),
        ProfileFacts::disabled("billing", 1)
    );
    assert_eq!(scene.rebuilt().len(), 4);
}

#[tokio::test]
async fn a_403_for_a_revoked_key_disables_both_keys_and_falls_back() {
    let scene = Scene::new(acme_config(true, no_defaults()), Some(two_keys())).await;
    let turn = scene
        .turn(
            "Summarize the notes.",
            vec![
                http_error(403, "This API key has been revoked."),
                http_error(403, "This API key has been revoked."),
                text("Notes summarized by bolt."),
            ],
        )
        .await;
    assert_eq!(
        turn.calls(),
        vec![
            call("acme", "key-a"),
            call("acme", "key-b"),
            call("bolt", "sk-bolt"),
        ]
    );
    assert_eq!(turn.answered_by(), ("bolt".to_owned(), "b1".to_owned()));
    assert_eq!(
        turn.success().fallback_provider.as_deref(),
        Some("bolt"),
        "the turn names the fallback that answered"
    );
    assert_eq!(
        turn.payloads(),
        vec![("Notes summarized by bolt.".to_owned(), false)]
    );
    assert_eq!(
        scene.profile_facts("acme:a"),
        ProfileFacts::disabled("auth_permanent", 1)
    );
    assert_eq!(
        scene.profile_facts("acme:b"),
        ProfileFacts::disabled("auth_permanent", 1)
    );
    assert_eq!(
        scene.rebuilt().last(),
        Some(&msg("assistant", "Notes summarized by bolt."))
    );
}

#[tokio::test]
async fn a_404_model_not_found_falls_back_to_the_next_model() {
    let scene = Scene::new(acme_config(true, no_defaults()), Some(one_key())).await;
    let turn = scene
        .turn(
            "Summarize the notes.",
            vec![
                http_error(404, "The model `m1` does not exist."),
                text("Bolt here."),
            ],
        )
        .await;
    assert_eq!(
        turn.calls(),
        vec![call("acme", "key-a"), call("bolt", "sk-bolt")]
    );
    assert_eq!(turn.answered_by(), ("bolt".to_owned(), "b1".to_owned()));
    assert_eq!(turn.payloads(), vec![("Bolt here.".to_owned(), false)]);
    assert_eq!(
        scene.profile_facts("acme:a"),
        ProfileFacts::cooling("model_not_found", 1)
    );
    assert_eq!(
        scene.rebuilt(),
        vec![
            msg("user", "Summarize the notes."),
            msg("assistant", ""),
            msg("user", "Summarize the notes."),
            msg("assistant", "Bolt here."),
        ]
    );
}

#[tokio::test]
async fn a_408_rotates_without_a_cooldown() {
    let scene = Scene::new(acme_config(false, no_defaults()), Some(two_keys())).await;
    let turn = scene
        .turn(
            "Summarize the notes.",
            vec![
                http_error(408, "Request timeout."),
                text("Second key answers."),
            ],
        )
        .await;
    assert_eq!(
        turn.calls(),
        vec![call("acme", "key-a"), call("acme", "key-b")]
    );
    assert_eq!(
        turn.payloads(),
        vec![("Second key answers.".to_owned(), false)]
    );
    // Timeouts rotate like rate limits but never put a profile in cooldown (SPEC §8.4).
    assert_eq!(scene.profile_facts("acme:a"), ProfileFacts::clean());
    assert_eq!(scene.profile_facts("acme:b"), ProfileFacts::clean());
    scene.rebuilt();
}

#[tokio::test]
async fn a_429_after_a_tool_call_rotates_and_the_second_key_finishes_the_turn() {
    let scene = Scene::new(acme_config(false, no_defaults()), Some(two_keys())).await;
    std::fs::write(scene.workspace.join("notes.txt"), "alpha beta").unwrap();
    let turn = scene
        .turn(
            "Summarize the notes.",
            vec![
                read_notes(),
                http_error(429, "Too many requests."),
                text("The notes say alpha beta."),
            ],
        )
        .await;
    assert_eq!(
        turn.calls(),
        vec![
            call("acme", "key-a"),
            call("acme", "key-a"),
            call("acme", "key-b"),
        ]
    );
    // The second key gets the answered call and the prompt again; the failed reply is not sent.
    assert_eq!(
        turn.requests[2].roles(),
        Some(vec![
            "user".to_owned(),
            "assistant".to_owned(),
            "tool".to_owned(),
            "user".to_owned()
        ])
    );
    assert_eq!(
        turn.payloads(),
        vec![("The notes say alpha beta.".to_owned(), false)]
    );
    assert_eq!(
        scene.profile_facts("acme:a"),
        ProfileFacts::cooling("rate_limit", 1)
    );
    assert_eq!(
        cooldown_until(&scene, "acme:a"),
        Some(START_MS + FIRST_WINDOW_MS)
    );
    assert_eq!(scene.profile_facts("acme:b"), ProfileFacts::clean());
    assert_eq!(
        scene.rebuilt(),
        vec![
            msg("user", "Summarize the notes."),
            msg("assistant", ""),
            msg("toolResult", "alpha beta"),
            msg("assistant", ""),
            msg("user", "Summarize the notes."),
            msg("assistant", "The notes say alpha beta."),
        ]
    );
}

#[tokio::test]
async fn a_429_with_retry_after_rotates_at_once_and_cools_down_by_the_schedule() {
    let scene = Scene::new(acme_config(true, no_defaults()), Some(two_keys())).await;
    let turn = scene
        .turn(
            "Summarize the notes.",
            vec![
                json!({"reply": {"status": 429, "headers": {"retry-after": "30"},
                   "body": {"error": {"message": "Too many requests.", "type": "requests"}}}}),
                text("Second key answers."),
            ],
        )
        .await;
    // No wait on the same key and no fallback: the runner owns retries, pi's auto-retry is off.
    assert_eq!(
        turn.calls(),
        vec![call("acme", "key-a"), call("acme", "key-b")]
    );
    assert_eq!(turn.answered_by(), ("acme".to_owned(), "m1".to_owned()));
    assert_eq!(
        scene.profile_facts("acme:a"),
        ProfileFacts::cooling("rate_limit", 1)
    );
    // The window is the configured schedule's, not the provider's `retry-after`.
    assert_eq!(
        cooldown_until(&scene, "acme:a"),
        Some(START_MS + FIRST_WINDOW_MS)
    );
    scene.rebuilt();
}

#[tokio::test]
async fn rate_limits_on_every_key_and_model_end_with_the_countdown() {
    let scene = Scene::new(acme_config(true, no_defaults()), Some(two_keys())).await;
    let turn = scene
        .turn(
            "Summarize the notes.",
            vec![
                http_error(429, "Too many requests."),
                http_error(429, "Too many requests."),
                http_error(429, "Too many requests."),
            ],
        )
        .await;
    assert_eq!(
        turn.calls(),
        vec![
            call("acme", "key-a"),
            call("acme", "key-b"),
            call("bolt", "sk-bolt"),
        ]
    );
    // Every model failed on rate limits; the soonest key is back in 10 s (reference §21).
    assert_eq!(
        turn.final_payload(),
        (
            "⚠️ Rate-limited — ready in ~10s. Please wait a moment.".to_owned(),
            true
        )
    );
    for id in ["acme:a", "acme:b"] {
        assert_eq!(
            scene.profile_facts(id),
            ProfileFacts::cooling("rate_limit", 1),
            "{id}"
        );
    }
    scene.rebuilt();
}

#[tokio::test]
async fn a_500_after_a_tool_call_is_retried_once_as_a_whole_turn_then_surfaces() {
    let scene = Scene::new(acme_config(false, no_defaults()), Some(one_key())).await;
    std::fs::write(scene.workspace.join("notes.txt"), "alpha beta").unwrap();
    let turn = scene
        .turn(
            "Summarize the notes.",
            vec![
                read_notes(),
                http_error(500, "Internal server error."),
                http_error(500, "Internal server error."),
            ],
        )
        .await;
    assert_eq!(turn.calls(), vec![call("acme", "key-a"); 3]);
    assert_eq!(
        turn.payloads(),
        vec![("HTTP 500: Internal server error.".to_owned(), true)]
    );
    // A 500 is a timeout-class failure: no cooldown.
    assert_eq!(scene.profile_facts("acme:a"), ProfileFacts::clean());
    assert_eq!(
        scene.rebuilt(),
        vec![
            msg("user", "Summarize the notes."),
            msg("assistant", ""),
            msg("toolResult", "alpha beta"),
            msg("assistant", ""),
            msg("user", "Summarize the notes."),
            msg("assistant", ""),
        ]
    );
}

#[tokio::test]
async fn a_502_rotates_without_a_cooldown() {
    let scene = Scene::new(acme_config(false, no_defaults()), Some(two_keys())).await;
    let turn = scene
        .turn(
            "Summarize the notes.",
            vec![http_error(502, "Bad gateway."), text("Second key answers.")],
        )
        .await;
    assert_eq!(
        turn.calls(),
        vec![call("acme", "key-a"), call("acme", "key-b")]
    );
    assert_eq!(
        turn.payloads(),
        vec![("Second key answers.".to_owned(), false)]
    );
    assert_eq!(scene.profile_facts("acme:a"), ProfileFacts::clean());
    scene.rebuilt();
}

#[tokio::test]
async fn a_503_overload_on_both_keys_passes_the_rotation_cap_and_falls_back() {
    let scene = Scene::new(acme_config(true, no_defaults()), Some(two_keys())).await;
    let turn = scene
        .turn(
            "Summarize the notes.",
            vec![
                http_error(503, "The model is overloaded."),
                http_error(503, "The model is overloaded."),
                text("Bolt answers."),
            ],
        )
        .await;
    assert_eq!(
        turn.calls(),
        vec![
            call("acme", "key-a"),
            call("acme", "key-b"),
            call("bolt", "sk-bolt"),
        ]
    );
    assert_eq!(turn.answered_by(), ("bolt".to_owned(), "b1".to_owned()));
    for id in ["acme:a", "acme:b"] {
        assert_eq!(
            scene.profile_facts(id),
            ProfileFacts::cooling("overloaded", 1),
            "{id}"
        );
    }
    scene.rebuilt();
}

#[tokio::test]
async fn a_529_on_the_only_key_retries_the_turn_into_a_resting_provider() {
    let scene = Scene::new(acme_config(false, no_defaults()), Some(one_key())).await;
    let turn = scene
        .turn("Summarize the notes.", vec![http_error(529, "Overloaded.")])
        .await;
    // The surfaced 529 earns the turn's one transient retry; by then the only key rests
    // (overloaded), so the provider is skipped without a request and every failure was an
    // overload: the countdown to the key's return.
    assert_eq!(turn.calls(), vec![call("acme", "key-a")]);
    assert_eq!(
        turn.final_payload(),
        (
            "⚠️ Rate-limited — ready in ~10s. Please wait a moment.".to_owned(),
            true
        )
    );
    assert_eq!(
        scene.profile_facts("acme:a"),
        ProfileFacts::cooling("overloaded", 1)
    );
    assert_eq!(
        scene.rebuilt(),
        vec![msg("user", "Summarize the notes."), msg("assistant", ""),]
    );
}

#[tokio::test]
async fn an_idle_stall_rotates_to_the_second_key_without_a_cooldown() {
    let defaults = json!({"llm": {"idleTimeoutSeconds": 0.3}});
    let scene = Scene::new(acme_config(false, defaults), Some(two_keys())).await;
    let turn = scene
        .turn(
            "Summarize the notes.",
            vec![
                json!({"reply": {"text": "Too late.", "stallMs": 3000}}),
                text("Second key answers."),
            ],
        )
        .await;
    assert_eq!(
        turn.calls(),
        vec![call("acme", "key-a"), call("acme", "key-b")]
    );
    assert_eq!(
        turn.payloads(),
        vec![("Second key answers.".to_owned(), false)]
    );
    assert_eq!(scene.profile_facts("acme:a"), ProfileFacts::clean());
    assert_eq!(
        scene.rebuilt().last(),
        Some(&msg("assistant", "Second key answers."))
    );
}

#[tokio::test]
async fn an_idle_stall_in_the_middle_of_a_tool_call_leaves_no_unanswered_call() {
    let defaults = json!({"llm": {"idleTimeoutSeconds": 0.3}});
    let scene = Scene::new(acme_config(false, defaults), Some(one_key())).await;
    std::fs::write(scene.workspace.join("notes.txt"), "alpha beta").unwrap();
    let stalled = json!({"reply": {"text": "Reading.",
        "toolCalls": [{"id": "call_notes", "name": "read", "arguments": {"path": "notes.txt"}}],
        "stallAfterChunks": 2, "stallMs": 3000}});
    let turn = scene
        .turn("Summarize the notes.", vec![stalled.clone(), stalled])
        .await;
    // One key, no fallback: the idle timeout earns one same-model retry; the second stall
    // ends the run with what streamed before it followed by the idle-timeout error (a cut-off
    // reply is no answer), and the cut-off call never ran.
    assert_eq!(turn.calls(), vec![call("acme", "key-a"); 2]);
    assert_eq!(
        turn.payloads(),
        vec![
            ("Reading.".to_owned(), false),
            (IDLE_TIMEOUT_PARTIAL_TEXT.to_owned(), true)
        ]
    );
    scene.rebuilt();
    // The next turn sends no unanswered call either.
    let next = scene
        .turn("Try again.", vec![text("Done this time.")])
        .await;
    let roles = next.requests[0].roles().unwrap();
    assert!(!roles.contains(&"tool".to_owned()), "{roles:?}");
    assert_eq!(next.payloads(), vec![("Done this time.".to_owned(), false)]);
}

#[tokio::test]
async fn a_dropped_stream_surfaces_once_and_the_partial_call_is_never_replayed() {
    let scene = Scene::new(acme_config(false, no_defaults()), Some(two_keys())).await;
    let turn = scene
        .turn(
            "Summarize the notes.",
            vec![json!({"reply": {"text": "Reading.",
            "toolCalls": [{"id": "call_notes", "name": "read", "arguments": {"path": "notes.txt"}}],
            "dropAfterChunks": 2}})],
        )
        .await;
    // A broken body is no classified failure: no rotation, no retry (not an HTTP status).
    assert_eq!(turn.calls(), vec![call("acme", "key-a")]);
    let payloads = turn.payloads();
    assert_eq!(payloads.len(), 2, "{payloads:?}");
    assert!(payloads[0].1, "{payloads:?}");
    assert!(
        payloads[0]
            .0
            .starts_with("Error reading the response stream: "),
        "{payloads:?}"
    );
    assert_eq!(payloads[1], ("Reading.".to_owned(), false));
    assert_eq!(scene.profile_facts("acme:a"), ProfileFacts::clean());
    assert_eq!(
        scene.rebuilt(),
        vec![
            msg("user", "Summarize the notes."),
            msg("assistant", "Reading."),
        ]
    );
    let next = scene
        .turn("Just the headline.", vec![text("Alpha leads.")])
        .await;
    assert_eq!(
        next.requests[0].roles(),
        Some(vec!["user".to_owned(), "user".to_owned()])
    );
    assert_eq!(next.payloads(), vec![("Alpha leads.".to_owned(), false)]);
}

#[tokio::test]
async fn malformed_json_in_the_stream_surfaces_without_rotation() {
    let scene = Scene::new(acme_config(false, no_defaults()), Some(two_keys())).await;
    let raw =
        "data: {\"id\":\"x\",\"choices\":[{\"delta\":{\"content\":\"Hel\"}\n\ndata: [DONE]\n\n";
    let turn = scene
        .turn(
            "Summarize the notes.",
            vec![json!({"reply": {"raw": raw, "contentType": "text/event-stream"}})],
        )
        .await;
    assert_eq!(turn.calls(), vec![call("acme", "key-a")]);
    let payloads = turn.payloads();
    assert_eq!(payloads.len(), 1, "{payloads:?}");
    assert!(payloads[0].1);
    assert!(
        payloads[0].0.starts_with("Invalid JSON in stream: "),
        "{payloads:?}"
    );
    assert_eq!(scene.profile_facts("acme:a"), ProfileFacts::clean());
    scene.rebuilt();
}

#[tokio::test]
async fn an_html_error_page_gets_the_unavailable_copy_after_one_turn_retry() {
    let scene = Scene::new(acme_config(false, no_defaults()), Some(one_key())).await;
    let page = json!({"reply": {"status": 502, "contentType": "text/html",
        "raw": "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><hr><center>cloudflare</center></body></html>"}});
    let turn = scene
        .turn("Summarize the notes.", vec![page.clone(), page])
        .await;
    assert_eq!(turn.calls(), vec![call("acme", "key-a"); 2]);
    assert_eq!(
        turn.payloads(),
        vec![(
            "The AI service is temporarily unavailable (HTTP 502). Please try again in a moment."
                .to_owned(),
            true
        )]
    );
    assert_eq!(scene.profile_facts("acme:a"), ProfileFacts::clean());
    scene.rebuilt();
}

#[tokio::test]
async fn an_image_rejected_for_its_size_gets_the_image_copy_without_rotation() {
    let scene = Scene::new(acme_config(true, no_defaults()), Some(two_keys())).await;
    let turn = scene
        .turn("Describe the photo.", vec![http_error(
            400,
            "messages.0.content.1.image.source.base64: image exceeds 5 MB maximum: 5316852 bytes > 5242880 bytes",
        )])
        .await;
    // No key or model takes the same image: one request, no cooldown, the SPEC §9 copy.
    assert_eq!(turn.calls(), vec![call("acme", "key-a")]);
    assert_eq!(
        turn.payloads(),
        vec![(
            "Image too large for the model (max 5MB). Please compress or resize the image and try again."
                .to_owned(),
            true
        )]
    );
    assert_eq!(
        turn.success()
            .run_result
            .meta
            .error
            .as_ref()
            .map(|e| e.kind),
        Some(RunErrorKind::ImageSize)
    );
    assert_eq!(scene.profile_facts("acme:a"), ProfileFacts::clean());
    scene.rebuilt();
}

#[tokio::test]
async fn an_overflow_nothing_can_shrink_resets_the_session() {
    let scene = Scene::new(acme_config(false, no_defaults()), Some(one_key())).await;
    let turn = scene
        .turn(
            "Summarize the notes.",
            vec![http_error(
                400,
                "prompt is too long: 277403 tokens > 200000 maximum",
            )],
        )
        .await;
    assert_eq!(turn.calls(), vec![call("acme", "key-a")]);
    assert_eq!(
        turn.final_payload(),
        (TURN_CONTEXT_LIMIT_RESET_TEXT.to_owned(), true)
    );
    // The key now points at a fresh transcript.
    assert_eq!(scene.rebuilt(), Vec::<(String, String)>::new());
}

#[tokio::test]
async fn idle_stalls_on_the_only_key_end_with_the_idle_timeout_text() {
    let defaults = json!({"llm": {"idleTimeoutSeconds": 0.25}});
    let scene = Scene::new(acme_config(false, defaults), Some(one_key())).await;
    let stalled = json!({"reply": {"text": "Too late.", "stallMs": 3000}});
    let turn = scene
        .turn("Summarize the notes.", vec![stalled.clone(), stalled])
        .await;
    // One same-model retry (reference §5.2 step 5), then the idle-timeout payload.
    assert_eq!(turn.calls(), vec![call("acme", "key-a"); 2]);
    assert_eq!(turn.payloads(), vec![(IDLE_TIMEOUT_TEXT.to_owned(), true)]);
    assert_eq!(scene.profile_facts("acme:a"), ProfileFacts::clean());
    scene.rebuilt();
}
