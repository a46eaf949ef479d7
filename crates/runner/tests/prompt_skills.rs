//! Skills from real temp directories: frontmatter (env included), precedence, refused links,
//! malformed files named in warnings, the prompt list and its limits.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use clawloop_runner::prompt::skills::{
    Frontmatter, FrontmatterError, FrontmatterValue, LoadedSkills, SkillRoots, SkillSource,
    SkillsPrompt, SkillsPromptLimits, format_skills_prompt, load_skills, parse_frontmatter,
};
use pretty_assertions::assert_eq;

/// Name, description, source, file, env, hidden from the model.
type SkillSummary = (
    String,
    String,
    SkillSource,
    PathBuf,
    BTreeMap<String, String>,
    bool,
);

fn skill_dir(root: &Path, dir: &str, text: &str) -> PathBuf {
    let path = root.join("skills").join(dir);
    std::fs::create_dir_all(&path).unwrap();
    std::fs::write(path.join("SKILL.md"), text).unwrap();
    path.join("SKILL.md")
}

fn text(value: &str) -> FrontmatterValue {
    FrontmatterValue::Text(value.into())
}

fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).into(), (*v).into()))
        .collect()
}

#[test]
fn frontmatter_subset_parses_every_supported_form() {
    // Lines joined with CRLF, after a BOM: both are undone before parsing.
    let lines = [
        "---",
        "name: deploy",
        "# a comment line",
        r#"description: "Ship it: builds, tags \"and\" pushes" # trailing comment"#,
        "summary: Use when: the user says ship # not part of it",
        "quoted: 'it''s single'",
        "long: >",
        "  folded over",
        "  two lines",
        "",
        "  and a paragraph",
        "script: |",
        "  echo one",
        "    echo two",
        "continued: first part",
        "  second part",
        "env:",
        "  DEPLOY_TARGET: staging",
        r#"  DEPLOY_TOKEN: "abc: 123""#,
        "tags:",
        "  - ops",
        "  - 'release'",
        "metadata:",
        "  {",
        r#"    "openclaw": { "requires": { "bins": ["git"] } },"#,
        "  }",
        "flow: {a: 1}",
        "empty:",
        "---",
        "# Body",
    ];
    let source = format!("\u{feff}{}\r\n", lines.join("\r\n"));
    let fields: BTreeMap<String, FrontmatterValue> = [
        ("name", text("deploy")),
        ("description", text("Ship it: builds, tags \"and\" pushes")),
        ("summary", text("Use when: the user says ship")),
        ("quoted", text("it's single")),
        ("long", text("folded over two lines\nand a paragraph")),
        ("script", text("echo one\n  echo two")),
        ("continued", text("first part second part")),
        (
            "env",
            FrontmatterValue::Map(map(&[
                ("DEPLOY_TARGET", "staging"),
                ("DEPLOY_TOKEN", "abc: 123"),
            ])),
        ),
        (
            "tags",
            FrontmatterValue::List(vec!["ops".into(), "release".into()]),
        ),
        (
            "metadata",
            FrontmatterValue::Raw(
                "{\n  \"openclaw\": { \"requires\": { \"bins\": [\"git\"] } },\n}".into(),
            ),
        ),
        ("flow", FrontmatterValue::Raw("{a: 1}".into())),
        ("empty", text("")),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    assert_eq!(parse_frontmatter(&source), Ok(Some(Frontmatter { fields })));
    assert_eq!(parse_frontmatter("# Just markdown\n---\n"), Ok(None));
}

#[test]
fn frontmatter_outside_the_subset_is_an_error_with_its_line() {
    let cases: [(&str, usize, &str); 9] = [
        (
            "---\nname: x\n",
            1,
            "the frontmatter opened with `---` is never closed by a `---` line",
        ),
        ("---\nname: a\nname: b\n---\n", 3, "duplicate key `name`"),
        (
            "---\nenv:\n\tA: b\n---\n",
            3,
            "tabs are not allowed for indentation",
        ),
        (
            "---\nname: &anchor x\n---\n",
            2,
            "YAML anchors, aliases and tags are not supported",
        ),
        (
            "---\ndescription: \"never closed\n---\n",
            2,
            "unterminated double-quoted value",
        ),
        (
            "---\n- one\n- two\n---\n",
            2,
            "the frontmatter must be `key: value` lines, not a list",
        ),
        ("---\njust words\n---\n", 2, "expected `key: value`"),
        (
            "---\n  name: x\n---\n",
            2,
            "unexpected indentation (top-level keys start in column 1)",
        ),
        (
            "---\ndescription: 'a' b\n---\n",
            2,
            "unexpected text after the closing quote: \"b\"",
        ),
    ];
    for (source, line, message) in cases {
        assert_eq!(
            parse_frontmatter(source),
            Err(FrontmatterError {
                line,
                message: message.into()
            }),
            "{source:?}"
        );
    }
}

#[test]
fn odd_whitespace_in_nested_blocks_is_kept_as_text_not_a_panic() {
    // U+3000 (ideographic space) is whitespace to `trim` but not indentation.
    let source = "---\nmetadata:\n  a: 1\n\u{3000}b: 2\n  c: 3\n---\n";
    assert_eq!(
        parse_frontmatter(source),
        Err(FrontmatterError {
            line: 4,
            message: "expected `key: value`".into()
        })
    );
    // Cutting the common indentation (two spaces of the first line) out of the second line
    // would split its U+3000 if that counted as indentation.
    let nested = "---\nnotes:\n  a\n \u{3000}b\n---\n";
    assert_eq!(
        parse_frontmatter(nested).unwrap().unwrap().fields["notes"],
        FrontmatterValue::Raw("a\n\u{3000}b".into())
    );
}

#[test]
fn workspace_skills_win_over_home_skills_and_bad_files_are_named_and_skipped() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let ws = tmp.path().join("ws");
    skill_dir(
        &home,
        "deploy",
        "---\nname: deploy\ndescription: home deploy\nenv:\n  TARGET: home\n---\n",
    );
    let home_only = skill_dir(
        &home,
        "weather",
        "---\ndescription: 'Forecasts & <alerts>'\n---\n",
    );
    let ws_deploy = skill_dir(
        &ws,
        "deploy-skill",
        "---\nname: deploy\ndescription: workspace deploy\nenv: {TARGET: ws, \"REGION\": \"eu-1\"}\n---\nSteps\n",
    );
    let hidden = skill_dir(
        &ws,
        "internal",
        "---\ndescription: only by command\ndisable-model-invocation: true\n---\n",
    );
    let no_description = skill_dir(&ws, "vague", "---\nname: vague\n---\nbody\n");
    let broken = skill_dir(&ws, "broken", "---\ndescription: x\ndescription: y\n---\n");
    let bad_env = skill_dir(
        &ws,
        "bad-env",
        "---\ndescription: x\nenv:\n  9LIVES: cat\n---\n",
    );
    let env_list = skill_dir(&ws, "env-list", "---\ndescription: x\nenv:\n  - A\n---\n");
    skill_dir(&ws, ".hidden", "---\ndescription: hidden dir\n---\n");
    std::fs::create_dir_all(ws.join("skills/node_modules/pkg")).unwrap();
    std::fs::write(
        ws.join("skills/node_modules/pkg/SKILL.md"),
        "---\ndescription: dep\n---\n",
    )
    .unwrap();
    std::fs::create_dir_all(ws.join("skills/no-skill-md")).unwrap();
    std::fs::write(
        ws.join("skills/stray.md"),
        "---\ndescription: not in a directory\n---\n",
    )
    .unwrap();

    let loaded = load_skills(&SkillRoots {
        workspace_dir: ws.clone(),
        home_dir: Some(home.clone()),
    });
    let summary: Vec<SkillSummary> = loaded
        .skills
        .iter()
        .map(|s| {
            (
                s.name.clone(),
                s.description.clone(),
                s.source,
                s.file_path.clone(),
                s.env.clone(),
                s.disable_model_invocation,
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            (
                "deploy".into(),
                "workspace deploy".into(),
                SkillSource::Workspace,
                ws_deploy.clone(),
                map(&[("REGION", "eu-1"), ("TARGET", "ws")]),
                false
            ),
            (
                "internal".into(),
                "only by command".into(),
                SkillSource::Workspace,
                hidden,
                BTreeMap::new(),
                true
            ),
            (
                "weather".into(),
                "Forecasts & <alerts>".into(),
                SkillSource::Home,
                home_only.clone(),
                BTreeMap::new(),
                false
            ),
        ]
    );
    assert_eq!(loaded.skills[0].base_dir, ws.join("skills/deploy-skill"));
    assert_eq!(
        loaded.warnings,
        vec![
            format!(
                "skill {} skipped: `env` key \"9LIVES\" is not a variable name (letters, digits, `_`; not starting with a digit)",
                bad_env.display()
            ),
            format!(
                "skill {} skipped: frontmatter line 3: duplicate key `description`",
                broken.display()
            ),
            format!(
                "skill {} skipped: `env` must be a mapping of NAME: value lines",
                env_list.display()
            ),
            format!(
                "skill {} skipped: description is required in the frontmatter",
                no_description.display()
            ),
        ]
    );

    let prompt = format_skills_prompt(&loaded.skills, SkillsPromptLimits::default());
    assert_eq!(
        prompt,
        SkillsPrompt {
            text: format!(
                "\n\nThe following skills provide specialized instructions for specific tasks.\n\
Use the read tool to load a skill's file when the task matches its description.\n\
When a skill file references a relative path, resolve it against the skill directory (parent of SKILL.md / dirname of the path) and use that absolute path in tool commands.\n\
\n\
<available_skills>\n  <skill>\n    <name>deploy</name>\n    <description>workspace deploy</description>\n    <location>{}</location>\n  </skill>\n  <skill>\n    <name>weather</name>\n    <description>Forecasts &amp; &lt;alerts&gt;</description>\n    <location>{}</location>\n  </skill>\n</available_skills>",
                ws_deploy.display(),
                home_only.display()
            ),
            listed: vec!["deploy".into(), "weather".into()],
            total: 2,
            compact: false,
            truncated: false,
        }
    );
}

#[test]
fn workspace_skill_links_out_of_the_workspace_are_refused_home_links_are_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let outside = tmp.path().join("outside");
    let planted = skill_dir(
        &outside,
        "planted",
        "---\ndescription: planted elsewhere\n---\n",
    );
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(ws.join("skills/linked-file")).unwrap();
    symlink(outside.join("skills/planted"), ws.join("skills/linked-dir")).unwrap();
    symlink(&planted, ws.join("skills/linked-file/SKILL.md")).unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(home.join("skills")).unwrap();
    symlink(outside.join("skills/planted"), home.join("skills/shared")).unwrap();

    let loaded = load_skills(&SkillRoots {
        workspace_dir: ws.clone(),
        home_dir: Some(home.clone()),
    });
    let real_planted = std::fs::canonicalize(&planted).unwrap();
    let real_root = std::fs::canonicalize(ws.join("skills")).unwrap();
    assert_eq!(
        loaded
            .skills
            .iter()
            .map(|s| (s.name.as_str(), s.source))
            .collect::<Vec<_>>(),
        vec![("shared", SkillSource::Home)]
    );
    let refused = |link: &str| {
        let path = ws.join("skills").join(link).join("SKILL.md");
        format!(
            "skill {} skipped: {} resolves to {}, outside {}",
            path.display(),
            path.display(),
            real_planted.display(),
            real_root.display()
        )
    };
    assert_eq!(
        loaded.warnings,
        vec![refused("linked-dir"), refused("linked-file")]
    );
}

#[test]
fn a_fifo_skill_file_is_refused_without_hanging_and_missing_roots_are_empty() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    std::fs::create_dir_all(ws.join("skills/pipe")).unwrap();
    let fifo = ws.join("skills/pipe/SKILL.md");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let loaded = load_skills(&SkillRoots {
        workspace_dir: ws.to_path_buf(),
        home_dir: Some(ws.join("no-home")),
    });
    assert_eq!(
        loaded,
        LoadedSkills {
            skills: vec![],
            warnings: vec![format!(
                "skill {} skipped: {} is a FIFO, not a regular file",
                fifo.display(),
                fifo.display()
            )],
        }
    );
}

#[test]
fn over_the_size_budget_the_list_goes_compact_then_keeps_the_prefix_that_fits() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    for name in ["alpha", "bravo", "charlie"] {
        skill_dir(
            ws,
            name,
            &format!("---\ndescription: {}\n---\n", "d".repeat(400)),
        );
    }
    let skills = load_skills(&SkillRoots {
        workspace_dir: ws.to_path_buf(),
        home_dir: None,
    })
    .skills;
    let full = format_skills_prompt(&skills, SkillsPromptLimits::default());
    assert!(!full.compact && !full.truncated);

    let location = |name: &str| {
        ws.join("skills")
            .join(name)
            .join("SKILL.md")
            .display()
            .to_string()
    };
    let compact_list = |names: &[&str]| {
        let mut out = "\n\nThe following skills provide specialized instructions for specific tasks.\n\
Use the read tool to load a skill's file when the task matches its name.\n\
When a skill file references a relative path, resolve it against the skill directory (parent of SKILL.md / dirname of the path) and use that absolute path in tool commands.\n\
\n\
<available_skills>"
            .to_owned();
        for name in names {
            out.push_str(&format!(
                "\n  <skill>\n    <name>{name}</name>\n    <location>{}</location>\n  </skill>",
                location(name)
            ));
        }
        out + "\n</available_skills>"
    };
    let compact_len = compact_list(&["alpha", "bravo", "charlie"]).chars().count();
    let compact = format_skills_prompt(
        &skills,
        SkillsPromptLimits {
            max_skills: 150,
            max_chars: compact_len + 150,
        },
    );
    assert_eq!(
        compact,
        SkillsPrompt {
            text: format!(
                "⚠️ Skills catalog using compact format (descriptions omitted).\n{}",
                compact_list(&["alpha", "bravo", "charlie"])
            ),
            listed: vec!["alpha".into(), "bravo".into(), "charlie".into()],
            total: 3,
            compact: true,
            truncated: false,
        }
    );

    let two = compact_list(&["alpha", "bravo"]).chars().count();
    let cut = format_skills_prompt(
        &skills,
        SkillsPromptLimits {
            max_skills: 150,
            max_chars: two + 150,
        },
    );
    assert_eq!(
        cut,
        SkillsPrompt {
            text: format!(
                "⚠️ Skills truncated: included 2 of 3 (compact format, descriptions omitted).\n{}",
                compact_list(&["alpha", "bravo"])
            ),
            listed: vec!["alpha".into(), "bravo".into()],
            total: 3,
            compact: true,
            truncated: true,
        }
    );

    let by_count = format_skills_prompt(
        &skills,
        SkillsPromptLimits {
            max_skills: 1,
            max_chars: 100_000,
        },
    );
    assert_eq!(by_count.listed, vec!["alpha".to_owned()]);
    assert!(
        by_count
            .text
            .starts_with("⚠️ Skills truncated: included 1 of 3.\n\n\nThe following skills")
    );
    assert_eq!(
        format_skills_prompt(&[], SkillsPromptLimits::default()),
        SkillsPrompt::default()
    );
}
