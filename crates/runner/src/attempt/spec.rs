//! What changes from one attempt to the next (seed 000's `runEmbeddedAttempt` inputs that the
//! run loop varies): the model, its stream function, the key and the thinking level. Everything
//! else an attempt reads is the run's, borrowed from its [`RunRequest`](crate::run::RunRequest).

use std::sync::Arc;

use clawloop_core::ThinkLevel;
use clawloop_core::model::Model;
use clawloop_core::provider::LlmStream;

/// The model, stream, key and thinking level of one attempt.
#[derive(Clone)]
pub struct AttemptSpec {
    /// The model called, its window capped by the guard.
    pub model: Model,
    /// Its stream function, wrappers applied.
    pub provider: Arc<dyn LlmStream>,
    /// The key for the model's provider, when it needs one.
    pub api_key: Option<String>,
    /// The thinking level.
    pub thinking: ThinkLevel,
}
