//! `clawloop-tools`: the tools an agent can call.
//!
//! This crate will own (SPEC §7): implementations of core's tool trait, the registry with its
//! allow/deny policy, JSON schemas and their per-provider dialects, argument validation with
//! coercion, the built-in coding tools (`read`, `write`, `edit`, `bash`, `grep`, `find`, `ls`)
//! confined to the workspace, the `message` tool, and client (hosted) tools.
//!
//! It depends only on `clawloop-core`.
//!
//! # Example
//!
//! The crate is not filled yet; a tool's outcome is reported with core's types:
//!
//! ```
//! use clawloop_core::StopReason;
//! assert_eq!(StopReason::ToolUse.as_str(), "toolUse");
//! ```
