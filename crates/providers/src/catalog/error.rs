//! Why a model could not be found or the models config is unusable.

/// How many names an error lists before it cuts the list short.
const MAX_LISTED: usize = 40;

/// A catalog lookup or merge failure. Every message names what was asked for and what exists.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CatalogError {
    /// The reference is not `provider/model`.
    #[error(
        "invalid model reference {reference:?}: expected \"provider/model\" \
         (for example \"anthropic/claude-sonnet-4-5\"){}",
        suggestion_text(.suggestions)
    )]
    InvalidReference {
        /// The reference as given.
        reference: String,
        /// Full references that have the given text as their model id.
        suggestions: Vec<String>,
    },
    /// No such provider.
    #[error(
        "unknown provider {provider:?} in model \"{provider}/{model}\"; known providers: {}",
        list(.known_providers)
    )]
    UnknownProvider {
        /// The provider asked for.
        provider: String,
        /// The model asked for.
        model: String,
        /// Every provider the catalog has.
        known_providers: Vec<String>,
    },
    /// The provider exists but has no such model.
    #[error(
        "unknown model \"{provider}/{model}\": provider {provider:?} has no model {model:?} \
         (its models: {}); add it under [models.providers.{provider}] models in the config. \
         Known providers: {}",
        list(.known_models),
        list(.known_providers)
    )]
    UnknownModel {
        /// The provider asked for.
        provider: String,
        /// The model asked for.
        model: String,
        /// The provider's models.
        known_models: Vec<String>,
        /// Every provider the catalog has.
        known_providers: Vec<String>,
    },
    /// A `models.providers` entry is unusable.
    #[error("models.providers.{provider}{}: {message}", model_path(.model))]
    InvalidConfig {
        /// The provider entry.
        provider: String,
        /// The model entry, when the problem is in one.
        model: Option<String>,
        /// What is wrong.
        message: String,
    },
}

impl CatalogError {
    pub(crate) fn config(
        provider: &str,
        model: Option<&str>,
        message: impl Into<String>,
    ) -> CatalogError {
        CatalogError::InvalidConfig {
            provider: provider.to_owned(),
            model: model.map(str::to_owned),
            message: message.into(),
        }
    }
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        return "none".to_owned();
    }
    let mut out = names
        .iter()
        .take(MAX_LISTED)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > MAX_LISTED {
        out.push_str(&format!(", … ({} more)", names.len() - MAX_LISTED));
    }
    out
}

fn suggestion_text(suggestions: &[String]) -> String {
    if suggestions.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", suggestions.join(" or "))
    }
}

fn model_path(model: &Option<String>) -> String {
    model
        .as_ref()
        .map(|id| format!(".models[id = {id:?}]"))
        .unwrap_or_default()
}
