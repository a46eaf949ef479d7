//! `sessions_spawn` (OpenClaw `agents/tools/sessions-spawn-tool.ts`, reference §23): the model
//! hands a task to a child agent. Here the child's whole turn runs inside the tool call, so the
//! tool result carries the child's answer; the runtime's registry records the run, and the
//! child's session is deleted or kept as `cleanup` asks.
//!
//! The tool holds the [`TurnEnv`] it spawns children with. There is no reference cycle: a turn
//! builds the tool for its own run from a clone of its env, whose tool list never contains a
//! spawn tool, and the tool is dropped with the run.

use std::sync::{Arc, LazyLock};

use clawloop_core::ThinkLevel;
use clawloop_core::classify::is_timeout_error_message;
use clawloop_core::tool::{BoxFuture, Tool, ToolContext, ToolError, ToolResult, ToolUpdate};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::registry::{
    SubagentCleanup, SubagentEndedReason, SubagentOutcome, SubagentRunRecord, SubagentStatus,
};
use crate::subagent::session_key::{subagent_depth, subagent_session_key};
use crate::turn::{AgentRunLoopResult, TurnEnv, TurnIo, TurnRequest, run_agent_turn_with_fallback};

/// The tool's name.
pub const SESSIONS_SPAWN_TOOL: &str = "sessions_spawn";

const DESCRIPTION: &str = "Spawn a sub-agent to carry out a task in its own isolated session and wait for its answer. The sub-agent shares the workspace but not this conversation, so give it everything it needs in `task`. Returns JSON with status, runId, childSessionKey and the sub-agent's result.";

static PARAMETERS: LazyLock<Value> = LazyLock::new(|| {
    json!({
        "type": "object",
        "properties": {
            "task": {"type": "string", "description": "What the sub-agent should do, with all the context it needs."},
            "label": {"type": "string", "description": "Short task title shown in lists; name the work, not the agent."},
            "agentId": {"type": "string", "description": "The agent to run (only this agent is available)."},
            "model": {"type": "string", "description": "Model override (`provider/model` or a model id)."},
            "thinking": {"type": "string", "description": "Thinking level override (off, minimal, low, medium, high, xhigh)."},
            "cleanup": {"type": "string", "enum": ["delete", "keep"], "description": "Delete the sub-agent's session when it is done, or keep it (default)."}
        },
        "required": ["task"]
    })
});

/// The spawn tool of one turn: children run with `env` and are recorded as spawned by
/// `requester_session_key`.
pub struct SessionsSpawnTool {
    env: TurnEnv,
    requester_session_key: String,
}

impl std::fmt::Debug for SessionsSpawnTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionsSpawnTool")
            .field("agent_id", &self.env.agent_id)
            .field("requester_session_key", &self.requester_session_key)
            .finish_non_exhaustive()
    }
}

/// The arguments, read.
struct SpawnArgs {
    task: String,
    label: Option<String>,
    agent_id: Option<String>,
    model: Option<String>,
    thinking: Option<ThinkLevel>,
    cleanup: SubagentCleanup,
}

impl SpawnArgs {
    fn read(args: &Value) -> Result<SpawnArgs, ToolError> {
        let text = |name: &str| {
            args.get(name)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        };
        let task = text("task").ok_or_else(|| {
            ToolError::InvalidArguments("sessions_spawn needs a non-empty `task`.".to_owned())
        })?;
        let thinking = match text("thinking") {
            Some(raw) => Some(raw.parse::<ThinkLevel>().map_err(|_| {
                ToolError::InvalidArguments(format!(
                    "sessions_spawn: unknown thinking level {raw:?} (use off, minimal, low, medium, high or xhigh)."
                ))
            })?),
            None => None,
        };
        let cleanup = match text("cleanup").as_deref() {
            Some("delete") => SubagentCleanup::Delete,
            _ => SubagentCleanup::Keep,
        };
        Ok(SpawnArgs {
            task,
            label: text("label"),
            agent_id: text("agentId"),
            model: text("model"),
            thinking,
            cleanup,
        })
    }
}

impl SessionsSpawnTool {
    /// The spawn tool for a turn of `requester_session_key`, or `None` when the runtime does
    /// not offer subagents or the session is already as deep as spawning may nest.
    pub fn for_turn(env: &TurnEnv, requester_session_key: &str) -> Option<Arc<dyn Tool>> {
        let settings = env.runtime.subagents().settings()?;
        if subagent_depth(requester_session_key) >= settings.max_spawn_depth {
            return None;
        }
        Some(Arc::new(SessionsSpawnTool {
            env: env.clone(),
            requester_session_key: requester_session_key.to_owned(),
        }))
    }

    /// Why this spawn may not happen, as the model reads it.
    fn refusal(&self, args: &SpawnArgs) -> Option<String> {
        if let Some(agent_id) = &args.agent_id
            && !agent_id.eq_ignore_ascii_case(&self.env.agent_id)
        {
            return Some(format!(
                "agentId is not allowed for sessions_spawn (allowed: {})",
                self.env.agent_id
            ));
        }
        let settings = self.env.runtime.subagents().settings()?;
        let depth = subagent_depth(&self.requester_session_key);
        if depth >= settings.max_spawn_depth {
            return Some(format!(
                "sessions_spawn is not allowed at this depth (current depth: {depth}, max: {})",
                settings.max_spawn_depth
            ));
        }
        let active = self
            .env
            .runtime
            .subagents()
            .active_children(&self.requester_session_key);
        if active >= settings.max_children_per_agent {
            return Some(format!(
                "sessions_spawn has reached max active children for this session ({active}/{})",
                settings.max_children_per_agent
            ));
        }
        None
    }

    async fn spawn(&self, args: SpawnArgs, cancel: CancellationToken) -> Result<Value, ToolError> {
        let registry = self.env.runtime.subagents();
        let clock = self.env.runtime.clock();
        let run_id = clawloop_session::uuid_v4();
        let child_session_key = subagent_session_key(&self.env.agent_id);
        let created_at = clock.now_ms();
        let archive_at_ms = registry
            .settings()
            .and_then(|s| s.archive_after)
            .map(|after| {
                created_at.saturating_add(u64::try_from(after.as_millis()).unwrap_or(u64::MAX))
            });
        registry.register(SubagentRunRecord {
            run_id: run_id.clone(),
            child_session_key: child_session_key.clone(),
            requester_session_key: self.requester_session_key.clone(),
            task: args.task.clone(),
            cleanup: args.cleanup,
            label: args.label.clone(),
            model: args.model.clone(),
            created_at,
            started_at: Some(created_at),
            ended_at: None,
            outcome: None,
            ended_reason: None,
            frozen_result_text: None,
            archive_at_ms,
            cleanup_completed_at: None,
        });

        let request = TurnRequest {
            session_key: child_session_key.clone(),
            prompt: args.task,
            model: args.model,
            thinking: args.thinking,
            run_id: Some(run_id.clone()),
            ..TurnRequest::default()
        };
        let io = TurnIo {
            cancel: cancel.child_token(),
            ..TurnIo::default()
        };
        // Boxed: the child turn runs inside a tool call of the parent turn.
        let result = Box::pin(run_agent_turn_with_fallback(&self.env, request, io)).await;
        let killed = cancel.is_cancelled();
        let (outcome, text) = child_outcome(&result, killed);
        let ended_reason = match (killed, outcome.status) {
            (true, _) => SubagentEndedReason::SubagentKilled,
            (false, SubagentStatus::Ok) => SubagentEndedReason::SubagentComplete,
            (false, _) => SubagentEndedReason::SubagentError,
        };
        let ended_at = clock.now_ms();
        registry.update(&run_id, |record| {
            record.ended_at = Some(ended_at);
            record.outcome = Some(outcome.clone());
            record.ended_reason = Some(ended_reason);
            record.frozen_result_text = Some(text.clone());
        });

        if args.cleanup == SubagentCleanup::Delete {
            match self.env.sessions.delete(&child_session_key).await {
                Ok(_) => {}
                Err(err) => tracing::warn!(
                    target: "clawloop::subagents",
                    "cannot delete the subagent session {child_session_key}: {err}"
                ),
            }
        }
        let cleaned_at = clock.now_ms();
        registry.update(&run_id, |record| {
            record.cleanup_completed_at = Some(cleaned_at);
        });
        if killed {
            return Err(ToolError::Aborted);
        }

        let mut details = Map::new();
        details.insert("status".into(), json!(outcome.status.as_str()));
        details.insert("runId".into(), json!(run_id));
        details.insert("childSessionKey".into(), json!(child_session_key));
        details.insert("cleanup".into(), json!(args.cleanup.as_str()));
        if let Some(label) = args.label {
            details.insert("label".into(), json!(label));
        }
        match &outcome.error {
            Some(error) => details.insert("error".into(), json!(error)),
            None => details.insert("result".into(), json!(text)),
        };
        Ok(Value::Object(details))
    }
}

/// How the child's turn ended, and its answer (or error text).
fn child_outcome(result: &AgentRunLoopResult, killed: bool) -> (SubagentOutcome, String) {
    let failed = |text: String| {
        let status = if is_timeout_error_message(&text) {
            SubagentStatus::Timeout
        } else {
            SubagentStatus::Error
        };
        (
            SubagentOutcome {
                status,
                error: Some(text.clone()),
            },
            text,
        )
    };
    if killed {
        return failed("Operation aborted".to_owned());
    }
    match result {
        AgentRunLoopResult::Success(success) => {
            let run = &success.run_result;
            let answer = run.reply_text();
            let error_text = run
                .payloads
                .iter()
                .filter(|p| p.is_error)
                .filter_map(|p| p.text.clone())
                .collect::<Vec<_>>()
                .join("\n");
            if let Some(error) = &run.meta.error {
                failed(if error_text.is_empty() {
                    error.message.clone()
                } else {
                    error_text
                })
            } else if answer.trim().is_empty() && !error_text.is_empty() {
                failed(error_text)
            } else {
                (
                    SubagentOutcome {
                        status: SubagentStatus::Ok,
                        error: None,
                    },
                    answer,
                )
            }
        }
        AgentRunLoopResult::Final { payload, .. } => {
            failed(payload.text.clone().unwrap_or_default())
        }
    }
}

impl Tool for SessionsSpawnTool {
    fn name(&self) -> &str {
        SESSIONS_SPAWN_TOOL
    }

    fn label(&self) -> &str {
        "Sessions"
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn parameters(&self) -> &Value {
        &PARAMETERS
    }

    fn execute<'a>(
        &'a self,
        _tool_call_id: &'a str,
        args: Value,
        _ctx: &'a ToolContext,
        cancel: CancellationToken,
        _on_update: ToolUpdate,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
        Box::pin(async move {
            let args = SpawnArgs::read(&args)?;
            let details = match self.refusal(&args) {
                Some(error) => json!({"status": "forbidden", "error": error}),
                None => self.spawn(args, cancel).await?,
            };
            let ok = details.get("status").and_then(Value::as_str) == Some("ok");
            let text = serde_json::to_string_pretty(&details)
                .map_err(|err| ToolError::Failed(format!("cannot encode the result: {err}")))?;
            let mut result = ToolResult::text(text);
            result.details = Some(details);
            result.is_error = !ok;
            Ok(result)
        })
    }
}
