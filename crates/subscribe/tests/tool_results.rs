//! Verbose tool messages (reference §18.3 `tool_execution_start` / `tool_execution_end`): the
//! summary sent when a call starts and the output sent when it ends, through
//! `SubscriptionSink::on_tool_result`.
//!
//! Expected texts were computed with OpenClaw 2026.4.12's `formatToolAggregate`,
//! `inferToolMetaFromArgs`, `extendExecMeta` and `parseReplyDirectives` (HOME=/home/u).

mod common;

use clawloop_core::AgentEvent;
use clawloop_core::AgentToolResult;
use clawloop_core::message::ContentBlock;
use clawloop_subscribe::{
    HomeDisplay, SubscriptionOptions, ToolMeta, ToolResultFormat, ToolResultReply, VerboseLevel,
    format_tool_aggregate,
};
use common::{run, tool_end_with, tool_start};
use pretty_assertions::assert_eq;
use serde_json::{Map, json};

fn tool_end(id: &str, name: &str, text: &str) -> AgentEvent {
    tool_end_with(id, name, AgentToolResult::text(text), false)
}

fn options(verbose: VerboseLevel, format: ToolResultFormat) -> SubscriptionOptions {
    SubscriptionOptions {
        verbose,
        tool_result_format: format,
        home_display: Some(HomeDisplay::new("/home/u")),
        ..SubscriptionOptions::default()
    }
}

fn text_only(texts: &[&str]) -> Vec<ToolResultReply> {
    texts
        .iter()
        .map(|t| ToolResultReply {
            text: (*t).to_owned(),
            media_urls: Vec::new(),
        })
        .collect()
}

fn read_call(id: &str, path: &str) -> [AgentEvent; 2] {
    [
        tool_start(id, "read", json!({ "path": path })),
        tool_end(id, "read", "contents"),
    ]
}

#[test]
fn verbose_off_sends_no_tool_messages() {
    let sub = run(
        options(VerboseLevel::Off, ToolResultFormat::Markdown),
        &[
            tool_start("c1", "read", json!({"path": "/home/u/notes.txt"})),
            tool_end("c1", "read", "hello"),
            tool_start("c2", "exec", json!({"command": "ls"})),
            tool_end("c2", "exec", "a\nb"),
        ],
    );
    assert_eq!(sub.sink().tool_results, []);
    // The default options are verbose off.
    assert_eq!(SubscriptionOptions::default().verbose, VerboseLevel::Off);
    assert_eq!(
        SubscriptionOptions::default().tool_result_format,
        ToolResultFormat::Markdown
    );
}

#[test]
fn verbose_on_sends_one_summary_per_call_and_no_output() {
    let sub = run(
        options(VerboseLevel::On, ToolResultFormat::Markdown),
        &[
            tool_start("c1", "read", json!({"path": "/home/u/notes.txt"})),
            // A repeated start of a running call is not summarized again.
            tool_start("c1", "read", json!({"path": "/home/u/notes.txt"})),
            tool_end("c1", "read", "hello"),
            // Once the call ended, its id may be summarized again (OpenClaw forgets it).
            tool_start("c1", "read", json!({"path": "/home/u/notes.txt"})),
            tool_end("c1", "read", "hello"),
        ],
    );
    assert_eq!(
        sub.sink().tool_results,
        text_only(&["📖 Read: `from ~/notes.txt`", "📖 Read: `from ~/notes.txt`"])
    );
}

#[test]
fn verbose_full_sends_summary_and_fenced_output_in_markdown() {
    let sub = run(
        options(VerboseLevel::Full, ToolResultFormat::Markdown),
        &[
            // `bash` is shown as OpenClaw shows `exec`, its alias there; the name stays `bash`.
            tool_start("c1", "bash", json!({"command": "ls -la"})),
            tool_end("c1", "bash", "a\nb\n"),
            tool_start("c2", "read", json!({"path": "missing.txt"})),
            tool_end_with(
                "c2",
                "read",
                AgentToolResult::text("ENOENT: no such file"),
                true,
            ),
        ],
    );
    assert_eq!(
        sub.sink().tool_results,
        text_only(&[
            "🛠️ Exec: list files, `ls -la`",
            "🛠️ Exec: list files, `ls -la`\n```txt\na\nb\n```",
            "📖 Read: `from missing.txt`",
            // Failed calls show their output too.
            "📖 Read: `from missing.txt`\n```txt\nENOENT: no such file\n```",
        ])
    );
    assert_eq!(
        sub.tool_metas(),
        [
            ToolMeta {
                tool_name: "bash".into(),
                meta: Some("list files, `ls -la`".into()),
            },
            ToolMeta {
                tool_name: "read".into(),
                meta: Some("from missing.txt".into()),
            },
        ]
    );
}

#[test]
fn verbose_full_plain_sends_bare_text() {
    let sub = run(
        options(VerboseLevel::Full, ToolResultFormat::Plain),
        &[
            tool_start("c1", "read", json!({"path": "notes.txt"})),
            tool_end("c1", "read", "hello\n"),
        ],
    );
    assert_eq!(
        sub.sink().tool_results,
        text_only(&["📖 Read: from notes.txt", "📖 Read: from notes.txt\nhello"])
    );
}

#[test]
fn empty_output_sends_only_the_summary() {
    // OpenClaw emits output only when the result has text, so `(no output)` never reaches
    // the sink from a subscription; blank text blocks and results without text send nothing.
    let no_text = AgentToolResult {
        content: vec![ContentBlock::text("  \n ")],
        details: Some(json!({})),
        extra: Map::new(),
    };
    for format in [ToolResultFormat::Markdown, ToolResultFormat::Plain] {
        let sub = run(
            options(VerboseLevel::Full, format),
            &[
                tool_start(
                    "c1",
                    "write",
                    json!({"path": "/home/u/a.txt", "content": "hi"}),
                ),
                tool_end_with("c1", "write", no_text.clone(), false),
            ],
        );
        let summary = match format {
            ToolResultFormat::Markdown => "✍️ Write: `to ~/a.txt (2 chars)`",
            ToolResultFormat::Plain => "✍️ Write: to ~/a.txt (2 chars)",
        };
        assert_eq!(sub.sink().tool_results, text_only(&[summary]));
    }
}

#[test]
fn exec_flags_stay_outside_the_code_span() {
    let events = [
        tool_start(
            "c1",
            "exec",
            json!({"command": "npm test", "pty": true, "elevated": true}),
        ),
        tool_start("c2", "exec", json!({"command": "make", "pty": true})),
        tool_start("c3", "exec", json!({"pty": true})),
    ];
    let markdown = run(
        options(VerboseLevel::On, ToolResultFormat::Markdown),
        &events,
    );
    assert_eq!(
        markdown.sink().tool_results,
        text_only(&[
            "🛠️ Exec: pty · elevated · run tests, `npm test`",
            "🛠️ Exec: pty · `make`",
            "🛠️ Exec: pty",
        ])
    );
    let plain = run(options(VerboseLevel::On, ToolResultFormat::Plain), &events);
    assert_eq!(
        plain.sink().tool_result_texts(),
        [
            "🛠️ Exec: pty · elevated · run tests, `npm test`",
            "🛠️ Exec: pty · make",
            "🛠️ Exec: pty",
        ]
    );
}

#[test]
fn reads_of_several_files_in_one_dir_are_summarized_per_call() {
    let events: Vec<AgentEvent> = ["a.rs", "b.rs", "c.rs"]
        .iter()
        .enumerate()
        .flat_map(|(i, file)| read_call(&format!("r{i}"), &format!("/home/u/proj/{file}")))
        .collect();
    let sub = run(
        options(VerboseLevel::On, ToolResultFormat::Markdown),
        &events,
    );
    assert_eq!(
        sub.sink().tool_results,
        text_only(&[
            "📖 Read: `from ~/proj/a.rs`",
            "📖 Read: `from ~/proj/b.rs`",
            "📖 Read: `from ~/proj/c.rs`",
        ])
    );
    // Read metas say "from …", so an aggregate of them lists them rather than grouping the
    // paths into `~/proj/{a.rs, b.rs, c.rs}` (which bare paths would get).
    let metas: Vec<&str> = sub
        .tool_metas()
        .iter()
        .filter_map(|m| m.meta.as_deref())
        .collect();
    assert_eq!(
        format_tool_aggregate("read", &metas, true, None),
        "📖 Read: `from ~/proj/a.rs; from ~/proj/b.rs; from ~/proj/c.rs`"
    );
    assert_eq!(
        format_tool_aggregate(
            "read",
            &[
                "/home/u/proj/a.rs",
                "/home/u/proj/b.rs",
                "/home/u/proj/c.rs"
            ],
            true,
            Some(&HomeDisplay::new("/home/u")),
        ),
        "📖 Read: `~/proj/{a.rs, b.rs, c.rs}`"
    );
}

#[test]
fn media_lines_of_plain_output_become_media() {
    let render = |tool: &str, format| {
        run(
            options(VerboseLevel::Full, format),
            &[
                tool_start("m1", tool, json!({"command": "render"})),
                tool_end(
                    "m1",
                    tool,
                    "done\nMEDIA:/tmp/out.png\nMEDIA:https://x.y/a.png",
                ),
            ],
        )
        .sink()
        .tool_results
        .last()
        .cloned()
    };
    assert_eq!(
        render("exec", ToolResultFormat::Plain),
        Some(ToolResultReply {
            text: "🛠️ Exec: render\ndone".into(),
            media_urls: vec!["/tmp/out.png".into(), "https://x.y/a.png".into()],
        })
    );
    // A tool that is not trusted with local files keeps only URLs.
    assert_eq!(
        render("foo", ToolResultFormat::Plain),
        Some(ToolResultReply {
            text: "🧩 Foo: render\ndone".into(),
            media_urls: vec!["https://x.y/a.png".into()],
        })
    );
    // Inside the markdown fence, `MEDIA:` is text.
    assert_eq!(
        render("exec", ToolResultFormat::Markdown),
        Some(ToolResultReply {
            text:
                "🛠️ Exec: `render`\n```txt\ndone\nMEDIA:/tmp/out.png\nMEDIA:https://x.y/a.png\n```"
                    .into(),
            media_urls: Vec::new(),
        })
    );
}

#[test]
fn provider_lists_are_shown_even_when_verbose_is_off() {
    let list = AgentToolResult {
        content: vec![ContentBlock::text("openai: gpt-image-1")],
        details: Some(json!({"providers": [{"id": "openai"}]})),
        extra: Map::new(),
    };
    let sub = run(
        options(VerboseLevel::Off, ToolResultFormat::Markdown),
        &[
            tool_start("g1", "image_generate", json!({"action": "list"})),
            tool_end_with("g1", "image_generate", list, false),
        ],
    );
    assert_eq!(
        sub.sink().tool_results,
        text_only(&["🎨 Image Generation\n```txt\nopenai: gpt-image-1\n```"])
    );
}
