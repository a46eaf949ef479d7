//! The shared HTTP client and the one-request-per-call send path.

use std::future::Future;
use std::sync::Arc;
use std::time::SystemTime;

use bytes::Bytes;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use tokio_util::sync::CancellationToken;

use super::clients::Clients;
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

/// The HTTP client of one runtime: one connection pool per URL scheme shared by every provider
/// and call (cheap to clone), plus the stream settings. The TLS-capable pool, whose set-up
/// loads the system root certificates, is only built by the first non-`http://` request.
///
/// It sends exactly one request per call and never retries: retry, key rotation and fallback
/// belong to the runner, which must see every failure (SPEC §4).
#[derive(Debug, Clone)]
pub struct HttpTransport {
    clients: Clients,
    config: Arc<TransportConfig>,
}

impl HttpTransport {
    /// A transport with its own connection pool.
    pub fn new(config: TransportConfig) -> Result<Self, TransportError> {
        Ok(HttpTransport {
            clients: Clients::new(config.connect_timeout)?,
            config: Arc::new(config),
        })
    }

    /// A transport over an existing reqwest client, used for every URL (to share its pool
    /// with other code).
    pub fn with_client(client: reqwest::Client, config: TransportConfig) -> Self {
        HttpTransport {
            clients: Clients::shared(client, config.connect_timeout),
            config: Arc::new(config),
        }
    }

    /// The settings.
    pub fn config(&self) -> &TransportConfig {
        &self.config
    }

    /// The client that sends `https://` (and any non-`http://`) requests, built now if no
    /// request needed it yet; fails when TLS could not be set up (no usable system roots).
    pub fn client(&self) -> Result<&reqwest::Client, TransportError> {
        self.clients.tls()
    }

    /// Whether the TLS-capable client has been built: false until the first request to a
    /// non-`http://` URL (or a [`client`](Self::client) call), so runs against plain-HTTP
    /// servers never load the system root certificates.
    pub fn tls_client_built(&self) -> bool {
        self.clients.tls_built()
    }

    /// Sends `request` and waits for the response head. A 2xx gives the body to stream; any
    /// other status reads at most [`MAX_ERROR_BODY_READ_BYTES`] of the body and becomes
    /// [`TransportError::Http`]. Cancellation applies to every wait.
    ///
    /// There is no idle timer here: the LLM idle timeout is the
    /// [`IdleWatchdog`](crate::wrappers::IdleWatchdog)'s, one timer per call that covers every
    /// stream function (HTTP or not) and is set per run, while a transport is shared by the
    /// whole runtime. A call made without the watchdog waits until it is cancelled.
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
            .clients
            .for_url(&request.url)?
            .post(&request.url)
            .headers(headers)
            .body(request.body)
            .send();
        let response = guarded(cancel, pending)
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
            cancel: cancel.clone(),
        };
        if status.is_success() {
            return Ok(body);
        }
        let mut bytes = Vec::new();
        // An error body that breaks off still makes an HTTP error with what arrived; only
        // cancellation (the caller's, or the idle watchdog's) wins over it.
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

/// Runs `future` unless `cancel` fires first.
async fn guarded<T>(
    cancel: &CancellationToken,
    future: impl Future<Output = T>,
) -> Result<T, TransportError> {
    tokio::select! {
        // Cancellation first, so an abort is reported as such even when data is ready.
        biased;
        () = cancel.cancelled() => Err(TransportError::Aborted),
        result = future => Ok(result),
    }
}

/// The body of a response, read chunk by chunk under the cancellation token. Dropping it (or
/// any error) drops the response, which closes the connection instead of draining it, so an
/// abort stops the server's work promptly.
#[derive(Debug)]
pub struct ResponseBody {
    response: Option<reqwest::Response>,
    status: u16,
    headers: HeaderMap,
    content_type: Option<String>,
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
        let result = match guarded(&self.cancel, response.chunk()).await {
            Ok(Ok(chunk)) => Ok(chunk),
            Ok(Err(e)) => Err(TransportError::Body(TransportError::describe(&e))),
            Err(e) => Err(e),
        };
        if !matches!(result, Ok(Some(_))) {
            self.close();
        }
        result
    }

    /// Drops the connection without reading the rest.
    pub fn close(&mut self) {
        self.response = None;
    }
}
