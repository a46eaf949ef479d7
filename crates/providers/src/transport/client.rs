//! The shared HTTP client and the one-request-per-call send path.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tokio::time::Instant;

use bytes::Bytes;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use tokio_util::sync::CancellationToken;

use super::config::MAX_ERROR_BODY_READ_BYTES;
use super::retry_after::retry_after_ms;
use super::{HttpError, TransportConfig, TransportError};

/// One POST request with a JSON body, as a wire API builds it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpRequest {
    /// Full URL.
    pub url: String,
    /// Headers (auth included); later entries win over earlier ones with the same name.
    pub headers: Vec<(String, String)>,
    /// The serialized JSON body.
    pub body: Vec<u8>,
}

/// The HTTP client of one runtime: one connection pool shared by every provider and call
/// (cheap to clone), plus the stream settings.
///
/// It sends exactly one request per call and never retries: retry, key rotation and fallback
/// belong to the runner, which must see every failure (SPEC §4).
#[derive(Debug, Clone)]
pub struct HttpTransport {
    client: reqwest::Client,
    config: Arc<TransportConfig>,
}

impl HttpTransport {
    /// A transport with its own connection pool.
    pub fn new(config: TransportConfig) -> Result<Self, TransportError> {
        let client = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .build()
            .map_err(|e| TransportError::Connect(TransportError::describe(&e)))?;
        Ok(Self::with_client(client, config))
    }

    /// A transport over an existing reqwest client (to share its pool with other code).
    pub fn with_client(client: reqwest::Client, config: TransportConfig) -> Self {
        HttpTransport {
            client,
            config: Arc::new(config),
        }
    }

    /// The settings.
    pub fn config(&self) -> &TransportConfig {
        &self.config
    }

    /// The underlying client.
    pub fn client(&self) -> &reqwest::Client {
        &self.client
    }

    /// Sends `request` and waits for the response head. A 2xx gives the body to stream; any
    /// other status reads at most [`MAX_ERROR_BODY_READ_BYTES`] of the body and becomes
    /// [`TransportError::Http`]. Cancellation and the idle timeout apply to every wait.
    pub async fn send(
        &self,
        request: HttpRequest,
        cancel: &CancellationToken,
    ) -> Result<ResponseBody, TransportError> {
        if cancel.is_cancelled() {
            return Err(TransportError::Aborted);
        }
        let mut headers = HeaderMap::new();
        for (name, value) in &request.headers {
            let name = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| TransportError::Connect(format!("invalid header name {name:?}")))?;
            // Never echo the value: it may be an API key.
            let value = HeaderValue::from_str(value)
                .map_err(|_| TransportError::Connect(format!("invalid value for header {name}")))?;
            headers.insert(name, value);
        }
        let pending = self
            .client
            .post(&request.url)
            .headers(headers)
            .body(request.body)
            .send();
        let idle = self.config.idle_timeout;
        let response = guarded(cancel, idle, pending)
            .await?
            .map_err(|e| TransportError::Connect(TransportError::describe(&e)))?;
        let status = response.status();
        let mut body = ResponseBody {
            content_type: response
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned),
            headers: response.headers().clone(),
            status: status.as_u16(),
            response: Some(response),
            idle,
            // The response head is progress: the idle timer restarts from it.
            deadline: idle.and_then(deadline_after),
            cancel: cancel.clone(),
        };
        if status.is_success() {
            return Ok(body);
        }
        let mut bytes = Vec::new();
        // An error body that breaks off or stalls still makes an HTTP error with what arrived;
        // only cancellation wins over it. Its reads are not progress: the whole (bounded) error
        // body must arrive within one idle timeout of the head.
        loop {
            match body.next_chunk().await {
                Ok(Some(chunk)) => {
                    bytes.extend_from_slice(&chunk);
                    if bytes.len() >= MAX_ERROR_BODY_READ_BYTES {
                        break;
                    }
                }
                Ok(None) => break,
                Err(TransportError::Aborted) => return Err(TransportError::Aborted),
                Err(_) => break,
            }
        }
        body.close();
        let retry_after = retry_after_ms(&body.headers, SystemTime::now());
        Err(TransportError::Http(Box::new(HttpError::new(
            body.status,
            &body.headers,
            &bytes,
            retry_after,
        ))))
    }
}

/// Runs `future` unless `cancel` fires or `idle` passes first.
async fn guarded<T>(
    cancel: &CancellationToken,
    idle: Option<Duration>,
    future: impl Future<Output = T>,
) -> Result<T, TransportError> {
    let deadline = idle.and_then(|limit| Some((deadline_after(limit)?, limit)));
    guarded_until(cancel, deadline, future).await
}

/// One idle timeout from now; `None` (no timer) for a limit too large to add to the clock.
fn deadline_after(limit: Duration) -> Option<Instant> {
    Instant::now().checked_add(limit)
}

/// Runs `future` unless `cancel` fires or the idle `deadline` (with the limit it was set
/// from, for the error) passes first.
async fn guarded_until<T>(
    cancel: &CancellationToken,
    deadline: Option<(Instant, Duration)>,
    future: impl Future<Output = T>,
) -> Result<T, TransportError> {
    tokio::select! {
        // Cancellation first, so an abort is reported as such even when data is ready.
        biased;
        () = cancel.cancelled() => Err(TransportError::Aborted),
        result = async {
            match deadline {
                Some((at, limit)) => tokio::time::timeout_at(at, future)
                    .await
                    .map_err(|_| TransportError::IdleTimeout(limit)),
                None => Ok(future.await),
            }
        } => result,
    }
}

/// The body of a response, read chunk by chunk under the idle timeout and the cancellation
/// token. Dropping it (or any error) drops the response, which closes the connection instead
/// of draining it, so an abort stops the server's work promptly.
///
/// The idle timer measures time since the last *progress*, not since the last read: bytes
/// alone (SSE comments such as `: ping`, blank lines, an event cut in half) do not restart it,
/// or a server could keep a call open forever with keep-alives. The reader calls
/// [`progressed`](Self::progressed) once a read completed a decoded event (pi's SSE parser
/// drops comments, so OpenClaw's idle watchdog never sees them either).
#[derive(Debug)]
pub struct ResponseBody {
    response: Option<reqwest::Response>,
    status: u16,
    headers: HeaderMap,
    content_type: Option<String>,
    idle: Option<Duration>,
    /// When the idle timer fires: one idle timeout after the head or the last progress.
    deadline: Option<Instant>,
    cancel: CancellationToken,
}

impl ResponseBody {
    /// The HTTP status.
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The response headers.
    pub fn headers(&self) -> &HeaderMap {
        &self.headers
    }

    /// The `content-type` header, if any.
    pub fn content_type(&self) -> Option<&str> {
        self.content_type.as_deref()
    }

    /// The next piece of the body; `Ok(None)` at its end.
    pub async fn next_chunk(&mut self) -> Result<Option<Bytes>, TransportError> {
        let Some(response) = self.response.as_mut() else {
            return Ok(None);
        };
        let deadline = self.deadline.zip(self.idle);
        let result = match guarded_until(&self.cancel, deadline, response.chunk()).await {
            Ok(Ok(chunk)) => Ok(chunk),
            Ok(Err(e)) => Err(TransportError::Body(TransportError::describe(&e))),
            Err(e) => Err(e),
        };
        if !matches!(result, Ok(Some(_))) {
            self.close();
        }
        result
    }

    /// Restarts the idle timer: the last read completed an event of the stream.
    pub fn progressed(&mut self) {
        self.deadline = self.idle.and_then(deadline_after);
    }

    /// Drops the connection without reading the rest.
    pub fn close(&mut self) {
        self.response = None;
    }
}
