//! The agent: pi-agent-core's loop and the queues that steer it.

pub mod agent_loop;
pub mod queues;

pub use agent_loop::{
    AgentLoopConfig, AgentLoopOutcome, ContextTransform, ContinueError, TransformError,
    continue_agent_loop, run_agent_loop,
};
pub use queues::{DequeueMode, MessageQueues};
