//! Approvals on the command line: `--approval never|on-request|always` (else
//! `sandbox.approval`) and `--yes`, and [`TerminalApprover`], which asks y/N on the terminal,
//! approves everything under `--yes`, and denies when there is no terminal to ask on.

mod key_reader;
mod question;

use std::io::IsTerminal;
use std::sync::{Arc, OnceLock};

use clap::Args;
use clawloop_core::approval::{ApprovalDecision, ApprovalPolicy, ApprovalRequest, Approver};
use clawloop_core::tool::BoxFuture;

use crate::render::term::{Term, TermCaps};
use key_reader::KeyPress;
use question::{Answer, DENIED, answer_of, question};

/// `--approval` and `--yes`, shared by `run` and `chat`.
#[derive(Debug, Clone, Default, Args)]
pub struct ApprovalArgs {
    /// When bash commands wait for your yes: never, on-request (the model may ask to run one
    /// command outside the sandbox) or always (default: `sandbox.approval`).
    #[arg(long, value_name = "POLICY", value_parser = parse_approval)]
    pub approval: Option<ApprovalPolicy>,
    /// Approve every command that asks, without a prompt (needed to approve off a terminal).
    #[arg(long)]
    pub yes: bool,
}

fn parse_approval(text: &str) -> Result<ApprovalPolicy, String> {
    text.parse()
        .map_err(|err: clawloop_core::approval::UnknownApprovalPolicy| err.to_string())
}

/// The sentence the model reads when nobody can be asked.
const NO_TERMINAL: &str =
    "there is no terminal to ask the user on (clawloop runs with --yes to approve commands)";

/// The CLI's approver.
#[derive(Debug)]
pub struct TerminalApprover {
    yes: bool,
    /// The renderer's terminal, once there is one: the prompt hides its spinner.
    term: OnceLock<Term>,
    /// One question at a time (parallel tool calls).
    asking: tokio::sync::Mutex<()>,
}

impl TerminalApprover {
    /// An approver; `yes` approves without asking.
    pub fn new(yes: bool) -> Arc<Self> {
        Arc::new(TerminalApprover {
            yes,
            term: OnceLock::new(),
            asking: tokio::sync::Mutex::new(()),
        })
    }

    /// Shows the prompt through `term` (the renderer's), so it hides the spinner first.
    pub fn attach(&self, term: &Term) {
        let _ = self.term.set(term.clone());
    }

    async fn ask(&self, request: &ApprovalRequest) -> ApprovalDecision {
        let Some(lines) = question(request) else {
            return ApprovalDecision::Deny(format!(
                "the command is too long to show the user for approval ({} bytes)",
                request.command.len()
            ));
        };
        let _one_at_a_time = self.asking.lock().await;
        let term = self
            .term
            .get()
            .cloned()
            .unwrap_or_else(|| Term::new(TermCaps::detect()));
        let spinning = term.hide_spin();
        for line in &lines {
            term.err_line(line);
        }
        let answer = match KeyPress::start() {
            Ok(mut press) => {
                term.err_text(&term.paint_err(anstyle::Style::new().bold(), "Allow? [y/N] "));
                let mut open = OpenPrompt {
                    term: &term,
                    waiting: true,
                };
                let answer = answer_of(press.key().await);
                open.waiting = false;
                answer
            }
            Err(err) => {
                term.err_line(&format!("clawloop: cannot read the terminal: {err}"));
                Answer::Closed
            }
        };
        term.err_line(match answer {
            Answer::Yes => "y",
            Answer::No | Answer::Closed => "n",
            Answer::Interrupt => "^C",
        });
        if let Some(label) = spinning {
            term.spin(label);
        }
        match answer {
            Answer::Yes => ApprovalDecision::Approve,
            Answer::No | Answer::Closed => ApprovalDecision::Deny(DENIED.to_owned()),
            Answer::Interrupt => {
                // The terminal sent no SIGINT (signals were off for the key): stop the turn
                // the way Ctrl-C always does.
                let _ = rustix::process::kill_process(
                    rustix::process::getpid(),
                    rustix::process::Signal::INT,
                );
                ApprovalDecision::Deny("the user interrupted the turn".to_owned())
            }
        }
    }
}

/// The prompt's line while it waits for the key: an aborted turn drops the wait, and the
/// line is ended then, so what follows starts on a line of its own.
struct OpenPrompt<'a> {
    term: &'a Term,
    /// No key came yet.
    waiting: bool,
}

impl Drop for OpenPrompt<'_> {
    fn drop(&mut self) {
        if self.waiting {
            self.term.err_line("");
        }
    }
}

impl Approver for TerminalApprover {
    fn decide<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalDecision> {
        Box::pin(async move {
            if self.yes {
                return ApprovalDecision::Approve;
            }
            if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
                return ApprovalDecision::Deny(NO_TERMINAL.to_owned());
            }
            self.ask(request).await
        })
    }
}
