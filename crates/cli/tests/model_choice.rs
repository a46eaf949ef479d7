//! A model the user names that nobody knows is a usage error naming it, through the real
//! binary: `run --model`, `chat --model` (for `/model` and `compact --model` see `chat.rs` and
//! `sessions.rs`).

mod support;

use std::process::{Command, Output, Stdio};

use clawloop_testkit::ProviderScriptServer;
use pretty_assertions::assert_eq;
use support::{Home, TestResult, reply};

async fn clawloop(home: &Home, args: &[&str]) -> std::io::Result<Output> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_clawloop"));
    command
        .args(args)
        .arg("--workspace")
        .arg(home.workspace())
        .env("CLAWLOOP_HOME", home.home())
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    tokio::task::spawn_blocking(move || command.output())
        .await
        .map_err(std::io::Error::other)?
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_explicit_models_are_refused_with_the_closest_known_ones() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    let cases = [
        (
            vec!["run", "--model", "mock/nonexistent", "hi"],
            "clawloop: --model `mock/nonexistent` is unknown: no provider `mock` is built in or configured; the closest known: ",
        ),
        (
            vec!["run", "--model", "foo/bar", "hi"],
            "clawloop: --model `foo/bar` is unknown: no provider `foo` is built in or configured; the closest known: ",
        ),
        (
            vec!["run", "--model", "acme/m9", "hi"],
            "clawloop: --model `acme/m9` is unknown: provider `acme` has no model `m9`; the closest known: acme/m1, acme/m2\n",
        ),
        (
            vec!["run", "--model", "acme/", "hi"],
            "clawloop: --model `acme/`: both the provider and the model id are needed",
        ),
        (
            vec!["chat", "--model", "acme/m9"],
            "clawloop: --model `acme/m9` is unknown: provider `acme` has no model `m9`; the closest known: acme/m1, acme/m2\n",
        ),
    ];
    for (args, want) in cases {
        let out = clawloop(&home, &args).await?;
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.starts_with(want), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert_eq!(text(&out.stdout), "", "{args:?}");
    }
    assert!(server.requests().is_empty(), "no model was called");

    // A known one other than the primary runs as named.
    server.begin_turn(reply("From m2.")?);
    let out = clawloop(&home, &["run", "--print", "--model", "acme/m2", "hi"]).await?;
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), "From m2.\n".to_owned()),
        "{}",
        text(&out.stderr)
    );
    let models: Vec<Option<String>> = server.requests().iter().map(|r| r.model.clone()).collect();
    assert_eq!(models, vec![Some("m2".to_owned())]);
    Ok(())
}

/// On a fresh install `config init`, `doctor` and `models list` name the same model.
#[test]
fn a_fresh_install_agrees_on_the_built_in_default() -> TestResult {
    let dir = tempfile::tempdir()?;
    let home = dir.path().join("home");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_clawloop"))
            .args(args)
            .env("CLAWLOOP_HOME", &home)
            .env("NO_COLOR", "1")
            .env_remove("OPENAI_API_KEY")
            .stdin(Stdio::null())
            .output()
    };
    let init = run(&["config", "init"])?;
    assert_eq!(init.status.code(), Some(0), "{}", text(&init.stderr));
    let starter = std::fs::read_to_string(home.join("config.toml"))?;
    assert!(
        starter.contains("\n# primary = \"openai/gpt-5.4\"  (not set: "),
        "{starter}"
    );
    let doctor = text(&run(&["doctor"])?.stdout);
    assert!(
        doctor.lines().any(|l| l
            == "✓ no primary model configured (agents.defaults.model.primary): runs use openai/gpt-5.4, the built-in default"),
        "{doctor}"
    );
    let listed = text(&run(&["models", "list", "--provider", "openai"])?.stdout);
    let marked: Vec<&str> = listed
        .lines()
        .filter(|l| l.ends_with("  default"))
        .collect();
    assert_eq!(marked.len(), 1, "{listed}");
    assert!(marked[0].starts_with("openai/gpt-5.4 "), "{listed}");
    Ok(())
}

/// The only provider's first model stands in for a primary only when no model is named: a
/// named model that fails does not fall back to a model nobody configured.
#[tokio::test(flavor = "multi_thread")]
async fn a_named_model_that_fails_does_not_fall_back_to_the_only_provider() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    let config = home.home().join("config.toml");
    let original = std::fs::read_to_string(&config)?;
    let without_primary = original.replace("primary = \"acme/m1\"\n", "");
    assert_ne!(without_primary, original);
    std::fs::write(&config, without_primary)?;
    let mut command = Command::new(env!("CARGO_BIN_EXE_clawloop"));
    command
        .args(["run", "--print", "--model", "openai/gpt-5.4", "hi"])
        .arg("--workspace")
        .arg(home.workspace())
        .env("CLAWLOOP_HOME", home.home())
        .env("NO_COLOR", "1")
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::null());
    let out = tokio::task::spawn_blocking(move || command.output()).await??;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "");
    assert!(server.requests().is_empty(), "acme was never asked");
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_configured_model_nobody_knows_is_a_config_error_before_any_turn() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server)?;
    let config = home.home().join("config.toml");
    let original = std::fs::read_to_string(&config)?;
    let cases = [
        (
            original.replace("primary = \"acme/m1\"", "primary = \"acme/m9\""),
            "clawloop: agents.defaults.model.primary: model `acme/m9` is unknown: provider `acme` has no model `m9`; the closest known: acme/m1, acme/m2\n",
        ),
        (
            format!(
                "{original}\n[models.providers.bolt]\napi = \"openai-completions\"\nbaseUrl = \"http://127.0.0.1:1/v1\"\n"
            ),
            "clawloop: models.providers.bolt: not a known provider and defines no models; known providers: ",
        ),
    ];
    for (text_of_config, want) in cases {
        std::fs::write(&config, &text_of_config)?;
        for args in [vec!["run", "hi"], vec!["chat"]] {
            let out = clawloop(&home, &args).await?;
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
            assert!(stderr.starts_with(want), "{args:?}: {stderr}");
            assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        }
    }
    assert!(server.requests().is_empty(), "no model was called");
    Ok(())
}
