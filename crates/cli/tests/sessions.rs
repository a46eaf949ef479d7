//! `clawloop sessions list|show|export|fork|delete` and `clawloop compact` as child processes,
//! over sessions made by real `clawloop run` turns against the scripted provider server.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use clawloop_session::{SessionOptions, SessionStore, Transcript};
use clawloop_testkit::{ProviderScriptServer, ScriptedExchange};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// A clawloop home whose config points provider `acme` at the scripted server.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new(server: &ProviderScriptServer, extra_config: &str) -> std::io::Result<Home> {
        let dir = tempfile::tempdir()?;
        std::fs::create_dir_all(dir.path().join("home"))?;
        std::fs::create_dir_all(dir.path().join("workspace"))?;
        std::fs::write(dir.path().join("workspace").join("notes.txt"), "hello\n")?;
        std::fs::write(
            dir.path().join("home").join("config.toml"),
            format!(
                r#"[agents.defaults.model]
primary = "acme/m1"

[agents.defaults.retry]
transientHttpRetryDelayMs = 0

[agents.defaults.blockStreaming]
enabled = false

[models.providers.acme]
api = "openai-completions"
baseUrl = "{}/v1"
apiKey = "sk-test"
models = [{{ id = "m1", contextWindow = 128000, maxTokens = 4096 }}]
{extra_config}"#,
                server.provider_url("acme")
            ),
        )?;
        Ok(Home { dir })
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn store(&self) -> Result<SessionStore, clawloop_session::SessionError> {
        SessionStore::for_agent(&self.home(), "main")
    }

    /// Runs `clawloop <args>` with this home, off the async runtime so the scripted server
    /// keeps answering while the child waits on it.
    async fn clawloop(&self, args: &[&str]) -> std::io::Result<Output> {
        let home = self.home();
        let workspace = self.dir.path().join("workspace");
        let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
        tokio::task::spawn_blocking(move || run_child(&home, &workspace, &args))
            .await
            .map_err(std::io::Error::other)?
    }

    /// One `clawloop run` turn for `key`, answered by `script`.
    async fn turn(
        &self,
        server: &ProviderScriptServer,
        key: &str,
        prompt: &str,
        script: Vec<ScriptedExchange>,
    ) -> TestResult {
        server.begin_turn(script);
        let workspace = self.dir.path().join("workspace");
        let workspace = workspace.to_string_lossy().into_owned();
        let out = self
            .clawloop(&[
                "run",
                "--workspace",
                &workspace,
                "--session-key",
                key,
                "--print",
                prompt,
            ])
            .await?;
        assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
        assert_eq!(server.end_turn().problems(), Vec::<String>::new());
        Ok(())
    }
}

fn run_child(home: &Path, workspace: &Path, args: &[String]) -> std::io::Result<Output> {
    Command::new(env!("CARGO_BIN_EXE_clawloop"))
        .args(args)
        .current_dir(workspace)
        .env("CLAWLOOP_HOME", home)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn script(steps: Value) -> Result<Vec<ScriptedExchange>, serde_json::Error> {
    serde_json::from_value(steps)
}

fn reply(text: &str) -> Result<Vec<ScriptedExchange>, serde_json::Error> {
    script(json!([{"reply": {"text": text}}]))
}

/// A turn where the model lists the workspace, then answers.
fn ls_then(answer: &str) -> Result<Vec<ScriptedExchange>, serde_json::Error> {
    script(json!([
        {"reply": {"toolCalls": [{"name": "ls", "arguments": {"path": "."}}]}},
        {"reply": {"text": answer}},
    ]))
}

/// Sessions `alpha` (one turn with a tool call) then `beta` (two plain turns).
async fn two_sessions(server: &ProviderScriptServer, home: &Home) -> TestResult {
    home.turn(server, "alpha", "what is here?", ls_then("A notes file.")?)
        .await?;
    home.turn(server, "beta", "first question", reply("first answer")?)
        .await?;
    home.turn(server, "beta", "second question", reply("second answer")?)
        .await?;
    Ok(())
}

/// The index of the first message entry of `role`.
fn entry_index(transcript: &Transcript, role: &str) -> Result<usize, String> {
    transcript
        .entries()
        .iter()
        .position(|entry| {
            entry.as_message().is_some_and(|message| match message {
                clawloop_core::message::AgentMessage::User(_) => role == "user",
                clawloop_core::message::AgentMessage::Assistant(_) => role == "assistant",
                _ => false,
            })
        })
        .ok_or_else(|| format!("no {role} message"))
}

fn ok_stdout(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    text(&out.stdout)
}

#[tokio::test(flavor = "multi_thread")]
async fn list_shows_newest_first_with_short_ids_models_and_message_counts() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server, "")?;
    two_sessions(&server, &home).await?;
    let store = home.store()?;
    let alpha = store.find_by_key("alpha")?.ok_or("no alpha")?;
    let beta = store.find_by_key("beta")?.ok_or("no beta")?;

    let table = ok_stdout(&home.clawloop(&["sessions", "list"]).await?);
    let rows: Vec<Vec<&str>> = table
        .lines()
        .map(|line| {
            line.split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect()
        })
        .collect();
    assert_eq!(
        rows,
        vec![
            vec!["KEY", "ID", "MODEL", "MESSAGES", "UPDATED"],
            vec!["beta", &beta.session_id[..8], "acme/m1", "4", "just now"],
            vec!["alpha", &alpha.session_id[..8], "acme/m1", "4", "just now"],
        ]
    );
    let wide = ok_stdout(&home.clawloop(&["sessions", "list", "--wide"]).await?);
    assert!(wide.contains(&beta.session_id), "{wide}");

    let listed: Value = serde_json::from_str(&ok_stdout(
        &home.clawloop(&["sessions", "list", "--json"]).await?,
    ))?;
    let first = &listed[0];
    assert_eq!(
        (
            listed.as_array().map(Vec::len),
            first["key"].clone(),
            first["id"].clone(),
            first["sessionId"].clone(),
            first["modelProvider"].clone(),
            first["model"].clone(),
            first["messages"].clone(),
            first["updatedAt"].clone(),
            first["updated"].clone(),
            first["sessionFile"].clone(),
        ),
        (
            Some(2),
            json!("beta"),
            json!(beta.session_id),
            json!(beta.session_id),
            json!("acme"),
            json!("m1"),
            json!(4),
            json!(beta.updated_at),
            json!(clawloop_session::format_iso(beta.updated_at)),
            json!(beta.transcript_path(store.dir()).to_string_lossy()),
        )
    );
    assert_eq!(listed[1]["key"], json!("alpha"));

    // `--limit` keeps the newest; 0 is a usage error, not an empty list.
    let newest = ok_stdout(&home.clawloop(&["sessions", "list", "--limit", "1"]).await?);
    assert_eq!(newest.lines().count(), 2, "{newest}");
    assert!(
        newest
            .lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("beta ")),
        "{newest}"
    );
    let limited: Value = serde_json::from_str(&ok_stdout(
        &home
            .clawloop(&["sessions", "list", "--json", "-n", "1"])
            .await?,
    ))?;
    assert_eq!(limited.as_array().map(Vec::len), Some(1));
    assert_eq!(limited[0]["key"], json!("beta"));
    let zero = home.clawloop(&["sessions", "list", "--limit", "0"]).await?;
    assert_eq!(zero.status.code(), Some(2), "{}", text(&zero.stderr));
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn show_renders_the_conversation_with_tool_calls_and_results() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server, "")?;
    two_sessions(&server, &home).await?;
    let store = home.store()?;
    let alpha = store.find_by_key("alpha")?.ok_or("no alpha")?;
    let file = alpha.transcript_path(store.dir());

    // By key and by an id prefix: the same page.
    let by_key = ok_stdout(&home.clawloop(&["sessions", "show", "alpha"]).await?);
    let by_id = ok_stdout(
        &home
            .clawloop(&["sessions", "show", &alpha.session_id[..6]])
            .await?,
    );
    assert_eq!(by_key, by_id);
    let header: Vec<&str> = by_key.lines().take(3).collect();
    assert_eq!(
        header,
        [
            "key:      alpha".to_owned(),
            format!("id:       {}", alpha.session_id),
            format!("file:     {}", file.display()),
        ]
    );
    // Each step's first line ends in its entry id (`sessions_show_ids.rs` pins those).
    let conversation: Vec<&str> = by_key
        .lines()
        .skip_while(|line| !line.is_empty())
        .filter(|line| !line.is_empty())
        .map(|line| line.split(" · ").next().unwrap_or(line))
        .collect();
    assert_eq!(
        conversation,
        [
            "user",
            "  what is here?",
            "assistant (acme/m1)",
            "  ▸ ls path=.",
            "tool result: ls",
            "  notes.txt",
            "assistant (acme/m1)",
            "  A notes file.",
        ]
    );
    assert!(by_key.contains("\nmodel:    acme/m1\n"), "{by_key}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_and_ambiguous_sessions_are_usage_errors_naming_them() -> TestResult {
    let dir = tempfile::tempdir()?;
    let home = dir.path().join("home");
    let store = SessionStore::for_agent(&home, "main")?;
    // Two sessions whose ids share the prefix `abc`.
    for (key, id) in [
        ("k1", "abc11111-0000-4000-8000-000000000000"),
        ("k2", "abc22222-0000-4000-8000-000000000000"),
    ] {
        let options = SessionOptions {
            session_id: Some(id.to_owned()),
            ..SessionOptions::default()
        };
        store.new_session_for_key(key, options)?;
    }
    let workspace = dir.path().to_path_buf();
    let run = |args: &[&str]| {
        run_child(
            &home,
            &workspace,
            &args.iter().map(|a| (*a).to_owned()).collect::<Vec<_>>(),
        )
    };

    let ambiguous = run(&["sessions", "show", "abc"])?;
    assert_eq!(ambiguous.status.code(), Some(2));
    assert_eq!(
        text(&ambiguous.stderr),
        "clawloop: the id prefix `abc` matches 2 sessions: \
         abc11111-0000-4000-8000-000000000000, abc22222-0000-4000-8000-000000000000\n"
    );
    let unknown = run(&["sessions", "export", "nope"])?;
    assert_eq!(unknown.status.code(), Some(2));
    let stderr = text(&unknown.stderr);
    assert!(
        stderr.starts_with("clawloop: no session has the key or id `nope` in "),
        "{stderr}"
    );
    // A session whose first reply never came: shown, with nothing in it.
    let shown = run(&["sessions", "show", "abc1"])?;
    assert_eq!(shown.status.code(), Some(0), "{}", text(&shown.stderr));
    assert!(text(&shown.stdout).ends_with("\n(no messages yet)\n"));
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn export_writes_markdown_or_the_transcript_bytes() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server, "")?;
    two_sessions(&server, &home).await?;
    let store = home.store()?;
    let alpha = store.find_by_key("alpha")?.ok_or("no alpha")?;
    let file = alpha.transcript_path(store.dir());

    let jsonl = home
        .clawloop(&["sessions", "export", "alpha", "--format", "jsonl"])
        .await?;
    assert_eq!(jsonl.status.code(), Some(0), "{}", text(&jsonl.stderr));
    assert_eq!(jsonl.stdout, std::fs::read(&file)?);

    let md_file = home.dir.path().join("alpha.md");
    let md_path = md_file.to_string_lossy().into_owned();
    let out = home
        .clawloop(&["sessions", "export", "alpha", "-o", &md_path])
        .await?;
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), String::new())
    );
    let md = std::fs::read_to_string(&md_file)?;
    let body: String = md
        .split_once("\n\n## ")
        .map(|(_, rest)| format!("## {rest}"))
        .ok_or("no first heading")?;
    assert_eq!(
        body,
        "## User\n\nwhat is here?\n\n\
         ## Assistant (acme/m1)\n\n**Tool call:** `ls`\n\n```json\n{\n  \"path\": \".\"\n}\n```\n\n\
         ## Tool result: `ls`\n\n```\nnotes.txt\n```\n\n\
         ## Assistant (acme/m1)\n\nA notes file.\n\n"
    );
    assert!(md.starts_with("# Session alpha\n\n"), "{md}");
    assert!(
        md.contains(&format!("- id: `{}`\n", alpha.session_id)),
        "{md}"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn export_jsonl_of_a_branched_session_keeps_only_the_current_branch() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server, "")?;
    home.turn(&server, "tree", "one", reply("two")?).await?;
    let store = home.store()?;
    let record = store.find_by_key("tree")?.ok_or("no tree")?;
    let file = record.transcript_path(store.dir());
    {
        let mut transcript = Transcript::open(&file, SessionOptions::default())?;
        let question = entry_index(&transcript, "user")?;
        let question = transcript.entries()[question].id().to_owned();
        transcript.branch(&question)?;
        let mut answer = clawloop_core::message::AssistantMessage::empty(
            "openai-completions",
            "acme",
            "m1",
            1_800_000_000_000,
        );
        answer
            .content
            .push(clawloop_core::message::ContentBlock::text("another two"));
        transcript.append_message(answer)?;
        transcript.close()?;
    }
    let lines: Vec<String> = std::fs::read_to_string(&file)?
        .lines()
        .map(str::to_owned)
        .collect();
    let out = home
        .clawloop(&["sessions", "export", "tree", "--format", "jsonl"])
        .await?;
    // Everything up to the question, then the new answer; the abandoned answer is left out.
    let abandoned = lines.len() - 2;
    assert!(lines[abandoned].contains("\"two\""), "{}", lines[abandoned]);
    let mut expected: Vec<&str> = lines.iter().map(String::as_str).collect();
    expected.remove(abandoned);
    assert_eq!(ok_stdout(&out), format!("{}\n", expected.join("\n")));
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn fork_starts_a_new_key_that_continues_with_the_history() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server, "")?;
    two_sessions(&server, &home).await?;
    let store = home.store()?;
    let beta = store.find_by_key("beta")?.ok_or("no beta")?;
    let beta_file = beta.transcript_path(store.dir());
    // Fork at the first answer: the second exchange is not in the fork.
    let source = Transcript::open(&beta_file, SessionOptions::default())?;
    let first_answer = entry_index(&source, "assistant")?;
    let first_answer = source.entries()[first_answer].id().to_owned();

    let out = home
        .clawloop(&[
            "sessions",
            "fork",
            "beta",
            "--to",
            "gamma",
            "--at",
            &first_answer,
        ])
        .await?;
    let stdout = ok_stdout(&out);
    let gamma = store.find_by_key("gamma")?.ok_or("no gamma")?;
    assert_eq!(
        stdout,
        format!(
            "{}\nforked session `beta` as `gamma`; continue with: clawloop run --session-key gamma <PROMPT>\n",
            gamma.session_id
        )
    );
    assert_eq!(gamma.message_count, Some(2));
    let forked = Transcript::open(
        gamma.transcript_path(store.dir()),
        SessionOptions::default(),
    )?;
    assert_eq!(
        forked.header().parent_session.as_deref(),
        Some(beta_file.to_string_lossy().as_ref())
    );

    // The fork continues with the history up to the fork point.
    home.turn(
        &server,
        "gamma",
        "third question",
        script(json!([{
            "expectRequest": {"bodyContains": ["first question", "first answer", "third question"]},
            "reply": {"text": "third answer"}
        }]))?,
    )
    .await?;
    let requests = server.requests();
    let body = requests
        .last()
        .and_then(|r| r.json.as_ref())
        .map(Value::to_string)
        .unwrap_or_default();
    assert!(body.contains("first answer"), "{body}");
    assert!(!body.contains("second question"), "{body}");

    // An existing key is refused.
    let taken = home
        .clawloop(&["sessions", "fork", "beta", "--to", "alpha"])
        .await?;
    assert_eq!(taken.status.code(), Some(2));
    assert_eq!(
        text(&taken.stderr),
        "clawloop: --to `alpha`: that session key exists already; pick another or delete it first\n"
    );
    let bad_entry = home
        .clawloop(&[
            "sessions", "fork", "beta", "--to", "delta", "--at", "ffffffff",
        ])
        .await?;
    assert_eq!(bad_entry.status.code(), Some(2));
    assert_eq!(
        text(&bad_entry.stderr),
        "clawloop: --at `ffffffff`: session `beta` has no entry with that id\n"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn delete_needs_yes_off_a_terminal_and_keeps_the_transcript_renamed() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server, "")?;
    two_sessions(&server, &home).await?;
    let store = home.store()?;
    let alpha = store.find_by_key("alpha")?.ok_or("no alpha")?;
    let file = alpha.transcript_path(store.dir());
    let bytes = std::fs::read(&file)?;

    let refused = home.clawloop(&["sessions", "delete", "alpha"]).await?;
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        text(&refused.stderr),
        "clawloop: not deleting session `alpha` without confirmation: pass --yes\n"
    );
    assert!(store.find_by_key("alpha")?.is_some());

    let out = home
        .clawloop(&["sessions", "delete", &alpha.session_id[..8], "--yes"])
        .await?;
    let stdout = ok_stdout(&out);
    assert_eq!(store.find_by_key("alpha")?, None);
    assert!(!file.exists());
    let file_name = file.file_name().and_then(|n| n.to_str()).ok_or("name")?;
    let archived: Vec<PathBuf> = std::fs::read_dir(store.dir())?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&format!("{file_name}.deleted.")))
        })
        .collect();
    assert_eq!(archived.len(), 1, "{archived:?}");
    assert_eq!(std::fs::read(&archived[0])?, bytes);
    assert_eq!(
        stdout,
        format!(
            "deleted session `alpha`; transcript kept as {}\n",
            archived[0].display()
        )
    );
    let keys: Vec<String> = store.list()?.into_iter().map(|s| s.key).collect();
    assert_eq!(keys, ["beta"]);
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn compact_summarizes_through_the_model_and_reports_tokens() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(
        &server,
        "\n[agents.defaults.compaction]\nkeepRecentTokens = 1\n",
    )?;
    let long = "word ".repeat(400);
    for i in 0..3 {
        home.turn(
            &server,
            "main",
            &format!("question {i}: {long}"),
            reply(&format!("answer {i}: {long}"))?,
        )
        .await?;
    }
    // The cut splits the last turn: its prefix is summarized by a second request.
    server.begin_turn(script(json!([
        {"reply": {"text": "SUMMARY: three questions were asked."}},
        {"reply": {"text": "SUMMARY: three questions were asked."}},
    ]))?);
    let out = home
        .clawloop(&["compact", "--instructions", "keep it short"])
        .await?;
    let stdout = ok_stdout(&out);
    server.end_turn();
    let summarized = server.requests().iter().any(|r| {
        let body = r.json.as_ref().map(Value::to_string).unwrap_or_default();
        body.contains("question 0") && body.contains("keep it short")
    });
    assert!(
        summarized,
        "no summary request held the history and the instructions"
    );
    let (before, after) = stdout
        .trim_end()
        .strip_prefix("compacted session `main`: ")
        .and_then(|rest| rest.strip_suffix(" tokens"))
        .and_then(|rest| rest.split_once(" → "))
        .ok_or_else(|| format!("unexpected output: {stdout}"))?;
    let (before, after): (u64, u64) = (before.parse()?, after.parse()?);
    assert!(after < before, "{stdout}");
    let store = home.store()?;
    let main = store.find_by_key("main")?.ok_or("no main")?;
    let transcript =
        Transcript::open(main.transcript_path(store.dir()), SessionOptions::default())?;
    let summary = transcript
        .latest_compaction()
        .map(|e| e.type_name().to_owned());
    assert_eq!(summary.as_deref(), Some("compaction"));
    let shown = ok_stdout(&home.clawloop(&["sessions", "show", "main"]).await?);
    let marked = shown
        .lines()
        .position(|line| line.starts_with("[compaction summary of "))
        .ok_or_else(|| format!("no compaction summary: {shown}"))?;
    assert_eq!(
        shown.lines().nth(marked + 1),
        Some("  SUMMARY: three questions were asked.")
    );

    // A key that names no session is a usage error naming it.
    let unknown = home
        .clawloop(&["compact", "--session-key", "fresh"])
        .await?;
    assert_eq!(unknown.status.code(), Some(2), "{}", text(&unknown.stderr));
    assert!(text(&unknown.stderr).starts_with("clawloop: no session has the key or id `fresh`"));
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn compact_model_picks_the_summarizer_and_an_unknown_one_is_refused() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let extra = format!(
        "\n[agents.defaults.compaction]\nkeepRecentTokens = 1\n\n[models.providers.bolt]\napi = \"openai-completions\"\nbaseUrl = \"{}/v1\"\napiKey = \"sk-bolt\"\nmodels = [{{ id = \"b1\" }}]\n",
        server.provider_url("bolt")
    );
    let home = Home::new(&server, &extra)?;
    let long = "word ".repeat(400);
    for i in 0..2 {
        let answer = reply(&format!("answer {i}: {long}"))?;
        home.turn(&server, "main", &format!("question {i}: {long}"), answer)
            .await?;
    }
    let before = server.requests().len();

    let unknown = home.clawloop(&["compact", "--model", "bolt/b9"]).await?;
    assert_eq!(unknown.status.code(), Some(2), "{}", text(&unknown.stderr));
    assert!(
        text(&unknown.stderr).starts_with(
            "clawloop: --model `bolt/b9` is unknown: provider `bolt` has no model `b9`; the closest known: bolt/b1"
        ),
        "{}",
        text(&unknown.stderr)
    );
    assert_eq!(server.requests().len(), before, "no model call");

    server.begin_turn(script(json!([
        {"reply": {"text": "SUMMARY by bolt."}},
        {"reply": {"text": "SUMMARY by bolt."}},
    ]))?);
    let out = home.clawloop(&["compact", "--model", "bolt/b1"]).await?;
    let stdout = ok_stdout(&out);
    server.end_turn();
    let compacted = server.requests().len();
    assert!(stdout.starts_with("compacted session `main`: "), "{stdout}");
    let summarizers: Vec<Option<String>> = server.requests()[before..]
        .iter()
        .map(|r| r.model.clone())
        .collect();
    assert!(!summarizers.is_empty());
    assert!(
        summarizers.iter().all(|m| m.as_deref() == Some("b1")),
        "{summarizers:?}"
    );

    // Without --model, the model the session keeps (chosen by a run) writes the summary.
    let workspace = home.dir.path().join("workspace");
    let workspace = workspace.to_string_lossy().into_owned();
    server.begin_turn(reply(&format!("answer 2: {long}"))?);
    let turn = home
        .clawloop(&[
            "run",
            "--workspace",
            &workspace,
            "--print",
            "--model",
            "bolt/b1",
            &format!("question 2: {long}"),
        ])
        .await?;
    ok_stdout(&turn);
    server.end_turn();
    server.begin_turn(script(json!([
        {"reply": {"text": "SUMMARY again."}},
        {"reply": {"text": "SUMMARY again."}},
    ]))?);
    let out = home.clawloop(&["compact"]).await?;
    ok_stdout(&out);
    server.end_turn();
    let summarizers: Vec<Option<String>> = server.requests()[compacted + 1..]
        .iter()
        .map(|r| r.model.clone())
        .collect();
    assert!(!summarizers.is_empty());
    assert!(
        summarizers.iter().all(|m| m.as_deref() == Some("b1")),
        "{summarizers:?}"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn compact_with_nothing_to_summarize_is_a_note_and_exit_0() -> TestResult {
    let server = ProviderScriptServer::start().await?;
    let home = Home::new(&server, "")?;
    home.turn(&server, "short", "hi", reply("hello")?).await?;
    let calls = server.requests().len();
    server.begin_turn(Vec::new());
    let out = home
        .clawloop(&["compact", "--session-key", "short"])
        .await?;
    let stdout = ok_stdout(&out);
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    assert!(
        stdout.starts_with("nothing to compact in session `short`: "),
        "{stdout}"
    );
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert_eq!(server.requests().len(), calls, "no model call");
    // The same session named by an id prefix.
    let store = home.store()?;
    let short = store.find_by_key("short")?.ok_or("no short")?;
    let by_id = home
        .clawloop(&["compact", "--session", &short.session_id[..8]])
        .await?;
    assert_eq!(ok_stdout(&by_id), stdout);

    // A key bound before its first reply: no transcript yet, the same kind of note.
    store.new_session_for_key("unwritten", SessionOptions::default())?;
    let out = home
        .clawloop(&["compact", "--session-key", "unwritten"])
        .await?;
    assert_eq!(
        ok_stdout(&out),
        "nothing to compact: session `unwritten` has no messages yet\n"
    );
    Ok(())
}

#[test]
fn list_reads_only_the_index_never_a_transcript() -> TestResult {
    let dir = tempfile::tempdir()?;
    let home = dir.path().join("home");
    let sessions = home.join("agents").join("main").join("sessions");
    std::fs::create_dir_all(&sessions)?;
    // Every transcript path is a directory: opening one would fail.
    let mut index = serde_json::Map::new();
    for i in 0..3_u64 {
        let id = format!("{i:08}-aaaa-4bbb-8ccc-dddddddddddd");
        std::fs::create_dir_all(sessions.join(format!("{id}.jsonl")))?;
        index.insert(
            format!("k{i}"),
            json!({"sessionId": id, "updatedAt": 1_000 + i, "model": "m", "modelProvider": "p",
                   "messageCount": 10 * i, "unknownField": {"kept": true}}),
        );
    }
    std::fs::write(
        sessions.join("sessions.json"),
        serde_json::to_vec_pretty(&Value::Object(index))?,
    )?;
    let out = run_child(
        &home,
        dir.path(),
        &[
            "sessions".to_owned(),
            "list".to_owned(),
            "--json".to_owned(),
        ],
    )?;
    let listed: Vec<Value> = serde_json::from_str(&ok_stdout(&out))?;
    let rows: Vec<(Value, Value)> = listed
        .iter()
        .map(|row| (row["key"].clone(), row["messages"].clone()))
        .collect();
    assert_eq!(
        rows,
        [
            (json!("k2"), json!(20)),
            (json!("k1"), json!(10)),
            (json!("k0"), json!(0))
        ]
    );
    Ok(())
}
