//! Helpers for `Debug` impls of types that hold secrets (API keys, tokens, header values,
//! free-form maps that may carry either): they print that a value is there, never the value,
//! so a `{:?}` in a log line or an error report cannot leak a key.

/// What a hidden value prints as.
pub const REDACTED: &str = "<redacted>";

/// `Some("<redacted>")` for a set value, `None` for an unset one.
pub fn secret<T>(value: &Option<T>) -> Option<&'static str> {
    value.as_ref().map(|_| REDACTED)
}

/// The keys of `map`, for a `Debug` field: header and free-form maps show which entries exist
/// (what debugging needs) and hide their values (which may be keys or tokens).
pub fn keys_only<'a, K, V, M>(map: &'a M) -> Vec<&'a K>
where
    &'a M: IntoIterator<Item = (&'a K, &'a V)>,
    K: 'a,
    V: 'a,
{
    map.into_iter().map(|(key, _)| key).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn values_are_hidden_and_keys_kept() {
        let map: BTreeMap<String, String> =
            [("authorization".to_owned(), "sk-x".to_owned())].into();
        assert_eq!(format!("{:?}", keys_only(&map)), r#"["authorization"]"#);
        assert_eq!(secret(&Some("sk-x")), Some(REDACTED));
        assert_eq!(secret::<String>(&None), None);
    }
}
