//! A scripted provider server: a real HTTP/1.1 server on `127.0.0.1` that answers each
//! request with the next scripted response, byte for byte as scripted (status, headers, body
//! cut into chosen pieces, delays, stalls, a dropped connection) and records every request.
//!
//! It is the base of the conformance `run` and `wire` kinds and lets users test their own
//! integrations offline. Endpoint-aware replies (`/p/<providerId>/…` in each API's wire
//! format) build on top of it.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> std::io::Result<()> {
//! use clawloop_providers::scripted_server::{Chunking, ScriptedResponse, ScriptedServer};
//!
//! let server = ScriptedServer::start(vec![
//!     ScriptedResponse::sse("data: [DONE]\n\n").chunked(Chunking::Fixed(1)),
//! ])
//! .await?;
//! assert!(server.url().starts_with("http://127.0.0.1:"));
//! assert_eq!(server.remaining(), 1);
//! # Ok(())
//! # }
//! ```

mod reply;
mod request;
mod response;
mod server;

pub use reply::{ScriptedReply, ScriptedStopReason, ScriptedToolCall, ScriptedUsage};
pub use request::RecordedRequest;
pub use response::{Chunking, ScriptedResponse, Stall};
pub use server::{ScriptedServer, UNSCRIPTED_BODY};
