//! `--json`, pi's JSON mode: the session header as the first line, then every agent event as
//! one line, `message_update` as pi writes it (the stream event with its `partial`, and the
//! message so far). Tool progress is [throttled](super::update_throttle).

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use clawloop_core::AgentEvent;
use clawloop_core::agent_event::message_update_to_pi_json;
use clawloop_core::message::AgentMessage;
use clawloop_core::stream_event::AssistantMessageBuilder;
use clawloop_session::{SessionHeader, format_iso};

use super::term::Term;
use super::update_throttle::UpdateThrottle;

/// Follows one turn's events and writes them as pi's JSON lines.
#[derive(Debug, Default)]
pub struct JsonEvents {
    /// The assistant message being streamed, rebuilt from its events: the runner leaves the
    /// message out of `message_update` (copying it per delta is quadratic), pi's line has it.
    streaming: Option<AssistantMessageBuilder>,
    updates: UpdateThrottle,
}

impl JsonEvents {
    /// The line for `event`.
    pub fn line(&mut self, event: &AgentEvent) -> Result<String, serde_json::Error> {
        match event {
            AgentEvent::MessageStart { message } => {
                if let AgentMessage::Assistant(assistant) = message.as_ref() {
                    self.streaming = Some(AssistantMessageBuilder::new(assistant.clone()));
                }
            }
            AgentEvent::MessageUpdate {
                assistant_message_event,
                message: None,
            } => {
                if let Some(builder) = self.streaming.as_mut() {
                    builder.apply(assistant_message_event);
                    return message_update_to_pi_json(assistant_message_event, builder.message());
                }
            }
            AgentEvent::MessageEnd { .. } => self.streaming = None,
            _ => {}
        }
        serde_json::to_string(event)
    }

    /// Writes the line for `event` to stdout, after the held tool updates it must follow; an
    /// event that cannot be serialized is dropped.
    pub fn write(&mut self, term: &Term, event: &AgentEvent) {
        let admitted = self.updates.admit(event, Instant::now());
        for held in &admitted.before {
            self.write_now(term, held);
        }
        if admitted.this {
            self.write_now(term, event);
        }
    }

    /// Writes the held tool updates whose time has come (called every so often while a turn
    /// runs, so progress shows even when no other event follows).
    pub fn tick(&mut self, term: &Term) {
        for held in self.updates.due(Instant::now()) {
            self.write_now(term, &held);
        }
    }

    fn write_now(&mut self, term: &Term, event: &AgentEvent) {
        if let Ok(line) = self.line(event) {
            term.out_line(&line);
        }
    }
}

/// The header of the session file `path`, the first line pi's JSON mode prints.
///
/// A session that has no file yet (a new key, or after `--new`) gets its file now, holding
/// only the header the runner then continues: the line printed is the line on disk.
pub fn session_header(
    path: &Path,
    session_id: &str,
    cwd: &Path,
    now_ms: u64,
) -> Result<SessionHeader, String> {
    let cannot = |err: std::io::Error| format!("cannot read the session {}: {err}", path.display());
    if let Some(header) = read_header(path).map_err(cannot)? {
        return Ok(header);
    }
    let existing_len = match std::fs::metadata(path) {
        Ok(meta) => Some(meta.len()),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
        Err(err) => return Err(cannot(err)),
    };
    if existing_len.is_some_and(|len| len > 0) {
        // The runner refuses such a file too; say so before the turn rather than after.
        return Err(format!(
            "the session file {} does not start with a session header",
            path.display()
        ));
    }
    let header = SessionHeader::new(session_id, format_iso(now_ms), cwd.display().to_string());
    let line = serde_json::to_string(&header)
        .map_err(|err| format!("cannot write the session header: {err}"))?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|err| {
            format!(
                "cannot create the sessions directory {}: {err}",
                dir.display()
            )
        })?;
    }
    let mut options = std::fs::OpenOptions::new();
    if existing_len.is_some() {
        // An empty file (a session started and never written): the header goes into it.
        options.append(true);
    } else {
        options.write(true).create_new(true);
    }
    let written = options
        .open(path)
        .and_then(|mut file| file.write_all(format!("{line}\n").as_bytes()));
    match written {
        Ok(()) => Ok(header),
        // Another process started the session first: its header is the one that counts.
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => read_header(path)
            .map_err(cannot)?
            .ok_or_else(|| format!("the session file {} has no header", path.display())),
        Err(err) => Err(format!(
            "cannot create the session {}: {err}",
            path.display()
        )),
    }
}

/// The first non-blank line of `path` as a header; `None` when the file is missing or empty.
fn read_header(path: &Path) -> std::io::Result<Option<SessionHeader>> {
    use std::io::BufRead;
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(err),
    };
    for line in std::io::BufReader::new(file).lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        return Ok(serde_json::from_str::<SessionHeader>(&line).ok());
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::message::AssistantMessage;
    use clawloop_core::model::Api;
    use clawloop_core::stream_event::AssistantMessageEvent;
    use pretty_assertions::assert_eq;
    use serde_json::{Value, json};
    use std::sync::Arc;

    #[test]
    fn message_update_lines_carry_the_delta_and_the_message_so_far() -> Result<(), String> {
        let mut json = JsonEvents::default();
        let start = AssistantMessage::empty(Api::OpenaiCompletions, "acme", "m1", 7);
        json.line(&AgentEvent::MessageStart {
            message: Arc::new(AgentMessage::Assistant(start)),
        })
        .map_err(|e| e.to_string())?;
        let mut last = Value::Null;
        for event in [
            AssistantMessageEvent::TextStart { content_index: 0 },
            AssistantMessageEvent::TextDelta {
                content_index: 0,
                delta: "Hel".into(),
            },
            AssistantMessageEvent::TextDelta {
                content_index: 0,
                delta: "lo".into(),
            },
        ] {
            let line = json
                .line(&AgentEvent::MessageUpdate {
                    assistant_message_event: event,
                    message: None,
                })
                .map_err(|e| e.to_string())?;
            last = serde_json::from_str(&line).map_err(|e| e.to_string())?;
        }
        assert_eq!(
            (
                last["type"].clone(),
                last["assistantMessageEvent"]["type"].clone(),
                last["assistantMessageEvent"]["delta"].clone(),
                last["message"]["content"].clone(),
                last["assistantMessageEvent"]["partial"]["content"].clone(),
            ),
            (
                json!("message_update"),
                json!("text_delta"),
                json!("lo"),
                json!([{"type": "text", "text": "Hello"}]),
                json!([{"type": "text", "text": "Hello"}]),
            )
        );
        Ok(())
    }

    #[test]
    fn the_header_is_read_or_written_once() -> Result<(), String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let path = dir.path().join("sessions").join("s1.jsonl");
        let written = session_header(&path, "s1", Path::new("/w"), 0)?;
        let on_disk = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
        assert_eq!(
            on_disk,
            "{\"type\":\"session\",\"version\":3,\"id\":\"s1\",\"timestamp\":\"1970-01-01T00:00:00.000Z\",\"cwd\":\"/w\"}\n"
        );
        assert_eq!(session_header(&path, "other", Path::new("/x"), 5)?, written);

        let empty = dir.path().join("sessions").join("s2.jsonl");
        std::fs::write(&empty, "").map_err(|e| e.to_string())?;
        let header = session_header(&empty, "s2", Path::new("/w"), 0)?;
        assert_eq!(header.id, "s2");
        let broken = dir.path().join("sessions").join("s3.jsonl");
        std::fs::write(&broken, "not json\n").map_err(|e| e.to_string())?;
        let err = session_header(&broken, "s3", Path::new("/w"), 0).err();
        assert_eq!(
            err,
            Some(format!(
                "the session file {} does not start with a session header",
                broken.display()
            ))
        );
        Ok(())
    }
}
