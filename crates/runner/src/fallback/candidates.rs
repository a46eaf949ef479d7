//! Which models a turn tries, in order (`resolveFallbackCandidates`, reference §14).

use clawloop_providers::catalog::parse_model_ref;

use crate::config::ModelSelection;

/// The provider of a run that names no model and has no configured primary (OpenClaw's
/// `DEFAULT_PROVIDER`).
pub const DEFAULT_PROVIDER: &str = "openai";
/// The model of a run that names no model and has no configured primary (OpenClaw 2026.4's
/// `DEFAULT_MODEL`).
pub const DEFAULT_MODEL: &str = "gpt-5.4";

/// One `provider/model` the fallback chain may run.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ModelCandidate {
    /// Provider id (`openai`, `anthropic`, a `models.providers` key, …).
    pub provider: String,
    /// Model id within that provider.
    pub model: String,
}

impl ModelCandidate {
    /// A candidate for `provider`/`model`.
    pub fn new(provider: impl Into<String>, model: impl Into<String>) -> Self {
        ModelCandidate {
            provider: provider.into(),
            model: model.into(),
        }
    }

    /// `provider/model`, the form used in summaries and logs.
    pub fn key(&self) -> String {
        format!("{}/{}", self.provider, self.model)
    }

    fn same(&self, provider: &str, model: &str) -> bool {
        self.provider == provider && self.model == model
    }
}

/// A `provider/model` reference from the config; a bare model id (no `/`) belongs to
/// `default_provider`, as OpenClaw's `resolveModelRefFromString` reads it. References that are
/// neither (`openai/`, `/gpt-5`, blank) name nothing.
fn resolve_ref(raw: &str, default_provider: &str) -> Option<ModelCandidate> {
    if let Some((provider, model)) = parse_model_ref(raw) {
        return Some(ModelCandidate::new(provider, model));
    }
    let bare = raw.trim();
    (!bare.is_empty() && !bare.contains('/')).then(|| ModelCandidate::new(default_provider, bare))
}

/// Candidates in order, each `provider/model` once.
#[derive(Default)]
struct Collector {
    candidates: Vec<ModelCandidate>,
}

impl Collector {
    fn add(&mut self, candidate: ModelCandidate) {
        if candidate.provider.is_empty() || candidate.model.is_empty() {
            return;
        }
        if !self
            .candidates
            .iter()
            .any(|c| c.same(&candidate.provider, &candidate.model))
        {
            self.candidates.push(candidate);
        }
    }
}

/// The models a run tries, in order (reference §14):
///
/// 1. the requested `provider/model` (each part blank or absent: the configured primary's,
///    else [`DEFAULT_PROVIDER`]/[`DEFAULT_MODEL`]);
/// 2. `fallbacks_override` when given — even empty, it replaces the configured list; otherwise
///    `selection.fallbacks`, but only if the requested provider is the configured primary's
///    provider or the requested model is itself one of the configured fallbacks (a session
///    already moved to a fallback keeps the chain; a model of another provider chosen by hand
///    does not inherit it);
/// 3. without an override, the configured primary, last.
///
/// Each `provider/model` appears once (the first place wins). Fallbacks are explicit user
/// intent and are not filtered by any allowlist.
///
/// Unlike OpenClaw, which appends its built-in default model as "the configured primary" when
/// none is configured, nothing is appended when `selection.primary` is unset or names nothing:
/// a model the user never configured is never tried behind their back (SPEC §2: the primary
/// is empty by default).
pub fn resolve_fallback_candidates(
    requested: Option<(&str, &str)>,
    selection: &ModelSelection,
    fallbacks_override: Option<&[String]>,
) -> Vec<ModelCandidate> {
    let configured = selection
        .primary
        .as_deref()
        .and_then(|raw| resolve_ref(raw, DEFAULT_PROVIDER));
    let (default_provider, default_model) = configured
        .as_ref()
        .map_or((DEFAULT_PROVIDER, DEFAULT_MODEL), |c| {
            (c.provider.as_str(), c.model.as_str())
        });

    let (provider_raw, model_raw) = requested.unwrap_or_default();
    let provider = Some(provider_raw.trim())
        .filter(|p| !p.is_empty())
        .unwrap_or(default_provider);
    let model = Some(model_raw.trim())
        .filter(|m| !m.is_empty())
        .unwrap_or(default_model);
    let requested = ModelCandidate::new(provider, model);

    let mut collector = Collector::default();
    collector.add(requested.clone());

    let fallbacks: &[String] = match fallbacks_override {
        Some(list) => list,
        None if requested.provider == default_provider => &selection.fallbacks,
        None => {
            let in_chain = selection
                .fallbacks
                .iter()
                .any(|raw| resolve_ref(raw, default_provider).is_some_and(|c| c == requested));
            if in_chain { &selection.fallbacks } else { &[] }
        }
    };
    for raw in fallbacks {
        if let Some(candidate) = resolve_ref(raw, default_provider) {
            collector.add(candidate);
        }
    }

    if fallbacks_override.is_none()
        && let Some(primary) = configured
    {
        collector.add(primary);
    }
    collector.candidates
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn selection(primary: Option<&str>, fallbacks: &[&str]) -> ModelSelection {
        ModelSelection {
            primary: primary.map(str::to_owned),
            fallbacks: fallbacks.iter().map(|s| (*s).to_owned()).collect(),
            ..ModelSelection::default()
        }
    }

    /// A run with no model anywhere in the config must still find its model: the default is in
    /// the built-in catalog (a fresh install with only `OPENAI_API_KEY` set runs).
    #[test]
    fn the_default_model_is_in_the_builtin_catalog() {
        let catalog = clawloop_providers::catalog::ModelCatalog::builtin();
        let model = catalog
            .get(DEFAULT_PROVIDER, DEFAULT_MODEL)
            .map(|m| m.id.clone());
        assert_eq!(model.ok(), Some(DEFAULT_MODEL.to_owned()));
    }

    fn keys(candidates: &[ModelCandidate]) -> Vec<String> {
        candidates.iter().map(ModelCandidate::key).collect()
    }

    #[test]
    fn candidate_table() {
        struct Case {
            name: &'static str,
            requested: Option<(&'static str, &'static str)>,
            primary: Option<&'static str>,
            fallbacks: &'static [&'static str],
            over: Option<&'static [&'static str]>,
            want: &'static [&'static str],
        }
        let cases = [
            Case {
                name: "nothing requested, nothing configured: the built-in default alone",
                requested: None,
                primary: None,
                fallbacks: &[],
                over: None,
                want: &["openai/gpt-5.4"],
            },
            Case {
                name: "nothing requested: the configured primary, then its fallbacks",
                requested: None,
                primary: Some("acme/m1"),
                fallbacks: &["bolt/b1", "acme/m2"],
                over: None,
                want: &["acme/m1", "bolt/b1", "acme/m2"],
            },
            Case {
                name: "blank parts take the primary's",
                requested: Some((" ", "")),
                primary: Some("acme/m1"),
                fallbacks: &[],
                over: None,
                want: &["acme/m1"],
            },
            Case {
                name: "blank model only: the requested provider with the primary's model",
                requested: Some(("bolt", " ")),
                primary: Some("acme/m1"),
                fallbacks: &["bolt/b1"],
                over: None,
                want: &["bolt/m1", "acme/m1"],
            },
            Case {
                name: "same provider as the primary: the whole chain, primary appended last",
                requested: Some(("acme", "m9")),
                primary: Some("acme/m1"),
                fallbacks: &["bolt/b1"],
                over: None,
                want: &["acme/m9", "bolt/b1", "acme/m1"],
            },
            Case {
                name: "another provider, not in the chain: no configured fallbacks",
                requested: Some(("zed", "z1")),
                primary: Some("acme/m1"),
                fallbacks: &["bolt/b1"],
                over: None,
                want: &["zed/z1", "acme/m1"],
            },
            Case {
                name: "another provider that is itself a configured fallback keeps the chain",
                requested: Some(("bolt", "b1")),
                primary: Some("acme/m1"),
                fallbacks: &["bolt/b1", "cat/c1"],
                over: None,
                want: &["bolt/b1", "cat/c1", "acme/m1"],
            },
            Case {
                name: "same provider, other model of that provider: still not in the chain",
                requested: Some(("bolt", "b2")),
                primary: Some("acme/m1"),
                fallbacks: &["bolt/b1"],
                over: None,
                want: &["bolt/b2", "acme/m1"],
            },
            Case {
                name: "an override replaces the configured list and appends no primary",
                requested: Some(("acme", "m1")),
                primary: Some("acme/m1"),
                fallbacks: &["bolt/b1"],
                over: Some(&["cat/c1"]),
                want: &["acme/m1", "cat/c1"],
            },
            Case {
                name: "an empty override means no fallback at all",
                requested: Some(("acme", "m9")),
                primary: Some("acme/m1"),
                fallbacks: &["bolt/b1"],
                over: Some(&[]),
                want: &["acme/m9"],
            },
            Case {
                name: "an override applies to any provider",
                requested: Some(("zed", "z1")),
                primary: Some("acme/m1"),
                fallbacks: &[],
                over: Some(&["bolt/b1"]),
                want: &["zed/z1", "bolt/b1"],
            },
            Case {
                name: "duplicates collapse to their first place",
                requested: Some(("acme", "m1")),
                primary: Some("acme/m1"),
                fallbacks: &["bolt/b1", "acme/m1", " bolt/b1 ", "bolt/b2"],
                over: None,
                want: &["acme/m1", "bolt/b1", "bolt/b2"],
            },
            Case {
                name: "bare ids belong to the primary's provider; broken references are dropped",
                requested: None,
                primary: Some("acme/m1"),
                fallbacks: &["m2", "openai/", "/x", " ", "bolt/b1"],
                over: None,
                want: &["acme/m1", "acme/m2", "bolt/b1"],
            },
            Case {
                name: "a bare primary belongs to the default provider",
                requested: None,
                primary: Some("gpt-5-mini"),
                fallbacks: &["gpt-5"],
                over: None,
                want: &["openai/gpt-5-mini", "openai/gpt-5"],
            },
            Case {
                name: "no primary: the default provider decides the chain and nothing is appended",
                requested: Some(("openai", "gpt-5")),
                primary: None,
                fallbacks: &["bolt/b1"],
                over: None,
                want: &["openai/gpt-5", "bolt/b1"],
            },
            Case {
                name: "no primary, another provider: no chain, nothing appended",
                requested: Some(("acme", "m1")),
                primary: None,
                fallbacks: &["bolt/b1"],
                over: None,
                want: &["acme/m1"],
            },
            Case {
                name: "an unusable primary counts as none",
                requested: Some(("acme", "m1")),
                primary: Some("acme/"),
                fallbacks: &[],
                over: None,
                want: &["acme/m1"],
            },
            Case {
                name: "the requested parts are trimmed; model ids may hold slashes",
                requested: Some((" openrouter ", " openai/gpt-5 ")),
                primary: Some("openrouter/x/y"),
                fallbacks: &[],
                over: None,
                want: &["openrouter/openai/gpt-5", "openrouter/x/y"],
            },
        ];
        for case in cases {
            let over: Option<Vec<String>> = case
                .over
                .map(|list| list.iter().map(|s| (*s).to_owned()).collect());
            let got = resolve_fallback_candidates(
                case.requested,
                &selection(case.primary, case.fallbacks),
                over.as_deref(),
            );
            assert_eq!(keys(&got), case.want, "{}", case.name);
        }
    }
}
