//! `provider/model` references (`anthropic/claude-sonnet-4-5`, `openrouter/openai/gpt-5`).

/// Splits `reference` at its first `/` into `(provider, model)`, trimmed; `None` when either
/// part is missing. The model part may itself contain `/` (OpenRouter and Groq ids do).
pub fn parse_model_ref(reference: &str) -> Option<(&str, &str)> {
    let (provider, model) = reference.trim().split_once('/')?;
    let (provider, model) = (provider.trim(), model.trim());
    (!provider.is_empty() && !model.is_empty()).then_some((provider, model))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_at_the_first_slash() {
        assert_eq!(parse_model_ref("openai/gpt-5"), Some(("openai", "gpt-5")));
        assert_eq!(
            parse_model_ref(" openrouter/openai/gpt-5 "),
            Some(("openrouter", "openai/gpt-5"))
        );
        for bad in ["", "gpt-5", "/gpt-5", "openai/", " / "] {
            assert_eq!(parse_model_ref(bad), None, "{bad:?}");
        }
    }
}
