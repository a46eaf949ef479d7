//! The transport's TLS-capable client is only built by a request that needs TLS: a run
//! against a plain `http://` server never loads the system root certificates.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use clawloop_providers::transport::HttpRequest;
use clawloop_providers::{HttpTransport, TransportConfig, TransportError};
use clawloop_testkit::{ScriptedResponse, ScriptedServer};
use pretty_assertions::assert_eq;
use tokio_util::sync::CancellationToken;

async fn body_text(transport: &HttpTransport, url: String) -> (u16, String) {
    let request = HttpRequest {
        url,
        headers: vec![("content-type".into(), "application/json".into())],
        body: b"{}".to_vec(),
    };
    let mut body = transport
        .send(request, &CancellationToken::new())
        .await
        .unwrap();
    let mut bytes = Vec::new();
    while let Some(chunk) = body.next_chunk().await.unwrap() {
        bytes.extend_from_slice(&chunk);
    }
    (body.status(), String::from_utf8(bytes).unwrap())
}

#[tokio::test]
async fn plain_http_requests_never_build_the_tls_client() {
    let server = ScriptedServer::start(vec![
        ScriptedResponse::sse("data: one\n\n"),
        ScriptedResponse::sse("data: two\n\n"),
    ])
    .await
    .unwrap();
    let transport = HttpTransport::new(TransportConfig::default()).unwrap();
    assert!(!transport.tls_client_built());

    let first = body_text(&transport, format!("{}/v1/chat/completions", server.url())).await;
    // A clone shares the clients, so it must not build its own either.
    let second = body_text(&transport.clone(), format!("{}/again", server.url())).await;

    assert_eq!(
        (first, second),
        (
            (200, "data: one\n\n".to_owned()),
            (200, "data: two\n\n".to_owned())
        )
    );
    assert_eq!(server.requests().len(), 2);
    assert!(!transport.tls_client_built());
}

#[tokio::test]
async fn the_first_https_request_builds_the_tls_client_once_for_all_clones() {
    let transport = HttpTransport::new(TransportConfig::default()).unwrap();
    let clone = transport.clone();
    // Nothing listens on port 1; the request fails whether or not the machine has roots,
    // but only after it asked for the TLS client.
    let request = HttpRequest {
        url: "https://127.0.0.1:1/v1/messages".into(),
        headers: Vec::new(),
        body: b"{}".to_vec(),
    };
    let error = clone
        .send(request, &CancellationToken::new())
        .await
        .unwrap_err();
    assert!(matches!(error, TransportError::Connect(_)), "{error:?}");
    assert!(clone.tls_client_built());
    assert!(transport.tls_client_built());
}
