//! The stream functions a run uses by default: the providers crate's dispatch over one shared
//! HTTP transport, with the wrappers the model's transcript policy and the config ask for.

use std::sync::Arc;

use clawloop_core::model::Model;
use clawloop_core::provider::LlmStream;
use clawloop_providers::HttpTransport;
use clawloop_providers::dispatch::{StreamSettings, stream_for_model};
use clawloop_session::transforms::resolve_transcript_policy;

use crate::config::Config;
use crate::run::request::ProviderFactory;

/// A factory building every model's stream through `transport` (one connection pool per
/// runtime), with the idle timeout of `agents.defaults.llm.idleTimeoutSeconds` and thinking
/// dropped when the model's transcript policy says so.
pub fn http_provider_factory(transport: HttpTransport, config: Arc<Config>) -> ProviderFactory {
    Arc::new(move |model: &Model| -> Result<Arc<dyn LlmStream>, String> {
        let policy = resolve_transcript_policy(&model.provider, model.api.as_str(), &model.id);
        let settings = StreamSettings {
            drop_thinking_blocks: policy.drop_thinking_blocks,
            ..StreamSettings::default()
        }
        .with_idle_timeout_seconds(config.defaults().llm.idle_timeout_seconds);
        stream_for_model(model, &transport, None, &settings).map_err(|err| err.to_string())
    })
}
