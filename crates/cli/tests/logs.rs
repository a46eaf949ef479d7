//! The CLI's log files and `clawloop logs`, through the real `clawloop` binary.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use clawloop_testkit::ProviderScriptServer;
use pretty_assertions::assert_eq;
use serde_json::json;

type TestResult = Result<(), Box<dyn std::error::Error>>;

const FAKE_KEY: &str = "sk-fake-LOGTEST-7f3a9c21d0";

fn clawloop(home: &Path, args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_clawloop"));
    command
        .args(args)
        .env("CLAWLOOP_HOME", home)
        .env("NO_COLOR", "1")
        .env_remove("CLAWLOOP_LOG")
        .env_remove("CLAWLOOP_CONFIG")
        .stdin(Stdio::null());
    for (name, value) in env {
        command.env(name, value);
    }
    command
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn log_files(home: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(home.join("logs"))?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .collect();
    files.sort();
    Ok(files)
}

/// A scratch home whose only model, `acme/m1`, is served by `server` with [`FAKE_KEY`] (sent
/// as a header too), and a workspace beside it.
fn acme_home(
    server: &ProviderScriptServer,
) -> std::io::Result<(tempfile::TempDir, PathBuf, PathBuf)> {
    let dir = tempfile::tempdir()?;
    let home = dir.path().join("home");
    let workspace = dir.path().join("workspace");
    std::fs::create_dir_all(&home)?;
    std::fs::create_dir_all(&workspace)?;
    std::fs::write(
        home.join("config.toml"),
        format!(
            r#"[agents.defaults.model]
primary = "acme/m1"

[models.providers.acme]
api = "openai-completions"
baseUrl = "{}/v1"
apiKey = "{FAKE_KEY}"
headers = {{ "X-Api-Key" = "{FAKE_KEY}" }}
models = [{{ id = "m1", contextWindow = 128000, maxTokens = 4096 }}]
"#,
            server.provider_url("acme")
        ),
    )?;
    Ok((dir, home, workspace))
}

async fn run_turn(home: &Path, workspace: &Path, env: &[(&str, &str)]) -> std::io::Result<Output> {
    let mut command = clawloop(home, &["run", "--print", "--workspace"], env);
    command.arg(workspace).arg("hello");
    tokio::task::spawn_blocking(move || command.output())
        .await
        .map_err(std::io::Error::other)?
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_writes_a_log_that_logs_shows_and_that_holds_no_api_key() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let (_dir, home, workspace) = acme_home(&server)?;
    server.begin_turn(vec![serde_json::from_value(
        json!({"reply": {"text": "Logged."}}),
    )?]);
    // The most verbose level: whatever any crate logs about the request is in the file.
    let out = run_turn(&home, &workspace, &[("CLAWLOOP_LOG", "trace")]).await?;
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), "Logged.\n".to_owned()),
        "stderr: {}",
        text(&out.stderr)
    );
    // Logs never go to the command's own streams.
    assert!(!text(&out.stderr).contains("clawloop started"));
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());

    let files = log_files(&home)?;
    assert_eq!(files.len(), 1, "{files:?}");
    let name = files[0]
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    assert!(
        name.starts_with("clawloop.") && name.ends_with(".log"),
        "{name}"
    );
    let log = std::fs::read_to_string(&files[0])?;
    assert!(log.contains("clawloop started"), "{log}");
    assert!(log.contains("command=\"run\""), "{log}");
    assert!(!log.contains(FAKE_KEY), "the API key is in the log:\n{log}");

    let out = clawloop(&home, &["logs"], &[]).output()?;
    let shown = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(shown, log);
    let out = clawloop(&home, &["logs", "--lines", "1"], &[]).output()?;
    assert_eq!(
        text(&out.stdout),
        format!("{}\n", log.lines().last().unwrap_or_default())
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn at_the_default_level_lines_are_written_as_they_are_logged() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let (_dir, home, workspace) = acme_home(&server)?;
    server.begin_turn(vec![serde_json::from_value(
        json!({"reply": {"text": "Quiet."}}),
    )?]);
    let out = run_turn(&home, &workspace, &[]).await?;
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), "Quiet.\n".to_owned()),
        "stderr: {}",
        text(&out.stderr)
    );
    let files = log_files(&home)?;
    assert_eq!(files.len(), 1, "{files:?}");
    let log = std::fs::read_to_string(&files[0])?;
    let started: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("clawloop started"))
        .collect();
    assert_eq!(started.len(), 1, "{log}");
    assert!(started[0].contains(" INFO "), "{log}");
    assert!(
        !log.contains(" DEBUG ") && !log.contains(" TRACE "),
        "{log}"
    );
    assert!(log.ends_with('\n'), "a line was cut short:\n{log}");
    Ok(())
}

#[test]
fn logs_prints_the_last_lines_of_the_newest_file() -> TestResult {
    let dir = tempfile::tempdir()?;
    let home = dir.path().to_path_buf();
    let logs = home.join("logs");
    std::fs::create_dir_all(&logs)?;
    let old = logs.join("clawloop.2020-01-01.log");
    std::fs::write(&old, "old 1\nold 2\n")?;
    let lines: String = (1..=300).map(|n| format!("line {n}\n")).collect();
    let new = logs.join("clawloop.2020-01-02.log");
    std::fs::write(&new, format!("{lines}partial"))?;
    // The newest by modification time, whatever the names say.
    let older = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
    std::fs::File::options()
        .write(true)
        .open(&old)?
        .set_modified(older)?;

    let out = clawloop(&home, &["logs", "-n", "3"], &[]).output()?;
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), "line 298\nline 299\nline 300\n".to_owned())
    );
    let out = clawloop(&home, &["logs"], &[]).output()?;
    let shown = text(&out.stdout);
    assert_eq!(
        (shown.lines().count(), shown.lines().next()),
        (200, Some("line 101"))
    );

    let empty = tempfile::tempdir()?;
    let out = clawloop(empty.path(), &["logs"], &[]).output()?;
    assert_eq!(
        (out.status.code(), text(&out.stderr)),
        (
            Some(1),
            format!(
                "clawloop: no log files in {} yet (commands such as `clawloop run` write them)\n",
                empty.path().join("logs").display()
            )
        )
    );
    Ok(())
}

#[cfg(unix)]
#[test]
fn follow_prints_appended_lines_until_ctrl_c_then_exits_0() -> TestResult {
    use std::io::Write;
    let dir = tempfile::tempdir()?;
    let logs = dir.path().join("logs");
    std::fs::create_dir_all(&logs)?;
    let file = logs.join("clawloop.2020-01-01.log");
    std::fs::write(&file, "before\n")?;
    let mut child = clawloop(dir.path(), &["logs", "--follow", "-n", "1"], &[])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut reader = BufReader::new(stdout);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    assert_eq!(line, "before\n");

    let mut append = std::fs::OpenOptions::new().append(true).open(&file)?;
    append.write_all(b"after 1\nafter")?;
    append.flush()?;
    line.clear();
    reader.read_line(&mut line)?;
    assert_eq!(line, "after 1\n");
    // The half-written line is printed once it is whole.
    append.write_all(b" 2\n")?;
    append.flush()?;
    line.clear();
    reader.read_line(&mut line)?;
    assert_eq!(line, "after 2\n");

    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()?;
    assert!(status.success());
    let status = child.wait()?;
    assert_eq!(status.code(), Some(0));
    Ok(())
}
