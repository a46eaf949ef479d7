//! Thinking (reasoning) levels: parsing with aliases, pi's token budgets, and the thinking-level
//! fallback after a provider rejected a level (reference §17).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::classify::is_reasoning_constraint_error;
use crate::classify::js_regex::{is_js_whitespace, js_regexes, js_trim};
use crate::model::ThinkingBudgets;

js_regexes! {
    SUPPORTED_VALUES_ARE_RE = (r"supported values are:\s*([^\n.]+)", "i");
    SUPPORTED_VALUES_RE = (r"supported values:\s*([^\n.]+)", "i");
    QUOTED_VALUE_RE = (r#"['"]([^'"]+)['"]"#, "g");
    VALUE_SPLIT_RE = (r",|\band\b", "gi");
    NOT_SUPPORTED_RE = (r"not supported", "i");
}

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

/// `normalizeThinkLevel` (OpenClaw `auto-reply/thinking.shared.ts`): the level a user or
/// provider spelling stands for, case-insensitive and trimmed.
///
/// Canonical names, plus: `on|enable|enabled` → low, `min` → minimal,
/// `thinkhard|think-hard|think_hard` → low, `mid|med|harder|thinkharder|think-harder` → medium,
/// `ultra|ultrathink|highest|max|thinkhardest` → high, `think` → minimal, and (ignoring spaces,
/// `_` and `-`) `auto` → adaptive, `extrahigh`/`x-high` → xhigh. Anything else gives `None`.
pub fn normalize_think_level(raw: &str) -> Option<ThinkLevel> {
    let key = js_trim(raw).to_lowercase();
    if key.is_empty() {
        return None;
    }
    let collapsed: String = key
        .chars()
        .filter(|c| !(is_js_whitespace(*c) || *c == '_' || *c == '-'))
        .collect();
    match collapsed.as_str() {
        "adaptive" | "auto" => return Some(ThinkLevel::Adaptive),
        "xhigh" | "extrahigh" => return Some(ThinkLevel::Xhigh),
        _ => {}
    }
    match key.as_str() {
        "off" => Some(ThinkLevel::Off),
        "on" | "enable" | "enabled" => Some(ThinkLevel::Low),
        "min" | "minimal" => Some(ThinkLevel::Minimal),
        "low" | "thinkhard" | "think-hard" | "think_hard" => Some(ThinkLevel::Low),
        "mid" | "med" | "medium" | "thinkharder" | "think-harder" | "harder" => {
            Some(ThinkLevel::Medium)
        }
        "high" | "ultra" | "ultrathink" | "thinkhardest" | "highest" | "max" => {
            Some(ThinkLevel::High)
        }
        "think" => Some(ThinkLevel::Minimal),
        _ => None,
    }
}

/// The text given to [`ThinkLevel::from_str`] names no thinking level.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown thinking level {0:?} (expected off, minimal, low, medium, high, xhigh or adaptive)"
)]
pub struct UnknownThinkLevel(pub String);

impl FromStr for ThinkLevel {
    type Err = UnknownThinkLevel;

    /// Parses with [`normalize_think_level`], so aliases such as `max` or `auto` are accepted.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        normalize_think_level(s).ok_or_else(|| UnknownThinkLevel(s.to_owned()))
    }
}

/// pi's default thinking token budget for budget-style APIs (pi-mono §1.3): minimal 1024, low
/// 2048, medium 8192, high 16384, and `xhigh` clamped to `high` as pi's
/// `adjustMaxTokensForThinking` clamps it; `None` for off and adaptive (no fixed budget).
///
/// The table and the rule are [`ThinkingBudgets`]'s: this is its default, so the providers
/// (which read budgets from the stream options) and callers without options agree.
pub fn thinking_budget(level: ThinkLevel) -> Option<u64> {
    ThinkingBudgets::default().budget(level)
}

/// The values a provider error lists after `supported values are:` / `supported values:` (up to
/// a newline or a dot): the quoted tokens if any, else the text split on `,` and the word `and`
/// with non-letters trimmed from both ends.
fn extract_supported_values(raw: &str) -> Vec<String> {
    let Some(fragment) = SUPPORTED_VALUES_ARE_RE
        .captures(raw)
        .or_else(|| SUPPORTED_VALUES_RE.captures(raw))
        .and_then(|c| c.get(1))
        .map(|m| m.as_str())
    else {
        return Vec::new();
    };
    let quoted: Vec<&str> = QUOTED_VALUE_RE
        .captures_iter(fragment)
        .filter_map(|c| c.get(1))
        .map(|m| js_trim(m.as_str()))
        .collect();
    if !quoted.is_empty() {
        return quoted
            .into_iter()
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
    }
    VALUE_SPLIT_RE
        .split(fragment)
        .map(|entry| js_trim(entry.trim_matches(|c: char| !c.is_ascii_alphabetic())))
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// `pickFallbackThinkingLevel` (reference §17): the level to retry with after a provider
/// rejected the thinking level, or `None` to stop falling back.
///
/// Empty message → `None`; a reasoning-constraint error → `minimal` unless attempted; else the
/// first supported value the error lists that normalizes and was not attempted; with no list,
/// `not supported` → `off` unless attempted.
pub fn pick_fallback_thinking_level(message: &str, attempted: &[ThinkLevel]) -> Option<ThinkLevel> {
    let raw = js_trim(message);
    if raw.is_empty() {
        return None;
    }
    if is_reasoning_constraint_error(raw) && !attempted.contains(&ThinkLevel::Minimal) {
        return Some(ThinkLevel::Minimal);
    }
    let supported = extract_supported_values(raw);
    if supported.is_empty() {
        return (NOT_SUPPORTED_RE.is_match(raw) && !attempted.contains(&ThinkLevel::Off))
            .then_some(ThinkLevel::Off);
    }
    supported
        .iter()
        .filter_map(|entry| normalize_think_level(entry))
        .find(|level| !attempted.contains(level))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ThinkLevel::{Adaptive, High, Low, Medium, Minimal, Off, Xhigh};
    use pretty_assertions::assert_eq;

    #[test]
    fn regexes_compile() {
        assert_eq!(force_all_regexes(), 5);
    }

    #[test]
    fn normalize_vectors() {
        let cases: Vec<(&str, Option<ThinkLevel>)> = vec![
            ("off", Some(Off)),
            (" OFF ", Some(Off)),
            ("on", Some(Low)),
            ("enable", Some(Low)),
            ("enabled", Some(Low)),
            ("min", Some(Minimal)),
            ("minimal", Some(Minimal)),
            ("think", Some(Minimal)),
            ("low", Some(Low)),
            ("thinkhard", Some(Low)),
            ("think-hard", Some(Low)),
            ("think_hard", Some(Low)),
            ("mid", Some(Medium)),
            ("med", Some(Medium)),
            ("medium", Some(Medium)),
            ("harder", Some(Medium)),
            ("think-harder", Some(Medium)),
            ("high", Some(High)),
            ("ultra", Some(High)),
            ("ultrathink", Some(High)),
            ("highest", Some(High)),
            ("max", Some(High)),
            ("xhigh", Some(Xhigh)),
            ("x-high", Some(Xhigh)),
            ("Extra High", Some(Xhigh)),
            ("extrahigh", Some(Xhigh)),
            ("adaptive", Some(Adaptive)),
            ("auto", Some(Adaptive)),
            ("AUTO", Some(Adaptive)),
            ("", None),
            ("   ", None),
            ("none", None),
            ("disabled", None),
            ("maximum", None),
            ("x_high", Some(Xhigh)),
            ("thinkhardest", Some(High)),
            ("think hard", None),
            ("Auto ", Some(Adaptive)),
        ];
        let got: Vec<(&str, Option<ThinkLevel>)> = cases
            .iter()
            .map(|(raw, _)| (*raw, normalize_think_level(raw)))
            .collect();
        assert_eq!(got, cases);
    }

    #[test]
    fn from_str_names_the_bad_value() {
        assert_eq!("Max".parse::<ThinkLevel>(), Ok(High));
        let err = "turbo".parse::<ThinkLevel>().unwrap_err();
        assert_eq!(err, UnknownThinkLevel("turbo".into()));
        assert!(err.to_string().contains("\"turbo\""));
        for level in ThinkLevel::ALL {
            assert_eq!(level.as_str().parse::<ThinkLevel>(), Ok(level));
        }
    }

    #[test]
    fn budgets() {
        let got: Vec<_> = ThinkLevel::ALL
            .iter()
            .map(|l| (*l, thinking_budget(*l)))
            .collect();
        assert_eq!(
            got,
            vec![
                (Off, None),
                (Minimal, Some(1024)),
                (Low, Some(2048)),
                (Medium, Some(8192)),
                (High, Some(16384)),
                (Xhigh, Some(16384)),
                (Adaptive, None),
            ]
        );
    }

    #[test]
    fn fallback_vectors() {
        let cases: Vec<(&str, Vec<ThinkLevel>, Option<ThinkLevel>)> = vec![
            ("", vec![], None),
            ("   ", vec![], None),
            (
                r#"Supported values are: "high", "medium""#,
                vec![],
                Some(High),
            ),
            (
                r#"Supported values are: "high", "medium""#,
                vec![High],
                Some(Medium),
            ),
            (
                r#"Supported values are: "high", "medium""#,
                vec![High, Medium],
                None,
            ),
            (
                r#"400 think value "low" is not supported for this model"#,
                vec![Low],
                Some(Off),
            ),
            (
                r#"400 think value "low" is not supported for this model"#,
                vec![Low, Off],
                None,
            ),
            (
                "400 Reasoning is mandatory for this endpoint and cannot be disabled.",
                vec![Off],
                Some(Minimal),
            ),
            (
                "400 Reasoning is mandatory for this endpoint and cannot be disabled.",
                vec![Off, Minimal],
                None,
            ),
            (
                "rate limit exceeded, please retry after 30 seconds",
                vec![High],
                None,
            ),
            (
                "Invalid reasoning effort. Supported values: low, medium, and high",
                vec![Xhigh],
                Some(Low),
            ),
            (
                "Invalid reasoning effort. Supported values: low, medium, and high",
                vec![Low],
                Some(Medium),
            ),
            (
                "Supported values are: 'minimal', 'max'",
                vec![Minimal],
                Some(High),
            ),
            ("supported values are: foo, bar", vec![], None),
            ("Supported values: (none)", vec![], None),
            (
                "Unsupported value: 'xhigh' is not supported with this model. Supported values are: 'low', 'medium', and 'high'.",
                vec![Xhigh],
                Some(Low),
            ),
            ("supported values are: LOW and HIGH", vec![Low], Some(High)),
            (
                "Supported values: none, minimal, low.",
                vec![],
                Some(Minimal),
            ),
            (r#"Supported values are: "", "auto""#, vec![], None),
        ];
        for (message, attempted, expected) in cases {
            assert_eq!(
                pick_fallback_thinking_level(message, &attempted),
                expected,
                "{message} {attempted:?}"
            );
        }
    }
}
