//! Thinking (reasoning) levels.

use std::fmt;

use serde::{Deserialize, Serialize};

/// How much the model should think before answering.
///
/// Serialized in lowercase: `off`, `minimal`, `low`, `medium`, `high`, `xhigh`, `adaptive`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ThinkLevel {
    /// No reasoning.
    Off,
    /// The smallest reasoning effort.
    Minimal,
    /// Low effort.
    Low,
    /// Medium effort.
    Medium,
    /// High effort.
    High,
    /// Extra-high effort (only some models).
    Xhigh,
    /// Let the provider decide (adaptive thinking).
    Adaptive,
}

impl ThinkLevel {
    /// Every level, in declaration order.
    pub const ALL: [ThinkLevel; 7] = [
        ThinkLevel::Off,
        ThinkLevel::Minimal,
        ThinkLevel::Low,
        ThinkLevel::Medium,
        ThinkLevel::High,
        ThinkLevel::Xhigh,
        ThinkLevel::Adaptive,
    ];

    /// The canonical name, e.g. `"xhigh"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ThinkLevel::Off => "off",
            ThinkLevel::Minimal => "minimal",
            ThinkLevel::Low => "low",
            ThinkLevel::Medium => "medium",
            ThinkLevel::High => "high",
            ThinkLevel::Xhigh => "xhigh",
            ThinkLevel::Adaptive => "adaptive",
        }
    }
}

impl fmt::Display for ThinkLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
