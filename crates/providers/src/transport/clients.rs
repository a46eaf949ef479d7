//! The reqwest clients behind one transport: a plain one for `http://` URLs, built at once,
//! and a TLS one for everything else, built on the first request that needs it.
//!
//! Building a TLS-capable client loads every system root certificate (well over a hundred
//! files under `/etc/ssl/certs`, tens of milliseconds), which a run against a local `http://`
//! server never needs. Both clients come from the same builder settings (timeouts, proxies,
//! HTTP/2), so a request behaves the same whichever one sends it.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use super::TransportError;

/// The clients of one transport (cheap to clone: clones share both pools).
#[derive(Debug, Clone)]
pub(crate) struct Clients {
    /// Sends `http://` requests; has no root certificates, so it never verifies a server.
    plain: reqwest::Client,
    /// Sends every other request; `Err` keeps the reason the build failed.
    tls: Arc<OnceLock<Result<reqwest::Client, String>>>,
    connect_timeout: Duration,
}

impl Clients {
    /// The plain client now, the TLS one on first use.
    pub(crate) fn new(connect_timeout: Duration) -> Result<Self, TransportError> {
        let plain = builder(connect_timeout)
            // No roots at all: this client only ever carries `http://` requests, and the
            // system roots are the expensive part of a TLS-capable client.
            .tls_certs_only([])
            .build()
            .map_err(|e| TransportError::Connect(TransportError::describe(&e)))?;
        Ok(Clients {
            plain,
            tls: Arc::new(OnceLock::new()),
            connect_timeout,
        })
    }

    /// One caller-supplied client for every URL (to share its pool with other code).
    pub(crate) fn shared(client: reqwest::Client, connect_timeout: Duration) -> Self {
        Clients {
            plain: client.clone(),
            tls: Arc::new(OnceLock::from(Ok(client))),
            connect_timeout,
        }
    }

    /// The client for `url`: the plain one for `http://`, else the TLS one (built now if
    /// this is the first such request).
    pub(crate) fn for_url(&self, url: &str) -> Result<&reqwest::Client, TransportError> {
        if is_plain_http(url) {
            return Ok(&self.plain);
        }
        self.tls()
    }

    /// The TLS-capable client, built on first use.
    pub(crate) fn tls(&self) -> Result<&reqwest::Client, TransportError> {
        self.tls
            .get_or_init(|| {
                builder(self.connect_timeout)
                    .build()
                    .map_err(|e| TransportError::describe(&e))
            })
            .as_ref()
            .map_err(|reason| TransportError::Connect(reason.clone()))
    }

    /// Whether the TLS-capable client exists yet.
    pub(crate) fn tls_built(&self) -> bool {
        self.tls.get().is_some()
    }
}

/// The settings both clients share.
fn builder(connect_timeout: Duration) -> reqwest::ClientBuilder {
    reqwest::Client::builder().connect_timeout(connect_timeout)
}

/// Whether `url` uses the `http` scheme (ASCII case-insensitive, as URL schemes are).
fn is_plain_http(url: &str) -> bool {
    url.get(..7)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("http://"))
}

#[cfg(test)]
mod tests {
    use super::is_plain_http;

    #[test]
    fn only_the_http_scheme_is_plain() {
        assert!(is_plain_http("http://127.0.0.1:1/v1"));
        assert!(is_plain_http("HTTP://example.com"));
        assert!(!is_plain_http("https://example.com"));
        assert!(!is_plain_http("http:/x"));
        assert!(!is_plain_http("htt"));
        assert!(!is_plain_http("ftp://x"));
    }
}
