//! A whole-turn harness over real parts: the providers crate's scripted server on 127.0.0.1,
//! a scratch home with real auth files (`auth-profiles.json`, `auth-state.json`), a real session
//! store and transcript, the built-in tools in a scratch workspace, a manual clock, and the
//! runner's outermost entry point, `run_agent_turn_with_fallback`.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, dead_code)]

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use clawloop_core::StopReason;
use clawloop_core::clock::{Clock, ManualClock};
use clawloop_core::hooks::NoHooks;
use clawloop_core::message::{AgentMessage, ContentBlock};
use clawloop_providers::{HttpTransport, TransportConfig};
use clawloop_runner::auth::{AuthProfileManager, FileAuthStore};
use clawloop_runner::config::Config;
use clawloop_runner::fallback::ProbeThrottle;
use clawloop_runner::payloads::ReplyPayload;
use clawloop_runner::run::http_provider_factory;
use clawloop_runner::runtime::Runtime;
use clawloop_runner::turn::{
    AgentRunLoopResult, TurnEnv, TurnIo, TurnRequest, TurnSuccess, run_agent_turn_with_fallback,
};
use clawloop_session::{SessionOptions, SessionStore, Transcript};
use clawloop_testkit::{ProviderRequest, ProviderScriptServer, ScriptedExchange};
use clawloop_tools::builtins::builtin_tools;
use serde_json::{Value, json};

/// The session key every turn runs under.
pub const SESSION_KEY: &str = "faults";
/// The manual clock's start.
pub const START_MS: u64 = 1_700_000_000_000;

/// One agent's home, workspace, server and turn environment.
pub struct Scene {
    pub server: ProviderScriptServer,
    _scratch: tempfile::TempDir,
    pub agent_dir: PathBuf,
    pub sessions_dir: PathBuf,
    pub workspace: PathBuf,
    pub clock: ManualClock,
    pub env: TurnEnv,
}

/// What one turn did.
pub struct Turn {
    /// The turn's answer.
    pub result: AgentRunLoopResult,
    /// The requests the server saw, in arrival order.
    pub requests: Vec<ProviderRequest>,
}

impl Scene {
    /// A scene for `config` (every provider's `baseUrl` is pointed at the server, the transient
    /// retry delay is 0 unless set) with `profiles` as `auth-profiles.json` when given.
    pub async fn new(config: Value, profiles: Option<Value>) -> Scene {
        let server = ProviderScriptServer::start().await.unwrap();
        let scratch = tempfile::Builder::new()
            .prefix("clawloop-faults-")
            .tempdir()
            .unwrap();
        let home = scratch.path().join("home");
        let agent_dir = home.join("agents/main/agent");
        let sessions_dir = home.join("agents/main/sessions");
        let workspace = scratch.path().join("workspace");
        for dir in [&agent_dir, &sessions_dir, &workspace] {
            std::fs::create_dir_all(dir).unwrap();
        }
        let config = Arc::new(Config::from_value(point_at(config, &server)).unwrap());
        if let Some(profiles) = profiles {
            std::fs::write(agent_dir.join("auth-profiles.json"), profiles.to_string()).unwrap();
        }
        let clock = ManualClock::new(START_MS);
        let shared_clock: Arc<dyn Clock> = Arc::new(clock.clone());
        let transport = HttpTransport::new(TransportConfig::default()).unwrap();
        let env = TurnEnv {
            runtime: Runtime::builder()
                .config(&config)
                .clock(shared_clock.clone())
                .build(),
            agent_id: "main".to_owned(),
            agent_dir: agent_dir.clone(),
            home_dir: Some(home),
            workspace_dir: workspace.clone(),
            sessions: Arc::new(SessionStore::new(&sessions_dir).with_clock(shared_clock.clone())),
            auth: AuthProfileManager::new(
                Arc::new(FileAuthStore::new(&agent_dir)),
                Arc::new(config.auth.clone()),
                shared_clock.clone(),
            ),
            probe_throttle: Arc::new(ProbeThrottle::new(shared_clock)),
            tools: builtin_tools(None),
            hooks: Arc::new(NoHooks),
            provider_factory: http_provider_factory(transport, config.clone()),
            env: Arc::new(|_: &str| None),
            timezone: "UTC".to_owned(),
            prompt_profile: clawloop_runner::prompt::PromptProfile::Gateway,
            sandbox: None,
            approval: None,
            config,
        };
        // The key already has a session, so a failed turn keeps its transcript for the
        // assertions (a key a failed turn created is forgotten instead).
        clawloop_core::session_index::SessionIndex::bind(env.sessions.as_ref(), SESSION_KEY)
            .await
            .unwrap();
        Scene {
            server,
            _scratch: scratch,
            agent_dir,
            sessions_dir,
            workspace,
            clock,
            env,
        }
    }

    /// Runs one turn of `prompt` against `responses` (FORMAT.md `scripted` objects) and fails
    /// the test when the server saw anything other than the script.
    pub async fn turn(&self, prompt: &str, responses: Vec<Value>) -> Turn {
        let script = responses
            .into_iter()
            .map(|r| serde_json::from_value::<ScriptedExchange>(r).unwrap())
            .collect();
        self.server.begin_turn(script);
        let request = TurnRequest {
            session_key: SESSION_KEY.to_owned(),
            prompt: prompt.to_owned(),
            ..TurnRequest::default()
        };
        let result = run_agent_turn_with_fallback(&self.env, request, TurnIo::default()).await;
        let report = self.server.end_turn();
        assert_eq!(
            report.problems(),
            Vec::<String>::new(),
            "the turn did not go as scripted; result {result:#?}"
        );
        Turn {
            result,
            requests: report.requests,
        }
    }

    /// `auth-state.json` as stored (it must parse), or `{}` when there is none.
    pub fn auth_state(&self) -> Value {
        match std::fs::read_to_string(self.agent_dir.join("auth-state.json")) {
            Ok(text) => serde_json::from_str(&text).expect("auth-state.json parses"),
            Err(_) => json!({}),
        }
    }

    /// One profile's stored usage stats, reduced to the facts a fault decides: whether a
    /// cooldown or a disabled window is active now, its reason, and the error count.
    pub fn profile_facts(&self, id: &str) -> ProfileFacts {
        let state = self.auth_state();
        let stats = state
            .get("usageStats")
            .and_then(|s| s.get(id))
            .cloned()
            .unwrap_or_else(|| json!({}));
        #[allow(clippy::cast_precision_loss)]
        let now = self.clock.now_ms() as f64;
        let active = |key: &str| {
            stats
                .get(key)
                .and_then(Value::as_f64)
                .is_some_and(|v| v > now)
        };
        let text = |key: &str| stats.get(key).and_then(Value::as_str).map(str::to_owned);
        ProfileFacts {
            cooldown: active("cooldownUntil")
                .then(|| text("cooldownReason"))
                .flatten(),
            disabled: active("disabledUntil")
                .then(|| text("disabledReason"))
                .flatten(),
            error_count: stats.get("errorCount").and_then(Value::as_u64).unwrap_or(0),
        }
    }

    /// The transcript the key points at now, reopened from disk.
    pub fn transcript(&self) -> Transcript {
        let store = SessionStore::new(&self.sessions_dir);
        let record = store
            .find_by_key(SESSION_KEY)
            .unwrap()
            .expect("the key is bound to a session");
        let file = record.transcript_path(&self.sessions_dir);
        Transcript::open(&file, SessionOptions::default()).expect("the transcript reopens")
    }

    /// The context the reopened transcript rebuilds, as `(role, text)` pairs; panics when a
    /// tool call in it has no tool result.
    pub fn rebuilt(&self) -> Vec<(String, String)> {
        let transcript = self.transcript();
        let messages = transcript.build_context().messages;
        let orphans = orphaned_tool_calls(&messages);
        assert_eq!(
            orphans,
            Vec::<String>::new(),
            "orphaned tool calls in {messages:#?}"
        );
        messages
            .iter()
            .map(|m| (m.role().to_owned(), m.text()))
            .collect()
    }
}

/// A profile's state after a turn.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProfileFacts {
    /// The reason of an active cooldown window.
    pub cooldown: Option<String>,
    /// The reason of an active disabled window.
    pub disabled: Option<String>,
    /// Failures since the last success.
    pub error_count: u64,
}

impl ProfileFacts {
    /// A profile that has not failed (or was cleared).
    pub fn clean() -> Self {
        ProfileFacts::default()
    }

    /// A profile cooling down for `reason` after `errors` failures.
    pub fn cooling(reason: &str, errors: u64) -> Self {
        ProfileFacts {
            cooldown: Some(reason.to_owned()),
            disabled: None,
            error_count: errors,
        }
    }

    /// A profile on the disabled lane for `reason` after `errors` failures.
    pub fn disabled(reason: &str, errors: u64) -> Self {
        ProfileFacts {
            cooldown: None,
            disabled: Some(reason.to_owned()),
            error_count: errors,
        }
    }
}

/// Tool call ids with no tool result, among the assistant messages a request replays.
///
/// An errored or aborted reply is dropped from every request (pi-mono §1.9), so a partial call
/// it holds is never sent and needs no result; every other call must have one.
pub fn orphaned_tool_calls(messages: &[AgentMessage]) -> Vec<String> {
    let answered: BTreeSet<&str> = messages
        .iter()
        .filter_map(|m| match m {
            AgentMessage::ToolResult(r) => Some(r.tool_call_id.as_str()),
            _ => None,
        })
        .collect();
    messages
        .iter()
        .filter_map(|m| match m {
            AgentMessage::Assistant(a)
                if !matches!(a.stop_reason, StopReason::Error | StopReason::Aborted) =>
            {
                Some(a)
            }
            _ => None,
        })
        .flat_map(|a| a.content.iter())
        .filter_map(|block| match block {
            ContentBlock::ToolCall(call) if !answered.contains(call.id.as_str()) => {
                Some(call.id.clone())
            }
            _ => None,
        })
        .collect()
}

impl Turn {
    /// The `(provider, apiKey)` of each request, in order.
    pub fn calls(&self) -> Vec<(String, String)> {
        self.requests
            .iter()
            .map(|r| {
                (
                    r.provider().unwrap_or_default().to_owned(),
                    r.api_key.clone().unwrap_or_default(),
                )
            })
            .collect()
    }

    /// The successful turn's result; panics on a final result.
    pub fn success(&self) -> &TurnSuccess {
        match &self.result {
            AgentRunLoopResult::Success(success) => success,
            AgentRunLoopResult::Final { payload, .. } => {
                panic!("expected a run result, got the final payload {payload:?}")
            }
        }
    }

    /// The run result's payloads as `(text, isError)`.
    pub fn payloads(&self) -> Vec<(String, bool)> {
        self.success()
            .run_result
            .payloads
            .iter()
            .map(|p: &ReplyPayload| (p.text.clone().unwrap_or_default(), p.is_error))
            .collect()
    }

    /// The final payload's `(text, isError)`; panics on a run result.
    pub fn final_payload(&self) -> (String, bool) {
        match &self.result {
            AgentRunLoopResult::Final { payload, .. } => {
                (payload.text.clone().unwrap_or_default(), payload.is_error)
            }
            AgentRunLoopResult::Success(success) => {
                panic!("expected a final payload, got {:#?}", success.run_result)
            }
        }
    }

    /// The `(provider, model)` the run's meta names.
    pub fn answered_by(&self) -> (String, String) {
        let meta = self
            .success()
            .run_result
            .meta
            .agent_meta
            .as_ref()
            .expect("a run result names its model");
        (meta.provider.clone(), meta.model.clone())
    }
}

/// `config` with every provider's `baseUrl` at the server and the transient retry delay at 0.
fn point_at(mut config: Value, server: &ProviderScriptServer) -> Value {
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
            provider["baseUrl"] = json!(format!("{}{suffix}", server.provider_url(id)));
        }
    }
    if config
        .pointer("/agents/defaults/retry/transientHttpRetryDelayMs")
        .is_none()
    {
        config["agents"]["defaults"]["retry"]["transientHttpRetryDelayMs"] = json!(0);
    }
    config
}

/// The provider `acme` (OpenAI chat completions, model `m1`) with profiles `acme:a` then
/// `acme:b`, and — when `fallback` — the provider `bolt` (Anthropic messages, model `b1`, a
/// configured key) as the fallback model. `defaults` is merged into `agents.defaults`.
pub fn acme_config(fallback: bool, defaults: Value) -> Value {
    let mut config = json!({
        "agents": {"defaults": {"model": {"primary": "acme/m1"}}},
        "models": {"providers": {
            "acme": {"api": "openai-completions", "baseUrl": "http://127.0.0.1:9/v1",
                     "models": [{"id": "m1", "contextWindow": 128000, "maxTokens": 4096}]}
        }},
        "auth": {"order": {"acme": ["acme:a", "acme:b"]}}
    });
    if fallback {
        config["agents"]["defaults"]["model"]["fallbacks"] = json!(["bolt/b1"]);
        config["models"]["providers"]["bolt"] = json!({
            "api": "anthropic-messages", "baseUrl": "http://127.0.0.1:9",
            "models": [{"id": "b1", "contextWindow": 200000, "maxTokens": 8192}],
            "apiKey": "sk-bolt"
        });
    }
    if let (Some(target), Some(extra)) = (
        config["agents"]["defaults"].as_object_mut(),
        defaults.as_object(),
    ) {
        for (key, value) in extra {
            target.insert(key.clone(), value.clone());
        }
    }
    config
}

/// `auth-profiles.json` with the API keys `key-a` (`acme:a`) and `key-b` (`acme:b`).
pub fn two_keys() -> Value {
    json!({"version": 1, "profiles": {
        "acme:a": {"type": "api_key", "provider": "acme", "key": "key-a"},
        "acme:b": {"type": "api_key", "provider": "acme", "key": "key-b"}
    }})
}

/// `auth-profiles.json` with only `acme:a` (`key-a`).
pub fn one_key() -> Value {
    json!({"version": 1, "profiles": {
        "acme:a": {"type": "api_key", "provider": "acme", "key": "key-a"}
    }})
}

/// A scripted HTTP error: `status` with an OpenAI-style JSON error body.
pub fn http_error(status: u16, message: &str) -> Value {
    json!({"reply": {"status": status, "body": {"error": {"message": message, "type": "error"}}}})
}

/// A scripted text answer.
pub fn text(answer: &str) -> Value {
    json!({"reply": {"text": answer}})
}

/// `(provider, key)` shorthand for [`Turn::calls`] expectations.
pub fn call(provider: &str, key: &str) -> (String, String) {
    (provider.to_owned(), key.to_owned())
}

/// `(role, text)` shorthand for [`Scene::rebuilt`] expectations.
pub fn msg(role: &str, text: &str) -> (String, String) {
    (role.to_owned(), text.to_owned())
}
