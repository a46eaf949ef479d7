//! A whole-turn fixture: a scratch home and workspace, the scripted provider server on
//! 127.0.0.1, a manual clock, `sessions.json`, file auth and the HTTP provider factory — the
//! parts `run_agent_turn_with_fallback` runs over in production.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::path::PathBuf;
use std::sync::Arc;

use clawloop_core::clock::{Clock, ManualClock};
use clawloop_core::hooks::Hooks;
use clawloop_providers::{HttpTransport, TransportConfig};
use clawloop_runner::auth::{AuthProfileManager, FileAuthStore};
use clawloop_runner::config::Config;
use clawloop_runner::fallback::ProbeThrottle;
use clawloop_runner::run::http_provider_factory;
use clawloop_runner::runtime::{Runtime, RuntimeBuilder};
use clawloop_runner::turn::{AgentRunLoopResult, TurnEnv};
use clawloop_session::SessionStore;
use clawloop_testkit::{ProviderScriptServer, ScriptedExchange, ScriptedReply, ScriptedToolCall};
use clawloop_tools::builtins::builtin_tools;
use serde_json::{Value, json};

/// Where one test's turns run.
pub struct Scene {
    pub server: ProviderScriptServer,
    pub scratch: tempfile::TempDir,
    pub sessions_dir: PathBuf,
    pub workspace: PathBuf,
    pub env: TurnEnv,
}

/// Two OpenAI-style providers at the server: `acme` (models `m1`, `m2`) and `bolt` (`b1`,
/// `b2`); `acme/m1` is the primary. `defaults` is merged into `agents.defaults`.
pub fn config(server: &ProviderScriptServer, defaults: Value) -> Value {
    let provider = |id: &str, models: &[&str]| {
        json!({
            "api": "openai-completions",
            "baseUrl": format!("{}/v1", server.provider_url(id)),
            "apiKey": format!("sk-{id}-test"),
            "models": models.iter().map(|m| json!({
                "id": m, "contextWindow": 200000, "maxTokens": 8192
            })).collect::<Vec<_>>(),
        })
    };
    let mut agent_defaults = json!({
        "model": {"primary": "acme/m1"},
        "retry": {"transientHttpRetryDelayMs": 0},
    });
    if let (Some(into), Some(from)) = (agent_defaults.as_object_mut(), defaults.as_object()) {
        for (k, v) in from {
            into.insert(k.clone(), v.clone());
        }
    }
    json!({
        "agents": {"defaults": agent_defaults},
        "models": {"providers": {
            "acme": provider("acme", &["m1", "m2"]),
            "bolt": provider("bolt", &["b1", "b2"]),
        }},
    })
}

impl Scene {
    /// A scene whose config is [`config`] with `defaults`, with `hooks`, and a runtime built
    /// by `runtime` from a builder that already has the config and the manual clock.
    pub async fn new(
        defaults: Value,
        hooks: Arc<dyn Hooks>,
        runtime: impl FnOnce(RuntimeBuilder) -> RuntimeBuilder,
    ) -> Scene {
        let server = ProviderScriptServer::start().await.unwrap();
        let scratch = tempfile::tempdir().unwrap();
        let home = scratch.path().join("home");
        let agent_dir = home.join("agents/main/agent");
        let sessions_dir = home.join("agents/main/sessions");
        let workspace = scratch.path().join("workspace");
        for dir in [&agent_dir, &sessions_dir, &workspace] {
            std::fs::create_dir_all(dir).unwrap();
        }
        let config = Arc::new(Config::from_value(config(&server, defaults)).unwrap());
        let clock: Arc<dyn Clock> = Arc::new(ManualClock::new(1_700_000_000_000));
        let store = SessionStore::new(&sessions_dir).with_clock(clock.clone());
        let transport = HttpTransport::new(TransportConfig::default()).unwrap();
        let env = TurnEnv {
            runtime: runtime(Runtime::builder().config(&config).clock(clock.clone())).build(),
            agent_id: "main".to_owned(),
            agent_dir: agent_dir.clone(),
            home_dir: Some(home),
            workspace_dir: workspace.clone(),
            sessions: Arc::new(store),
            auth: AuthProfileManager::new(
                Arc::new(FileAuthStore::new(&agent_dir)),
                Arc::new(config.auth.clone()),
                clock.clone(),
            ),
            probe_throttle: Arc::new(ProbeThrottle::new(clock.clone())),
            tools: builtin_tools(None),
            hooks,
            provider_factory: http_provider_factory(transport, config.clone()),
            env: Arc::new(|_: &str| None),
            timezone: "UTC".to_owned(),
            prompt_profile: clawloop_runner::prompt::PromptProfile::Gateway,
            sandbox: None,
            approval: None,
            config,
        };
        Scene {
            server,
            scratch,
            sessions_dir,
            workspace,
            env,
        }
    }

    /// The session store the env writes.
    pub fn store(&self) -> SessionStore {
        SessionStore::new(&self.sessions_dir)
    }
}

/// A reply with `text`.
pub fn text(text: &str) -> ScriptedExchange {
    ScriptedExchange::reply(ScriptedReply {
        text: Some(text.to_owned()),
        ..ScriptedReply::default()
    })
}

/// A reply that calls `name` with `arguments`.
pub fn tool_call(id: &str, name: &str, arguments: Value) -> ScriptedExchange {
    ScriptedExchange::reply(ScriptedReply {
        tool_calls: Some(vec![ScriptedToolCall {
            id: Some(id.to_owned()),
            name: name.to_owned(),
            arguments: Some(arguments),
            arguments_raw: None,
        }]),
        ..ScriptedReply::default()
    })
}

/// An HTTP 400 context-overflow answer.
pub fn overflow() -> ScriptedExchange {
    ScriptedExchange::reply(ScriptedReply {
        status: Some(400),
        body: Some(json!({"error": {
            "message": "This model's maximum context length is 128000 tokens. However, your messages resulted in 250000 tokens.",
            "type": "invalid_request_error",
            "code": "context_length_exceeded"
        }})),
        ..ScriptedReply::default()
    })
}

/// The reply text of a successful turn; panics on anything else.
pub fn success_text(result: &AgentRunLoopResult) -> String {
    match result {
        AgentRunLoopResult::Success(success) => success.run_result.reply_text(),
        AgentRunLoopResult::Final { payload, .. } => {
            panic!("the turn did not succeed: {payload:?}")
        }
    }
}
