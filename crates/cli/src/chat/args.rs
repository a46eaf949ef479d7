//! `clawloop chat`'s arguments, and which session they name: a key (default `main`), the
//! workspace's most recent (`-c`, as `run -c` and pi), one picked (`-r`), one by id
//! (`--session`), or a fresh one (`--new`).

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::Args;
use clawloop_core::ThinkLevel;

use crate::continue_pick::SessionFlags;
use crate::env_setup::Setup;
use crate::run::parse_thinking;

/// The session key a chat talks in unless told.
const DEFAULT_KEY: &str = "main";

/// Arguments of `clawloop chat`.
#[derive(Debug, Args)]
pub struct ChatArgs {
    /// The session to talk in.
    #[arg(long, default_value = DEFAULT_KEY)]
    pub session_key: String,
    /// Continue an existing session by its id (or an unambiguous prefix of it).
    #[arg(long, value_name = "ID", conflicts_with_all = ["session_key", "new"])]
    pub session: Option<String>,
    /// Start with a fresh session for the key; the old transcript is kept.
    #[arg(long)]
    pub new: bool,
    /// Continue this workspace's most recent session (a fresh one when it has none).
    #[arg(
        short = 'c',
        long = "continue",
        conflicts_with_all = ["session", "session_key", "new", "resume"]
    )]
    pub continue_recent: bool,
    /// Pick one of this workspace's recent sessions to continue (on a terminal; otherwise
    /// list them).
    #[arg(short = 'r', long, conflicts_with_all = ["session", "session_key", "new"])]
    pub resume: bool,
    /// The model, as `provider/model`, instead of the configured primary.
    #[arg(long, value_name = "PROVIDER/MODEL")]
    pub model: Option<String>,
    /// The thinking level: off, minimal, low, medium, high, xhigh or adaptive.
    #[arg(long, value_parser = parse_thinking)]
    pub thinking: Option<ThinkLevel>,
    /// The directory the tools work in (default: the current directory).
    #[arg(long)]
    pub workspace: Option<PathBuf>,
    /// The bash tool's sandbox: workspace-write, read-only or off (default: `sandbox.mode`).
    #[arg(long, value_name = "MODE", value_parser = crate::env_setup::parse_sandbox_mode)]
    pub sandbox: Option<clawloop_core::sandbox::SandboxMode>,
    #[command(flatten)]
    pub approval: crate::approval::ApprovalArgs,
}

impl ChatArgs {
    /// `chat` with its defaults when stdin and stdout are terminals: what `clawloop` alone
    /// starts there. `None` off a terminal, where a script wants the usage error.
    pub fn on_terminal() -> Option<ChatArgs> {
        (std::io::stdin().is_terminal() && std::io::stdout().is_terminal()).then(ChatArgs::defaults)
    }

    fn defaults() -> ChatArgs {
        ChatArgs {
            session_key: DEFAULT_KEY.to_owned(),
            session: None,
            new: false,
            continue_recent: false,
            resume: false,
            model: None,
            thinking: None,
            workspace: None,
            sandbox: None,
            approval: crate::approval::ApprovalArgs::default(),
        }
    }
}

/// `clawloop -c` and `clawloop -r` with no command: the chat in the workspace's most recent
/// session, or one picked, as `pi -c` and `pi -r` start pi's.
#[derive(Debug, Args)]
pub struct BareArgs {
    /// Without a command: chat in this workspace's most recent session.
    #[arg(short = 'c', long = "continue", conflicts_with = "resume")]
    continue_recent: bool,
    /// Without a command: pick one of this workspace's recent sessions to chat in.
    #[arg(short = 'r', long)]
    resume: bool,
}

impl BareArgs {
    /// The flag given, if any (`-c` or `-r`): with a command it is a misplaced one.
    pub fn given(&self) -> Option<&'static str> {
        if self.continue_recent {
            Some("-c")
        } else if self.resume {
            Some("-r")
        } else {
            None
        }
    }

    /// The chat `clawloop` without a command starts: with `-c` or `-r` always (they ask for
    /// it), bare only on a terminal.
    pub fn chat(&self) -> Option<ChatArgs> {
        if !(self.continue_recent || self.resume) {
            return ChatArgs::on_terminal();
        }
        Some(ChatArgs {
            continue_recent: self.continue_recent,
            resume: self.resume,
            ..ChatArgs::defaults()
        })
    }
}

/// The key the chat talks in, and whether it starts with a fresh session.
pub fn session_target(args: &ChatArgs, setup: &Setup) -> Result<(String, bool), String> {
    let flags = SessionFlags {
        session: args.session.as_deref(),
        continue_recent: args.continue_recent,
        resume: args.resume,
        session_key: &args.session_key,
        new: args.new,
    };
    crate::continue_pick::session_target(flags, setup)
}
