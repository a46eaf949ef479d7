//! The model and the key a run calls it with (reference §4.1 items 6–8): the model from the
//! catalog and config with its window capped by the guard, its stream function, and the key of
//! the first usable auth profile or of the config and environment. The run loop and the
//! session repairs between attempts share it as the attempt's [`AttemptSpec`], so `/compact` resolves exactly as a run does.

use std::sync::Arc;

use clawloop_core::context_window::{
    ContextWindowSources, context_window_too_small_message, evaluate_context_window_guard,
    resolve_context_window_info,
};
use clawloop_core::error_text::no_api_key_resolved_message;
use clawloop_core::model::Model;
use clawloop_core::{FailoverError, FailoverReason};
use clawloop_providers::api_key::{ApiKeyResolver, EnvFn, is_keyless_provider};
use clawloop_providers::catalog::ModelCatalog;

use crate::attempt::{AttemptSpec, session_compactor};
use crate::cli_backend::cli_backend_model;
use crate::compaction::Compactor;
use crate::run::profiles::ProfileCursor;
use crate::run::request::{RunError, RunRequest};

/// The model and key `/compact` summarizes with: the run's model through the run's provider
/// factory, the first usable profile (an all-resting list probed once) or the configured key.
pub(crate) async fn compaction_spec(request: &RunRequest) -> Result<AttemptSpec, RunError> {
    let model = resolve_model(request, false)?;
    let provider = (request.provider_factory)(&model).map_err(RunError::Failed)?;
    let mut cursor = ProfileCursor::resolve(
        request.auth.clone(),
        &request.provider,
        &request.model,
        request.locked_profile.as_deref(),
        Arc::clone(&request.env),
    )
    .await
    .map_err(|no| RunError::Failed(no.message))?;
    let api_key = match cursor.first(true).await {
        Ok(Some(active)) => Some(active.secret),
        Ok(None) => configured_key(request).await?,
        Err(no) => return Err(RunError::Failed(no.message)),
    };
    Ok(AttemptSpec {
        model,
        provider,
        api_key,
        thinking: request.thinking,
    })
}

/// The compactor of a repair with the model and key of `spec`, under the config's settings.
pub(crate) fn spec_compactor(spec: &AttemptSpec, request: &RunRequest) -> Compactor {
    session_compactor(
        &spec.model,
        &spec.provider,
        spec.api_key.clone(),
        request.config.defaults(),
        &request.clock,
    )
}

/// The model from the catalog and config — or, for a CLI backend, any model id under it —
/// its window capped by the guard (reference §4.1 items 6–7).
pub(crate) fn resolve_model(request: &RunRequest, cli_backend: bool) -> Result<Model, RunError> {
    let mut model = if cli_backend {
        cli_backend_model(&request.config, &request.provider, &request.model)
    } else {
        let catalog = ModelCatalog::from_config(&request.config.models)
            .map_err(|err| RunError::Failed(err.to_string()))?;
        catalog
            .get(&request.provider, &request.model)
            .cloned()
            .map_err(|_| {
                RunError::Failover(Box::new(
                    FailoverError::new(
                        format!("Unknown model: {}/{}", request.provider, request.model),
                        FailoverReason::ModelNotFound,
                    )
                    .with_model(request.provider.clone(), request.model.clone()),
                ))
            })?
    };
    let configured = request
        .config
        .models
        .providers
        .get(&request.provider)
        .and_then(|p| p.models.iter().find(|m| m.id == request.model));
    #[allow(clippy::cast_precision_loss)]
    let sources = ContextWindowSources {
        model_context_window: Some(model.context_window as f64),
        config_context_window: configured.and_then(|m| m.context_window).map(|v| v as f64),
        config_context_tokens: configured.and_then(|m| m.context_tokens).map(|v| v as f64),
        agent_context_tokens: Some(request.config.defaults().context_tokens as f64),
        ..ContextWindowSources::default()
    };
    let info = resolve_context_window_info(&sources);
    let guard = evaluate_context_window_guard(&info, None, None);
    if guard.should_block {
        return Err(RunError::Failover(Box::new(
            FailoverError::new(
                context_window_too_small_message(guard.tokens),
                FailoverReason::Unknown,
            )
            .with_model(model.provider.clone(), model.id.clone()),
        )));
    }
    if guard.should_warn {
        tracing::warn!(target: "clawloop::run", "low context window: {}/{} ctx={} (warn<32000) source={}", model.provider, model.id, guard.tokens, guard.source.as_str());
    }
    if info.tokens > 0 && info.tokens < model.context_window {
        model.context_window = info.tokens;
    }
    Ok(model)
}

/// The key from `models.providers.<p>.apiKey` or the provider's environment variable, resolved
/// on the blocking pool (a `!command` runs a child process).
pub(crate) async fn configured_key(request: &RunRequest) -> Result<Option<String>, RunError> {
    let provider = request.provider.clone();
    let spec = request
        .config
        .models
        .providers
        .get(&provider)
        .and_then(|p| p.api_key.clone());
    let env = Arc::clone(&request.env);
    let resolved = tokio::task::spawn_blocking(move || {
        let lookup = EnvFn(move |name: &str| env(name));
        ApiKeyResolver::new(&lookup)
            .resolve(&provider, spec.as_deref())
            .map(|key| key.map(|k| k.into_value()))
    })
    .await
    .map_err(|err| RunError::Failed(format!("key resolution stopped: {err}")))?
    .map_err(|err| RunError::Failed(err.to_string()))?;
    if resolved.is_none() && !is_keyless_provider(&request.provider) {
        return Err(RunError::Failed(no_api_key_resolved_message(
            &request.provider,
            "api_key",
        )));
    }
    Ok(resolved)
}
