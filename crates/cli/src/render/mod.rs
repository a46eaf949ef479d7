//! How a turn reaches the terminal, in one of three modes: the answer streamed on stdout as it
//! arrives, with tool activity, a spinner and a last line on stderr; only the final text
//! (`--print`); or pi's JSON lines (`--json`).

pub mod clap_error;
pub mod json;
pub mod sanitize;
pub mod stream;
pub mod summary;
pub mod term;
pub mod tool_line;
pub mod update_throttle;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use anstyle::{AnsiColor, Style};
use clawloop_core::{AgentEvent, AssistantMessageEvent};
use clawloop_runner::attempt::SharedReplySink;
use clawloop_session::SessionHeader;
use clawloop_subscribe::{SubscriptionEvent, SubscriptionSink, extract_assistant_text};

use json::JsonEvents;
use stream::{StreamedText, is_silent};
use summary::{TurnStats, summary_line};
use term::Term;
use tool_line::{PathLabels, tool_end_line, tool_start_line};

/// How a turn's output is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputMode {
    /// The answer as it streams, tool activity and the last line on stderr.
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
        let state = ViewState {
            stream: StreamedText::new(self.mode == OutputMode::Print),
            ..ViewState::default()
        };
        TurnView {
            renderer: self.clone(),
            state: Arc::new(Mutex::new(state)),
        }
    }

    /// pi's first JSON line: the session header.
    pub fn json_header(&self, header: &SessionHeader) {
        if let Ok(line) = serde_json::to_string(header) {
            self.term.out_line(&line);
        }
    }

    /// The end of a turn's output: the streamed answer's line is ended, and the final reply
    /// written where the mode shows it and it was not streamed. `--print` writes the final
    /// assistant message's visible text as the model wrote it, then one newline (the stream
    /// leaves out whitespace at the ends of a message); `reply` (the run's reply payloads)
    /// only when the model streamed no text, as for a notice the runner wrote.
    pub fn final_reply(&self, view: &TurnView, reply: Option<&str>) {
        let mut state = view.lock();
        if self.mode == OutputMode::Blocks {
            self.end_line(&mut state);
        }
        let Some(reply) = reply else {
            return;
        };
        let text = match self.mode {
            OutputMode::Print => state.stream.final_text().unwrap_or(reply),
            OutputMode::Blocks if !state.stream.any() => reply,
            _ => "",
        };
        if !text.is_empty() {
            self.term.out_line(text);
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
            let line = self.term.shown_err(&line);
            self.term
                .err_line(&self.term.paint_err(Style::new().dimmed(), &line));
        }
    }

    /// After a failed or interrupted turn: the session id and how to continue it, on stderr
    /// (not in `--json`, whose first line names the session).
    pub fn session_line(&self, session_id: Option<&str>, hint: &str) {
        if let (Some(id), false) = (session_id, self.mode == OutputMode::Json) {
            let line = format!("session {id}; {hint}");
            self.term.err_line(&self.term.shown_err(&line));
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
        let text = self.term.shown_err(text.trim()).into_owned();
        self.term.err_line(&format!("{prefix} {text}"));
    }

    /// A warning of a turn that still answered: `clawloop: <text>` on stderr, in yellow.
    pub fn warning(&self, text: &str) {
        let prefix = self.term.paint_err(
            Style::new().fg_color(Some(AnsiColor::Yellow.into())).bold(),
            "clawloop:",
        );
        let text = self.term.shown_err(text.trim()).into_owned();
        self.term.err_line(&format!("{prefix} {text}"));
    }

    fn on_event(&self, state: &mut ViewState, event: &AgentEvent) {
        match self.mode {
            OutputMode::Json => state.json.write(&self.term, event),
            OutputMode::Print => self.follow_text(state, event),
            OutputMode::Blocks => {
                self.follow_text(state, event);
                self.show_event(state, event);
            }
        }
    }

    /// What the text stream needs of the events: where text blocks start, and whether a
    /// message whose start was held back turned out silent.
    fn follow_text(&self, state: &mut ViewState, event: &AgentEvent) {
        match event {
            AgentEvent::MessageUpdate {
                assistant_message_event: AssistantMessageEvent::TextStart { .. },
                ..
            } => state.stream.start_block(),
            AgentEvent::MessageEnd { message } if state.stream.holds() => {
                let silent = message
                    .as_assistant()
                    .is_some_and(|assistant| is_silent(&extract_assistant_text(assistant)));
                if let Some(held) = state.stream.end_message(silent)
                    && self.mode == OutputMode::Blocks
                {
                    self.term.stop_spin();
                    self.term.out_text(&held);
                }
            }
            _ => {}
        }
    }

    /// Ends the streamed text's line, if it is open.
    fn end_line(&self, state: &mut ViewState) {
        if state.stream.end_line() {
            self.term.out_text("\n");
        }
    }

    fn show_event(&self, state: &mut ViewState, event: &AgentEvent) {
        match event {
            AgentEvent::MessageEnd { .. } => self.end_line(state),
            AgentEvent::ToolExecutionStart {
                tool_call_id,
                tool_name,
                args,
            } => {
                self.end_line(state);
                state
                    .tool_starts
                    .insert(tool_call_id.clone(), Instant::now());
                let line = tool_start_line(tool_name, args, &self.labels);
                let line = self.term.shown_err(&line);
                let (marker, rest) = line.split_at(line.find(' ').unwrap_or(0));
                self.term.err_line(&format!(
                    "{}{}",
                    self.term
                        .paint_err(Style::new().fg_color(Some(AnsiColor::Cyan.into())), marker),
                    self.term.paint_err(Style::new().dimmed(), rest)
                ));
                // Nothing else moves while the tool runs.
                self.term.spin("running");
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
                let line = self.term.shown_err(&line);
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
                // With every call done the model is called again: waiting for its first token.
                let label = if state.tool_starts.is_empty() {
                    "thinking"
                } else {
                    "running"
                };
                self.term.spin(label);
            }
            AgentEvent::AutoCompactionStart { .. } => self.term.spin("compacting"),
            AgentEvent::AutoCompactionEnd { .. } => self.term.spin("thinking"),
            _ => {}
        }
    }
}

#[derive(Debug, Default)]
struct ViewState {
    stream: StreamedText,
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

    /// The agent event sink: tool lines and the spinner, or the JSON lines; where text blocks
    /// start and messages end for the text stream.
    pub fn events(&self) -> Option<Arc<dyn Fn(AgentEvent) + Send + Sync>> {
        let view = self.clone();
        Some(Arc::new(move |event: AgentEvent| {
            let mut state = view.lock();
            view.renderer.on_event(&mut state, &event);
        }))
    }

    /// Writes what waits for time to pass (`--json`'s held tool updates) every
    /// [`update_throttle::UPDATE_INTERVAL`] until the returned guard is dropped; `None` in the
    /// modes that hold nothing. Must run inside a tokio runtime.
    pub fn ticker(&self) -> Option<Ticker> {
        if self.renderer.mode != OutputMode::Json {
            return None;
        }
        let view = self.clone();
        let task = tokio::spawn(async move {
            let period = update_throttle::UPDATE_INTERVAL;
            let mut every = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
            loop {
                every.tick().await;
                let mut state = view.lock();
                state.json.tick(&view.renderer.term);
            }
        });
        Some(Ticker(task))
    }

    /// The reply sink: the visible answer text as it streams (not in `--json`, whose
    /// `message_update` lines carry it).
    pub fn replies(&self) -> SharedReplySink {
        if self.renderer.mode == OutputMode::Json {
            SharedReplySink::discard()
        } else {
            SharedReplySink::new(self.clone())
        }
    }
}

impl SubscriptionSink for TurnView {
    fn on_assistant_message_start(&mut self) {
        self.lock().stream.start_message();
    }

    // The visible text stream, not block replies: a terminal wants the text as it arrives,
    // blocks are for chat channels. Reasoning never reaches it.
    fn on_agent_event(&mut self, event: SubscriptionEvent<'_>) {
        let SubscriptionEvent::Assistant { delta, .. } = event else {
            return;
        };
        if delta.is_empty() {
            return;
        }
        let mut state = self.lock();
        let shown = state.stream.push(delta);
        if self.renderer.mode == OutputMode::Blocks && !shown.is_empty() {
            self.renderer.term.stop_spin();
            self.renderer.term.out_text(&shown);
        }
    }
}

/// Stops [`TurnView::ticker`]'s task when dropped.
#[derive(Debug)]
pub struct Ticker(tokio::task::JoinHandle<()>);

impl Drop for Ticker {
    fn drop(&mut self) {
        self.0.abort();
    }
}
