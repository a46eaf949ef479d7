//! `session` kind: JSONL session files and the ops run on them after opening.

use clawloop_core::ThinkLevel;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::decode::{DecodeError, decode, nested, tag};
use super::message::{InputMessage, MessageSummary};
use super::values::Line;

/// Input of a `session` case.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SessionInput {
    /// File lines, in order.
    pub lines: Vec<Line>,
    /// Leave the last line without `\n`.
    pub no_final_newline: Option<bool>,
    /// Ops after opening.
    pub ops: Option<Vec<SessionOp>>,
}

/// An op run on an opened session.
#[derive(Debug, Clone, PartialEq)]
pub enum SessionOp {
    /// Append a message.
    Append {
        /// The message (full or shorthand).
        message: InputMessage,
    },
    /// Move the leaf to an entry.
    Branch {
        /// Entry id.
        id: String,
    },
    /// Append a compaction entry.
    AppendCompaction {
        /// The summary.
        summary: String,
        /// First kept entry.
        first_kept_entry_id: String,
        /// Tokens before compaction.
        tokens_before: f64,
    },
    /// Close and open the file again.
    Reopen,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AppendOp {
    #[allow(dead_code)]
    op: String,
    message: InputMessage,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BranchOp {
    #[allow(dead_code)]
    op: String,
    id: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CompactionOp {
    #[allow(dead_code)]
    op: String,
    summary: String,
    first_kept_entry_id: String,
    tokens_before: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReopenOp {
    #[allow(dead_code)]
    op: String,
}

const OPS: [&str; 4] = ["append", "branch", "appendCompaction", "reopen"];

impl SessionOp {
    fn decode(v: &Value) -> Result<Self, DecodeError> {
        Ok(match tag(v, "op", &OPS)? {
            "append" => SessionOp::Append {
                message: decode::<AppendOp>(v)?.message,
            },
            "branch" => SessionOp::Branch {
                id: decode::<BranchOp>(v)?.id,
            },
            "appendCompaction" => {
                let c: CompactionOp = decode(v)?;
                SessionOp::AppendCompaction {
                    summary: c.summary,
                    first_kept_entry_id: c.first_kept_entry_id,
                    tokens_before: c.tokens_before,
                }
            }
            _ => {
                decode::<ReopenOp>(v)?;
                SessionOp::Reopen
            }
        })
    }
}

impl<'de> Deserialize<'de> for SessionOp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        SessionOp::decode(&v).map_err(nested)
    }
}

/// Expect of a `session` case.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SessionExpect {
    /// Substring of the open error, or null.
    pub error: Option<String>,
    /// Current leaf id.
    pub leaf_id: Option<String>,
    /// Rebuilt context in summary form.
    pub messages: Option<Vec<MessageSummary>>,
    /// Rebuilt thinking level.
    pub thinking_level: Option<ThinkLevel>,
    /// Rebuilt model.
    pub model: Option<ModelRef>,
    /// Entries, header excluded.
    pub entry_count: Option<f64>,
    /// Lines the last open could not use.
    pub skipped_lines: Option<f64>,
    /// Session version.
    pub version: Option<f64>,
    /// Every file line parses after all ops.
    pub file_lines_valid_json: Option<bool>,
}

/// `{"provider","modelId"}`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ModelRef {
    /// Provider id.
    pub provider: Option<String>,
    /// Model id.
    pub model_id: Option<String>,
}
