//! What the soak's provider answers when it injects no fault: a plain answer, a small tool
//! call, or a `bash` call printing megabytes, chosen by a tag in the prompt; the answer names
//! the turn so the checks can find it in the transcript.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use clawloop_testkit::{FaultRule, ProviderRequest, ReplyRule, ScriptedReply, ScriptedToolCall};
use serde_json::json;

/// The tag that asks for a `bash` call printing [`BIG_OUTPUT_BYTES`].
pub const BIG_TAG: &str = "[big]";
/// The tag that asks for a small `bash` call.
pub const TOOL_TAG: &str = "[tool]";
/// How much the big tool call prints.
pub const BIG_OUTPUT_BYTES: usize = 3_000_000;
/// What every tool call prints last, so the next request shows the tool ran.
const TOOL_DONE: &str = "SOAK-TOOL-DONE";

/// The final answer to `prompt`: what the checks expect to find in the transcript.
pub fn answer_for(prompt: &str) -> String {
    format!("Soak {}", answer_tail(prompt))
}

/// The answer after its first word: it streams as a second delta.
fn answer_tail(prompt: &str) -> String {
    let turn = prompt.split_whitespace().nth(2).unwrap_or("?");
    format!("answer for turn {turn}.")
}

/// The current turn's prompt: the one with the highest turn number in the request. Not the
/// last user message: a turn that was killed after saving its prompt leaves that prompt in
/// the history, and a wire API may merge it with the next one into one user message.
fn current_prompt(body: &str) -> String {
    let mut best: Option<(u64, &str)> = None;
    for (at, _) in body.match_indices(PROMPT_PREFIX) {
        let rest = body.get(at..).unwrap_or_default();
        let end = rest
            .find(PROMPT_END)
            .map_or(rest.len(), |e| e + PROMPT_END.len());
        let prompt = rest.get(..end).unwrap_or(rest);
        let turn = prompt
            .split_whitespace()
            .nth(2)
            .and_then(|n| n.parse::<u64>().ok());
        if let Some(turn) = turn
            && best.is_none_or(|(b, _)| turn > b)
        {
            best = Some((turn, prompt));
        }
    }
    best.map(|(_, p)| p.to_owned()).unwrap_or_default()
}

/// How every soak prompt starts.
pub const PROMPT_PREFIX: &str = "soak turn ";
/// How every soak prompt ends.
pub const PROMPT_END: &str = "please answer";

/// The reply to one request when no fault is injected.
pub fn clean_reply(request: &ProviderRequest) -> ScriptedReply {
    let body = String::from_utf8_lossy(&request.request.body);
    let prompt = current_prompt(&body);
    // Per turn: the history holds the markers of earlier turns' tool calls.
    let done = format!(
        "{TOOL_DONE}-{}",
        prompt.split_whitespace().nth(2).unwrap_or("?")
    );
    let command = if body.contains(&done) {
        None
    } else if prompt.contains(BIG_TAG) {
        Some(format!(
            "head -c {BIG_OUTPUT_BYTES} /dev/zero | tr '\\0' x; echo; echo {done}"
        ))
    } else if prompt.contains(TOOL_TAG) {
        Some(format!("echo {done}"))
    } else {
        None
    };
    match command {
        Some(command) => ScriptedReply {
            text: Some("Running a command.".to_owned()),
            tool_calls: Some(vec![ScriptedToolCall {
                name: "bash".to_owned(),
                arguments: Some(json!({ "command": command })),
                ..ScriptedToolCall::default()
            }]),
            ..ScriptedReply::default()
        },
        None => ScriptedReply {
            text_chunks: Some(vec!["Soak ".to_owned(), answer_tail(&prompt)]),
            ..ScriptedReply::default()
        },
    }
}

/// The server's rule: faults while `faults_on` holds, clean replies after (the final run per
/// session key must be able to succeed).
pub fn soak_rule(
    faults: FaultRule<fn(&ProviderRequest) -> ScriptedReply>,
    faults_on: Arc<AtomicBool>,
) -> impl ReplyRule {
    move |request: &ProviderRequest| {
        if faults_on.load(Ordering::Relaxed) {
            faults.reply(request)
        } else {
            clean_reply(request)
        }
    }
}
