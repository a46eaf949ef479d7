//! How a turn reaches the terminal, in one of three modes: block replies streamed on stdout
//! with tool activity, a spinner and a last line on stderr; only the final text (`--print`);
//! or pi's JSON lines (`--json`).

pub mod json;
pub mod summary;
pub mod term;
pub mod tool_line;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use anstyle::{AnsiColor, Style};
use clawloop_core::AgentEvent;
use clawloop_runner::attempt::SharedReplySink;
use clawloop_session::SessionHeader;
use clawloop_subscribe::{BlockReply, SubscriptionSink};

use json::JsonEvents;
use summary::{TurnStats, summary_line};
use term::Term;
use tool_line::{PathLabels, tool_end_line, tool_start_line};

/// How a turn's output is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputMode {
    /// Block replies as they arrive, tool activity and the last line on stderr.
    Blocks,
    /// Only the final reply text.
    Print,
    /// pi's JSON mode: the session header, then every event as one line.
    Json,
}

/// Shows turns: the mode, the terminal and how paths are shortened.
#[derive(Debug, Clone)]
pub struct Renderer {
    mode: OutputMode,
    term: Term,
    labels: PathLabels,
}

impl Renderer {
    /// A renderer writing through `term`.
    pub fn new(mode: OutputMode, term: Term, labels: PathLabels) -> Self {
        Renderer { mode, term, labels }
    }

    /// The shared terminal.
    pub fn term(&self) -> &Term {
        &self.term
    }

    /// The sinks and state of one turn.
    pub fn begin_turn(&self) -> TurnView {
        if self.mode == OutputMode::Blocks {
            self.term.spin("thinking");
        }
        TurnView {
            renderer: self.clone(),
            state: Arc::new(Mutex::new(ViewState::default())),
        }
    }

    /// pi's first JSON line: the session header.
    pub fn json_header(&self, header: &SessionHeader) {
        if let Ok(line) = serde_json::to_string(header) {
            self.term.out_line(&line);
        }
    }

    /// The final reply, when the mode shows it and it was not streamed already.
    pub fn final_reply(&self, view: &TurnView, reply: &str) {
        let show = match self.mode {
            OutputMode::Print => true,
            // Block streaming may be off in the config; then the reply arrives only at the end.
            OutputMode::Blocks => !view.wrote_any(),
            OutputMode::Json => false,
        };
        if show && !reply.is_empty() {
            self.term.out_line(reply);
        }
    }

    /// Whether a successful turn ends with [`Renderer::summary`]'s line (block mode only:
    /// `--print` and `--json` keep stderr quiet for scripts).
    pub fn shows_summary(&self) -> bool {
        self.mode == OutputMode::Blocks
    }

    /// The last line of a successful turn, when [`Renderer::shows_summary`].
    pub fn summary(&self, stats: &TurnStats, session: Option<(&str, Option<&str>)>) {
        if self.shows_summary() {
            let line = summary_line(stats, session);
            self.term
                .err_line(&self.term.paint_err(Style::new().dimmed(), &line));
        }
    }

    /// After a failed or interrupted turn: the session id and how to continue it, on stderr
    /// (not in `--json`, whose first line names the session).
    pub fn session_line(&self, session_id: Option<&str>, hint: &str) {
        if let (Some(id), false) = (session_id, self.mode == OutputMode::Json) {
            self.term.err_line(&format!("session {id}; {hint}"));
        }
    }

    /// A notice in chat (`/session`, `/new`…): stdout, uncolored.
    pub fn notice(&self, text: &str) {
        self.term.out_line(text);
    }

    /// A failure: `clawloop: <text>` on stderr.
    pub fn error(&self, text: &str) {
        let prefix = self.term.paint_err(
            Style::new().fg_color(Some(AnsiColor::Red.into())).bold(),
            "clawloop:",
        );
        self.term.err_line(&format!("{prefix} {}", text.trim()));
    }

    fn on_event(&self, state: &mut ViewState, event: &AgentEvent) {
        match self.mode {
            OutputMode::Json => state.json.write(&self.term, event),
            OutputMode::Print => {}
            OutputMode::Blocks => self.show_event(state, event),
        }
    }

    fn show_event(&self, state: &mut ViewState, event: &AgentEvent) {
        match event {
            AgentEvent::MessageUpdate { .. } => self.term.stop_spin(),
            AgentEvent::ToolExecutionStart {
                tool_call_id,
                tool_name,
                args,
            } => {
                self.term.stop_spin();
                state
                    .tool_starts
                    .insert(tool_call_id.clone(), Instant::now());
                let line = tool_start_line(tool_name, args, &self.labels);
                let (marker, rest) = line.split_at(line.find(' ').unwrap_or(0));
                self.term.err_line(&format!(
                    "{}{}",
                    self.term
                        .paint_err(Style::new().fg_color(Some(AnsiColor::Cyan.into())), marker),
                    self.term.paint_err(Style::new().dimmed(), rest)
                ));
            }
            AgentEvent::ToolExecutionEnd {
                tool_call_id,
                result,
                is_error,
                ..
            } => {
                let elapsed = state
                    .tool_starts
                    .remove(tool_call_id)
                    .map(|start| start.elapsed())
                    .unwrap_or_default();
                let line = tool_end_line(result, *is_error, elapsed);
                let color = if *is_error {
                    AnsiColor::Red
                } else {
                    AnsiColor::Green
                };
                self.term.err_line(
                    &self
                        .term
                        .paint_err(Style::new().fg_color(Some(color.into())), &line),
                );
                // The model is called again with the results: waiting for its first token.
                self.term.spin("thinking");
            }
            AgentEvent::AutoCompactionStart { .. } => self.term.spin("compacting"),
            AgentEvent::AutoCompactionEnd { .. } => self.term.stop_spin(),
            _ => {}
        }
    }
}

#[derive(Debug, Default)]
struct ViewState {
    wrote_any: bool,
    tool_starts: HashMap<String, Instant>,
    json: JsonEvents,
}

/// One turn as shown: the event and reply sinks the runner writes to.
#[derive(Debug, Clone)]
pub struct TurnView {
    renderer: Renderer,
    state: Arc<Mutex<ViewState>>,
}

impl TurnView {
    fn lock(&self) -> MutexGuard<'_, ViewState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The agent event sink: tool lines and the spinner, or the JSON lines.
    pub fn events(&self) -> Option<Arc<dyn Fn(AgentEvent) + Send + Sync>> {
        if self.renderer.mode == OutputMode::Print {
            return None;
        }
        let view = self.clone();
        Some(Arc::new(move |event: AgentEvent| {
            let mut state = view.lock();
            view.renderer.on_event(&mut state, &event);
        }))
    }

    /// The block reply sink (block mode), else one that drops everything.
    pub fn replies(&self) -> SharedReplySink {
        if self.renderer.mode == OutputMode::Blocks {
            SharedReplySink::new(self.clone())
        } else {
            SharedReplySink::discard()
        }
    }

    /// Whether a block reply was written.
    pub fn wrote_any(&self) -> bool {
        self.lock().wrote_any
    }
}

impl SubscriptionSink for TurnView {
    fn on_block_reply(&mut self, reply: BlockReply) {
        // Reasoning blocks are not the answer; the default output shows only the answer.
        if reply.is_reasoning || reply.text.is_empty() {
            return;
        }
        let mut state = self.lock();
        self.renderer.term.stop_spin();
        self.renderer.term.out_line(&reply.text);
        state.wrote_any = true;
    }
}
