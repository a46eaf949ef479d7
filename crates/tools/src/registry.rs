//! The set of tools a run offers: lookup by name, the allow/deny policy, definitions per schema
//! dialect, and call validation.

use std::sync::Arc;

use clawloop_core::model::ToolDefinition;
use clawloop_core::tool::Tool;
use serde_json::Value;

use crate::policy::ToolPolicy;
use crate::schema::{Dialect, normalize};
use crate::validate::{ValidationError, validate_arguments};

/// Longest tool name providers accept (OpenAI, Anthropic, Gemini: 64).
pub const MAX_TOOL_NAME_LEN: usize = 64;

/// Why a tool could not be registered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// Two tools with one name.
    #[error("A tool named {0} is already registered")]
    Duplicate(String),
    /// A name providers reject (`^[a-zA-Z0-9_-]{1,64}$`).
    #[error("Invalid tool name {0:?}: use 1 to 64 ASCII letters, digits, '_' or '-'")]
    InvalidName(String),
}

/// Why a call cannot run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CallError {
    /// No tool has the called name; the text is pi's agent-loop error.
    #[error("Tool {0} not found")]
    NotFound(String),
    /// The arguments do not fit the schema.
    #[error(transparent)]
    Invalid(#[from] ValidationError),
}

/// Tools by name, in registration order (the order they are offered to the model).
#[derive(Clone, Default)]
pub struct ToolRegistry {
    tools: Vec<Arc<dyn Tool>>,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("tools", &self.names())
            .finish()
    }
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        ToolRegistry::default()
    }

    /// A registry holding `tools`, refusing duplicates and invalid names.
    pub fn from_tools<I>(tools: I) -> Result<Self, RegistryError>
    where
        I: IntoIterator<Item = Arc<dyn Tool>>,
    {
        let mut registry = ToolRegistry::new();
        for tool in tools {
            registry.register(tool)?;
        }
        Ok(registry)
    }

    /// Adds `tool`.
    pub fn register(&mut self, tool: Arc<dyn Tool>) -> Result<(), RegistryError> {
        let name = tool.name();
        if !is_valid_name(name) {
            return Err(RegistryError::InvalidName(name.to_owned()));
        }
        if self.get(name).is_some() {
            return Err(RegistryError::Duplicate(name.to_owned()));
        }
        self.tools.push(tool);
        Ok(())
    }

    /// Adds `tool`, replacing a tool of the same name in place (e.g. a per-run override).
    pub fn upsert(&mut self, tool: Arc<dyn Tool>) -> Result<(), RegistryError> {
        if !is_valid_name(tool.name()) {
            return Err(RegistryError::InvalidName(tool.name().to_owned()));
        }
        match self.tools.iter_mut().find(|t| t.name() == tool.name()) {
            Some(slot) => *slot = tool,
            None => self.tools.push(tool),
        }
        Ok(())
    }

    /// The tool called `name` (exact match, as pi's loop looks tools up).
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.iter().find(|tool| tool.name() == name)
    }

    /// Every tool, in order.
    pub fn tools(&self) -> &[Arc<dyn Tool>] {
        &self.tools
    }

    /// Every tool name, in order.
    pub fn names(&self) -> Vec<&str> {
        self.tools.iter().map(|tool| tool.name()).collect()
    }

    /// How many tools there are.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The tools `policy` allows, in the same order.
    #[must_use]
    pub fn filtered(&self, policy: &ToolPolicy) -> ToolRegistry {
        ToolRegistry {
            tools: self
                .tools
                .iter()
                .filter(|tool| policy.allows(tool.name()))
                .cloned()
                .collect(),
        }
    }

    /// The definitions sent to the model, schemas rewritten for `dialect`.
    pub fn definitions(&self, dialect: Dialect) -> Vec<ToolDefinition> {
        self.tools
            .iter()
            .map(|tool| ToolDefinition {
                name: tool.name().to_owned(),
                description: tool.description().to_owned(),
                parameters: normalize(tool.parameters(), dialect),
            })
            .collect()
    }

    /// Looks the called tool up and validates the arguments (pi's `validateToolCall`, with the
    /// agent loop's not-found text), returning the tool and the coerced arguments.
    pub fn validate_call(
        &self,
        name: &str,
        args: &Value,
    ) -> Result<(Arc<dyn Tool>, Value), CallError> {
        let tool = self
            .get(name)
            .ok_or_else(|| CallError::NotFound(name.to_owned()))?;
        let args = validate_arguments(name, tool.parameters(), args)?;
        Ok((Arc::clone(tool), args))
    }
}

/// Whether providers accept `name` as a tool name.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_TOOL_NAME_LEN
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}
