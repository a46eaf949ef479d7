//! The scripted HTTP/1.1 server: raw TCP on 127.0.0.1, one request per connection.
//!
//! Written on `tokio::net` rather than a web framework because the point is control over the
//! bytes on the wire: chunk boundaries, delays, stalls and connections dropped mid-body.

use std::collections::VecDeque;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

use super::responder::ResponderSlot;
use super::{ExchangeTiming, RecordedRequest, Responder, ScriptedResponse};

/// Largest request head accepted.
const MAX_HEAD_BYTES: usize = 64 * 1024;
/// Largest request body accepted.
const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

/// Body of the answer to a request with no scripted response left (FORMAT.md).
pub const UNSCRIPTED_BODY: &str = r#"{"error":"unscripted request"}"#;

#[derive(Debug, Default)]
struct Shared {
    responses: Mutex<VecDeque<ScriptedResponse>>,
    requests: Mutex<Vec<RecordedRequest>>,
    /// Responses whose body could not be written completely because the client went away.
    client_disconnects: AtomicUsize,
    /// When set, chooses each response instead of the script order.
    responder: ResponderSlot,
    /// When each exchange's request arrived and its response was done, in completion order.
    timings: Mutex<Vec<ExchangeTiming>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A running scripted server. Each request takes the next scripted response in order and is
/// recorded; the server stops when this value is dropped.
#[derive(Debug)]
pub struct ScriptedServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: JoinHandle<()>,
}

impl ScriptedServer {
    /// Binds `127.0.0.1:0` and starts serving `responses` (must run inside a tokio runtime).
    pub async fn start(responses: Vec<ScriptedResponse>) -> io::Result<Self> {
        Self::launch(Shared {
            responses: Mutex::new(responses.into()),
            ..Shared::default()
        })
        .await
    }

    /// Binds `127.0.0.1:0` and answers every request with `responder`'s choice (must run
    /// inside a tokio runtime). Requests are still recorded; [`ScriptedServer::push`]ed
    /// responses are not used.
    pub async fn start_with_responder(responder: Arc<dyn Responder>) -> io::Result<Self> {
        Self::launch(Shared {
            responder: ResponderSlot(Some(responder)),
            ..Shared::default()
        })
        .await
    }

    async fn launch(shared: Shared) -> io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(shared);
        let serving = shared.clone();
        let task = tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let shared = serving.clone();
                tokio::spawn(async move {
                    // A failed connection only concerns that request; the server goes on.
                    let _ = serve(socket, &shared).await;
                });
            }
        });
        Ok(ScriptedServer { addr, shared, task })
    }

    /// `http://127.0.0.1:<port>` (no trailing slash).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Appends a response to the script.
    pub fn push(&self, response: ScriptedResponse) {
        lock(&self.shared.responses).push_back(response);
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.requests).clone()
    }

    /// Scripted responses not used yet.
    pub fn remaining(&self) -> usize {
        lock(&self.shared.responses).len()
    }

    /// How many response bodies were cut short because the client closed the connection.
    pub fn client_disconnects(&self) -> usize {
        self.shared.client_disconnects.load(Ordering::SeqCst)
    }

    /// The timestamps of every finished exchange, in the order the requests arrived.
    pub fn timings(&self) -> Vec<ExchangeTiming> {
        let mut timings = lock(&self.shared.timings).clone();
        timings.sort_by_key(|t| t.received);
        timings
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve(mut socket: TcpStream, shared: &Shared) -> io::Result<()> {
    socket.set_nodelay(true)?;
    let Some(request) = read_request(&mut socket).await? else {
        return Ok(());
    };
    let received = Instant::now();
    let response = match &shared.responder.0 {
        Some(responder) => Some(responder.respond(&request)),
        None => lock(&shared.responses).pop_front(),
    };
    lock(&shared.requests).push(request);
    let response = response.unwrap_or_else(|| ScriptedResponse::status(500, UNSCRIPTED_BODY));
    let answered = match write_response(&mut socket, &response).await {
        Ok(()) => Some(Instant::now()),
        Err(_) => {
            shared.client_disconnects.fetch_add(1, Ordering::SeqCst);
            None
        }
    };
    lock(&shared.timings).push(ExchangeTiming { received, answered });
    Ok(())
}

/// Reads one request (head + `content-length` body); `None` if the client sent nothing.
async fn read_request(socket: &mut TcpStream) -> io::Result<Option<RecordedRequest>> {
    let mut buf = Vec::with_capacity(4096);
    let head_end = loop {
        if let Some(pos) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break pos;
        }
        if buf.len() > MAX_HEAD_BYTES {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "request head too large",
            ));
        }
        let mut chunk = [0u8; 4096];
        let n = socket.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next().unwrap_or_default().split(' ');
    let method = request_line.next().unwrap_or_default().to_owned();
    let path = request_line.next().unwrap_or_default().to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let length = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    if length > MAX_BODY_BYTES {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "request body too large",
        ));
    }
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < length {
        let mut chunk = vec![0u8; (length - body.len()).min(64 * 1024)];
        let n = socket.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    body.truncate(length);
    Ok(Some(RecordedRequest {
        method,
        path,
        headers,
        body,
    }))
}

async fn write_response(socket: &mut TcpStream, response: &ScriptedResponse) -> io::Result<()> {
    let reason = reqwest::StatusCode::from_u16(response.status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("Status");
    let mut head = format!("HTTP/1.1 {} {reason}\r\n", response.status);
    if let Some(content_type) = response.default_content_type() {
        head.push_str(&format!("content-type: {content_type}\r\n"));
    }
    for (name, value) in &response.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("transfer-encoding: chunked\r\nconnection: close\r\n\r\n");
    socket.write_all(head.as_bytes()).await?;
    socket.flush().await?;
    let pieces = response.chunking.split(&response.body);
    for (i, piece) in pieces.iter().enumerate() {
        if let Some(stall) = response.stall.filter(|s| s.after_chunks == i) {
            tokio::time::sleep(stall.duration).await;
        }
        if response.drop_after_chunks == Some(i) {
            return Ok(());
        }
        if i > 0 && !response.chunk_delay.is_zero() {
            tokio::time::sleep(response.chunk_delay).await;
        }
        if piece.is_empty() {
            continue;
        }
        socket
            .write_all(format!("{:x}\r\n", piece.len()).as_bytes())
            .await?;
        socket.write_all(piece).await?;
        socket.write_all(b"\r\n").await?;
        socket.flush().await?;
    }
    if let Some(stall) = response.stall.filter(|s| s.after_chunks >= pieces.len()) {
        tokio::time::sleep(stall.duration).await;
    }
    if response
        .drop_after_chunks
        .is_some_and(|n| n >= pieces.len())
    {
        return Ok(());
    }
    socket.write_all(b"0\r\n\r\n").await?;
    socket.flush().await
}
