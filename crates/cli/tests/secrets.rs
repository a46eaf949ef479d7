//! No secret leaves the file it was put in: fake keys in `config.toml`, in an environment
//! variable and in `auth-profiles.json` go through every path of `clawloop run` (success, tool
//! calls, a 401, a 429 rotation, a model fallback, `--json`), and neither the outputs nor any
//! file the runs leave behind, nor the `Debug` text of the config and auth types, holds them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use clawloop_testkit::{ProviderRequest, ProviderRuleServer, ScriptedReply, ScriptedToolCall};
use pretty_assertions::assert_eq;
use serde_json::json;

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// In `config.toml` as provider `acme`'s literal `apiKey`.
const CONFIG_KEY: &str = "sk-clawloop-SECRET-0123456789-config";
/// In the environment variable `envco`'s `apiKey` names.
const ENV_KEY: &str = "sk-clawloop-SECRET-0123456789-env";
/// In `auth-profiles.json`: the first profile of `acme` (rate-limited on request).
const PROFILE_KEY_A: &str = "sk-clawloop-SECRET-0123456789-profile-a";
/// In `auth-profiles.json`: the second profile of `acme`.
const PROFILE_KEY_B: &str = "sk-clawloop-SECRET-0123456789-profile-b";
/// Every key shares it: no output may hold even this much of one.
const MARKER: &str = "SECRET-0123456789";
const ENV_VAR: &str = "CLAWLOOP_TEST_ENVCO_KEY";

/// A provider that answers like real ones do, echoing the key it got in its error texts
/// (OpenAI's 401 says `Incorrect API key provided: sk-…`), so a client that prints error
/// bodies verbatim leaks the key.
fn rule(request: &ProviderRequest) -> ScriptedReply {
    let key = request.api_key.clone().unwrap_or_default();
    let prompt = request.last_user_text().unwrap_or_default();
    let body = String::from_utf8_lossy(&request.request.body).into_owned();
    let provider = request.endpoint.provider.clone().unwrap_or_default();
    let error = |status: u16, message: String| ScriptedReply {
        status: Some(status),
        body: Some(json!({"error": {"message": message, "type": "invalid_request_error"}})),
        ..ScriptedReply::default()
    };
    if prompt.contains("[401]") {
        return error(401, format!("Incorrect API key provided: {key}."));
    }
    if prompt.contains("[429]") && key == PROFILE_KEY_A {
        return ScriptedReply {
            headers: serde_json::from_value(json!({"retry-after": "0"})).ok(),
            ..error(429, format!("Rate limit reached for key {key}."))
        };
    }
    if prompt.contains("[fallback]") && provider == "acme" {
        return error(503, format!("Overloaded for key {key}, try again."));
    }
    if prompt.contains("[tool]") && !body.contains("TOOL-RAN") {
        return ScriptedReply {
            tool_calls: Some(vec![ScriptedToolCall {
                name: "bash".to_owned(),
                arguments: Some(json!({"command": "echo TOOL-RAN"})),
                ..ScriptedToolCall::default()
            }]),
            ..ScriptedReply::default()
        };
    }
    ScriptedReply {
        text: Some(format!("answer from {provider}")),
        ..ScriptedReply::default()
    }
}

struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn new(server: &ProviderRuleServer) -> Result<Home, Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let home = Home { dir };
        std::fs::create_dir_all(home.home().join("agents/main/agent"))?;
        std::fs::create_dir_all(home.dir.path().join("workspace"))?;
        std::fs::write(
            home.home().join("config.toml"),
            format!(
                r#"[agents.defaults.model]
primary = "acme/m1"
fallbacks = ["envco/m1"]

[agents.defaults.retry]
transientHttpRetryDelayMs = 0

[models.providers.acme]
api = "openai-completions"
baseUrl = "{acme}/v1"
apiKey = "{CONFIG_KEY}"
models = [{{ id = "m1", contextWindow = 128000, maxTokens = 4096 }}]

[models.providers.envco]
api = "openai-completions"
baseUrl = "{envco}/v1"
apiKey = "{ENV_VAR}"
models = [{{ id = "m1", contextWindow = 128000, maxTokens = 4096 }}]
"#,
                acme = server.provider_url("acme"),
                envco = server.provider_url("envco"),
            ),
        )?;
        std::fs::write(
            home.home().join("agents/main/agent/auth-profiles.json"),
            json!({"version": 1, "profiles": {
                "acme:a": {"type": "api_key", "provider": "acme", "key": PROFILE_KEY_A},
                "acme:b": {"type": "api_key", "provider": "acme", "key": PROFILE_KEY_B},
            }})
            .to_string(),
        )?;
        Ok(home)
    }

    async fn run(&self, args: &[&str]) -> std::io::Result<Output> {
        let home = self.home();
        let workspace = self.dir.path().join("workspace");
        let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
        tokio::task::spawn_blocking(move || run_child(&home, &workspace, &args))
            .await
            .map_err(std::io::Error::other)?
    }
}

fn run_child(home: &Path, workspace: &Path, args: &[String]) -> std::io::Result<Output> {
    Command::new(env!("CARGO_BIN_EXE_clawloop"))
        .arg("run")
        .arg("--workspace")
        .arg(workspace)
        .args(args)
        .env("CLAWLOOP_HOME", home)
        .env(ENV_VAR, ENV_KEY)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
}

/// Every file under `dir`, recursively.
fn files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.is_dir() {
                todo.push(path);
            } else {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

/// The places (`what: line`) `text` holds a piece of a key.
fn leaks(what: &str, text: &str) -> Vec<String> {
    text.lines()
        .filter(|line| line.contains(MARKER))
        .map(|line| format!("{what}: {line}"))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn keys_appear_only_in_the_files_they_were_put_in() -> TestResult {
    let server = ProviderRuleServer::start(rule).await?;
    let home = Home::new(&server)?;
    let runs: [(&str, &[&str], i32); 6] = [
        ("success", &["--session-key", "s1", "hello"], 0),
        ("tool", &["--session-key", "s1", "[tool] run it"], 0),
        ("429", &["--session-key", "s3", "[429] rotate"], 0),
        ("fallback", &["--session-key", "s4", "[fallback] go"], 0),
        ("json", &["--session-key", "s5", "--json", "[tool] json"], 0),
        // Last: a 401 takes the profiles out of rotation.
        ("401", &["--session-key", "s2", "[401] who am i"], 1),
    ];
    let mut found = Vec::new();
    let mut statuses = Vec::new();
    for (name, args, _) in &runs {
        let out = home.run(args).await?;
        statuses.push((*name, out.status.code()));
        found.extend(leaks(
            &format!("{name} stdout"),
            &String::from_utf8_lossy(&out.stdout),
        ));
        found.extend(leaks(
            &format!("{name} stderr"),
            &String::from_utf8_lossy(&out.stderr),
        ));
    }
    let expected: Vec<(&str, Option<i32>)> = runs
        .iter()
        .map(|(name, _, code)| (*name, Some(*code)))
        .collect();
    assert_eq!(statuses, expected);

    // The runs took the paths they are named for: every key was sent, the 429 rotated, the
    // fallback reached the env-keyed provider.
    let sent: Vec<(String, u16)> = server
        .exchanges()
        .iter()
        .map(|e| (e.request.api_key.clone().unwrap_or_default(), e.status()))
        .collect();
    for (keys, status) in [
        (&[PROFILE_KEY_A][..], 429),
        (&[PROFILE_KEY_B], 200),
        (&[PROFILE_KEY_A, PROFILE_KEY_B], 503),
        (&[PROFILE_KEY_A, PROFILE_KEY_B], 401),
        (&[ENV_KEY], 200),
    ] {
        assert!(
            sent.iter()
                .any(|(key, got)| keys.contains(&key.as_str()) && *got == status),
            "no request with {keys:?} answered {status}: {sent:?}"
        );
    }

    let allowed = [
        home.home().join("config.toml"),
        home.home().join("agents/main/agent/auth-profiles.json"),
    ];
    let written = files(home.dir.path())?;
    assert!(
        written.iter().any(|p| p.ends_with("auth-state.json")),
        "{written:?}"
    );
    assert!(
        written.iter().any(|p| p.ends_with("sessions.json")),
        "{written:?}"
    );
    for path in written.iter().filter(|p| !allowed.contains(p)) {
        let bytes = std::fs::read(path)?;
        found.extend(leaks(
            &path.display().to_string(),
            &String::from_utf8_lossy(&bytes),
        ));
    }
    assert_eq!(found, Vec::<String>::new());
    Ok(())
}

#[test]
fn debug_of_config_and_auth_types_redacts_keys() -> TestResult {
    use clawloop_core::auth_store::AuthStore;
    use clawloop_runner::auth::{AuthProfileManager, FileAuthStore};

    let dir = tempfile::tempdir()?;
    let config = clawloop_runner::config::Config::from_value(json!({
        "models": {"providers": {"acme": {
            "api": "openai-completions", "baseUrl": "http://127.0.0.1:9/v1",
            "apiKey": CONFIG_KEY,
            "headers": {"Authorization": format!("Bearer {CONFIG_KEY}")},
            "authHeader": CONFIG_KEY,
            "models": [{"id": "m1", "headers": {"x-api-key": CONFIG_KEY}}]
        }}},
        "cliBackends": {"tool": {"command": "tool", "env": {"TOOL_KEY": CONFIG_KEY}}},
        "somethingNew": {"token": CONFIG_KEY}
    }))?;
    std::fs::write(
        dir.path().join("auth-profiles.json"),
        json!({"version": 1, "profiles": {
            "acme:a": {"type": "api_key", "provider": "acme", "key": PROFILE_KEY_A,
                       "keyRef": PROFILE_KEY_A, "metadata": {"k": PROFILE_KEY_A},
                       "leftover": PROFILE_KEY_A},
            "acme:t": {"type": "token", "provider": "acme", "token": PROFILE_KEY_B},
            "acme:o": {"type": "oauth", "provider": "acme", "access": PROFILE_KEY_B,
                       "refresh": PROFILE_KEY_B},
            "odd": {"type": "strange", "secret": PROFILE_KEY_B},
        }})
        .to_string(),
    )?;
    let store = std::sync::Arc::new(FileAuthStore::new(dir.path()));
    let snapshot = store.load()?;
    let catalog = clawloop_providers::catalog::ModelCatalog::from_config(&config.models)
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    let model = catalog
        .resolve("acme/m1")
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    let options = clawloop_core::StreamOptions {
        api_key: Some(ENV_KEY.to_owned()),
        headers: [("authorization".to_owned(), format!("Bearer {ENV_KEY}"))].into(),
        ..clawloop_core::StreamOptions::default()
    };
    let manager = AuthProfileManager::new(
        store,
        std::sync::Arc::new(config.auth.clone()),
        std::sync::Arc::new(clawloop_core::SystemClock),
    );
    let texts = [
        ("Config", format!("{config:?} {config:#?}")),
        ("ModelCatalog", format!("{catalog:?}")),
        ("Model", format!("{model:?}")),
        ("AuthSnapshot", format!("{snapshot:?} {snapshot:#?}")),
        ("AuthProfileManager", format!("{manager:?}")),
        ("StreamOptions", format!("{options:?}")),
    ];
    let found: Vec<String> = texts
        .iter()
        .flat_map(|(what, text)| leaks(what, text))
        .collect();
    assert_eq!(found, Vec::<String>::new());
    // The redacted text still says which keys are set.
    assert!(texts[0].1.contains("api_key"), "{}", texts[0].1);
    assert!(texts[3].1.contains("acme:a"), "{}", texts[3].1);
    Ok(())
}
