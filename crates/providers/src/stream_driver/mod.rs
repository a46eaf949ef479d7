//! The one stream loop every wire API runs on: send the request, read the 2xx body chunk by
//! chunk (cancellation applies to every read), frame it, decode each frame into
//! events as soon as it is complete, and end the stream with `done` or `error`.
//!
//! * [`WireDecoder`]: what an API supplies: its [`Framing`] for a response `content-type`, the
//!   decoding of one [`Frame`] into zero or more events, whether the terminal frame has been
//!   seen, and how the stream ends (`finish` at the end of the body, `fail` on an error).
//! * [`BodyDecoder`]: framing plus decoding of the body, without the socket: one read in, the
//!   events of the frames it completed out. SSE frames are decoded borrowed from the framer's
//!   buffers ([`SseFramer::feed_with`](crate::transport::SseFramer::feed_with)), with no
//!   allocation per event.
//! * `stream_call`: the async loop over the transport, shared by the five API clients.
//! * [`decode_reads`]: the same loop over a body already in memory (fixtures, benchmarks,
//!   fuzzing, the test kit's encoders).

mod body_decoder;
mod call;
mod decode_reads;
mod wire_decoder;

pub use body_decoder::{BodyDecoder, BodyError, Progress};
pub(crate) use call::{now_ms, stream_call};
pub use decode_reads::decode_reads;
pub use wire_decoder::{Frame, Framing, WireDecoder, is_json};
