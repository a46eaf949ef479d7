//! The run loop (`run_embedded_agent`) over real HTTP and real auth files: profile rotation on
//! rate limits, failover to the next model, thinking fallback, the overflow payload, the
//! context-window guard and unknown models.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::Arc;

use clawloop_core::auth_store::AuthStore;
use clawloop_core::clock::{Clock, ManualClock};
use clawloop_core::hooks::NoHooks;
use clawloop_core::model::{Api, Model};
use clawloop_core::provider::LlmStream;
use clawloop_core::{FailoverReason, ThinkLevel};
use clawloop_providers::{AnthropicMessages, HttpTransport, OpenAiCompletions, TransportConfig};
use clawloop_runner::agent::MessageQueues;
use clawloop_runner::attempt::SharedReplySink;
use clawloop_runner::auth::{AuthProfileManager, FileAuthStore};
use clawloop_runner::config::Config;
use clawloop_runner::payloads::RunErrorKind;
use clawloop_runner::prompt::{PromptMode, PromptProfile};
use clawloop_runner::run::{RunEnding, RunError, RunOutcome, RunRequest, run_embedded_agent};
use clawloop_runner::turn::TurnIo;
use clawloop_testkit::{ProviderScriptServer, ScriptedExchange};
use clawloop_tools::builtins::builtin_tools;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const NOW: u64 = 1_700_000_000_000;

struct Harness {
    server: ProviderScriptServer,
    _dir: tempfile::TempDir,
    home: PathBuf,
    clock: Arc<ManualClock>,
}

impl Harness {
    async fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().to_path_buf();
        std::fs::create_dir_all(home.join("agent")).unwrap();
        std::fs::create_dir_all(home.join("sessions")).unwrap();
        Harness {
            server: ProviderScriptServer::start().await.unwrap(),
            _dir: dir,
            home,
            clock: Arc::new(ManualClock::new(NOW)),
        }
    }

    /// `config` with every provider's baseUrl pointed at the scripted server.
    fn config(&self, mut config: Value) -> Arc<Config> {
        if let Some(providers) = config
            .pointer_mut("/models/providers")
            .and_then(Value::as_object_mut)
        {
            for (id, provider) in providers.iter_mut() {
                let suffix = match provider["api"].as_str() {
                    Some("openai-completions" | "openai-responses") => "/v1",
                    Some("google-generative-ai") => "/v1beta",
                    _ => "",
                };
                provider["baseUrl"] = json!(format!("{}{suffix}", self.server.provider_url(id)));
            }
        }
        Arc::new(Config::from_value(config).unwrap())
    }

    fn auth(&self, profiles: Value, config: &Config) -> AuthProfileManager {
        std::fs::write(
            self.home.join("agent/auth-profiles.json"),
            profiles.to_string(),
        )
        .unwrap();
        let store: Arc<dyn AuthStore> = Arc::new(FileAuthStore::new(self.home.join("agent")));
        AuthProfileManager::new(
            store,
            Arc::new(config.auth.clone()),
            self.clock.clone() as Arc<dyn Clock>,
        )
    }

    fn request(
        &self,
        config: Arc<Config>,
        provider: &str,
        model: &str,
        auth: Option<AuthProfileManager>,
    ) -> RunRequest {
        RunRequest {
            run_id: "run-1".to_owned(),
            agent_id: "main".to_owned(),
            session_key: Some("test".to_owned()),
            session_id: "00000000-0000-4000-8000-000000000002".to_owned(),
            session_file: self.home.join("sessions/s.jsonl"),
            workspace_dir: self.home.join("work"),
            home_dir: None,
            prompt: "Summarize the notes.".to_owned(),
            images: Vec::new(),
            client_tools: Vec::new(),
            extra_system_prompt: None,
            prompt_mode: PromptMode::Full,
            prompt_profile: PromptProfile::Gateway,
            system_prompt: None,
            max_tool_rounds: None,
            provider: provider.to_owned(),
            model: model.to_owned(),
            thinking: ThinkLevel::Off,
            locked_profile: None,
            fallback_configured: false,
            allow_transient_cooldown_probe: false,
            config,
            tools: builtin_tools(None),
            sandbox: None,
            approval: None,
            timeout: None,
            hooks: Arc::new(NoHooks),
            clock: self.clock.clone(),
            timezone: "UTC".to_owned(),
            auth,
            provider_factory: Arc::new(|model: &Model| -> Result<Arc<dyn LlmStream>, String> {
                let t =
                    HttpTransport::new(TransportConfig::default()).map_err(|e| e.to_string())?;
                match &model.api {
                    Api::OpenaiCompletions => Ok(Arc::new(OpenAiCompletions::new(t))),
                    Api::AnthropicMessages => Ok(Arc::new(AnthropicMessages::new(t))),
                    other => Err(format!("no client for {other}")),
                }
            }),
            env: Arc::new(|_: &str| None),
            cli_queue: clawloop_runner::cli_backend::RunQueue::default(),
        }
    }

    async fn run(&self, request: RunRequest, replies: Vec<Value>) -> Result<RunOutcome, RunError> {
        let script = replies
            .into_iter()
            .map(|r| serde_json::from_value::<ScriptedExchange>(r).unwrap())
            .collect();
        self.server.begin_turn(script);
        let io = TurnIo {
            cancel: CancellationToken::new(),
            events: None,
            replies: SharedReplySink::discard(),
            queues: MessageQueues::new(),
        };
        let result = run_embedded_agent(request, io).await;
        let report = self.server.end_turn();
        assert_eq!(
            report.problems(),
            Vec::<String>::new(),
            "scripted turn, run result {result:?}"
        );
        result
    }
}

fn acme() -> Value {
    json!({
        "agents": {"defaults": {"model": {"primary": "acme/m1"}}},
        "models": {"providers": {"acme": {"api": "openai-completions", "models": [{"id": "m1", "contextWindow": 128000, "maxTokens": 4096}]}}},
        "auth": {"order": {"acme": ["acme:a", "acme:b"]}}
    })
}

fn two_keys() -> Value {
    json!({"version": 1, "profiles": {
        "acme:a": {"type": "api_key", "provider": "acme", "key": "acme-key-a"},
        "acme:b": {"type": "api_key", "provider": "acme", "key": "acme-key-b"}
    }})
}

fn last_text(outcome: &RunOutcome) -> Option<String> {
    outcome
        .last_attempt()
        .and_then(|a| a.last_assistant.as_ref())
        .map(|a| a.text())
}

#[tokio::test]
async fn a_rate_limit_rotates_to_the_next_profile_and_cools_the_first_down() {
    let h = Harness::new().await;
    let config = h.config(acme());
    let auth = h.auth(two_keys(), &config);
    let request = h.request(config, "acme", "m1", Some(auth.clone()));
    let outcome = h
        .run(request, vec![
            json!({"expectRequest": {"apiKey": "acme-key-a"}, "reply": {"status": 429, "body": {"error": {"message": "Rate limit reached for requests per minute.", "type": "requests", "code": "rate_limit_exceeded"}}}}),
            json!({"expectRequest": {"apiKey": "acme-key-b"}, "reply": {"text": "Here is the summary."}}),
        ])
        .await
        .unwrap();
    assert_eq!(outcome.ending, RunEnding::Completed);
    assert_eq!(last_text(&outcome).as_deref(), Some("Here is the summary."));
    assert_eq!(
        (outcome.attempts.len(), outcome.profile_id.as_deref()),
        (2, Some("acme:b"))
    );
    assert!(auth.is_in_cooldown("acme:a", None).unwrap());
    assert!(!auth.is_in_cooldown("acme:b", None).unwrap());
    let stats = auth
        .snapshot()
        .unwrap()
        .state
        .stats("acme:a")
        .cloned()
        .unwrap();
    assert_eq!(
        (stats.error_count, stats.cooldown_reason),
        (Some(1), Some(FailoverReason::RateLimit))
    );
}

#[tokio::test]
async fn an_auth_failure_with_a_fallback_configured_fails_over_after_the_last_profile() {
    let h = Harness::new().await;
    let config = h.config(acme());
    let auth = h.auth(json!({"version": 1, "profiles": {"acme:a": {"type": "api_key", "provider": "acme", "key": "acme-key-a"}}}), &config);
    let mut request = h.request(config, "acme", "m1", Some(auth));
    request.fallback_configured = true;
    let err = h
        .run(request, vec![json!({"reply": {"status": 401, "body": {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}}})])
        .await
        .unwrap_err();
    let RunError::Failover(failover) = err else {
        panic!("expected a failover, got {err:?}")
    };
    assert_eq!(
        (
            failover.reason,
            failover.provider.as_deref(),
            failover.model.as_deref()
        ),
        (FailoverReason::Auth, Some("acme"), Some("m1"))
    );
}

#[tokio::test]
async fn without_a_fallback_an_auth_failure_surfaces_as_the_errored_reply() {
    let h = Harness::new().await;
    let config = h.config(acme());
    let auth = h.auth(json!({"version": 1, "profiles": {"acme:a": {"type": "api_key", "provider": "acme", "key": "acme-key-a"}}}), &config);
    let request = h.request(config, "acme", "m1", Some(auth.clone()));
    let outcome = h
        .run(request, vec![json!({"reply": {"status": 401, "body": {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}}})])
        .await
        .unwrap();
    assert_eq!(outcome.ending, RunEnding::Completed);
    let last = outcome
        .last_attempt()
        .and_then(|a| a.last_assistant.clone())
        .unwrap();
    assert!(
        last.error_message
            .unwrap_or_default()
            .contains("Incorrect API key")
    );
    assert!(auth.is_in_cooldown("acme:a", None).unwrap());
}

#[tokio::test]
async fn a_rejected_thinking_level_is_lowered_and_retried() {
    let h = Harness::new().await;
    let config = h.config(acme());
    let mut request = h.request(config, "acme", "m1", None);
    request.thinking = ThinkLevel::High;
    request.env = Arc::new(|_: &str| None);
    let mut cfg = acme();
    cfg["models"]["providers"]["acme"]["apiKey"] = json!("sk-literal");
    request.config = h.config(cfg);
    let outcome = h
        .run(request, vec![
            json!({"reply": {"status": 400, "body": {"error": {"message": "Unsupported value: reasoning_effort \"high\". Supported values are: \"low\", \"medium\"", "type": "invalid_request_error"}}}}),
            json!({"expectRequest": {"apiKey": "sk-literal"}, "reply": {"text": "Done at low effort."}}),
        ])
        .await
        .unwrap();
    assert_eq!(last_text(&outcome).as_deref(), Some("Done at low effort."));
    assert_eq!(outcome.attempts.len(), 2);
}

#[tokio::test]
async fn an_overflow_that_nothing_can_shrink_ends_with_the_overflow_payload() {
    let h = Harness::new().await;
    let mut cfg = acme();
    cfg["models"]["providers"]["acme"]["apiKey"] = json!("sk-literal");
    let request = h.request(h.config(cfg), "acme", "m1", None);
    let outcome = h
        .run(request, vec![json!({"reply": {"status": 400, "body": {"error": {"message": "This model's maximum context length is 128000 tokens. However, your messages resulted in 250000 tokens.", "type": "invalid_request_error", "code": "context_length_exceeded"}}}})])
        .await
        .unwrap();
    let RunEnding::ErrorPayload { text, kind, .. } = outcome.ending else {
        panic!("expected a payload")
    };
    assert_eq!(
        (text.as_str(), kind),
        (
            "Context overflow: prompt too large for the model.",
            RunErrorKind::ContextOverflow
        )
    );
}

#[tokio::test]
async fn an_unknown_model_and_a_tiny_window_are_failovers_before_any_request() {
    let h = Harness::new().await;
    let mut cfg = acme();
    cfg["models"]["providers"]["acme"]["models"] = json!([{"id": "m1", "contextWindow": 128000, "maxTokens": 4096}, {"id": "tiny", "contextWindow": 8000, "maxTokens": 1000}]);
    let config = h.config(cfg);
    let unknown = h
        .run(h.request(config.clone(), "acme", "nope", None), vec![])
        .await
        .unwrap_err();
    assert_eq!(unknown.to_string(), "Unknown model: acme/nope");
    assert!(
        matches!(unknown, RunError::Failover(ref f) if f.reason == FailoverReason::ModelNotFound)
    );
    let tiny = h
        .run(h.request(config, "acme", "tiny", None), vec![])
        .await
        .unwrap_err();
    assert_eq!(
        tiny.to_string(),
        "Model context window too small (8000 tokens). Minimum is 16000."
    );
}

#[tokio::test]
async fn a_missing_key_is_named() {
    let h = Harness::new().await;
    let err = h
        .run(h.request(h.config(acme()), "acme", "m1", None), vec![])
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "No API key resolved for provider \"acme\" (auth mode: api_key)."
    );
}
