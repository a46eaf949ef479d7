//! Subagents (SPEC §8.9, reference §23): a turn's model spawns a child run with the
//! `sessions_spawn` tool; the child runs a whole turn in its own session
//! (`agent:<agentId>:subagent:<uuid>`) on the `subagent` lane with the minimal system prompt,
//! and the runtime's [`SubagentRegistry`](crate::registry::SubagentRegistry) records it.

pub mod session_key;
pub mod spawn_tool;

pub use session_key::{is_subagent_session_key, subagent_depth, subagent_session_key};
pub use spawn_tool::{SESSIONS_SPAWN_TOOL, SessionsSpawnTool};
