//! Configuration layering, unknown-key warnings, `config path|show|init` and `completions`,
//! through the real `clawloop` binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use clawloop_testkit::ProviderScriptServer;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// A temporary clawloop home (not created until something writes it) and a workspace.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Result<Home, Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        std::fs::create_dir_all(dir.path().join("workspace"))?;
        Ok(Home { dir })
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn config_path(&self) -> PathBuf {
        self.home().join("config.toml")
    }

    fn write_config(&self, text: &str) -> std::io::Result<()> {
        std::fs::create_dir_all(self.home())?;
        std::fs::write(self.config_path(), text)
    }

    fn command(&self, args: &[&str], env: &[(&str, &str)]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_clawloop"));
        command
            .args(args)
            .env("CLAWLOOP_HOME", self.home())
            .env("NO_COLOR", "1")
            .current_dir(self.dir.path().join("workspace"))
            .stdin(Stdio::null());
        for name in [
            "CLAWLOOP_CONFIG",
            "CLAWLOOP_MODEL",
            "CLAWLOOP_THINKING",
            "CLAWLOOP_TIMEOUT",
            "CLAWLOOP_LOG",
        ] {
            command.env_remove(name);
        }
        for (name, value) in env {
            command.env(name, value);
        }
        command
    }

    fn run(&self, args: &[&str], env: &[(&str, &str)]) -> std::io::Result<Output> {
        self.command(args, env).output()
    }

    /// Runs off the async runtime, so the scripted server keeps answering meanwhile.
    async fn run_async(&self, args: &[&str], env: &[(&str, &str)]) -> std::io::Result<Output> {
        let mut command = self.command(args, env);
        tokio::task::spawn_blocking(move || command.output())
            .await
            .map_err(std::io::Error::other)?
    }

    /// `config show --json` as a value (and its stderr).
    fn show(
        &self,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Result<(Value, String), Box<dyn std::error::Error>> {
        let mut all = args.to_vec();
        all.extend(["config", "show", "--json"]);
        let out = self.run(&all, env)?;
        let stderr = text(&out.stderr);
        if out.status.code() != Some(0) {
            return Err(format!("config show failed: {stderr}").into());
        }
        Ok((serde_json::from_slice(&out.stdout)?, stderr))
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn provider_config(server: &ProviderScriptServer, primary: &str) -> String {
    format!(
        r#"[agents.defaults.model]
primary = "{primary}"

[agents.defaults.retry]
transientHttpRetryDelayMs = 0

[models.providers.acme]
api = "openai-completions"
baseUrl = "{}/v1"
apiKey = "sk-test"
models = [{{ id = "m1", contextWindow = 128000, maxTokens = 4096 }}]
"#,
        server.provider_url("acme")
    )
}

fn reply(text: &str) -> Result<Vec<clawloop_testkit::ScriptedExchange>, serde_json::Error> {
    Ok(vec![serde_json::from_value(
        json!({"reply": {"text": text}}),
    )?])
}

#[test]
fn dash_c_overrides_the_file_and_env_overrides_the_file() -> TestResult {
    let home = Home::new()?;
    home.write_config("[agents.defaults]\ntimeoutSeconds = 5\nmaxConcurrent = 2\n")?;
    let timeout = |value: &Value| value["agents"]["defaults"]["timeoutSeconds"].clone();

    let (file_only, _) = home.show(&[], &[])?;
    assert_eq!(timeout(&file_only), json!(5.0));

    let (with_env, _) = home.show(&[], &[("CLAWLOOP_TIMEOUT", "30")])?;
    assert_eq!(timeout(&with_env), json!(30.0));

    // `--config` beats the environment, before or after the subcommand.
    let (before, _) = home.show(
        &["--config", "agents.defaults.timeoutSeconds=45"],
        &[("CLAWLOOP_TIMEOUT", "30")],
    )?;
    assert_eq!(timeout(&before), json!(45.0));
    let out = home.run(
        &[
            "config",
            "show",
            "--json",
            "--config",
            "agents.defaults.model.primary=openai/gpt-5-mini",
            "--config",
            "agents.defaults.thinkingDefault=\"high\"",
        ],
        &[("CLAWLOOP_MODEL", "anthropic/claude-sonnet-4-5")],
    )?;
    let after: Value = serde_json::from_slice(&out.stdout)?;
    assert_eq!(
        (
            after["agents"]["defaults"]["model"]["primary"].clone(),
            after["agents"]["defaults"]["thinkingDefault"].clone(),
            after["agents"]["defaults"]["maxConcurrent"].clone(),
        ),
        (json!("openai/gpt-5-mini"), json!("high"), json!(2))
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn env_and_dash_c_choose_the_model_of_a_real_turn() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new()?;
    // The file's primary names a provider nobody configured: the turn works only if a
    // higher layer replaces it.
    home.write_config(&provider_config(&server, "nowhere/none"))?;
    server.begin_turn(reply("From env.")?);
    let out = home
        .run_async(&["run", "--print", "hi"], &[("CLAWLOOP_MODEL", "acme/m1")])
        .await?;
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), "From env.\n".to_owned()),
        "stderr: {}",
        text(&out.stderr)
    );
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());

    server.begin_turn(reply("From -c.")?);
    let out = home
        .run_async(
            &[
                "--config",
                "agents.defaults.model.primary=acme/m1",
                "run",
                "--print",
                "hi",
            ],
            &[("CLAWLOOP_MODEL", "nowhere/none")],
        )
        .await?;
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), "From -c.\n".to_owned()),
        "stderr: {}",
        text(&out.stderr)
    );
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    Ok(())
}

#[test]
fn a_bad_dash_c_exits_2_naming_the_argument() -> TestResult {
    let home = Home::new()?;
    let cases = [
        (
            "agents.defaults.maxConcurrent=many",
            "clawloop: --config `agents.defaults.maxConcurrent=many`: key `agents.defaults.maxConcurrent`: \
             invalid type: string \"many\", expected u32\n",
        ),
        (
            "agents.defaults.timeoutSeconds",
            "clawloop: --config `agents.defaults.timeoutSeconds`: expected KEY=VALUE, e.g. --config \
             agents.defaults.timeoutSeconds=30\n",
        ),
        (
            "agents.defaults.model.fallbacks=[\"a/b\"",
            "clawloop: --config `agents.defaults.model.fallbacks=[\"a/b\"`: `[\"a/b\"` is not a valid \
             TOML value (quote a string with \"…\")\n",
        ),
        (
            "models.providers.acme.apiKey=[1]",
            "clawloop: --config `models.providers.acme.apiKey=****`: key `models.providers.acme.apiKey`: \
             invalid type: sequence, expected a string\n",
        ),
    ];
    for (arg, expected) in cases {
        for args in [
            vec!["--config", arg, "config", "show"],
            vec!["run", "--config", arg, "hi"],
        ] {
            let out = home.run(&args, &[])?;
            assert_eq!(
                (out.status.code(), text(&out.stderr), text(&out.stdout)),
                (Some(2), expected.to_owned(), String::new()),
                "{args:?}"
            );
        }
    }
    let out = home.run(&["config", "show"], &[("CLAWLOOP_THINKING", "loud")])?;
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr.starts_with(
            "clawloop: environment variable CLAWLOOP_THINKING: key `agents.defaults.thinkingDefault`: "
        ),
        "{stderr}"
    );
    Ok(())
}

#[test]
fn a_broken_config_file_exits_2_naming_file_and_key() -> TestResult {
    let home = Home::new()?;
    home.write_config("[agents.defaults.compaction]\nreserveTokens = \"lots\"\n")?;
    let file = home.config_path();
    for args in [vec!["run", "hi"], vec!["config", "show"]] {
        let out = home.run(&args, &[])?;
        assert_eq!(
            (out.status.code(), text(&out.stderr)),
            (
                Some(2),
                format!(
                    "clawloop: {}: key `agents.defaults.compaction.reserveTokens`: invalid type: \
                     string \"lots\", expected u64\n",
                    file.display()
                )
            ),
            "{args:?}"
        );
    }
    home.write_config("[logging]\nlevel = \"chatty\"\n")?;
    let out = home.run(&["config", "show"], &[])?;
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr.starts_with(&format!(
            "clawloop: {}: key `logging.level`: ",
            file.display()
        )),
        "{stderr}"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_key_warns_with_the_closest_key_and_the_turn_still_runs() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new()?;
    home.write_config(&format!(
        "{}\n[agents.defaults.llm]\nidleTimeoutSecond = 30\n\n[gatewy]\nport = 1\n",
        provider_config(&server, "acme/m1")
    ))?;
    server.begin_turn(reply("Still here.")?);
    let out = home
        .run_async(
            &[
                "--config",
                "agents.defaults.maxConcurent=2",
                "run",
                "--print",
                "hi",
            ],
            &[],
        )
        .await?;
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), "Still here.\n".to_owned())
    );
    let file = home.config_path();
    assert_eq!(
        text(&out.stderr),
        format!(
            "clawloop: warning: {file}: unknown key `agents.defaults.llm.idleTimeoutSecond`; did you \
             mean `agents.defaults.llm.idleTimeoutSeconds`?\n\
             clawloop: warning: {file}: unknown key `gatewy`\n\
             clawloop: warning: --config `agents.defaults.maxConcurent=2`: unknown key \
             `agents.defaults.maxConcurent`; did you mean `agents.defaults.maxConcurrent`?\n",
            file = file.display()
        )
    );
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    Ok(())
}

#[test]
fn config_init_then_show_round_trips_to_the_defaults() -> TestResult {
    let home = Home::new()?;
    let (defaults, _) = home.show(&[], &[])?;
    assert!(!home.home().exists(), "show must not create the home");

    let out = home.run(&["config", "init"], &[])?;
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), format!("{}\n", home.config_path().display())),
        "stderr: {}",
        text(&out.stderr)
    );
    let written = std::fs::read_to_string(home.config_path())?;
    assert!(
        written.contains(
            "# The whole run's time limit in seconds; `0` = none.\ntimeoutSeconds = 600.0\n"
        ),
        "{written}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |path: &Path| -> std::io::Result<u32> {
            Ok(std::fs::metadata(path)?.permissions().mode() & 0o777)
        };
        assert_eq!(
            (mode(&home.home())?, mode(&home.config_path())?),
            (0o700, 0o600)
        );
    }
    let (after, stderr) = home.show(&[], &[])?;
    assert_eq!(stderr, "", "the starter has no unknown keys");
    assert_eq!(after, defaults);

    // TOML output parses to the same configuration too.
    let out = home.run(&["config", "show"], &[])?;
    let toml_value: Value = toml::from_str(&text(&out.stdout))?;
    assert_eq!(toml_value, defaults);

    // An existing file is kept unless --force.
    home.write_config("[agents.defaults]\nmaxConcurrent = 3\n")?;
    let out = home.run(&["config", "init"], &[])?;
    assert_eq!(
        (out.status.code(), text(&out.stderr)),
        (
            Some(1),
            format!(
                "clawloop: {} already exists; pass --force to overwrite it\n",
                home.config_path().display()
            )
        )
    );
    assert_eq!(
        std::fs::read_to_string(home.config_path())?,
        "[agents.defaults]\nmaxConcurrent = 3\n"
    );
    let out = home.run(&["config", "init", "--force"], &[])?;
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(home.config_path())?, written);
    Ok(())
}

#[test]
fn config_path_follows_clawloop_home_and_clawloop_config() -> TestResult {
    let home = Home::new()?;
    let out = home.run(&["config", "path"], &[])?;
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), format!("{}\n", home.config_path().display()))
    );
    let other = home.dir.path().join("elsewhere.toml");
    std::fs::write(&other, "[agents.defaults]\nmaxConcurrent = 7\n")?;
    let other_str = other.to_string_lossy().into_owned();
    let out = home.run(&["config", "path"], &[("CLAWLOOP_CONFIG", &other_str)])?;
    assert_eq!(text(&out.stdout), format!("{other_str}\n"));
    let (value, _) = home.show(&[], &[("CLAWLOOP_CONFIG", &other_str)])?;
    assert_eq!(value["agents"]["defaults"]["maxConcurrent"], json!(7));

    // A file named explicitly must exist.
    let missing = home.dir.path().join("missing.toml");
    let missing_str = missing.to_string_lossy().into_owned();
    let out = home.run(&["config", "show"], &[("CLAWLOOP_CONFIG", &missing_str)])?;
    assert_eq!(
        (out.status.code(), text(&out.stderr)),
        (
            Some(2),
            format!(
                "clawloop: cannot read {missing_str}: no such file (named by CLAWLOOP_CONFIG)\n"
            )
        )
    );
    Ok(())
}

#[test]
fn config_show_masks_secrets() -> TestResult {
    let home = Home::new()?;
    home.write_config(
        "[models.providers.acme]\napiKey = \"sk-live-123\"\nbaseUrl = \"http://127.0.0.1:1\"\n\
         headers = { Authorization = \"Bearer tok-456\", \"X-Api-Key\" = \"k-789\", Accept = \"a/b\" }\n",
    )?;
    for args in [vec!["config", "show"], vec!["config", "show", "--json"]] {
        let out = home.run(&args, &[])?;
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(0));
        for secret in ["sk-live-123", "tok-456", "k-789"] {
            assert!(
                !stdout.contains(secret),
                "{args:?} leaked {secret}:\n{stdout}"
            );
        }
        assert!(
            stdout.contains("a/b") && stdout.contains("****"),
            "{stdout}"
        );
    }
    let (value, _) = home.show(&[], &[])?;
    assert_eq!(
        value["models"]["providers"]["acme"],
        json!({
            "apiKey": "****",
            "baseUrl": "http://127.0.0.1:1",
            "headers": {"Accept": "a/b", "Authorization": "****", "X-Api-Key": "****"}
        })
    );
    Ok(())
}

#[test]
fn bash_completions_mention_the_subcommands() -> TestResult {
    let home = Home::new()?;
    let out = home.run(&["completions", "bash"], &[])?;
    let script = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    for word in [
        "run",
        "config",
        "logs",
        "completions",
        "--session-key",
        "--follow",
    ] {
        assert!(script.contains(word), "{word} missing:\n{script}");
    }
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let out = home.run(&["completions", shell], &[])?;
        assert_eq!(out.status.code(), Some(0), "{shell}");
        assert!(text(&out.stdout).contains("clawloop"), "{shell}");
    }
    let out = home.run(&["completions", "tcsh"], &[])?;
    assert_eq!(out.status.code(), Some(2));
    Ok(())
}
