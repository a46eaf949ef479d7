//! What a line typed in `clawloop chat` asks for: a message for the model, or a slash
//! command. A pure function, so every form is tested as a table.

use clawloop_core::ThinkLevel;

/// One line of chat input, understood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChatInput {
    /// A blank line: nothing to do.
    Nothing,
    /// A message for the model.
    Prompt(String),
    /// `/new`: a fresh session for the key.
    New,
    /// `/model provider/model`: the model of the following turns.
    Model(String),
    /// `/model`: show the current model and the choices.
    ModelList,
    /// `/think <level>`: the thinking level of the following turns.
    Think(ThinkLevel),
    /// `/compact`: compact the session now.
    Compact,
    /// `/session`: show key, id and file.
    Session,
    /// `/help`: list the commands.
    Help,
    /// `/quit` or `/exit`.
    Quit,
    /// A command that cannot be run, with the one-line reason.
    Invalid(String),
}

/// The help text of `/help`.
pub const HELP: &str = "\
/new                    start a fresh session for this key (the old one is kept)
/model                  show the current model and the choices
/model provider/model   use another model from now on
/think <level>          thinking level: off, minimal, low, medium, high, xhigh, adaptive
/compact                summarize the session's history now
/session                show the session key, id and file
/help                   this list
/quit                   leave (also Ctrl-D, or Ctrl-C twice)";

/// Understands `line`.
pub fn parse_input(line: &str) -> ChatInput {
    let line = line.trim();
    if line.is_empty() {
        return ChatInput::Nothing;
    }
    let Some(command_line) = line.strip_prefix('/') else {
        return ChatInput::Prompt(line.to_owned());
    };
    let (name, argument) = match command_line.split_once(char::is_whitespace) {
        Some((name, rest)) => (name, rest.trim()),
        None => (command_line, ""),
    };
    // `/etc/hosts says…` is a message about a path, not a command.
    if name.contains('/') {
        return ChatInput::Prompt(line.to_owned());
    }
    let no_argument = |input: ChatInput| {
        if argument.is_empty() {
            input
        } else {
            ChatInput::Invalid(format!("/{name} takes no argument (got `{argument}`)"))
        }
    };
    match name {
        "new" => no_argument(ChatInput::New),
        "compact" => no_argument(ChatInput::Compact),
        "session" => no_argument(ChatInput::Session),
        "help" | "?" => no_argument(ChatInput::Help),
        "quit" | "exit" => no_argument(ChatInput::Quit),
        "model" if argument.is_empty() => ChatInput::ModelList,
        "model" if argument.contains(char::is_whitespace) => ChatInput::Invalid(format!(
            "/model `{argument}`: expected provider/model, e.g. /model openai/gpt-4o"
        )),
        "model" => ChatInput::Model(argument.to_owned()),
        "think" if argument.is_empty() => ChatInput::Invalid(
            "/think needs a level: off, minimal, low, medium, high, xhigh or adaptive".to_owned(),
        ),
        "think" => match argument.parse::<ThinkLevel>() {
            Ok(level) => ChatInput::Think(level),
            Err(err) => ChatInput::Invalid(format!("/think: {err}")),
        },
        _ => ChatInput::Invalid(format!("unknown command /{name} (try /help)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn lines_parse_as_the_table_says() {
        let invalid = |text: &str| ChatInput::Invalid(text.to_owned());
        let cases = [
            ("", ChatInput::Nothing),
            ("   ", ChatInput::Nothing),
            ("hello there", ChatInput::Prompt("hello there".into())),
            ("  padded  ", ChatInput::Prompt("padded".into())),
            (
                "/etc/hosts has what?",
                ChatInput::Prompt("/etc/hosts has what?".into()),
            ),
            ("/new", ChatInput::New),
            ("/new now", invalid("/new takes no argument (got `now`)")),
            ("/compact", ChatInput::Compact),
            ("/session", ChatInput::Session),
            ("/help", ChatInput::Help),
            ("/?", ChatInput::Help),
            ("/quit", ChatInput::Quit),
            ("/exit", ChatInput::Quit),
            ("/model acme/m2", ChatInput::Model("acme/m2".into())),
            ("/model   acme/m2  ", ChatInput::Model("acme/m2".into())),
            ("/model", ChatInput::ModelList),
            ("/model   ", ChatInput::ModelList),
            // A bare id is the catalog's to judge: it knows which providers have it.
            ("/model gpt-4o", ChatInput::Model("gpt-4o".into())),
            (
                "/model acme m2",
                invalid("/model `acme m2`: expected provider/model, e.g. /model openai/gpt-4o"),
            ),
            ("/think high", ChatInput::Think(ThinkLevel::High)),
            ("/think off", ChatInput::Think(ThinkLevel::Off)),
            (
                "/think",
                invalid("/think needs a level: off, minimal, low, medium, high, xhigh or adaptive"),
            ),
            (
                "/frobnicate",
                invalid("unknown command /frobnicate (try /help)"),
            ),
            ("/", invalid("unknown command / (try /help)")),
        ];
        for (line, expected) in cases {
            assert_eq!(parse_input(line), expected, "{line:?}");
        }
        assert!(
            matches!(parse_input("/think loud"), ChatInput::Invalid(m) if m.starts_with("/think: "))
        );
    }
}
