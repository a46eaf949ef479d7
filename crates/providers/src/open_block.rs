//! The text or thinking block being streamed by decoders whose deltas arrive as whole parts
//! (Gemini, Ollama): a text of the same kind continues the open block, another kind or a tool
//! call closes it first.

use clawloop_core::message::ContentBlock;
use clawloop_core::{AssistantMessageBuilder, AssistantMessageEvent as Event};

use crate::surrogates::HalfJoiner;

/// The open block, with the signature to report on its end event (Gemini's last non-empty
/// `thoughtSignature`; Ollama has none).
#[derive(Debug, Clone)]
pub(crate) struct OpenBlock {
    pub(crate) index: usize,
    pub(crate) thinking: bool,
    pub(crate) signature: Option<String>,
}

/// Applies `event` to the message and pushes it to `out`.
pub(crate) fn emit(builder: &mut AssistantMessageBuilder, event: Event, out: &mut Vec<Event>) {
    builder.apply(&event);
    out.push(event);
}

/// Text continues the open block of its kind or starts a new one (after closing the open one);
/// an empty text only makes sure the block exists. UTF-16 halves split across parts are joined
/// by `halves`. Returns the block's index.
pub(crate) fn push_text(
    builder: &mut AssistantMessageBuilder,
    open: &mut Option<OpenBlock>,
    halves: &mut HalfJoiner,
    thinking: bool,
    text: String,
    out: &mut Vec<Event>,
) -> usize {
    let index = match open {
        Some(block) if block.thinking == thinking => block.index,
        _ => {
            close_open(builder, open, halves, out);
            let index = builder.message().content.len();
            let start = if thinking {
                Event::ThinkingStart {
                    content_index: index,
                }
            } else {
                Event::TextStart {
                    content_index: index,
                }
            };
            emit(builder, start, out);
            *open = Some(OpenBlock {
                index,
                thinking,
                signature: None,
            });
            index
        }
    };
    let text = halves.text(index, text);
    if !text.is_empty() {
        emit(builder, text_delta(index, thinking, text), out);
    }
    index
}

/// A text or thinking delta.
fn text_delta(content_index: usize, thinking: bool, delta: String) -> Event {
    if thinking {
        Event::ThinkingDelta {
            content_index,
            delta,
        }
    } else {
        Event::TextDelta {
            content_index,
            delta,
        }
    }
}

/// Emits the end event of the open text or thinking block, if any, with its signature (after
/// a last U+FFFD delta for a UTF-16 half that never got its pair).
pub(crate) fn close_open(
    builder: &mut AssistantMessageBuilder,
    open: &mut Option<OpenBlock>,
    halves: &mut HalfJoiner,
    out: &mut Vec<Event>,
) {
    let Some(open) = open.take() else {
        return;
    };
    if let Some(replacement) = halves.end(open.index) {
        let delta = text_delta(open.index, open.thinking, replacement.to_owned());
        emit(builder, delta, out);
    }
    let block = builder.message().content.get(open.index);
    let event = if open.thinking {
        let content = match block {
            Some(ContentBlock::Thinking(t)) => t.thinking.clone(),
            _ => String::new(),
        };
        Event::ThinkingEnd {
            content_index: open.index,
            content,
            content_signature: open.signature,
        }
    } else {
        let content = block
            .and_then(ContentBlock::as_text)
            .unwrap_or_default()
            .to_owned();
        Event::TextEnd {
            content_index: open.index,
            content,
            content_signature: open.signature,
        }
    };
    emit(builder, event, out);
}
