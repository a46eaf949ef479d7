//! The stream functions of a run: a CLI backend when the run's provider names one (reference
//! §21 step 1), else the run's provider factory — by default the providers crate's dispatch
//! over one shared HTTP transport, with the wrappers the model's transcript policy and the
//! config ask for.

use std::sync::Arc;

use clawloop_core::model::Model;
use clawloop_core::provider::LlmStream;
use clawloop_providers::HttpTransport;
use clawloop_providers::dispatch::{StreamSettings, stream_for_model};
use clawloop_session::transforms::resolve_transcript_policy;

use crate::cli_backend::{CliBackendConfig, CliBackendProvider};
use crate::config::Config;
use crate::run::request::{ProviderFactory, RunRequest};

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

/// The stream function `request` runs `model` with. For a CLI `backend`, a
/// [`CliBackendProvider`] in the agent's workspace, under the run's time limit and clock, queued
/// behind every other run of the backend (so `serialize` holds across turns and sessions);
/// `resume_cli_session: false` starts a new CLI session whatever the history binds. Any other
/// model goes through `request.provider_factory`, whose error names what is wrong.
pub fn provider_for_run(
    request: &RunRequest,
    model: &Model,
    backend: Option<&CliBackendConfig>,
    resume_cli_session: bool,
) -> Result<Arc<dyn LlmStream>, String> {
    let Some(backend) = backend else {
        return (request.provider_factory)(model);
    };
    let provider = CliBackendProvider::new(backend.clone())
        .with_workspace(&request.workspace_dir)
        .with_timeout(request.timeout)
        .with_clock(Arc::clone(&request.clock))
        .with_queue(request.cli_queue.clone());
    Ok(Arc::new(if resume_cli_session {
        provider
    } else {
        provider.without_session_resume()
    }))
}
