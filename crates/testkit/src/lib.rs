//! `clawloop-testkit`: the test machinery of clawloop, kept out of the shipped crates
//! (`publish = false`; a dev-dependency of the crates whose tests use it, and a dependency of
//! `xtask` for `demo`, `conformance`, `bench` and `soak`).
//!
//! The scripted provider server is a real HTTP/1.1 server on `127.0.0.1` that answers each
//! request with the next scripted response, byte for byte as scripted (status, headers, body
//! cut into chosen pieces, delays, stalls, a dropped connection) and records every request.
//! It is the base of the conformance `run` and `wire` kinds and lets users test their own
//! integrations offline:
//!
//! * [`ScriptedServer`] plays [`ScriptedResponse`]s byte for byte, in order (or as a
//!   [`Responder`] chooses);
//! * [`ProviderScriptServer`] is endpoint-aware: providers live under `/p/<providerId>/…`, each
//!   request takes the turn's first [`ScriptedExchange`] whose [`ExpectRequest`] holds, and
//!   its API-neutral [`ScriptedReply`] is encoded in the wire format of the called endpoint
//!   ([`Endpoint`], [`script`]); every request is kept as a [`ProviderRequest`];
//! * [`ProviderRuleServer`] is endpoint-aware too, but a [`ReplyRule`] computes each reply
//!   from the request, for concurrent loads whose arrival order no script can foresee;
//! * [`FaultRule`] puts seeded random faults (429s, 5xx, stalls, dropped connections,
//!   malformed bodies) in front of a [`ReplyRule`], for soak runs;
//! * [`replay_wire`] is FORMAT.md's `wire` procedure (one body served whole, one byte per
//!   write and at seeded random splits) against the real provider clients.
//!
//! # Example
//!
//! A raw scripted body, served one byte per write:
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> std::io::Result<()> {
//! use clawloop_testkit::{Chunking, ScriptedResponse, ScriptedServer};
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
//!
//! An API-neutral reply in one API's wire format:
//!
//! ```
//! use clawloop_testkit::ScriptedReply;
//! use clawloop_testkit::script::openai_completions;
//!
//! let reply = ScriptedReply {
//!     text: Some("Hi".to_owned()),
//!     ..ScriptedReply::default()
//! };
//! let body = openai_completions::encode_reply(&reply, "gpt-4o-mini").concat();
//! let body = String::from_utf8(body).unwrap();
//! assert!(body.contains(r#""content":"Hi""#));
//! assert!(body.ends_with("data: [DONE]\n\n"));
//! ```

mod body_facts;
mod credentials;
mod dispatch;
mod endpoint;
mod exchange;
mod expect_request;
mod fault_rule;
mod provider_request;
mod provider_server;
mod reply;
mod reply_response;
mod request;
mod responder;
mod response;
mod rule_server;
pub mod script;
mod server;
mod timing;
mod turn_report;
mod url_text;
mod wire_replay;

pub use body_facts::{last_user_text, system_text, tool_names};
pub use credentials::request_api_key;
pub use dispatch::{EncodedReply, encode_reply, stream_content_type, wire_roles};
pub use endpoint::Endpoint;
pub use exchange::ScriptedExchange;
pub use expect_request::ExpectRequest;
pub use fault_rule::{FaultCounts, FaultKind, FaultPlan, FaultRule};
pub use provider_request::ProviderRequest;
pub use provider_server::ProviderScriptServer;
pub use reply::{ScriptedReply, ScriptedStopReason, ScriptedToolCall, ScriptedUsage};
pub use reply_response::reply_response;
pub use request::RecordedRequest;
pub use responder::Responder;
pub use response::{Chunking, ScriptedResponse, Stall};
pub use rule_server::{ProviderRuleServer, ReplyRule, RuledExchange};
pub use server::{ScriptedServer, UNSCRIPTED_BODY};
pub use timing::ExchangeTiming;
pub use turn_report::TurnReport;
pub use wire_replay::{
    SplitRng, WIRE_SPLIT_SEED, WireBody, WireRun, collect_events, replay_wire, wire_content_type,
    wire_splits,
};
