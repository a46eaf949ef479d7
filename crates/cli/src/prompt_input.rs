//! The message of `clawloop run`, assembled as pi assembles its first message: piped stdin
//! first, then each `@path` argument's file (`<file name="…">` text, or an image part), then
//! the prompt words.

use std::ffi::OsStr;
use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};

use clawloop_core::message::ImageContent;

use crate::images::{image_of, read_bounded, sniff_image};

/// The message text and the images of `@path` arguments.
#[derive(Debug, Default, PartialEq)]
pub struct PromptInput {
    /// The text sent.
    pub text: String,
    /// The images of `@path` arguments, in argument order.
    pub images: Vec<ImageContent>,
}

/// The command line's positional arguments sorted: `@path` file mentions and the words.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct PromptArgs<'a> {
    /// The paths of `@path` arguments, without the `@`.
    pub files: Vec<&'a str>,
    /// Every other argument, joined by spaces; `None` when there is none or it is `-`.
    pub words: Option<String>,
}

/// Sorts `args` as pi does: an argument that starts with `@` names a file. Unlike pi, a bare
/// `@` and an argument with whitespace in it (`"@team what do you think"`, a quoted prompt)
/// stay words, so a prompt is never mistaken for a path.
pub fn sort_args(args: &[String]) -> PromptArgs<'_> {
    let mut sorted = PromptArgs::default();
    let mut words = Vec::new();
    for arg in args {
        match arg.strip_prefix('@') {
            Some(path) if !path.is_empty() && !path.contains(char::is_whitespace) => {
                sorted.files.push(path);
            }
            _ => words.push(arg.as_str()),
        }
    }
    if !(words.is_empty() || words == ["-"]) {
        sorted.words = Some(words.join(" "));
    }
    sorted
}

/// The message of `args` with files resolved against `workspace`: stdin (when it is not a
/// terminal; required when there are no words), the files, the words.
pub fn prompt_input(args: &[String], workspace: &Path) -> Result<PromptInput, String> {
    let sorted = sort_args(args);
    // Files alone are a prompt, as `pi @notes.md` is.
    let stdin = read_stdin(sorted.words.is_none() && sorted.files.is_empty())?;
    let mut input = PromptInput::default();
    if !stdin.trim().is_empty() {
        input.text.push_str(&stdin);
        if !stdin.ends_with('\n') {
            input.text.push('\n');
        }
    }
    for path in &sorted.files {
        inline_file(&mut input, path, workspace)?;
    }
    if let Some(words) = &sorted.words {
        input.text.push_str(words);
    }
    if input.text.trim().is_empty() && input.images.is_empty() {
        return Err("the prompt is empty: pass it as an argument or on stdin".to_owned());
    }
    Ok(input)
}

/// Standard input when it is piped; `required` makes a terminal an error (there would be no
/// prompt at all), otherwise a terminal adds nothing.
fn read_stdin(required: bool) -> Result<String, String> {
    let mut stdin = std::io::stdin();
    if stdin.is_terminal() {
        if required {
            return Err("no prompt: pass it as an argument, or pipe it on stdin".to_owned());
        }
        return Ok(String::new());
    }
    let mut text = String::new();
    stdin
        .read_to_string(&mut text)
        .map_err(|err| format!("cannot read the prompt from stdin: {err}"))?;
    Ok(text)
}

/// Appends `@path`'s file: an image as an image part (with an empty `<file>` tag naming it,
/// as pi writes), anything else as UTF-8 text in a `<file>` tag. An empty file is skipped, as
/// pi skips it.
fn inline_file(input: &mut PromptInput, path: &str, workspace: &Path) -> Result<(), String> {
    let label = format!("@{path}");
    let absolute = resolve(path, workspace, std::env::var_os("HOME").as_deref());
    let bytes = read_bounded(&absolute, &label).map_err(|err| {
        if absolute.exists() {
            err
        } else {
            format!("{label}: there is no file at {}", absolute.display())
        }
    })?;
    if bytes.is_empty() {
        return Ok(());
    }
    let name = absolute.display();
    if let Some(mime_type) = sniff_image(&bytes) {
        input.images.push(image_of(&label, mime_type, &bytes)?);
        input
            .text
            .push_str(&format!("<file name=\"{name}\"></file>\n"));
        return Ok(());
    }
    let text = String::from_utf8(bytes)
        .map_err(|_| format!("{label}: neither UTF-8 text nor a PNG, JPEG, GIF or WebP image"))?;
    input
        .text
        .push_str(&format!("<file name=\"{name}\">\n{text}\n</file>\n"));
    Ok(())
}

/// `path` against the workspace; `~/…` is in the user's home, as pi expands it.
fn resolve(path: &str, workspace: &Path, home: Option<&OsStr>) -> PathBuf {
    match (path.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => Path::new(home).join(rest),
        _ => workspace.join(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn sorted(args: &[&str]) -> (Vec<String>, Option<String>) {
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        let sorted = sort_args(&args);
        (
            sorted.files.iter().map(|f| (*f).to_owned()).collect(),
            sorted.words,
        )
    }

    #[test]
    fn paths_are_in_the_workspace_or_the_home() {
        let (ws, home) = (Path::new("/w"), Some(OsStr::new("/home/u")));
        let cases = [
            ("src/a.rs", home, "/w/src/a.rs"),
            ("/etc/hosts", home, "/etc/hosts"),
            ("~/notes.md", home, "/home/u/notes.md"),
            ("~/notes.md", None, "/w/~/notes.md"),
            ("~draft.md", home, "/w/~draft.md"),
        ];
        for (path, home, expected) in cases {
            assert_eq!(resolve(path, ws, home), PathBuf::from(expected), "{path}");
        }
    }

    #[test]
    fn only_whole_at_arguments_name_files() {
        type Case<'a> = (&'a [&'a str], (&'a [&'a str], Option<&'a str>));
        let cases: [Case; 7] = [
            (&["hi"], (&[], Some("hi"))),
            (&["@a.rs", "explain", "it"], (&["a.rs"], Some("explain it"))),
            (&["mail me@example.com"], (&[], Some("mail me@example.com"))),
            (&["@", "alone"], (&[], Some("@ alone"))),
            (&["@team what now"], (&[], Some("@team what now"))),
            (&["@x", "-"], (&["x"], None)),
            (&[], (&[], None)),
        ];
        for (args, (files, words)) in cases {
            let expected = (
                files.iter().map(|f| (*f).to_owned()).collect::<Vec<_>>(),
                words.map(str::to_owned),
            );
            assert_eq!(sorted(args), expected, "{args:?}");
        }
    }
}
