//! `clawloop auth …` as a child process, with a real `clawloop run` against the providers
//! crate's scripted server in between, so the state it shows is the state a run wrote.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use clawloop_testkit::ProviderScriptServer;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

type TestResult = Result<(), Box<dyn std::error::Error>>;

const SECRET: &str = "sk-acme-7Hq2ZxVb9";

/// A clawloop home whose config points provider `acme` at the scripted server, without a
/// configured key: the key comes from the auth profile.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new(server: &ProviderScriptServer) -> Result<Home, Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        std::fs::create_dir_all(dir.path().join("home"))?;
        std::fs::create_dir_all(dir.path().join("workspace"))?;
        std::fs::write(
            dir.path().join("home").join("config.toml"),
            format!(
                r#"[agents.defaults.model]
primary = "acme/m1"

[agents.defaults.retry]
transientHttpRetryDelayMs = 0

[models.providers.acme]
api = "openai-completions"
baseUrl = "{}/v1"
models = [{{ id = "m1", contextWindow = 128000, maxTokens = 4096 }}]
"#,
                server.provider_url("acme")
            ),
        )?;
        Ok(Home { dir })
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn agent_dir(&self) -> PathBuf {
        self.home().join("agents").join("main").join("agent")
    }

    /// Runs `clawloop <args>` with this home, off the async runtime so the scripted server
    /// keeps answering while the child waits on it.
    async fn clawloop(&self, args: &[&str], stdin: &str) -> std::io::Result<Output> {
        let home = self.home();
        let workspace = self.dir.path().join("workspace");
        let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
        let stdin = stdin.to_owned();
        tokio::task::spawn_blocking(move || run_child(&home, &workspace, &args, &stdin))
            .await
            .map_err(std::io::Error::other)?
    }
}

fn run_child(
    home: &Path,
    workspace: &Path,
    args: &[String],
    stdin: &str,
) -> std::io::Result<Output> {
    use std::io::Write;
    let mut command = Command::new(env!("CARGO_BIN_EXE_clawloop"));
    command.args(args);
    if args.first().map(String::as_str) == Some("run") {
        command.arg("--workspace").arg(workspace);
    }
    let mut child = command
        .env("CLAWLOOP_HOME", home)
        .env("NO_COLOR", "1")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    if let Some(mut pipe) = child.stdin.take() {
        pipe.write_all(stdin.as_bytes())?;
    }
    child.wait_with_output()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn all_output(out: &Output) -> String {
    format!("{}{}", text(&out.stdout), text(&out.stderr))
}

fn exchange(value: Value) -> Result<clawloop_testkit::ScriptedExchange, serde_json::Error> {
    serde_json::from_value(value)
}

/// The line of `listing` for `id`.
fn line_of<'a>(listing: &'a str, id: &str) -> Option<&'a str> {
    listing
        .lines()
        .find(|line| line.split_whitespace().next() == Some(id))
}

#[tokio::test(flavor = "multi_thread")]
async fn add_list_cooldown_after_429_reset_remove() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;

    let added = home
        .clawloop(&["auth", "add", "acme"], &format!("{SECRET}\n"))
        .await?;
    assert_eq!(added.status.code(), Some(0), "{}", all_output(&added));
    assert!(!all_output(&added).contains(SECRET));
    let stored: Value = serde_json::from_str(&std::fs::read_to_string(
        home.agent_dir().join("auth-profiles.json"),
    )?)?;
    assert_eq!(
        stored,
        json!({"version": 1, "profiles": {"acme:default": {"type": "api_key", "provider": "acme", "key": SECRET}}})
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(home.agent_dir().join("auth-profiles.json"))?
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    let listed = home.clawloop(&["auth", "list"], "").await?;
    assert_eq!(listed.status.code(), Some(0), "{}", all_output(&listed));
    let listing = text(&listed.stdout);
    assert!(!all_output(&listed).contains(SECRET), "{listing}");
    assert!(!all_output(&listed).contains("sk-acme"), "{listing}");
    let line = line_of(&listing, "acme:default").unwrap_or_default();
    assert_eq!(
        line.split_whitespace().collect::<Vec<_>>(),
        [
            "acme:default",
            "acme",
            "api_key",
            "file",
            "ok",
            "last",
            "used",
            "never",
            "errors",
            "0"
        ],
        "{listing}"
    );

    // A rate limit on the only profile: the turn fails and the profile rests.
    server.begin_turn(vec![
        exchange(json!({"expectRequest": {"apiKey": SECRET},
            "reply": {"status": 429, "body": {"error": {"message": "rate limit exceeded", "type": "rate_limit_error"}}}}))?,
        exchange(json!({"optional": true, "reply": {"status": 429, "body": {"error": {"message": "rate limit exceeded"}}}}))?,
        exchange(json!({"optional": true, "reply": {"status": 429, "body": {"error": {"message": "rate limit exceeded"}}}}))?,
    ]);
    let turn = home.clawloop(&["run", "--print", "hi"], "").await?;
    assert_eq!(turn.status.code(), Some(1), "{}", all_output(&turn));
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());

    let listed = home.clawloop(&["auth", "list"], "").await?;
    let listing = text(&listed.stdout);
    let line = line_of(&listing, "acme:default").unwrap_or_default();
    assert!(line.contains(" cooling down until "), "{listing}");
    assert!(line.contains("(rate_limit"), "{listing}");
    assert!(line.ends_with("errors 1"), "{listing}");
    let json_listing: Value =
        serde_json::from_slice(&home.clawloop(&["auth", "list", "--json"], "").await?.stdout)?;
    assert_eq!(json_listing[0]["state"]["status"], "cooling_down");
    assert_eq!(json_listing[0]["state"]["reason"], "rate_limit");
    assert_eq!(json_listing[0]["errorCount"], 1);
    assert!(!json_listing.to_string().contains(SECRET));

    let reset = home
        .clawloop(&["auth", "reset", "acme:default"], "")
        .await?;
    assert_eq!(reset.status.code(), Some(0), "{}", all_output(&reset));
    let said = text(&reset.stdout);
    assert!(
        said.starts_with("acme:default: cooldown until ") && said.contains("error count 1 → 0"),
        "{said}"
    );
    let listing = text(&home.clawloop(&["auth", "list"], "").await?.stdout);
    let line = line_of(&listing, "acme:default").unwrap_or_default();
    assert!(
        line.contains(" ok ") && line.ends_with("errors 0"),
        "{listing}"
    );
    let again = home.clawloop(&["auth", "reset", "--all"], "").await?;
    assert_eq!(text(&again.stdout), "nothing to reset\n");

    let removed = home
        .clawloop(&["auth", "remove", "acme:default"], "")
        .await?;
    assert_eq!(
        (removed.status.code(), text(&removed.stdout)),
        (Some(0), "removed auth profile acme:default\n".to_owned())
    );
    let stored: Value = serde_json::from_str(&std::fs::read_to_string(
        home.agent_dir().join("auth-profiles.json"),
    )?)?;
    assert_eq!(stored, json!({"version": 1, "profiles": {}}));
    assert!(!home.agent_dir().join("auth-state.json").exists());
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn existing_ids_empty_keys_and_unknown_profiles_exit_2() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    let first = home
        .clawloop(&["auth", "add", "acme", "--id", "acme:work"], "k1\n")
        .await?;
    assert_eq!(first.status.code(), Some(0), "{}", all_output(&first));

    let clash = home
        .clawloop(&["auth", "add", "acme", "--id", "acme:work"], "k2\n")
        .await?;
    assert_eq!(clash.status.code(), Some(2));
    assert_eq!(
        text(&clash.stderr),
        "clawloop: auth profile acme:work already exists: pass --force to replace it, or choose another --id\n"
    );
    let forced = home
        .clawloop(
            &["auth", "add", "acme", "--id", "acme:work", "--force"],
            "k2\n",
        )
        .await?;
    assert_eq!(forced.status.code(), Some(0), "{}", all_output(&forced));
    let stored = std::fs::read_to_string(home.agent_dir().join("auth-profiles.json"))?;
    assert!(
        stored.contains("\"k2\"") && !stored.contains("\"k1\""),
        "{stored}"
    );

    // Without --id the next free id is taken.
    let second = home.clawloop(&["auth", "add", "acme"], "k3\n").await?;
    let third = home.clawloop(&["auth", "add", "acme"], "k4\n").await?;
    assert_eq!(
        (
            text(&second.stdout).contains("acme:default"),
            text(&third.stdout).contains("acme:2")
        ),
        (true, true),
        "{}{}",
        all_output(&second),
        all_output(&third)
    );

    let empty = home
        .clawloop(&["auth", "add", "acme", "--id", "acme:e"], "  \n")
        .await?;
    assert_eq!(empty.status.code(), Some(2));
    assert!(text(&empty.stderr).starts_with("clawloop: the key for acme is empty"));

    let unknown = home.clawloop(&["auth", "remove", "acme:nope"], "").await?;
    assert_eq!(unknown.status.code(), Some(2));
    assert_eq!(
        text(&unknown.stderr),
        "clawloop: no auth profile acme:nope; known profiles: acme:work, acme:default, acme:2\n"
    );
    let unknown_reset = home.clawloop(&["auth", "reset", "acme:nope"], "").await?;
    assert_eq!(unknown_reset.status.code(), Some(2));

    // A key kept in the environment: only the variable's name is stored and listed.
    let by_env = home
        .clawloop(
            &[
                "auth",
                "add",
                "acme",
                "--id",
                "acme:env",
                "--key-env",
                "ACME_KEY",
            ],
            "",
        )
        .await?;
    assert_eq!(by_env.status.code(), Some(0), "{}", all_output(&by_env));
    let listing = text(&home.clawloop(&["auth", "list"], "").await?.stdout);
    assert!(
        line_of(&listing, "acme:env").is_some_and(|l| l.contains(" env ACME_KEY ")),
        "{listing}"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn environment_keys_are_listed_as_implicit_profiles() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    let out = tokio::task::spawn_blocking({
        let home = home.home();
        move || {
            Command::new(env!("CARGO_BIN_EXE_clawloop"))
                .args(["auth", "list"])
                .env("CLAWLOOP_HOME", home)
                .env("OPENAI_API_KEY", "sk-env-secret-value")
                .output()
        }
    })
    .await??;
    let listing = text(&out.stdout);
    assert!(!listing.contains("sk-env"), "{listing}");
    assert!(
        listing
            .lines()
            .any(|l| l.starts_with("openai (env OPENAI_API_KEY) ") && l.contains(" api_key ")),
        "{listing}"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_command_profile_supplies_the_key_to_a_run_without_showing_it() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    let added = home
        .clawloop(
            &[
                "auth",
                "add",
                "acme",
                "--command",
                "printf 'sk-from-cmd\\n'",
            ],
            "",
        )
        .await?;
    assert_eq!(
        (added.status.code(), text(&added.stdout)),
        (
            Some(0),
            "added auth profile acme:default (acme, api_key, key from a command run at each use)\n"
                .to_owned()
        ),
        "{}",
        text(&added.stderr)
    );
    let listed = home.clawloop(&["auth", "list"], "").await?;
    let listing = text(&listed.stdout);
    assert!(!listing.contains("sk-from-cmd"), "{listing}");
    assert!(
        line_of(&listing, "acme:default").is_some_and(|l| l.contains(" command ")),
        "{listing}"
    );
    server.begin_turn(vec![exchange(json!({
        "expectRequest": {"apiKey": "sk-from-cmd"},
        "reply": {"text": "keyed"}}))?]);
    let turn = home.clawloop(&["run", "--print", "hi"], "").await?;
    assert_eq!(
        (turn.status.code(), text(&turn.stdout)),
        (Some(0), "keyed\n".to_owned()),
        "{}",
        text(&turn.stderr)
    );
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());

    let empty = home
        .clawloop(
            &["auth", "add", "acme", "--id", "acme:e", "--command", " "],
            "",
        )
        .await?;
    assert_eq!(empty.status.code(), Some(2));
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn remove_by_provider_removes_every_profile_of_that_provider_only() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    for (provider, id, key) in [
        ("acme", "acme:default", "k1"),
        ("acme", "acme:work", "k2"),
        ("bolt", "bolt:default", "k3"),
    ] {
        let added = home
            .clawloop(&["auth", "add", provider, "--id", id], &format!("{key}\n"))
            .await?;
        assert_eq!(added.status.code(), Some(0), "{}", all_output(&added));
    }
    let removed = home.clawloop(&["auth", "remove", "acme"], "").await?;
    assert_eq!(
        (removed.status.code(), text(&removed.stdout)),
        (
            Some(0),
            "removed auth profile acme:default\nremoved auth profile acme:work\n".to_owned()
        ),
        "{}",
        all_output(&removed)
    );
    let stored: Value = serde_json::from_str(&std::fs::read_to_string(
        home.agent_dir().join("auth-profiles.json"),
    )?)?;
    let ids: Vec<&String> = stored["profiles"]
        .as_object()
        .map(|profiles| profiles.keys().collect())
        .unwrap_or_default();
    assert_eq!(ids, vec!["bolt:default"]);

    // Nothing left of acme: a usage error naming what is stored.
    let again = home.clawloop(&["auth", "remove", "acme"], "").await?;
    assert_eq!(again.status.code(), Some(2));
    assert_eq!(
        text(&again.stderr),
        "clawloop: no auth profile or provider acme; known profiles: bolt:default\n"
    );
    Ok(())
}
