//! The agent: pi-agent-core's loop and the queues that steer it.

pub mod agent_loop;
pub mod persist;
pub mod queues;
pub mod session;
mod summarizing;

pub use agent_loop::{
    AgentLoopConfig, AgentLoopOutcome, ContextTransform, ContinueError, TransformError,
    continue_agent_loop, run_agent_loop,
};
pub use persist::{PersistError, Persister, TranscriptHandle};
pub use queues::{DequeueMode, MessageQueues};
pub use session::{
    AgentSession, AgentSessionError, AutoCompactionSettings, CompactionRequest, CompactionTrigger,
    PromptOutcome, TranscriptCompactor,
};
