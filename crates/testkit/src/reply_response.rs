//! Turning a [`ScriptedReply`] into the bytes the server plays for one endpoint.
//!
//! A reply is either *verbatim* (`raw`, `body`, or a non-2xx `status`: sent as written) or a
//! *stream*, encoded by the called API. Either way the body is a list of data chunks, each
//! written on its own, so `chunkDelayMs`, `stallMs`/`stallAfterChunks` and `dropAfterChunks`
//! count the same units scenario authors think in: SSE events / NDJSON lines.

use std::time::Duration;

use clawloop_core::Api;
use serde_json::Value;

use super::dispatch::{encode_reply, stream_content_type};
use super::{Chunking, ScriptedReply, ScriptedResponse};

/// The response that plays `reply` for a request to `api` (unknown endpoint: `None`) made
/// for `model_id`. `Err` when the reply must be encoded and `api` has no encoder; the
/// message says why.
pub fn reply_response(
    reply: &ScriptedReply,
    api: Option<&Api>,
    model_id: &str,
) -> Result<ScriptedResponse, String> {
    let status = reply.status.unwrap_or(200);
    let success = (200..300).contains(&status);
    let (chunks, default_type) = if let Some(raw) = &reply.raw {
        (vec![raw.clone().into_bytes()], streamed_type(api, success))
    } else if let Some(body) = &reply.body {
        match body {
            Value::String(text) => (vec![text.clone().into_bytes()], streamed_type(api, success)),
            json => (vec![json.to_string().into_bytes()], "application/json"),
        }
    } else if !success {
        // A bare error status still needs a body a client can report.
        let body = serde_json::json!({"error": {
            "message": format!("scripted HTTP {status}"), "type": "scripted_error"}});
        (vec![body.to_string().into_bytes()], "application/json")
    } else {
        let api = api.ok_or_else(|| {
            "cannot encode a scripted reply for an unknown endpoint (no API)".to_owned()
        })?;
        let encoded = encode_reply(api, reply, model_id)
            .ok_or_else(|| format!("cannot encode a scripted reply for api {api} (no encoder)"))?;
        (encoded.chunks, encoded.content_type)
    };

    let mut headers: Vec<(String, String)> = reply
        .headers
        .iter()
        .flatten()
        .map(|(name, value)| {
            let value = match value {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (name.clone(), value)
        })
        .collect();
    let has_type = headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("content-type"));
    if let Some(content_type) = &reply.content_type {
        headers.retain(|(k, _)| !k.eq_ignore_ascii_case("content-type"));
        headers.insert(0, ("content-type".to_owned(), content_type.clone()));
    } else if !has_type {
        headers.insert(0, ("content-type".to_owned(), default_type.to_owned()));
    }

    let mut cuts = Vec::with_capacity(chunks.len());
    let mut body = Vec::new();
    for chunk in &chunks {
        body.extend_from_slice(chunk);
        cuts.push(body.len());
    }
    let mut response = ScriptedResponse::status(status, body).chunked(Chunking::At(cuts));
    response.headers = headers;
    if let Some(ms) = reply.chunk_delay_ms {
        response = response.delay(Duration::from_millis(ms));
    }
    if let Some(ms) = reply.stall_ms {
        response = response.stall(
            reply.stall_after_chunks.unwrap_or(0),
            Duration::from_millis(ms),
        );
    }
    if let Some(chunks) = reply.drop_after_chunks {
        response = response.drop_after(chunks);
    }
    Ok(response)
}

/// The default type of a verbatim text body: the API's stream type on success (a raw
/// stream), JSON for an error.
fn streamed_type(api: Option<&Api>, success: bool) -> &'static str {
    match api {
        Some(api) if success => stream_content_type(api),
        None if success => "text/event-stream",
        _ => "application/json",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn reply(json: Value) -> ScriptedReply {
        serde_json::from_value(json).unwrap()
    }

    fn play(json: Value, api: Option<Api>) -> Result<ScriptedResponse, String> {
        reply_response(&reply(json), api.as_ref(), "m1")
    }

    fn header<'a>(r: &'a ScriptedResponse, name: &str) -> Option<&'a str> {
        r.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    #[test]
    fn streams_are_cut_at_data_chunks_with_the_knobs() {
        let r = play(
            json!({"textChunks": ["a", "b"], "chunkDelayMs": 5, "stallMs": 7,
                   "stallAfterChunks": 1, "dropAfterChunks": 2, "headers": {"x-n": 3}}),
            Some(Api::OpenaiCompletions),
        )
        .unwrap();
        assert_eq!(r.status, 200);
        assert_eq!(header(&r, "content-type"), Some("text/event-stream"));
        assert_eq!(header(&r, "x-n"), Some("3"));
        let pieces = r.chunking.split(&r.body);
        // 2 texts, finish, usage, [DONE]
        assert_eq!(pieces.len(), 5);
        assert!(pieces.iter().all(|p| p.starts_with(b"data: ")));
        assert_eq!(r.chunk_delay, Duration::from_millis(5));
        assert_eq!(
            r.stall.map(|s| (s.after_chunks, s.duration.as_millis())),
            Some((1, 7))
        );
        assert_eq!(r.drop_after_chunks, Some(2));
    }

    #[test]
    fn verbatim_bodies() {
        let r = play(
            json!({"status": 429, "body": {"error": {"message": "slow down"}},
                   "headers": {"retry-after": "7"}}),
            Some(Api::OpenaiCompletions),
        )
        .unwrap();
        assert_eq!(r.status, 429);
        assert_eq!(r.body, br#"{"error":{"message":"slow down"}}"#);
        assert_eq!(header(&r, "content-type"), Some("application/json"));
        assert_eq!(header(&r, "retry-after"), Some("7"));

        let r = play(
            json!({"raw": "data: x\n\n", "stallMs": 3}),
            Some(Api::Ollama),
        )
        .unwrap();
        assert_eq!(
            header(&r, "content-type"),
            Some(crate::script::ollama::CONTENT_TYPE)
        );
        assert_eq!(r.chunking.split(&r.body), vec![&b"data: x\n\n"[..]]);
        assert_eq!(r.stall.map(|s| s.after_chunks), Some(0));

        let r = play(
            json!({"status": 502, "body": "<html>bad</html>", "contentType": "text/html",
                   "headers": {"Content-Type": "ignored"}}),
            None,
        )
        .unwrap();
        assert_eq!(header(&r, "content-type"), Some("text/html"));
        assert_eq!(r.headers.len(), 1);

        let r = play(json!({"status": 503}), None).unwrap();
        assert!(String::from_utf8_lossy(&r.body).contains("scripted HTTP 503"));
        let r = play(
            json!({"body": "{}", "headers": {"content-type": "application/json"}}),
            None,
        )
        .unwrap();
        assert_eq!(
            r.headers,
            vec![("content-type".to_owned(), "application/json".to_owned())]
        );
    }

    #[test]
    fn streams_need_an_encoder() {
        assert_eq!(
            play(json!({"text": "x"}), None).unwrap_err(),
            "cannot encode a scripted reply for an unknown endpoint (no API)"
        );
        assert!(
            play(json!({"text": "x"}), Some(Api::Other("custom".into())))
                .unwrap_err()
                .contains("api custom (no encoder)")
        );
    }
}
