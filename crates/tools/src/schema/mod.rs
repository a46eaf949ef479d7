//! JSON schemas of tool arguments: generation from typed argument structs (schemars) and the
//! per-provider dialects a schema is rewritten into before it is sent (SPEC §7).
//!
//! A tool's [`parameters`](clawloop_core::Tool::parameters) is the *plain* schema: what schemars
//! generates, minus `$schema` and the Rust struct's root `title`. Providers accept different
//! subsets, so [`normalize`] rewrites a copy per [`Dialect`]; validation always runs against the
//! plain schema.

mod gemini;
mod generate;
mod openai_strict;
mod refs;

pub use generate::{generate, strip_root_metadata};

use clawloop_core::model::Api;
use serde_json::Value;

/// The schema flavours providers accept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// As generated (Anthropic, OpenAI non-strict, Ollama): full JSON Schema minus `$schema`.
    Plain,
    /// OpenAI strict mode (`strict: true`): every object closed with
    /// `additionalProperties: false` and every property required, optional ones made nullable;
    /// `format`s strict mode rejects are dropped.
    OpenAiStrict,
    /// Gemini function declarations (an OpenAPI 3.0 subset): `$ref`s inlined, `$defs` and
    /// unsupported keywords removed, `const` as a one-value `enum`, null variants folded away.
    Gemini,
}

impl Dialect {
    /// Every dialect, in the order golden files are named.
    pub const ALL: [Dialect; 3] = [Dialect::Plain, Dialect::OpenAiStrict, Dialect::Gemini];

    /// A short name (`plain`, `openai-strict`, `gemini`), used for golden file names.
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::Plain => "plain",
            Dialect::OpenAiStrict => "openai-strict",
            Dialect::Gemini => "gemini",
        }
    }

    /// The dialect a wire API needs. pi sends OpenAI tools with `strict: false`, so OpenAI APIs
    /// get the plain schema; strict mode is chosen explicitly with [`Dialect::OpenAiStrict`].
    pub fn for_api(api: &Api) -> Dialect {
        match api {
            Api::GoogleGenerativeAi => Dialect::Gemini,
            _ => Dialect::Plain,
        }
    }
}

/// A copy of `schema` rewritten for `dialect`.
pub fn normalize(schema: &Value, dialect: Dialect) -> Value {
    let mut out = schema.clone();
    strip_root_metadata(&mut out);
    match dialect {
        Dialect::Plain => out,
        Dialect::OpenAiStrict => openai_strict::normalize(out),
        Dialect::Gemini => gemini::normalize(out),
    }
}
