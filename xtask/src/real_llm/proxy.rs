//! A recording HTTP proxy in front of `llama-server`: clawloop talks to it, it keeps every
//! request body (what clawloop really sent) and passes the bytes through, the streamed answer
//! unchanged. Each request gets its own upstream connection (`Connection: close`), so no
//! request on a kept-alive connection goes unrecorded.
//!
//! One request is changed on its way up: one that forces a tool call (`tool_choice:
//! "required"`) gets a last assistant message holding the template's tool-call opener (see
//! [`prefill_tool_call`]). llama-server's grammar for `required` lets the model write free text
//! *before* its first `<tool_call>`, and SmolLM2-135M never writes that tag of its own, so it
//! wrote text until `max_tokens`. Prefilled, the grammar leaves only the call itself to write.
//! The request recorded is clawloop's, unchanged: the checks judge what clawloop sent.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

use parking_lot::Mutex;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::outcome::{Failure, failed};

/// The largest request head accepted.
const MAX_HEAD: usize = 64 * 1024;

/// One request as the proxy saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    /// The request target, e.g. `/v1/chat/completions`.
    pub path: String,
    /// The body as JSON (`Null` when it is not JSON).
    pub body: Value,
}

/// The proxy; it stops with the runtime.
#[derive(Debug)]
pub struct RecordingProxy {
    addr: SocketAddr,
    requests: Arc<Mutex<Vec<Recorded>>>,
}

impl RecordingProxy {
    /// Listens on a free port of 127.0.0.1 and forwards to `upstream`.
    pub async fn start(upstream: SocketAddr) -> Result<Self, Failure> {
        let listener = match TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await {
            Ok(listener) => listener,
            Err(err) => return failed(format!("cannot start the recording proxy: {err}")),
        };
        let addr = match listener.local_addr() {
            Ok(addr) => addr,
            Err(err) => return failed(format!("cannot start the recording proxy: {err}")),
        };
        let requests = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&requests);
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                tokio::spawn(forward(client, upstream, Arc::clone(&log)));
            }
        });
        Ok(RecordingProxy { addr, requests })
    }

    /// Its base URL.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().clone()
    }
}

/// Reads one request from `client`, records it and relays it and the answer. Errors end the
/// connection; clawloop then reports a failed request, which a check shows.
async fn forward(mut client: TcpStream, upstream: SocketAddr, log: Arc<Mutex<Vec<Recorded>>>) {
    let Some((head, mut body)) = read_head(&mut client).await else {
        return;
    };
    let Some(parsed) = parse_head(&head) else {
        return;
    };
    let (recorded, head) = if parsed.chunked {
        // A streamed body is relayed as it comes: not recorded as JSON, never prefilled.
        (Value::Null, format!("{}\r\n", parsed.rewritten))
    } else {
        while body.len() < parsed.content_length {
            let mut buf = vec![0u8; parsed.content_length - body.len()];
            match client.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => body.extend_from_slice(&buf[..n]),
            }
        }
        // Only this request's body: the head's read may have brought more.
        body.truncate(parsed.content_length);
        let json = serde_json::from_slice(&body).unwrap_or(Value::Null);
        if let Some(prefilled) = prefill_tool_call(&json).and_then(|v| serde_json::to_vec(&v).ok())
        {
            body = prefilled;
        }
        let head = format!("{}Content-Length: {}\r\n\r\n", parsed.rewritten, body.len());
        (json, head)
    };
    log.lock().push(Recorded {
        path: parsed.path,
        body: recorded,
    });
    let Ok(mut server) = TcpStream::connect(upstream).await else {
        return;
    };
    if server.write_all(head.as_bytes()).await.is_err() || server.write_all(&body).await.is_err() {
        return;
    }
    // The answer streams back as it comes (and a chunked body's rest goes up); a client that
    // hangs up (an interrupted run) closes the upstream connection too, which stops the
    // generation.
    let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
}

/// The request head (through the blank line) and whatever body bytes came with it.
async fn read_head(client: &mut TcpStream) -> Option<(String, Vec<u8>)> {
    let mut data = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        let n = client.read(&mut buf).await.ok()?;
        if n == 0 {
            return None;
        }
        data.extend_from_slice(&buf[..n]);
        if let Some(end) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            let body = data.split_off(end + 4);
            return Some((String::from_utf8_lossy(&data).into_owned(), body));
        }
        if data.len() > MAX_HEAD {
            return None;
        }
    }
}

/// What the proxy needs of a request head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    /// The request target.
    pub path: String,
    /// `Content-Length`, 0 when absent.
    pub content_length: usize,
    /// The body comes in chunks (`Transfer-Encoding`); it is then relayed as it comes.
    pub chunked: bool,
    /// The head to send upstream without its blank line: the same, with `Connection: close`
    /// and, for a body of known length, without `Content-Length` (the body sent may differ
    /// from the one received).
    pub rewritten: String,
}

/// Parses a request head; `None` when it is not HTTP/1.
pub fn parse_head(head: &str) -> Option<Head> {
    let mut lines = head.split("\r\n");
    let request_line = lines.next()?;
    let mut parts = request_line.split(' ');
    let (_method, path, version) = (parts.next()?, parts.next()?, parts.next()?);
    if !version.starts_with("HTTP/1") {
        return None;
    }
    let mut rewritten = format!("{request_line}\r\n");
    let mut content_length = 0;
    let mut chunked = false;
    for line in lines.filter(|l| !l.is_empty()) {
        let (name, value) = line.split_once(':')?;
        let name_lower = name.trim().to_ascii_lowercase();
        if name_lower == "connection" {
            continue;
        }
        if name_lower == "content-length" {
            content_length = value.trim().parse().ok()?;
            continue;
        }
        chunked |= name_lower == "transfer-encoding";
        rewritten.push_str(line);
        rewritten.push_str("\r\n");
    }
    rewritten.push_str("Connection: close\r\n");
    Some(Head {
        path: path.to_owned(),
        content_length,
        chunked,
        rewritten,
    })
}

/// The template's tool-call opener (Qwen2.5's, which the server is given).
pub const TOOL_CALL_OPENER: &str = "<tool_call>\n";

/// A chat-completions request that forces a tool call (`tool_choice: "required"`) and does not
/// end with an assistant message, with an assistant message `<tool_call>\n` appended: the
/// server continues that message (its assistant prefill), so the grammar starts inside the
/// call. `None` for every other request, which goes up as it came.
pub fn prefill_tool_call(body: &Value) -> Option<Value> {
    if body.get("tool_choice")? != "required" {
        return None;
    }
    let messages = body.get("messages")?.as_array()?;
    if messages.last().is_some_and(|m| m["role"] == "assistant") {
        return None;
    }
    let mut body = body.clone();
    let messages = body.get_mut("messages")?.as_array_mut()?;
    messages.push(serde_json::json!({"role": "assistant", "content": TOOL_CALL_OPENER}));
    Some(body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_head_keeps_everything_but_keep_alive() {
        let head = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nconnection: keep-alive\r\n\
                    Content-Length: 12\r\n\r\n";
        assert_eq!(
            parse_head(head),
            Some(Head {
                path: "/v1/chat/completions".to_owned(),
                content_length: 12,
                chunked: false,
                rewritten: "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n\
                            Connection: close\r\n"
                    .to_owned(),
            })
        );
        let chunked = parse_head("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n");
        assert_eq!(
            chunked.map(|h| (h.chunked, h.rewritten)),
            Some((
                true,
                "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n".to_owned()
            ))
        );
        assert_eq!(parse_head("PRI * HTTP/2.0\r\n\r\n"), None);
        assert_eq!(
            parse_head("POST / HTTP/1.1\r\nContent-Length: lots\r\n\r\n"),
            None
        );
    }

    #[test]
    fn only_a_forced_tool_call_is_prefilled() {
        use serde_json::json;
        let forced =
            json!({"tool_choice": "required", "messages": [{"role": "user", "content": "hi"}]});
        assert_eq!(
            prefill_tool_call(&forced),
            Some(json!({"tool_choice": "required", "messages": [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "<tool_call>\n"},
            ]}))
        );
        let free = json!({"messages": [{"role": "user", "content": "hi"}]});
        assert_eq!(prefill_tool_call(&free), None);
        let auto = json!({"tool_choice": "auto", "messages": []});
        assert_eq!(prefill_tool_call(&auto), None);
        let continued =
            json!({"tool_choice": "required", "messages": [{"role": "assistant", "content": "x"}]});
        assert_eq!(prefill_tool_call(&continued), None);
    }
}
