//! `clawloop-tools`: the tools an agent can call (SPEC §7).
//!
//! Implementations of core's [`Tool`](clawloop_core::Tool) trait and what surrounds them: the
//! registry with its allow/deny policy, JSON schemas and their per-provider dialects, argument
//! validation with pi's coercion, execution semantics (parallel or sequential, results in call
//! order, steering skips, hooks, streaming, cancellation), the built-in coding tools (`read`,
//! `write`, `edit`, `bash`, `grep`, `find`, `ls`) confined to the workspace, the `message` tool,
//! and client (hosted) tools.
//!
//! It depends only on `clawloop-core`. Nothing here touches process-global state: the working
//! directory and environment overlay travel in [`ToolContext`](clawloop_core::ToolContext).
//!
//! # Example
//!
//! The built-ins, narrowed by a policy, offered in a provider's schema dialect; a call's
//! arguments validated with pi's coercion:
//!
//! ```
//! use clawloop_tools::{Dialect, ToolPolicy, ToolRegistry, builtins::builtin_tools};
//! use serde_json::json;
//!
//! let registry = ToolRegistry::from_tools(builtin_tools(None))?
//!     .filtered(&ToolPolicy::allow_only(["read", "grep", "find", "ls"]));
//! let definitions = registry.definitions(Dialect::OpenAiStrict);
//! assert_eq!(definitions[0].parameters["additionalProperties"], json!(false));
//!
//! let (_read, args) = registry.validate_call("read", &json!({"path": "a.rs", "offset": "3"}))?;
//! assert_eq!(args, json!({"path": "a.rs", "offset": 3}));
//! let missing = registry.validate_call("bash", &json!({"command": "ls"})).err();
//! assert_eq!(missing.map(|e| e.to_string()), Some("Tool bash not found".to_owned()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

mod args_schema;
pub mod bash;
mod blocking;
pub mod builtins;
pub mod call_hooks;
pub mod client_tools;
mod confined;
mod confined_walk;
pub mod edit;
pub mod execute;
mod file_kind;
pub mod find;
mod fs_error;
pub mod grep;
mod js_format;
pub mod ls;
pub mod message_tool;
pub mod policy;
pub mod read;
mod read_only;
pub mod registry;
pub mod schema;
pub mod truncate;
pub mod validate;
pub mod workspace;
pub mod write;

pub use execute::{ExecutionMode, ExecutionOutcome, ToolExecutor};
pub use policy::ToolPolicy;
pub use registry::ToolRegistry;
pub use schema::Dialect;
