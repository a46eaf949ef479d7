//! The model catalog (SPEC §4): built-in entries for the main providers (SPEC §2) merged with
//! `models.providers` from the config, looked up by `provider/model`.
//!
//! * [`builtin`]: the static table ([`BUILTIN_MODELS`], [`BUILTIN_PROVIDERS`]).
//! * [`ModelsConfig`]: the config section as serde types.
//! * [`ModelCatalog`]: lookup ([`ModelCatalog::resolve`]) and merge ([`ModelCatalog::merge`]).
//!
//! API keys are resolved separately, by [`crate::api_key`].

pub mod builtin;
mod check;
mod config;
mod error;
mod key_variables;
mod merge;
mod model_ref;
mod registry;

pub use builtin::{
    BUILTIN_MODELS, BUILTIN_PROVIDERS, BuiltinModel, BuiltinProvider, builtin_provider,
};
pub use check::InvalidKey;
pub use config::{ModelConfig, ModelsConfig, ProviderConfig};
pub use error::CatalogError;
pub use model_ref::parse_model_ref;
pub use registry::ModelCatalog;
