//! An endpoint-aware provider server whose every reply a rule computes from the request, for
//! loads where many turns run at once and no script order could say which request comes
//! first.

use std::io;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::ScriptedServer;
use super::reply_response::reply_response;
use super::url_text::percent_encode_segment;
use super::{ProviderRequest, RecordedRequest, Responder, ScriptedReply, ScriptedResponse};

/// The model id encoders are given when a request names none.
const FALLBACK_MODEL: &str = "scripted-model";

/// Computes the reply to one provider request.
///
/// The rule runs on the connection's task while other requests are served, so it must be
/// quick and must not block; any counter it keeps must be shared safely (atomics, a mutex held
/// briefly). Closures `Fn(&ProviderRequest) -> ScriptedReply` are rules.
pub trait ReplyRule: Send + Sync + 'static {
    /// The reply to `request`.
    fn reply(&self, request: &ProviderRequest) -> ScriptedReply;
}

impl<F> ReplyRule for F
where
    F: Fn(&ProviderRequest) -> ScriptedReply + Send + Sync + 'static,
{
    fn reply(&self, request: &ProviderRequest) -> ScriptedReply {
        self(request)
    }
}

/// One request a [`ProviderRuleServer`] answered and the reply its rule chose.
#[derive(Debug, Clone, PartialEq)]
pub struct RuledExchange {
    /// The request (its `turn` is 0 and its `response` `None`: there is no script).
    /// `problem` says why the reply could not be played, if so (it got HTTP 501).
    pub request: ProviderRequest,
    /// The reply the rule chose.
    pub reply: ScriptedReply,
}

impl RuledExchange {
    /// The HTTP status the request got: the reply's (200 by default), or 501 when the reply
    /// could not be played.
    pub fn status(&self) -> u16 {
        if self.request.problem.is_some() {
            return 501;
        }
        self.reply.status.unwrap_or(200)
    }
}

/// A running provider server on `127.0.0.1` that answers each request with the reply a
/// [`ReplyRule`] computes for it, encoded for the endpoint it called (like
/// [`ProviderScriptServer`](super::ProviderScriptServer), providers live under
/// `/p/<providerId>`); it stops when dropped.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// use clawloop_testkit::{ProviderRequest, ProviderRuleServer, ScriptedReply};
///
/// // Key "sk-tired" is rate-limited; every other key gets an echo of the user's text.
/// let server = ProviderRuleServer::start(|request: &ProviderRequest| ScriptedReply {
///     status: (request.api_key.as_deref() == Some("sk-tired")).then_some(429),
///     text: request.last_user_text().map(|text| format!("You said: {text}")),
///     ..ScriptedReply::default()
/// })
/// .await?;
/// // Point the "acme" provider's base URL here and call `/chat/completions`.
/// assert!(server.provider_url("acme").ends_with("/p/acme"));
/// assert!(server.exchanges().is_empty());
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct ProviderRuleServer {
    server: ScriptedServer,
    log: Arc<Mutex<Vec<RuledExchange>>>,
}

fn lock(log: &Mutex<Vec<RuledExchange>>) -> MutexGuard<'_, Vec<RuledExchange>> {
    log.lock().unwrap_or_else(PoisonError::into_inner)
}

impl ProviderRuleServer {
    /// Binds `127.0.0.1:0` and answers with `rule` (must run inside a tokio runtime).
    pub async fn start(rule: impl ReplyRule) -> io::Result<Self> {
        let log = Arc::new(Mutex::new(Vec::new()));
        let responder = Arc::new(RuleResponder {
            rule: Box::new(rule),
            log: Arc::clone(&log),
        });
        let server = ScriptedServer::start_with_responder(responder).await?;
        Ok(ProviderRuleServer { server, log })
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

    /// Every request so far with the reply it got, in the order the rule was asked.
    pub fn exchanges(&self) -> Vec<RuledExchange> {
        lock(&self.log).clone()
    }

    /// How many response bodies were cut short because the client closed the connection.
    pub fn client_disconnects(&self) -> usize {
        self.server.client_disconnects()
    }
    /// When each finished exchange's request arrived and its response was done, in arrival
    /// order (see [`ScriptedServer::timings`]).
    pub fn timings(&self) -> Vec<super::ExchangeTiming> {
        self.server.timings()
    }
}

/// Asks the rule, plays its reply and keeps the record.
struct RuleResponder {
    rule: Box<dyn ReplyRule>,
    log: Arc<Mutex<Vec<RuledExchange>>>,
}

impl Responder for RuleResponder {
    fn respond(&self, request: &RecordedRequest) -> ScriptedResponse {
        let mut record = ProviderRequest::new(request.clone(), 0);
        // The rule runs outside the log's lock, so a slow rule delays only its own request.
        let reply = self.rule.reply(&record);
        let model = record.model.as_deref().unwrap_or(FALLBACK_MODEL);
        let response = match reply_response(&reply, record.endpoint.api.as_ref(), model) {
            Ok(response) => response,
            Err(problem) => {
                let body = serde_json::json!({ "error": problem }).to_string();
                record.problem = Some(problem);
                ScriptedResponse::status(501, body)
            }
        };
        lock(&self.log).push(RuledExchange {
            request: record,
            reply,
        });
        response
    }
}
