//! Shared parts of the fuzz targets: deterministic read splits and the whole-body decode that
//! the five wire-API targets run.
//!
//! Raw byte inputs are kept raw (a target's corpus can be seeded with real provider streams
//! as they are); what a target varies besides the bytes (how the body is cut into reads, the
//! frame size limit) is derived from a hash of the bytes, so every input replays exactly.

pub mod decode;
pub mod split;
