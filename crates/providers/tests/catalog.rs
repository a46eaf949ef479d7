//! The model catalog (built-ins, config merge, lookup errors) and API-key resolution.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use clawloop_core::model::InputKind;
use clawloop_core::{Api, Model, ModelCost};
use clawloop_providers::api_key::{
    ApiKeyError, ApiKeyResolver, ApiKeySource, EnvFn, provider_env_key,
    resolve_api_key_from_process_env,
};
use clawloop_providers::catalog::{CatalogError, ModelCatalog, ModelsConfig};
use pretty_assertions::assert_eq;
use serde_json::{Map, Value, json};

fn config(value: Value) -> ModelsConfig {
    serde_json::from_value(value).unwrap()
}

fn sonnet() -> Model {
    Model {
        id: "claude-sonnet-4-5".into(),
        name: "Claude Sonnet 4.5".into(),
        api: Api::AnthropicMessages,
        provider: "anthropic".into(),
        base_url: "https://api.anthropic.com".into(),
        reasoning: true,
        input: vec![InputKind::Text, InputKind::Image],
        cost: ModelCost {
            input: 3.0,
            output: 15.0,
            cache_read: 0.3,
            cache_write: 3.75,
        },
        context_window: 200_000,
        max_tokens: 64_000,
        headers: BTreeMap::new(),
        compat: None,
        extra: Map::new(),
    }
}

const PROVIDERS: [&str; 9] = [
    "anthropic",
    "deepseek",
    "google",
    "groq",
    "mistral",
    "ollama",
    "openai",
    "openrouter",
    "xai",
];

#[test]
fn built_in_models_are_found_by_reference() {
    let catalog = ModelCatalog::builtin();
    assert_eq!(catalog.providers().collect::<Vec<_>>(), PROVIDERS);
    assert_eq!(
        catalog.resolve("anthropic/claude-sonnet-4-5").unwrap(),
        &sonnet()
    );
    // The model part may contain slashes.
    let gpt5 = catalog.resolve("openrouter/openai/gpt-5").unwrap();
    assert_eq!(
        (gpt5.provider.as_str(), gpt5.id.as_str(), gpt5.api.as_str()),
        ("openrouter", "openai/gpt-5", "openai-completions")
    );
    let mistral = catalog.resolve("mistral/mistral-large-latest").unwrap();
    assert_eq!(
        mistral
            .compat
            .as_ref()
            .and_then(|c| c.get("maxTokensField")),
        Some(&json!("max_tokens"))
    );
    let local = catalog.resolve("ollama/gpt-oss:20b").unwrap();
    assert_eq!(
        (local.api.clone(), local.cost),
        (Api::Ollama, ModelCost::default())
    );
    for provider in PROVIDERS {
        assert!(catalog.models(provider).count() >= 2, "{provider}");
    }
    assert_eq!(catalog.models("nope").count(), 0);
}

#[test]
fn config_overrides_and_extends_built_ins() {
    let catalog = ModelCatalog::from_config(&config(json!({
        "providers": {
            "anthropic": {
                "baseUrl": "https://proxy.example/anthropic",
                "apiKey": "MY_ANTHROPIC_KEY",
                "headers": {"x-team": "core"},
                "models": [
                    {"id": "claude-sonnet-4-5", "contextWindow": 1000000, "contextTokens": 400000},
                    {"id": "claude-next", "reasoning": true, "input": ["text", "image"], "maxTokens": 32000}
                ]
            },
            "mistral": {"compat": {"supportsUsageInStreaming": false}},
            "vllm": {
                "api": "openai-completions",
                "baseUrl": "http://gpu.local:8000/v1",
                "compat": {"supportsDeveloperRole": false},
                "models": [
                    {"id": "qwen3-coder", "name": "Qwen3 Coder", "cost": {"input": 0.1, "output": 0.2},
                     "compat": {"maxTokensField": "max_tokens"}},
                    {"id": "embedder", "api": "ollama", "baseUrl": "http://other:11434"}
                ]
            }
        }
    })))
    .unwrap();

    // An override changes only what it names; provider settings reach every model.
    let mut expected = sonnet();
    expected.base_url = "https://proxy.example/anthropic".into();
    expected.headers.insert("x-team".into(), "core".into());
    expected.context_window = 1_000_000;
    expected.extra.insert("contextTokens".into(), json!(400000));
    assert_eq!(
        catalog.resolve("anthropic/claude-sonnet-4-5").unwrap(),
        &expected
    );
    let haiku = catalog.resolve("anthropic/claude-haiku-4-5").unwrap();
    assert_eq!(haiku.base_url, "https://proxy.example/anthropic");
    assert_eq!(catalog.api_key_spec("anthropic"), Some("MY_ANTHROPIC_KEY"));
    assert_eq!(catalog.api_key_spec("openai"), None);

    // A new model of a built-in provider inherits its API and the overridden base URL.
    assert_eq!(
        catalog.resolve("anthropic/claude-next").unwrap(),
        &Model {
            id: "claude-next".into(),
            name: "claude-next".into(),
            api: Api::AnthropicMessages,
            provider: "anthropic".into(),
            base_url: "https://proxy.example/anthropic".into(),
            reasoning: true,
            input: vec![InputKind::Text, InputKind::Image],
            cost: ModelCost::default(),
            context_window: 128_000,
            max_tokens: 32_000,
            headers: BTreeMap::from([("x-team".to_owned(), "core".to_owned())]),
            compat: None,
            extra: Map::new(),
        }
    );

    // Compat flags merge: built-in, then provider config.
    assert_eq!(
        catalog
            .resolve("mistral/mistral-small-latest")
            .unwrap()
            .compat,
        Some(
            json!({"supportsStore": false, "supportsDeveloperRole": false,
                    "maxTokensField": "max_tokens", "requiresToolResultName": true,
                    "requiresThinkingAsText": true, "supportsUsageInStreaming": false})
        )
    );

    // A custom provider.
    assert_eq!(
        catalog.resolve("vllm/qwen3-coder").unwrap(),
        &Model {
            id: "qwen3-coder".into(),
            name: "Qwen3 Coder".into(),
            api: Api::OpenaiCompletions,
            provider: "vllm".into(),
            base_url: "http://gpu.local:8000/v1".into(),
            reasoning: false,
            input: vec![InputKind::Text],
            cost: ModelCost {
                input: 0.1,
                output: 0.2,
                cache_read: 0.0,
                cache_write: 0.0,
            },
            context_window: 128_000,
            max_tokens: 16_384,
            headers: BTreeMap::new(),
            compat: Some(json!({"supportsDeveloperRole": false, "maxTokensField": "max_tokens"})),
            extra: Map::new(),
        }
    );
    let embedder = catalog.resolve("vllm/embedder").unwrap();
    assert_eq!(
        (embedder.api.clone(), embedder.base_url.as_str()),
        (Api::Ollama, "http://other:11434")
    );
    assert_eq!(catalog.providers().count(), PROVIDERS.len() + 1);
}

#[test]
fn unknown_references_name_what_exists() {
    let catalog = ModelCatalog::builtin();
    let err = catalog.resolve("openia/gpt-5").unwrap_err();
    assert_eq!(
        err,
        CatalogError::UnknownProvider {
            provider: "openia".into(),
            model: "gpt-5".into(),
            known_providers: PROVIDERS.iter().map(|p| (*p).to_owned()).collect(),
        }
    );
    assert_eq!(
        err.to_string(),
        "unknown provider \"openia\" in model \"openia/gpt-5\"; known providers: anthropic, \
         deepseek, google, groq, mistral, ollama, openai, openrouter, xai"
    );

    let err = catalog.resolve("deepseek/deepseek-v9").unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown model \"deepseek/deepseek-v9\": provider \"deepseek\" has no model \
         \"deepseek-v9\" (its models: deepseek-chat, deepseek-reasoner); add it under \
         [models.providers.deepseek] models in the config. Known providers: anthropic, \
         deepseek, google, groq, mistral, ollama, openai, openrouter, xai"
    );

    let err = catalog.resolve("gpt-5").unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid model reference \"gpt-5\": expected \"provider/model\" (for example \
         \"anthropic/claude-sonnet-4-5\"); did you mean openai/gpt-5?"
    );
    assert!(matches!(
        catalog.resolve(""),
        Err(CatalogError::InvalidReference { suggestions, .. }) if suggestions.is_empty()
    ));
}

#[test]
fn bad_config_is_a_clear_error_and_changes_nothing() {
    let cases = [
        (
            json!({"lmstudio": {"models": [{"id": "m", "api": "openai-completions"}]}}),
            "models.providers.lmstudio.models[id = \"m\"]: \"baseUrl\" is required when \
             defining custom models; set it at provider or model level",
        ),
        (
            json!({"lmstudio": {"baseUrl": "http://h/v1", "models": [{"id": "m"}]}}),
            "models.providers.lmstudio.models[id = \"m\"]: no \"api\" specified; set it at \
             provider or model level",
        ),
        (
            json!({"openai": {"models": [{"id": "gpt-5", "contextWindow": 0}]}}),
            "models.providers.openai.models[id = \"gpt-5\"]: contextWindow: must be a positive \
             number of tokens",
        ),
        (
            json!({"openai": {"models": [{"id": "x", "maxTokens": 0}]}}),
            "models.providers.openai.models[id = \"x\"]: maxTokens: must be a positive number \
             of tokens",
        ),
        (
            json!({"openai": {"api": "openai-completion"}}),
            "models.providers.openai: api: unknown api \"openai-completion\"; expected one of \
             openai-completions, openai-responses, anthropic-messages, google-generative-ai, ollama",
        ),
        (
            json!({"openai": {"compat": true}}),
            "models.providers.openai: compat: must be a table of flags",
        ),
        (
            json!({"openai": {"baseUrl": "api.openai.com"}}),
            "models.providers.openai: baseUrl: \"api.openai.com\" is not an http(s) URL: it must \
             start with http:// or https://",
        ),
        (
            json!({"open-ai": {"apiKey": "k"}}),
            "models.providers.open-ai: not a known provider and defines no models; known \
             providers: anthropic, deepseek, google, groq, mistral, ollama, openai, openrouter, xai",
        ),
        (
            json!({"openai": {"models": [{"id": "a"}, {"id": " a "}]}}),
            "models.providers.openai.models[id = \"a\"]: this model id appears twice",
        ),
        (
            json!({"openai": {"models": [{"id": "  "}]}}),
            "models.providers.openai: a model entry has an empty id",
        ),
        (
            json!({"openai": {"models": [{"id": "a", "input": []}]}}),
            "models.providers.openai.models[id = \"a\"]: input: must name at least one kind \
             (\"text\", \"image\")",
        ),
    ];
    for (providers, message) in cases {
        let mut catalog = ModelCatalog::builtin();
        // A valid entry sorted before the bad one must not be half-applied.
        let mut providers = providers;
        providers["anthropic"] = json!({"baseUrl": "https://changed.example"});
        let err = catalog
            .merge(&config(json!({"providers": providers})))
            .unwrap_err();
        assert_eq!(err.to_string(), message);
        assert_eq!(catalog, ModelCatalog::builtin(), "{message}");
    }
}

fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

#[test]
fn api_keys_from_env_names_literals_and_provider_env() {
    let vars = env(&[
        ("MY_KEY", "sk-from-env"),
        ("OPENAI_API_KEY", "sk-openai"),
        ("GEMINI_API_KEY", "  "),
    ]);
    let resolver = ApiKeyResolver::new(&vars);

    let key = resolver.resolve("openai", Some("MY_KEY")).unwrap().unwrap();
    assert_eq!(
        (key.value(), key.source()),
        ("sk-from-env", &ApiKeySource::ConfiguredEnv("MY_KEY".into()))
    );
    let key = resolver
        .resolve("openai", Some(" sk-literal "))
        .unwrap()
        .unwrap();
    assert_eq!(
        (key.value(), key.source()),
        ("sk-literal", &ApiKeySource::Literal)
    );
    // An unset name is taken literally (pi does the same).
    let key = resolver
        .resolve("openai", Some("UNSET_KEY"))
        .unwrap()
        .unwrap();
    assert_eq!(key.into_value(), "UNSET_KEY");

    let key = resolver.resolve("openai", None).unwrap().unwrap();
    assert_eq!(
        (key.value(), key.source()),
        (
            "sk-openai",
            &ApiKeySource::ProviderEnv("OPENAI_API_KEY".into())
        )
    );
    // A blank configured value falls back to the provider's variable.
    assert_eq!(
        resolver
            .resolve("openai", Some("  "))
            .unwrap()
            .map(|k| k.into_value()),
        Some("sk-openai".to_owned())
    );
    // A blank variable is no key; Ollama and unknown providers need or have none.
    assert_eq!(resolver.resolve("google", None).unwrap(), None);
    assert_eq!(resolver.resolve("ollama", None).unwrap(), None);
    assert_eq!(resolver.resolve("lmstudio", None).unwrap(), None);

    let expected_keys = [
        ("openai", "OPENAI_API_KEY"),
        ("anthropic", "ANTHROPIC_API_KEY"),
        ("google", "GEMINI_API_KEY"),
        ("openrouter", "OPENROUTER_API_KEY"),
        ("groq", "GROQ_API_KEY"),
        ("xai", "XAI_API_KEY"),
        ("mistral", "MISTRAL_API_KEY"),
        ("deepseek", "DEEPSEEK_API_KEY"),
    ];
    for (provider, name) in expected_keys {
        assert_eq!(provider_env_key(provider), Some(name));
    }
    assert_eq!(provider_env_key("ollama"), None);

    // The Debug output never shows the key.
    let key = resolver
        .resolve("openai", Some("sk-hidden-value"))
        .unwrap()
        .unwrap();
    assert!(!format!("{key:?}").contains("sk-hidden-value"));

    // Closures work as environments, and the process-env convenience reads nothing it
    // should not need.
    let from_fn = EnvFn(|name: &str| (name == "K").then(|| "v".to_owned()));
    assert_eq!(
        ApiKeyResolver::new(&from_fn)
            .resolve("x", Some("K"))
            .unwrap()
            .map(|k| k.into_value()),
        Some("v".to_owned())
    );
    assert_eq!(
        resolve_api_key_from_process_env("no-such-provider", None).unwrap(),
        None
    );
}

#[test]
fn api_keys_from_commands() {
    let vars = env(&[("SECRET_SOURCE", "sk-via-cmd-env")]);
    let resolver = ApiKeyResolver::new(&vars);
    let key = resolver
        .resolve("openai", Some("!echo key"))
        .unwrap()
        .unwrap();
    assert_eq!((key.value(), key.source()), ("key", &ApiKeySource::Command));
    let key = resolver
        .resolve("openai", Some("!printf '  sk-cmd-123 \\n\\n'"))
        .unwrap()
        .unwrap();
    assert_eq!(key.value(), "sk-cmd-123");

    let err = resolver
        .resolve(
            "openai",
            Some("!echo sk-should-not-leak; echo 'vault: not signed in' >&2; exit 3"),
        )
        .unwrap_err();
    assert_eq!(
        err,
        ApiKeyError::CommandFailed {
            provider: "openai".into(),
            exit_code: Some(3),
            stderr: "vault: not signed in".into(),
        }
    );
    let message = err.to_string();
    assert_eq!(
        message,
        "apiKey command of provider \"openai\" failed with exit code 3: vault: not signed in"
    );
    assert!(!message.contains("sk-should-not-leak") && !message.contains("echo"));

    assert_eq!(
        resolver.resolve("openai", Some("!true")).unwrap_err(),
        ApiKeyError::EmptyOutput {
            provider: "openai".into()
        }
    );
    assert_eq!(
        resolver.resolve("openai", Some("!  ")).unwrap_err(),
        ApiKeyError::EmptyCommand {
            provider: "openai".into()
        }
    );
}

#[test]
fn a_slow_key_command_times_out_and_is_killed() {
    let vars = HashMap::new();
    let resolver = ApiKeyResolver::new(&vars).with_command_timeout(Duration::from_millis(200));
    let started = Instant::now();
    // A pipeline, so killing only `sh` would leave `sleep` behind.
    let err = resolver
        .resolve("anthropic", Some("!sleep 30; echo late"))
        .unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        err,
        ApiKeyError::CommandTimedOut {
            provider: "anthropic".into(),
            timeout: Duration::from_millis(200),
        }
    );
    assert_eq!(
        err.to_string(),
        "apiKey command of provider \"anthropic\" timed out after 0.2s and was killed"
    );
    // A background child holding the output pipe open does not stall resolution: the key
    // printed before the command exited is taken.
    let started = Instant::now();
    let key = resolver
        .resolve("anthropic", Some("!(sleep 2 &) ; echo sk-early"))
        .unwrap()
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(key.into_value(), "sk-early");
}
