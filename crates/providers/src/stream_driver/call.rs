//! One call as a stream of events: the request, the body read chunk by chunk, the ending.

use std::time::{SystemTime, UNIX_EPOCH};

use clawloop_core::{AssistantEventStream, AssistantMessageEvent};
use tokio_util::sync::CancellationToken;

use super::decode_reads::{end_stream, stop_reason};
use super::{BodyDecoder, BodyError, Framing, Progress, WireDecoder};
use crate::transport::{CallDiagnostics, HttpRequest, HttpTransport, ResponseBody, TransportError};

/// Now, in ms since the Unix epoch (the timestamp of a new message).
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Sends `request` and streams the decoded answer: `start` once the response head arrived,
/// the content events of each read as soon as it is decoded, then exactly one `done` or
/// `error`. An HTTP failure's data is on the failed message
/// ([`error_diagnostics`](clawloop_core::AssistantMessage::error_diagnostics)); the handle
/// also holds the transport failure that ended the stream, if any.
pub(crate) fn stream_call<D>(
    transport: &HttpTransport,
    request: HttpRequest,
    cancel: CancellationToken,
    decoder: D,
) -> (AssistantEventStream, CallDiagnostics)
where
    D: WireDecoder + Send + 'static,
{
    let diagnostics = CallDiagnostics::new();
    let report = diagnostics.clone();
    let transport = transport.clone();
    let stream = async_stream::stream! {
        let mut out = Vec::new();
        let mut body = match transport.send(request, &cancel).await {
            Ok(body) => body,
            Err(error) => {
                report.record(&error);
                decoder.fail(stop_reason(&error), D::transport_error_message(&error), &mut out);
                attach_diagnostics(&mut out, &error);
                for event in out { yield event; }
                return;
            }
        };
        yield decoder.start();
        let framing = D::framing(body.content_type());
        let mut reader = BodyDecoder::new(decoder, framing, transport.config().max_event_bytes);
        let result = match html_page(&body, framing) {
            Some(error) => Err(error),
            None => loop {
                match read(&mut body, &mut reader, &mut out).await {
                    Ok(Progress::More) => {
                        for event in out.drain(..) {
                            yield event;
                        }
                    }
                    Ok(Progress::Complete) => break Ok(()),
                    Err(error) => break Err(error),
                }
            },
        };
        let transport_error = match &result {
            Err(BodyError::Transport(error)) => Some(error.clone()),
            Ok(()) | Err(BodyError::Decode(_)) => None,
        };
        end_stream(reader.into_decoder(), result, &mut out);
        if let Some(error) = transport_error {
            report.record(&error);
            attach_diagnostics(&mut out, &error);
        }
        for event in out { yield event; }
    };
    (Box::pin(stream), diagnostics)
}

/// Reads and decodes one chunk of the body; [`Progress::Complete`] at the body's end or after
/// its terminal frame (the connection is closed then rather than left to the server).
async fn read<D: WireDecoder>(
    body: &mut ResponseBody,
    reader: &mut BodyDecoder<D>,
    out: &mut Vec<AssistantMessageEvent>,
) -> Result<Progress, BodyError> {
    let Some(chunk) = body.next_chunk().await? else {
        reader.end(out)?;
        return Ok(Progress::Complete);
    };
    let progress = reader.feed(&chunk, out)?;
    match progress {
        Progress::More => {}
        Progress::Complete => body.close(),
    }
    Ok(progress)
}

/// The error for a 2xx HTML page (a proxy's or captive portal's) where a stream was expected.
fn html_page(body: &ResponseBody, framing: Framing) -> Option<BodyError> {
    let html = body
        .content_type()
        .is_some_and(|t| t.to_ascii_lowercase().contains("html"));
    html.then(|| {
        BodyError::Decode(format!(
            "{} Unexpected HTML page instead of {}",
            body.status(),
            framing.stream_name()
        ))
    })
}

/// Puts an HTTP failure's data (status, `retry-after`, request id, error code) on the failed
/// message of the terminal event in `out`, where every wrapper passes it on to the caller.
fn attach_diagnostics(out: &mut [AssistantMessageEvent], error: &TransportError) {
    let Some(http) = error.http() else {
        return;
    };
    if let Some(AssistantMessageEvent::Error { error: message, .. }) = out.last_mut() {
        message.error_diagnostics = Some(Box::new(http.diagnostics()));
    }
}
