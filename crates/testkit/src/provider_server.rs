//! The endpoint-aware scripted provider server (FORMAT.md `run`, SPEC §4): every provider
//! lives under `/p/<providerId>`, each request takes a scripted exchange of the current turn
//! and gets its reply in the wire format of the endpoint it called.

use std::io;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::reply_response::reply_response;
use super::url_text::percent_encode_segment;
use super::{
    ProviderRequest, RecordedRequest, Responder, ScriptedExchange, ScriptedResponse,
    ScriptedServer, TurnReport, UNSCRIPTED_BODY,
};

/// The model id encoders are given when a request names none.
const FALLBACK_MODEL: &str = "scripted-model";

/// A running scripted provider server on `127.0.0.1`; it stops when dropped.
///
/// Matching (FORMAT.md): a request takes the first unused exchange of the current turn whose
/// `expectRequest` holds, so parallel requests may arrive in any order; if none holds, it
/// takes the first unused one and the mismatch is recorded; with none left it gets HTTP 500
/// `{"error":"unscripted request"}`. [`ProviderScriptServer::end_turn`] reports all of it.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// use clawloop_testkit::{ProviderScriptServer, ScriptedExchange};
///
/// let server = ProviderScriptServer::start().await?;
/// let reply = serde_json::from_value(serde_json::json!({"text": "Hello!"}))?;
/// server.begin_turn(vec![ScriptedExchange::reply(reply)]);
/// // Point the "acme" provider's base URL here and call `/chat/completions`.
/// let base_url = format!("{}/v1", server.provider_url("acme"));
/// assert!(base_url.ends_with("/p/acme/v1"));
/// let report = server.end_turn();
/// assert_eq!(report.problems(), vec!["responses[0] was never requested"]);
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct ProviderScriptServer {
    server: ScriptedServer,
    script: Arc<Mutex<Script>>,
}

/// The script and the record, shared with the connection tasks.
#[derive(Debug, Default)]
struct Script {
    /// The current turn number (0 before the first turn).
    turn: usize,
    /// The current turn's exchanges.
    slots: Vec<Slot>,
    /// Every request so far.
    requests: Vec<ProviderRequest>,
    /// Index in `requests` of the first request not yet reported by `end_turn`.
    unreported: usize,
}

#[derive(Debug)]
struct Slot {
    exchange: ScriptedExchange,
    used: bool,
}

fn lock(script: &Mutex<Script>) -> MutexGuard<'_, Script> {
    script.lock().unwrap_or_else(PoisonError::into_inner)
}

impl ProviderScriptServer {
    /// Binds `127.0.0.1:0` with an empty script (must run inside a tokio runtime).
    pub async fn start() -> io::Result<Self> {
        let script = Arc::new(Mutex::new(Script::default()));
        let responder = Arc::new(ScriptResponder {
            script: script.clone(),
        });
        let server = ScriptedServer::start_with_responder(responder).await?;
        Ok(ProviderScriptServer { server, script })
    }

    /// `http://127.0.0.1:<port>` (no trailing slash).
    pub fn url(&self) -> String {
        self.server.url()
    }

    /// `http://127.0.0.1:<port>/p/<providerId>`: the root under which `provider_id`'s
    /// endpoints are served (append the API's usual base path, e.g. `/v1`).
    pub fn provider_url(&self, provider_id: &str) -> String {
        format!("{}/p/{}", self.url(), percent_encode_segment(provider_id))
    }

    /// Starts the next turn with `script` (the previous turn's unused exchanges are
    /// dropped: call [`ProviderScriptServer::end_turn`] first to see them).
    pub fn begin_turn(&self, script: Vec<ScriptedExchange>) {
        let mut state = lock(&self.script);
        state.turn += 1;
        state.slots = script
            .into_iter()
            .map(|exchange| Slot {
                exchange,
                used: false,
            })
            .collect();
    }

    /// Appends an exchange to the current turn.
    pub fn push(&self, exchange: ScriptedExchange) {
        lock(&self.script).slots.push(Slot {
            exchange,
            used: false,
        });
    }

    /// Ends the current turn: the requests since the last report (stray requests between
    /// turns included) and the exchanges left unused. Later requests are unscripted until
    /// the next [`ProviderScriptServer::begin_turn`].
    pub fn end_turn(&self) -> TurnReport {
        let mut state = lock(&self.script);
        let requests = state
            .requests
            .get(state.unreported..)
            .map(<[ProviderRequest]>::to_vec)
            .unwrap_or_default();
        state.unreported = state.requests.len();
        let slots = std::mem::take(&mut state.slots);
        let mut report = TurnReport {
            requests,
            ..TurnReport::default()
        };
        for (index, slot) in slots.iter().enumerate().filter(|(_, s)| !s.used) {
            if slot.exchange.optional {
                report.unused_optional.push(index);
            } else {
                report.unused.push(index);
            }
        }
        report
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<ProviderRequest> {
        lock(&self.script).requests.clone()
    }

    /// Exchanges of the current turn not used yet.
    pub fn remaining(&self) -> usize {
        lock(&self.script).slots.iter().filter(|s| !s.used).count()
    }

    /// How many response bodies were cut short because the client closed the connection
    /// (an idle timeout during a stall, an abort).
    pub fn client_disconnects(&self) -> usize {
        self.server.client_disconnects()
    }
    /// When each finished exchange's request arrived and its response was done, in arrival
    /// order (see [`ScriptedServer::timings`]).
    pub fn timings(&self) -> Vec<super::ExchangeTiming> {
        self.server.timings()
    }
}

/// Chooses each response from the shared script.
struct ScriptResponder {
    script: Arc<Mutex<Script>>,
}

impl Responder for ScriptResponder {
    fn respond(&self, request: &RecordedRequest) -> ScriptedResponse {
        let mut state = lock(&self.script);
        let mut record = ProviderRequest::new(request.clone(), state.turn);
        let response = match choose(&state.slots, &record) {
            None => ScriptedResponse::status(500, UNSCRIPTED_BODY),
            Some((index, mismatch)) => {
                record.response = Some(index);
                record.mismatch = mismatch;
                let model = record.model.as_deref().unwrap_or(FALLBACK_MODEL);
                let played = state.slots.get_mut(index).map(|slot| {
                    slot.used = true;
                    reply_response(&slot.exchange.reply, record.endpoint.api.as_ref(), model)
                });
                match played {
                    Some(Ok(response)) => response,
                    Some(Err(problem)) => {
                        let body = serde_json::json!({ "error": problem }).to_string();
                        record.problem = Some(problem);
                        ScriptedResponse::status(501, body)
                    }
                    None => ScriptedResponse::status(500, UNSCRIPTED_BODY),
                }
            }
        };
        state.requests.push(record);
        response
    }
}

/// The exchange `request` takes: the first unused one whose checks hold, else the first
/// unused one with the reason it does not fit; `None` when all are used.
fn choose(slots: &[Slot], request: &ProviderRequest) -> Option<(usize, Option<String>)> {
    let mut unused = slots.iter().enumerate().filter(|(_, s)| !s.used);
    let first = unused.clone().next()?.0;
    let fitting = unused.find(|(_, slot)| {
        slot.exchange
            .expect_request
            .as_ref()
            .is_none_or(|expect| expect.check(request).is_ok())
    });
    match fitting {
        Some((index, _)) => Some((index, None)),
        None => {
            let mismatch = slots
                .get(first)
                .and_then(|s| s.exchange.expect_request.as_ref())
                .and_then(|expect| expect.check(request).err());
            Some((first, mismatch))
        }
    }
}
