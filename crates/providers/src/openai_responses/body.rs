//! Reading a 2xx Responses body: an event stream, or one JSON document from a server that
//! ignored `stream: true`.

use clawloop_core::AssistantMessageEvent;

use super::decode::ResponsesDecoder;
use crate::transport::{
    FrameError, HttpTransport, ResponseBody, SseEvent, SseFramer, TransportError,
};

/// A stream-ending failure after the response head.
#[derive(Debug)]
pub(super) enum Failure {
    /// The connection, the idle timeout, cancellation or the framer.
    Transport(TransportError),
    /// The provider's own error, or a body that cannot be decoded.
    Decode(String),
}

impl From<TransportError> for Failure {
    fn from(e: TransportError) -> Self {
        Failure::Transport(e)
    }
}

impl From<FrameError> for Failure {
    fn from(e: FrameError) -> Self {
        Failure::Transport(TransportError::Frame(e))
    }
}

enum Format {
    Sse {
        framer: SseFramer,
        frames: Vec<SseEvent>,
    },
    Json {
        bytes: Vec<u8>,
        limit: usize,
    },
}

/// Reads the body one chunk per [`BodyReader::step`], so events reach the consumer as soon as
/// their bytes arrive.
pub(super) struct BodyReader {
    body: ResponseBody,
    format: Format,
}

impl BodyReader {
    pub(super) fn new(body: ResponseBody, transport: &HttpTransport) -> Self {
        let limit = transport.config().max_event_bytes;
        let json = body
            .content_type()
            .is_some_and(|t| t.to_ascii_lowercase().starts_with("application/json"));
        let format = if json {
            Format::Json {
                bytes: Vec::new(),
                limit,
            }
        } else {
            Format::Sse {
                framer: SseFramer::new(limit),
                frames: Vec::new(),
            }
        };
        BodyReader { body, format }
    }

    /// Reads and decodes one chunk; `Ok(true)` when the stream is over.
    pub(super) async fn step(
        &mut self,
        decoder: &mut ResponsesDecoder,
        out: &mut Vec<AssistantMessageEvent>,
    ) -> Result<bool, Failure> {
        if self
            .body
            .content_type()
            .is_some_and(|t| t.to_ascii_lowercase().contains("html"))
        {
            return Err(Failure::Decode(format!(
                "{} Unexpected HTML page instead of an event stream",
                self.body.status()
            )));
        }
        let chunk = self.body.next_chunk().await?;
        match &mut self.format {
            Format::Sse { framer, frames } => {
                // Events completed before a framing error in the same read are
                // decoded first, so the outcome does not depend on read splits.
                let framed = match &chunk {
                    Some(bytes) => framer.feed(bytes, frames),
                    None => framer.finish(frames),
                };
                for frame in frames.drain(..) {
                    decoder
                        .on_data(&frame.event, &frame.data, out)
                        .map_err(|e| Failure::Decode(e.0))?;
                    if decoder.is_complete() {
                        // Nothing follows the terminal event; some servers keep the connection
                        // open after it (pi's codex test pins this), so close now.
                        self.body.close();
                        return Ok(true);
                    }
                }
                framed?;
                Ok(chunk.is_none())
            }
            Format::Json { bytes, limit } => {
                if let Some(chunk) = chunk {
                    if bytes.len() + chunk.len() > *limit {
                        return Err(FrameError::TooLarge { limit: *limit }.into());
                    }
                    bytes.extend_from_slice(&chunk);
                    return Ok(false);
                }
                let text = std::str::from_utf8(bytes).map_err(|_| FrameError::InvalidUtf8)?;
                decoder
                    .on_response(text, out)
                    .map_err(|e| Failure::Decode(e.0))?;
                Ok(true)
            }
        }
    }
}
