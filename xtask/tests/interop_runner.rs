//! The writer side of `cargo xtask interop`'s runner case, without `node`: the runner writes
//! its multi-turn session (text, tools, threshold compaction, a turn after it) over the
//! scripted provider server on 127.0.0.1, and clawloop's own reader, opening the file afresh,
//! must rebuild at every turn's last entry exactly the conversation the runner ended that turn
//! with, and write every line back byte for byte.

// Test code: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use pretty_assertions::assert_eq;

use clawloop_session::{SessionEntry, SessionOptions, Transcript};
use interop::runner_case::{
    NOTE, NOTE_TEXT, SESSION_ID, SUMMARY, own_reader_differences, write_session,
};
use xtask::conformance;

// The harness example's module (it uses the dev-dependency clawloop-testkit, SPEC §1); its
// own unit tests run here too. This test reaches only part of it.
#[allow(dead_code)]
#[path = "../harness/interop/mod.rs"]
mod interop;

fn roles(messages: &[clawloop_core::message::AgentMessage]) -> Vec<&str> {
    messages.iter().map(|m| m.role()).collect()
}

#[test]
fn the_runner_s_session_reads_back_as_the_conversation_each_turn_ended_with() {
    let dir = tempfile::tempdir().unwrap();
    let session = write_session(dir.path()).unwrap();

    assert_eq!(
        own_reader_differences(&session).unwrap(),
        Vec::<String>::new()
    );

    // The case really covers what it claims: the tools changed the workspace, the third turn
    // compacted, and the last turn's context starts from the summary.
    assert_eq!(
        std::fs::read_to_string(session.workspace.join(NOTE)).unwrap(),
        NOTE_TEXT
    );
    let names: Vec<(&str, u32)> = session
        .turns
        .iter()
        .map(|t| (t.name, t.compactions))
        .collect();
    assert_eq!(
        names,
        [
            ("text", 0),
            ("tools", 0),
            ("threshold", 1),
            ("after compaction", 0)
        ]
    );
    assert_eq!(roles(&session.turns[0].messages), ["user", "assistant"]);
    assert_eq!(
        roles(&session.turns[1].messages),
        [
            "user",
            "assistant",
            "user",
            "assistant",
            "toolResult",
            "assistant",
            "toolResult",
            "toolResult",
            "assistant"
        ]
    );
    let last = &session.turns[3].messages;
    assert_eq!(last.first().map(|m| m.role()), Some("compactionSummary"));
    assert!(last[0].text().contains(SUMMARY), "{}", last[0].text());
    assert_eq!(
        last.last().map(|m| (m.role(), m.text())),
        Some(("assistant", "Flip the router back to blue.".to_owned()))
    );

    let t = Transcript::open(&session.path, SessionOptions::default()).unwrap();
    assert_eq!(t.session_id(), SESSION_ID);
    assert_eq!(t.leaf_id(), Some(session.turns[3].leaf_id.as_str()));
    let compactions = t
        .entries()
        .iter()
        .filter(|e| matches!(e, SessionEntry::Compaction(_)))
        .count();
    assert_eq!(compactions, 1);
    // A model change before each turn on another model than the last one recorded (the
    // threshold turn runs on the tools turn's model).
    let models: Vec<String> = t
        .entries()
        .iter()
        .filter_map(|e| match e {
            SessionEntry::ModelChange(m) => Some(format!("{}/{}", m.provider, m.model_id)),
            _ => None,
        })
        .collect();
    assert_eq!(models, ["resp/m-resp", "bolt/claude-x", "gem/gemini-x"]);
}

/// The check is not vacuous: a message the file records differently from what the runner
/// ended its turn with is reported, naming the turn, the message and both texts.
#[test]
fn a_file_that_records_a_turn_differently_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let session = write_session(dir.path()).unwrap();
    let text = std::fs::read_to_string(&session.path).unwrap();
    let (said, says) = (
        "notes.txt said: blue-green rollout on Friday (29 bytes).",
        "notes.txt says: blue-green rollout on Friday (29 bytes).",
    );
    assert_eq!(text.matches(says).count(), 1);
    std::fs::write(&session.path, text.replace(says, said)).unwrap();

    let tools = &session.turns[1];
    assert_eq!(
        own_reader_differences(&session).unwrap(),
        [format!(
            "turn `tools` (leaf {}): message 8 (assistant) at /content/0/text: \
             the runner \"{says}\", clawloop \"{said}\"",
            tools.leaf_id
        )]
    );
}
