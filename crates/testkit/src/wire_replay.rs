//! FORMAT.md's `wire` procedure, shared by the conformance kind and the crate's tests: serve
//! one body from a [`ScriptedServer`] whole, one byte per write and at seeded random splits,
//! let a provider client consume each, and require one request, one terminal event and the
//! same outcome every time.

use std::time::Duration;

use clawloop_core::{Api, AssistantEventStream, AssistantMessage, AssistantMessageEvent};

use super::{Chunking, ScriptedResponse, ScriptedServer};
use clawloop_providers::transport::CallDiagnostics;

/// The seed of the random splits when a caller has no reason to pick another.
pub const WIRE_SPLIT_SEED: u64 = 0x5eed;

/// The longest one replay may take before it counts as hung (a client that never ends its
/// stream must fail the case, not stall the whole run).
const CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// xorshift64*: reproducible split points without a dependency.
#[derive(Debug, Clone)]
pub struct SplitRng(u64);

impl SplitRng {
    /// A generator for `seed` (0 is replaced: xorshift is stuck at 0).
    pub fn new(seed: u64) -> Self {
        SplitRng(seed.max(1))
    }

    /// The next pseudo-random number.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Up to 24 sorted, distinct cut points inside `1..len` (none when `len < 2`).
    pub fn cuts(&mut self, len: usize) -> Vec<usize> {
        let Some(span) = u64::try_from(len).ok().filter(|l| *l >= 2).map(|l| l - 1) else {
            return Vec::new();
        };
        let count = self.next_u64() % 24 + 1;
        let mut cuts: Vec<usize> = (0..count)
            // `< span < len`, so the value fits in usize.
            .map(|_| 1 + usize::try_from(self.next_u64() % span).unwrap_or(0))
            .collect();
        cuts.sort_unstable();
        cuts.dedup();
        cuts
    }
}

/// The three ways FORMAT.md's `wire` kind serves a body of `len` bytes, with their labels.
pub fn wire_splits(len: usize, seed: u64) -> Vec<(&'static str, Chunking)> {
    vec![
        ("whole", Chunking::Whole),
        ("one byte per read", Chunking::Fixed(1)),
        ("random splits", Chunking::At(SplitRng::new(seed).cuts(len))),
    ]
}

/// FORMAT.md's `content-type` for a `wire` body whose headers name none:
/// `text/event-stream` (`application/x-ndjson` for `ollama`) for status 200, else
/// `application/json`.
pub fn wire_content_type(api: &Api, status: u16) -> &'static str {
    match (api, status) {
        (Api::Ollama, 200) => "application/x-ndjson",
        (_, 200) => "text/event-stream",
        _ => "application/json",
    }
}

/// A response to replay: status, headers and body bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireBody {
    /// HTTP status.
    pub status: u16,
    /// Response headers (with a `content-type`).
    pub headers: Vec<(String, String)>,
    /// The body, any bytes.
    pub body: Vec<u8>,
}

impl WireBody {
    /// The body for `api`, with FORMAT.md's default `content-type` added when `headers` has
    /// none.
    pub fn new(api: &Api, status: u16, mut headers: Vec<(String, String)>, body: Vec<u8>) -> Self {
        if !headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("content-type"))
        {
            headers.push((
                "content-type".to_owned(),
                wire_content_type(api, status).to_owned(),
            ));
        }
        WireBody {
            status,
            headers,
            body,
        }
    }

    /// The scripted response serving it with `chunking`.
    pub fn response(&self, chunking: Chunking) -> ScriptedResponse {
        let mut response = ScriptedResponse::status(self.status, self.body.clone());
        response.headers = self.headers.clone();
        response.chunked(chunking)
    }
}

/// What one replay produced.
#[derive(Debug, Clone)]
pub struct WireRun {
    /// Every event, the terminal one last.
    pub events: Vec<AssistantMessageEvent>,
    /// The final message (of the terminal event).
    pub message: AssistantMessage,
    /// The call's transport diagnostics (HTTP status, `retry-after`).
    pub diagnostics: CallDiagnostics,
}

impl WireRun {
    /// The event type names, in order.
    pub fn types(&self) -> Vec<&'static str> {
        self.events
            .iter()
            .map(AssistantMessageEvent::type_name)
            .collect()
    }
}

/// Drains a provider stream.
pub async fn collect_events(mut stream: AssistantEventStream) -> Vec<AssistantMessageEvent> {
    let mut events = Vec::new();
    while let Some(event) = std::future::poll_fn(|cx| stream.as_mut().poll_next(cx)).await {
        events.push(event);
    }
    events
}

/// Serves `body` three ways ([`wire_splits`] with `seed`), each from a fresh server whose
/// URL is passed to `call`, which starts the provider call. Each replay must make exactly
/// one request and end with exactly one terminal event; all three must give the same final
/// message (timestamp aside), event types, HTTP status and `retry-after`. Returns the
/// whole-body run, or the first failure prefixed with its split's label.
pub async fn replay_wire<F>(body: &WireBody, seed: u64, mut call: F) -> Result<WireRun, String>
where
    F: FnMut(&str) -> (AssistantEventStream, CallDiagnostics),
{
    let mut first: Option<WireRun> = None;
    for (label, chunking) in wire_splits(body.body.len(), seed) {
        let fail = |what: String| format!("{label}: {what}");
        let server = ScriptedServer::start(vec![body.response(chunking)])
            .await
            .map_err(|e| fail(format!("cannot start the scripted server: {e}")))?;
        let (stream, diagnostics) = call(&server.url());
        let events = tokio::time::timeout(CALL_TIMEOUT, collect_events(stream))
            .await
            .map_err(|_| {
                fail(format!(
                    "the stream did not end within {} s",
                    CALL_TIMEOUT.as_secs()
                ))
            })?;
        let requests = server.requests().len();
        if requests != 1 {
            return Err(fail(format!("{requests} requests, expected exactly 1")));
        }
        let terminals = events.iter().filter(|e| e.is_terminal()).count();
        let message = match events.last().and_then(AssistantMessageEvent::final_message) {
            Some(message) if terminals == 1 => message.clone(),
            _ => {
                let types: Vec<_> = events.iter().map(|e| e.type_name()).collect();
                return Err(fail(format!(
                    "expected exactly one terminal event, last; got {types:?}"
                )));
            }
        };
        let run = WireRun {
            events,
            message,
            diagnostics,
        };
        match &first {
            None => first = Some(run),
            Some(whole) => {
                if let Some(difference) = difference(whole, &run) {
                    return Err(fail(format!(
                        "differs from the whole-body run: {difference}"
                    )));
                }
            }
        }
    }
    first.ok_or_else(|| "no replay ran".to_owned())
}

/// How `run` differs from `whole`, if it does.
fn difference(whole: &WireRun, run: &WireRun) -> Option<String> {
    if whole.types() != run.types() {
        return Some(format!("events {:?} vs {:?}", run.types(), whole.types()));
    }
    let mut a = whole.message.clone();
    let mut b = run.message.clone();
    a.timestamp = 0;
    b.timestamp = 0;
    if a != b {
        let show = |m: &AssistantMessage| {
            let text = serde_json::to_string(m).unwrap_or_default();
            text.chars().take(400).collect::<String>()
        };
        return Some(format!("message {} vs {}", show(&b), show(&a)));
    }
    let facts = |r: &WireRun| (r.diagnostics.http_status(), r.diagnostics.retry_after_ms());
    (facts(whole) != facts(run)).then(|| {
        format!(
            "(status, retry-after ms) {:?} vs {:?}",
            facts(run),
            facts(whole)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_are_sorted_inside_and_reproducible() {
        for len in [0, 1, 2, 3, 100, 10_000] {
            let cuts = SplitRng::new(7).cuts(len);
            assert_eq!(cuts, SplitRng::new(7).cuts(len));
            assert!(cuts.windows(2).all(|w| w[0] < w[1]), "{cuts:?}");
            assert!(cuts.iter().all(|c| *c >= 1 && *c < len), "{len}: {cuts:?}");
            assert_eq!(cuts.is_empty(), len < 2);
        }
        assert_ne!(SplitRng::new(1).cuts(1000), SplitRng::new(2).cuts(1000));
        assert_eq!(SplitRng::new(0).next_u64(), SplitRng::new(1).next_u64());
    }

    #[test]
    fn splits_and_content_types() {
        let labels: Vec<_> = wire_splits(10, 3).into_iter().map(|(l, _)| l).collect();
        assert_eq!(labels, ["whole", "one byte per read", "random splits"]);
        assert_eq!(wire_content_type(&Api::Ollama, 200), "application/x-ndjson");
        assert_eq!(
            wire_content_type(&Api::AnthropicMessages, 200),
            "text/event-stream"
        );
        assert_eq!(wire_content_type(&Api::Ollama, 500), "application/json");
        let b = WireBody::new(&Api::Ollama, 200, Vec::new(), b"{}".to_vec());
        assert_eq!(
            b.headers,
            vec![("content-type".into(), "application/x-ndjson".into())]
        );
        let b = WireBody::new(
            &Api::Ollama,
            200,
            vec![("Content-Type".into(), "text/plain".into())],
            Vec::new(),
        );
        assert_eq!(b.headers.len(), 1);
        assert_eq!(b.response(Chunking::Fixed(1)).headers, b.headers);
    }
}
