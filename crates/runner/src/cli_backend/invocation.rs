//! The command line of one call (OpenClaw's `executePreparedCliRun` preparation and
//! `buildCliArgs`): which session id is sent, resume or fresh arguments, the model flag, the
//! system prompt (text, file or config override), session flags, the prompt (argument or
//! stdin) and image paths.

use std::path::{Path, PathBuf};

use base64::Engine;

use super::config::CliBackendConfig;
use super::request::CliRequest;
use super::settings::{
    CliImageMode, CliInputMode, CliOutputFormat, CliSessionMode, SystemPromptWhen,
};

/// A file the CLI reads, written before it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct ScratchFile {
    /// Where it goes.
    pub path: PathBuf,
    /// Its bytes.
    pub contents: Vec<u8>,
}

/// Everything needed to start one call.
#[derive(Debug, Clone, PartialEq)]
pub struct CliInvocation {
    /// The program.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// What is written to stdin (then closed); `None` = stdin is `/dev/null`.
    pub stdin: Option<String>,
    /// Whether the resume arguments were used.
    pub resume: bool,
    /// The session id sent (known, or new for `sessionMode: always`); `None` when the
    /// backend has no way to pass one.
    pub session_id: Option<String>,
    /// Whether this call starts a new CLI session.
    pub new_session: bool,
    /// How stdout is parsed.
    pub output: CliOutputFormat,
    /// Files to write first (system prompt, images), all under the scratch directory.
    pub files: Vec<ScratchFile>,
}

/// Why a call could not be planned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// An image block's data is not base64.
    #[error("image {index} of the prompt is not valid base64")]
    BadImage {
        /// 1-based position among the message's images.
        index: usize,
    },
}

/// Whether planning `request` needs a scratch directory for files.
pub fn needs_scratch(backend: &CliBackendConfig, request: &CliRequest) -> bool {
    !request.images.is_empty()
        || (backend.system_prompt_file_arg.is_some()
            || backend.system_prompt_file_config_key.is_some())
            && request
                .system_prompt
                .as_deref()
                .is_some_and(|p| !p.trim().is_empty())
}

/// Plans the call. `new_session_id` makes the id of a new `always`-mode session; `scratch`
/// is the directory for files (see [`needs_scratch`]); without one, file-based system
/// prompts and images are left out.
pub fn plan_invocation(
    backend: &CliBackendConfig,
    request: &CliRequest,
    new_session_id: impl FnOnce() -> String,
    scratch: Option<&Path>,
) -> Result<CliInvocation, PlanError> {
    let session = plan_session(backend, request, new_session_id);
    let system_prompt = system_prompt_to_send(backend, request, &session);
    let mut files = Vec::new();
    let image_paths = match scratch {
        Some(dir) => scratch_images(request, dir, &mut files)?,
        None => Vec::new(),
    };
    let image_arg = backend.image_arg.as_deref();
    let mut prompt = request.prompt.clone();
    if !image_paths.is_empty()
        && (image_arg.is_none() || backend.input == CliInputMode::Stdin || image_arg == Some("@"))
    {
        prompt = with_image_paths(&prompt, &image_paths, image_arg == Some("@"));
    }
    let to_stdin = backend.input == CliInputMode::Stdin
        || backend
            .max_prompt_arg_chars
            .is_some_and(|max| prompt.chars().count() > max);

    let mut args: Vec<String> = match (&session.id, session.resume) {
        (Some(id), true) => backend
            .resume_args
            .iter()
            .map(|a| a.replace("{sessionId}", id))
            .collect(),
        _ => backend.args.clone(),
    };
    let model = backend.normalize_model(&request.model_id);
    if let Some(flag) = &backend.model_arg
        && !model.is_empty()
    {
        args.extend([flag.clone(), model]);
    }
    if let Some(text) = system_prompt {
        push_system_prompt(backend, text, scratch, &mut args, &mut files);
    }
    if !session.resume
        && let Some(id) = &session.id
    {
        push_session_args(backend, id, &mut args);
    }
    let stdin = if to_stdin {
        Some(prompt)
    } else {
        place_prompt(prompt, &mut args);
        None
    };
    if let Some(flag) = image_arg.filter(|f| *f != "@")
        && !image_paths.is_empty()
    {
        push_image_args(backend.image_mode, flag, &image_paths, &mut args);
    }
    Ok(CliInvocation {
        program: backend.command.clone(),
        args,
        stdin,
        resume: session.resume,
        session_id: session.id,
        new_session: session.new_session,
        output: if session.resume {
            backend.resume_output
        } else {
            backend.output
        },
        files,
    })
}

/// The CLI session a call continues or starts.
struct SessionPlan {
    /// The id sent on the command line, if any.
    id: Option<String>,
    /// No session was known before this call.
    new_session: bool,
    /// The call resumes the known session with `resumeArgs`.
    resume: bool,
}

/// The session of the call: `sessionMode` over the id the history binds (`new_session_id`
/// makes one for `always`).
fn plan_session(
    backend: &CliBackendConfig,
    request: &CliRequest,
    new_session_id: impl FnOnce() -> String,
) -> SessionPlan {
    let known = request
        .cli_session_id
        .as_deref()
        .map(str::trim)
        .filter(|id| !id.is_empty());
    let (session_id, new_session) = match (backend.session_mode, known) {
        (CliSessionMode::None, known) => (None, known.is_none()),
        (CliSessionMode::Existing, known) => (known.map(str::to_owned), known.is_none()),
        (CliSessionMode::Always, Some(id)) => (Some(id.to_owned()), false),
        (CliSessionMode::Always, None) => (Some(new_session_id()), true),
    };
    let resume = known.is_some() && session_id.is_some() && !backend.resume_args.is_empty();
    // An id the command line cannot carry is not sent, so it cannot name the session either.
    let id = session_id
        .filter(|_| resume || !backend.session_args.is_empty() || backend.session_arg.is_some());
    SessionPlan {
        id,
        new_session,
        resume,
    }
}

/// The system prompt to pass, after `systemPromptWhen` and whether the backend takes one; a
/// resumed session gets it only under `always`.
fn system_prompt_to_send<'a>(
    backend: &CliBackendConfig,
    request: &'a CliRequest,
    session: &SessionPlan,
) -> Option<&'a str> {
    request
        .system_prompt
        .as_deref()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .filter(|_| match backend.system_prompt_when {
            SystemPromptWhen::Never => false,
            SystemPromptWhen::First => session.new_session,
            SystemPromptWhen::Always => true,
        })
        .filter(|_| backend.accepts_system_prompt())
        .filter(|_| !session.resume || backend.system_prompt_when == SystemPromptWhen::Always)
}

/// The prompt's images as files under `dir` (added to `files`); their paths.
fn scratch_images(
    request: &CliRequest,
    dir: &Path,
    files: &mut Vec<ScratchFile>,
) -> Result<Vec<String>, PlanError> {
    let mut paths = Vec::new();
    for (i, image) in request.images.iter().enumerate() {
        let contents = base64::engine::general_purpose::STANDARD
            .decode(image.data.trim())
            .map_err(|_| PlanError::BadImage { index: i + 1 })?;
        let path = dir.join(format!(
            "image-{}.{}",
            i + 1,
            image_extension(&image.mime_type)
        ));
        paths.push(path.to_string_lossy().into_owned());
        files.push(ScratchFile { path, contents });
    }
    Ok(paths)
}

/// `prompt` with the image paths listed after it, one a line (`@`-prefixed when `at`).
fn with_image_paths(prompt: &str, image_paths: &[String], at: bool) -> String {
    let prefix = if at { "@" } else { "" };
    let trimmed = prompt.trim_end();
    let separator = if trimmed.is_empty() { "" } else { "\n\n" };
    let listed: Vec<String> = image_paths.iter().map(|p| format!("{prefix}{p}")).collect();
    format!("{trimmed}{separator}{}", listed.join("\n"))
}

/// The system prompt's arguments: a file flag (the text written to the scratch directory),
/// a config key naming the file, or the text itself.
fn push_system_prompt(
    backend: &CliBackendConfig,
    text: &str,
    scratch: Option<&Path>,
    args: &mut Vec<String>,
    files: &mut Vec<ScratchFile>,
) {
    let file_path = scratch.map(|dir| dir.join("system-prompt.md"));
    match (
        &backend.system_prompt_file_arg,
        &backend.system_prompt_file_config_key,
        file_path,
    ) {
        (Some(flag), _, Some(path)) => {
            args.extend([flag.clone(), path.to_string_lossy().into_owned()]);
            files.push(ScratchFile {
                path,
                contents: text.as_bytes().to_vec(),
            });
        }
        (None, Some(key), Some(path)) => {
            let flag = backend
                .system_prompt_file_config_arg
                .clone()
                .unwrap_or_else(|| "-c".to_owned());
            let value = serde_json::Value::String(path.to_string_lossy().into_owned());
            args.extend([flag, format!("{key}={value}")]);
            files.push(ScratchFile {
                path,
                contents: text.as_bytes().to_vec(),
            });
        }
        _ => {
            if let Some(flag) = &backend.system_prompt_arg {
                args.extend([flag.clone(), text.to_owned()]);
            }
        }
    }
}

/// A new session's id: `sessionArgs` with `{sessionId}` filled in, else `sessionArg ID`.
fn push_session_args(backend: &CliBackendConfig, id: &str, args: &mut Vec<String>) {
    if !backend.session_args.is_empty() {
        args.extend(
            backend
                .session_args
                .iter()
                .map(|a| a.replace("{sessionId}", id)),
        );
    } else if let Some(flag) = &backend.session_arg {
        args.extend([flag.clone(), id.to_owned()]);
    }
}

/// The prompt in place of every `{prompt}` argument, else as the last argument.
fn place_prompt(prompt: String, args: &mut Vec<String>) {
    let mut placed = false;
    for arg in args.iter_mut() {
        if arg == "{prompt}" {
            arg.clone_from(&prompt);
            placed = true;
        }
    }
    if !placed {
        args.push(prompt);
    }
}

/// The image paths after `flag`: one list, or the flag repeated per image.
fn push_image_args(mode: CliImageMode, flag: &str, image_paths: &[String], args: &mut Vec<String>) {
    match mode {
        CliImageMode::List => args.extend([flag.to_owned(), image_paths.join(",")]),
        CliImageMode::Repeat => {
            for path in image_paths {
                args.extend([flag.to_owned(), path.clone()]);
            }
        }
    }
}

fn image_extension(mime_type: &str) -> &'static str {
    let mime = mime_type.to_lowercase();
    if mime.contains("png") {
        "png"
    } else if mime.contains("jpeg") || mime.contains("jpg") {
        "jpg"
    } else if mime.contains("gif") {
        "gif"
    } else if mime.contains("webp") {
        "webp"
    } else {
        "bin"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::ImageContent;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn request(prompt: &str, system: Option<&str>, session: Option<&str>) -> CliRequest {
        CliRequest {
            prompt: prompt.into(),
            images: Vec::new(),
            system_prompt: system.map(str::to_owned),
            model_id: "claude-opus-4-6".into(),
            cli_session_id: session.map(str::to_owned),
        }
    }

    fn words(args: &[&str]) -> Vec<String> {
        args.iter().map(|a| (*a).to_owned()).collect()
    }

    #[test]
    fn claude_first_turn_then_resume() {
        let claude = CliBackendConfig::resolve("claude-cli", None).unwrap();
        let first = plan_invocation(
            &claude,
            &request("hi", Some("be brief"), None),
            || "new-id".into(),
            None,
        )
        .unwrap();
        let mut expected = claude.args.clone();
        expected.extend(words(&[
            "--model",
            "opus",
            "--append-system-prompt",
            "be brief",
            "--session-id",
            "new-id",
        ]));
        assert_eq!(first.args, expected);
        assert_eq!(
            (first.stdin.as_deref(), first.resume, first.new_session),
            (Some("hi"), false, true)
        );
        assert_eq!(first.session_id.as_deref(), Some("new-id"));

        let next = plan_invocation(
            &claude,
            &request("more", Some("be brief"), Some("s-1")),
            || "unused".into(),
            None,
        )
        .unwrap();
        let mut expected = claude.resume_args.clone();
        if let Some(last) = expected.last_mut() {
            *last = "s-1".into();
        }
        expected.extend(words(&["--model", "opus"]));
        assert_eq!(next.args, expected);
        assert_eq!(
            (next.resume, next.new_session, next.output),
            (true, false, CliOutputFormat::Jsonl)
        );
    }

    #[test]
    fn codex_system_prompt_file_and_images() {
        let codex = CliBackendConfig::resolve("codex-cli", None).unwrap();
        let dir = Path::new("/scratch");
        let mut req = request("look", Some("rules"), None);
        req.model_id = "gpt-5.4".into();
        req.images = vec![
            ImageContent {
                data: "aGk=".into(),
                mime_type: "image/png".into(),
                extra: Default::default(),
            },
            ImageContent {
                data: "aGk=".into(),
                mime_type: "image/jpeg".into(),
                extra: Default::default(),
            },
        ];
        assert!(needs_scratch(&codex, &req));
        let plan = plan_invocation(&codex, &req, || "unused".into(), Some(dir)).unwrap();
        let mut expected = codex.args.clone();
        expected.extend(words(&[
            "--model",
            "gpt-5.4",
            "-c",
            "model_instructions_file=\"/scratch/system-prompt.md\"",
            "look",
            "--image",
            "/scratch/image-1.png",
            "--image",
            "/scratch/image-2.jpg",
        ]));
        assert_eq!(plan.args, expected);
        assert_eq!(plan.session_id, None);
        assert_eq!(
            plan.files
                .iter()
                .map(|f| (f.path.to_string_lossy().into_owned(), f.contents.clone()))
                .collect::<Vec<_>>(),
            vec![
                ("/scratch/image-1.png".to_owned(), b"hi".to_vec()),
                ("/scratch/image-2.jpg".to_owned(), b"hi".to_vec()),
                ("/scratch/system-prompt.md".to_owned(), b"rules".to_vec()),
            ]
        );
        req.images[1].data = "not base64!".into();
        assert_eq!(
            plan_invocation(&codex, &req, || "x".into(), Some(dir)).err(),
            Some(PlanError::BadImage { index: 2 })
        );
        // Resume: codex's resume arguments, no system prompt, text output.
        let resumed = plan_invocation(
            &codex,
            &request("again", Some("rules"), Some("th-1")),
            || "x".into(),
            None,
        )
        .unwrap();
        assert_eq!(
            resumed.args,
            words(&[
                "exec",
                "resume",
                "th-1",
                "--dangerously-bypass-approvals-and-sandbox",
                "--model",
                "claude-opus-4-6",
                "again"
            ])
        );
        assert_eq!(resumed.output, CliOutputFormat::Text);
    }

    #[test]
    fn generic_prompt_placement() {
        let backend = CliBackendConfig::resolve(
            "x",
            Some(&json!({
                "command": ["x", "--ask", "{prompt}", "--json"], "maxPromptArgChars": 5,
                "sessionMode": "none", "imageArg": "@", "systemPromptArg": "--sys", "systemPromptWhen": "always"
            })),
        )
        .unwrap();
        let plan = plan_invocation(
            &backend,
            &request("hey", Some("s"), None),
            || "x".into(),
            None,
        )
        .unwrap();
        assert_eq!(plan.args, words(&["--ask", "hey", "--json", "--sys", "s"]));
        assert_eq!(plan.stdin, None);
        let long = plan_invocation(
            &backend,
            &request("longer prompt", None, None),
            || "x".into(),
            None,
        )
        .unwrap();
        assert_eq!(long.stdin.as_deref(), Some("longer prompt"));
        assert_eq!(long.args, words(&["--ask", "{prompt}", "--json"]));
        let mut with_image = request("see", None, None);
        with_image.images = vec![ImageContent {
            data: "aGk=".into(),
            mime_type: "image/gif".into(),
            extra: Default::default(),
        }];
        let plan =
            plan_invocation(&backend, &with_image, || "x".into(), Some(Path::new("/d"))).unwrap();
        assert_eq!(plan.stdin.as_deref(), Some("see\n\n@/d/image-1.gif"));
    }
}
