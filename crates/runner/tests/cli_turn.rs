//! CLI backends selected as a turn's provider (reference §21 step 1): whole turns through
//! `run_agent_turn_with_fallback` with a fake CLI (a real shell script run as a child process),
//! a scratch home with real session and auth files, and the providers crate's scripted server
//! for the HTTP model a failed CLI falls back to.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod fake_cli;

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use clawloop_core::clock::{Clock, ManualClock};
use clawloop_core::hooks::NoHooks;
use clawloop_providers::{HttpTransport, TransportConfig};
use clawloop_runner::auth::{AuthProfileManager, FileAuthStore};
use clawloop_runner::cli_backend::CLI_SESSION_BINDING_KEY;
use clawloop_runner::config::Config;
use clawloop_runner::fallback::ProbeThrottle;
use clawloop_runner::payloads::ReplyPayload;
use clawloop_runner::run::http_provider_factory;
use clawloop_runner::runtime::Runtime;
use clawloop_runner::turn::{
    AgentRunLoopResult, TurnEnv, TurnIo, TurnRequest, run_agent_turn_with_fallback,
};
use clawloop_session::SessionStore;
use clawloop_testkit::{ProviderScriptServer, ScriptedExchange};
use clawloop_tools::builtins::builtin_tools;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

const NOW: u64 = 1_700_000_000_000;
const KEY: &str = "chat";

/// The fake CLIs, written once before any test spawns a process (a script still open for
/// writing in one thread while another forks cannot be executed: ETXTBSY).
fn scripts() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        fake_cli::write_scripts(
            "clawloop-fake-turn-clis-",
            &[
                // Claude Code's stream-json: the session is the one passed (`--session-id` on
                // a fresh call, `--resume` on a resumed one); each call's arguments, stdin and
                // working directory are kept under "$FAKE_DIR/<call number>".
                ("claude", r#"prompt=$(cat)
n=$(( $(cat "$FAKE_DIR/count" 2>/dev/null || echo 0) + 1 ))
echo $n > "$FAKE_DIR/count"
printf '%s\n' "$@" > "$FAKE_DIR/args$n"
printf '%s' "$prompt" > "$FAKE_DIR/stdin$n"
pwd > "$FAKE_DIR/cwd$n"
sid=""
prev=""
for a in "$@"; do
  if [ "$prev" = "--session-id" ] || [ "$prev" = "--resume" ]; then sid=$a; fi
  prev=$a
done
echo "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"$sid\"}"
echo "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"answer $n: $prompt\",\"session_id\":\"$sid\",\"usage\":{\"input_tokens\":10,\"output_tokens\":3}}"
"#),
                // Fails the first call with an expired session unless it starts a new one.
                ("expiring", r#"cat > /dev/null
n=$(( $(cat "$FAKE_DIR/count" 2>/dev/null || echo 0) + 1 ))
echo $n > "$FAKE_DIR/count"
printf '%s\n' "$@" > "$FAKE_DIR/args$n"
for a in "$@"; do
  if [ "$a" = "--resume" ]; then echo "Error: No conversation found with session ID: gone" >&2; echo "session not found" >&2; exit 1; fi
done
echo '{"type":"result","subtype":"success","is_error":false,"result":"fresh start","session_id":"new-session"}'
"#),
                // A long answer and a context nearly as large as the model's window.
                (
                    "heavy",
                    r#"cat > /dev/null
n=$(( $(cat "$FAKE_DIR/count" 2>/dev/null || echo 0) + 1 ))
echo $n > "$FAKE_DIR/count"
big=$(head -c 100000 /dev/zero | tr '\0' 'a')
echo "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"big $n $big\",\"session_id\":\"s-big\",\"usage\":{\"input_tokens\":20,\"cache_read_input_tokens\":195000,\"output_tokens\":5}}"
"#,
                ),
                // Always fails, like a CLI whose service is down.
                ("broken", r#"cat > /dev/null
touch "$FAKE_DIR/broken-ran"
echo "fatal: upstream exploded" >&2
exit 2
"#),
            ],
        )
    })
}

struct Scene {
    server: ProviderScriptServer,
    _scratch: tempfile::TempDir,
    fake: PathBuf,
    workspace: PathBuf,
    sessions_dir: PathBuf,
    env: TurnEnv,
}

impl Scene {
    /// A home and workspace for `config` (providers pointed at the scripted server, `$FAKE`
    /// in a CLI backend's `env` replaced by this scene's state directory).
    async fn new(config: Value) -> Scene {
        let server = ProviderScriptServer::start().await.unwrap();
        let scratch = tempfile::tempdir().unwrap();
        let home = scratch.path().join("home");
        let agent_dir = home.join("agents/main/agent");
        let sessions_dir = home.join("agents/main/sessions");
        let workspace = scratch.path().join("workspace");
        let fake = scratch.path().join("fake");
        for dir in [&agent_dir, &sessions_dir, &workspace, &fake] {
            std::fs::create_dir_all(dir).unwrap();
        }
        let mut config = config;
        if let Some(providers) = config
            .pointer_mut("/models/providers")
            .and_then(Value::as_object_mut)
        {
            for (id, provider) in providers.iter_mut() {
                if provider.get("api").is_some() {
                    provider["baseUrl"] = json!(format!("{}/v1", server.provider_url(id)));
                }
            }
        }
        if let Some(backends) = config
            .pointer_mut("/cliBackends")
            .and_then(Value::as_object_mut)
        {
            for backend in backends.values_mut() {
                backend["env"] = json!({"FAKE_DIR": fake.display().to_string()});
            }
        }
        let config = Arc::new(Config::from_value(config).unwrap());
        let clock: Arc<dyn Clock> = Arc::new(ManualClock::new(NOW));
        let transport = HttpTransport::new(TransportConfig::default()).unwrap();
        let env = TurnEnv {
            runtime: Runtime::builder()
                .config(&config)
                .clock(clock.clone())
                .build(),
            agent_id: "main".to_owned(),
            agent_dir: agent_dir.clone(),
            home_dir: Some(home),
            workspace_dir: workspace.clone(),
            sessions: Arc::new(SessionStore::new(&sessions_dir).with_clock(clock.clone())),
            auth: AuthProfileManager::new(
                Arc::new(FileAuthStore::new(&agent_dir)),
                Arc::new(config.auth.clone()),
                clock.clone(),
            ),
            probe_throttle: Arc::new(ProbeThrottle::new(clock)),
            tools: builtin_tools(None),
            hooks: Arc::new(NoHooks),
            provider_factory: http_provider_factory(transport, config.clone()),
            // No key anywhere: a CLI backend needs none.
            env: Arc::new(|_: &str| None),
            timezone: "UTC".to_owned(),
            prompt_profile: clawloop_runner::prompt::PromptProfile::Gateway,
            sandbox: None,
            approval: None,
            config,
        };
        Scene {
            server,
            _scratch: scratch,
            fake,
            workspace,
            sessions_dir,
            env,
        }
    }

    /// One turn with `script` for the scripted server; the server must have seen exactly it.
    async fn turn(&self, prompt: &str, script: Vec<Value>) -> AgentRunLoopResult {
        let script = script
            .into_iter()
            .map(|r| serde_json::from_value::<ScriptedExchange>(r).unwrap())
            .collect();
        self.server.begin_turn(script);
        let result = run_agent_turn_with_fallback(
            &self.env,
            TurnRequest {
                session_key: KEY.to_owned(),
                prompt: prompt.to_owned(),
                ..TurnRequest::default()
            },
            TurnIo::default(),
        )
        .await;
        let report = self.server.end_turn();
        assert_eq!(report.problems(), Vec::<String>::new(), "{result:?}");
        result
    }

    fn fake_lines(&self, name: &str) -> Vec<String> {
        std::fs::read_to_string(self.fake.join(name))
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// `(role, provider, text or error, cliSessionBinding)` of every message the key's
    /// transcript holds.
    fn transcript(&self) -> Vec<(String, Option<String>, String, Option<Value>)> {
        let store = SessionStore::new(&self.sessions_dir);
        let record = store.find_by_key(KEY).unwrap().unwrap();
        let text = std::fs::read_to_string(record.transcript_path(&self.sessions_dir)).unwrap();
        text.lines()
            .map(|line| serde_json::from_str::<Value>(line).unwrap())
            .filter(|entry| entry["type"] == "message")
            .map(|entry| {
                let message = &entry["message"];
                let text = match &message["content"] {
                    Value::String(text) => text.clone(),
                    Value::Array(blocks) => blocks
                        .iter()
                        .filter_map(|b| b["text"].as_str())
                        .collect::<Vec<_>>()
                        .join("\n"),
                    _ => String::new(),
                };
                let text = message["errorMessage"]
                    .as_str()
                    .map_or(text, |e| format!("error: {e}"));
                (
                    message["role"].as_str().unwrap_or_default().to_owned(),
                    message["provider"].as_str().map(str::to_owned),
                    text,
                    message.get(CLI_SESSION_BINDING_KEY).cloned(),
                )
            })
            .collect()
    }
}

/// The reply text and who answered, of a successful turn.
fn answered(result: &AgentRunLoopResult) -> (Vec<ReplyPayload>, Option<String>, Option<String>) {
    match result {
        AgentRunLoopResult::Success(success) => (
            success.run_result.payloads.clone(),
            success.fallback_provider.clone(),
            success
                .run_result
                .meta
                .agent_meta
                .as_ref()
                .map(|m| m.provider.clone()),
        ),
        other => panic!("expected a run result, got {other:?}"),
    }
}

fn claude_config() -> Value {
    json!({
        "agents": {"defaults": {"model": {"primary": "claude-cli/claude-opus-4-6"}}},
        "cliBackends": {"claude-cli": {"command": scripts().join("claude").display().to_string()}}
    })
}

#[tokio::test]
async fn a_cli_backend_answers_turns_and_the_second_resumes_its_session() {
    let scene = Scene::new(claude_config()).await;

    let first = scene.turn("hello", Vec::new()).await;
    assert_eq!(
        answered(&first),
        (
            vec![ReplyPayload::text("answer 1: hello")],
            None,
            Some("claude-cli".to_owned())
        )
    );
    let args = scene.fake_lines("args1");
    let session_at = args.iter().position(|a| a == "--session-id").unwrap();
    let session = args[session_at + 1].clone();
    assert_eq!(session.len(), 36, "a new UUID: {session}");
    // The preset's alias for the model, and the system prompt on the new session.
    let model_at = args.iter().position(|a| a == "--model").unwrap();
    assert_eq!(args[model_at + 1], "opus");
    assert!(args.iter().any(|a| a == "--append-system-prompt"));
    assert!(!args.iter().any(|a| a == "--resume"));
    // It ran in the agent's workspace.
    assert_eq!(
        PathBuf::from(scene.fake_lines("cwd1")[0].clone()),
        scene.workspace.canonicalize().unwrap()
    );

    let second = scene.turn("again", Vec::new()).await;
    assert_eq!(
        answered(&second).0,
        vec![ReplyPayload::text("answer 2: again")]
    );
    let args = scene.fake_lines("args2");
    let resume_at = args.iter().position(|a| a == "--resume").unwrap();
    assert_eq!(
        args[resume_at + 1],
        session,
        "the second turn resumes the first's session"
    );
    assert!(!args.iter().any(|a| a == "--append-system-prompt"));
    assert_eq!(
        std::fs::read_to_string(scene.fake.join("stdin2")).unwrap(),
        "again"
    );

    let binding = Some(json!({"backend": "claude-cli", "sessionId": session}));
    assert_eq!(
        scene.transcript(),
        vec![
            ("user".into(), None, "hello".into(), None),
            (
                "assistant".into(),
                Some("claude-cli".into()),
                "answer 1: hello".into(),
                binding.clone()
            ),
            ("user".into(), None, "again".into(), None),
            (
                "assistant".into(),
                Some("claude-cli".into()),
                "answer 2: again".into(),
                binding
            ),
        ]
    );
}

#[tokio::test]
async fn a_failing_cli_falls_back_to_an_http_model() {
    let scene = Scene::new(json!({
        "agents": {"defaults": {"model": {"primary": "my-cli/fast", "fallbacks": ["acme/m1"]}}},
        "models": {"providers": {"acme": {"api": "openai-completions", "apiKey": "acme-key", "models": [{"id": "m1", "contextWindow": 128000, "maxTokens": 4096}]}}},
        "cliBackends": {"my-cli": {"command": scripts().join("broken").display().to_string(), "output": "text"}}
    }))
    .await;
    let result = scene
        .turn(
            "hello",
            vec![
                json!({"expectRequest": {"apiKey": "acme-key"}, "reply": {"text": "HTTP answer"}}),
            ],
        )
        .await;
    assert_eq!(
        answered(&result),
        (
            vec![ReplyPayload::text("HTTP answer")],
            Some("acme".to_owned()),
            Some("acme".to_owned())
        )
    );
    assert!(
        scene.fake.join("broken-ran").exists(),
        "the CLI was tried first"
    );
    let transcript = scene.transcript();
    assert_eq!(
        transcript.last().map(|m| (m.1.clone(), m.2.clone())),
        Some((Some("acme".into()), "HTTP answer".into()))
    );
    assert!(
        transcript.iter().any(|m| m.1.as_deref() == Some("my-cli")
            && m.2 == "error: fatal: upstream exploded (CLI exited with code 2)"),
        "{transcript:#?}"
    );
}

#[tokio::test]
async fn a_failing_cli_without_fallbacks_ends_the_turn_with_its_error() {
    let scene = Scene::new(json!({
        "agents": {"defaults": {"model": {"primary": "my-cli/fast"}}},
        "cliBackends": {"my-cli": {"command": scripts().join("broken").display().to_string(), "output": "text"}}
    }))
    .await;
    let result = scene.turn("hello", Vec::new()).await;
    let AgentRunLoopResult::Final { payload, .. } = result else {
        panic!("expected a final payload, got {result:?}");
    };
    // The CLI's own words reach the user (reference §21 step 3, internal UI text).
    assert_eq!(
        payload,
        ReplyPayload::error(
            "⚠\u{fe0f} Agent failed before reply: fatal: upstream exploded (CLI exited with code 2).\nLogs: clawloop logs --follow"
        )
    );
}

#[tokio::test]
async fn an_expired_cli_session_is_retried_once_with_a_new_one() {
    let scene = Scene::new(json!({
        "agents": {"defaults": {"model": {"primary": "claude-cli/opus"}}},
        "cliBackends": {"claude-cli": {"command": scripts().join("expiring").display().to_string()}}
    }))
    .await;
    let first = scene.turn("one", Vec::new()).await;
    assert_eq!(answered(&first).0, vec![ReplyPayload::text("fresh start")]);
    // The second turn resumes "new-session", which has expired: one more call, fresh.
    let second = scene.turn("two", Vec::new()).await;
    assert_eq!(answered(&second).0, vec![ReplyPayload::text("fresh start")]);
    let resumed = scene.fake_lines("args2");
    let retried = scene.fake_lines("args3");
    assert_eq!(
        (
            resumed.iter().any(|a| a == "--resume"),
            retried.iter().any(|a| a == "--resume"),
            retried.iter().any(|a| a == "--session-id"),
        ),
        (true, false, true)
    );
    assert_eq!(scene.fake_lines("count"), vec!["3".to_owned()]);
}

#[tokio::test]
async fn the_transcript_of_a_cli_session_is_never_compacted_through_the_cli() {
    // The CLI keeps (and compacts) its own history; a summary request sent to it would land
    // in its session as a user message.
    let scene = Scene::new(json!({
        "agents": {"defaults": {"model": {"primary": "claude-cli/opus"}}},
        "cliBackends": {"claude-cli": {"command": scripts().join("heavy").display().to_string()}}
    }))
    .await;
    for (n, prompt) in ["one", "two", "three"].into_iter().enumerate() {
        let result = scene.turn(prompt, Vec::new()).await;
        let first = answered(&result).0.first().and_then(|p| p.text.clone());
        let head: String = first.unwrap_or_default().chars().take(9).collect();
        assert_eq!(head, format!("big {} aaa", n + 1), "turn {n}");
    }
    assert_eq!(scene.fake_lines("count"), vec!["3".to_owned()]);
    let roles: Vec<String> = scene.transcript().into_iter().map(|m| m.0).collect();
    assert_eq!(roles, ["user", "assistant"].repeat(3));
}
