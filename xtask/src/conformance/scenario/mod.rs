//! Typed scenario cases: one module per kind mirrors FORMAT.md (and `validate.py`) field for
//! field with `deny_unknown_fields`, so anything the runner would not understand fails the case.

pub mod auth;
pub mod chunker;
pub mod classify;
pub mod decode;
pub mod guard;
pub mod history;
pub mod message;
pub mod run;
pub mod session;
pub mod subscribe;
pub mod tags;
pub mod thinking;
pub mod truncate;
pub mod values;
pub mod vocab;
pub mod wire;

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde_json::Value;

use self::decode::{DecodeError, decode, type_name};
use super::kind::Kind;

/// The fields a case object may have.
const CASE_FIELDS: [&str; 5] = ["kind", "name", "description", "input", "expect"];

/// One parsed case.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// Unique within its file.
    pub name: String,
    /// Its kind.
    pub kind: Kind,
    /// Free text.
    pub description: Option<String>,
    /// Typed input and expect.
    pub spec: Spec,
    /// The raw `expect` object (`{}` when omitted): what the comparer checks.
    pub expect: Value,
    /// Directory of the scenario file (`bodyFile` resolves against it).
    pub base_dir: PathBuf,
}

/// Typed input and expect, per kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Spec {
    /// `chunker`
    Chunker(chunker::ChunkerInput, chunker::ChunkerExpect),
    /// `tags`
    Tags(tags::TagsInput, tags::TagsExpect),
    /// `classify`
    Classify(classify::ClassifyInput, classify::ClassifyExpect),
    /// `thinking`
    Thinking(thinking::ThinkingInput, thinking::ThinkingExpect),
    /// `guard`
    Guard(guard::GuardInput, guard::GuardExpect),
    /// `history`
    History(history::HistoryInput, history::HistoryExpect),
    /// `truncate`
    Truncate(truncate::TruncateInput, truncate::TruncateExpect),
    /// `auth` (checks live in the steps)
    Auth(auth::AuthInput),
    /// `session`
    Session(session::SessionInput, session::SessionExpect),
    /// `wire`
    Wire(values::Checked<wire::WireInput>, wire::WireExpect),
    /// `subscribe`
    Subscribe(subscribe::SubscribeInput, subscribe::SubscribeExpect),
    /// `run` (checks live in the turns)
    Run(run::RunInput),
}

/// The case's name as far as it can be read, for reporting before (or without) a full parse.
pub fn raw_name(case: &Value) -> Option<&str> {
    case.get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.trim().is_empty())
}

/// The case's kind string as written, for `--kind` filtering before a full parse.
pub fn raw_kind(case: &Value) -> Option<&str> {
    case.get("kind").and_then(Value::as_str)
}

/// Parses one case object; `base_dir` is the scenario file's directory.
pub fn parse_case(value: &Value, base_dir: &Path) -> Result<Case, DecodeError> {
    let Value::Object(map) = value else {
        return Err(DecodeError::new(
            "",
            format!("case must be an object, got {}", type_name(value)),
        ));
    };
    if let Some(unknown) = map.keys().find(|k| !CASE_FIELDS.contains(&k.as_str())) {
        return Err(DecodeError::new(
            "",
            format!(
                "unknown field `{unknown}`, expected one of {}",
                CASE_FIELDS.map(|f| format!("`{f}`")).join(", ")
            ),
        ));
    }
    let name = match map.get("name") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        Some(Value::String(_)) => return Err(DecodeError::new("name", "must not be empty")),
        Some(other) => {
            return Err(DecodeError::new(
                "name",
                format!("expected string, got {}", type_name(other)),
            ));
        }
        None => return Err(DecodeError::new("", "missing field `name`")),
    };
    let description = match map.get("description") {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            return Err(DecodeError::new(
                "description",
                format!("expected string, got {}", type_name(other)),
            ));
        }
    };
    let kind = match map.get("kind") {
        Some(Value::String(s)) => s
            .parse::<Kind>()
            .map_err(|e| DecodeError::new("kind", e.to_string()))?,
        Some(other) => {
            return Err(DecodeError::new(
                "kind",
                format!("expected string, got {}", type_name(other)),
            ));
        }
        None => return Err(DecodeError::new("", "missing field `kind`")),
    };
    let Some(input) = map.get("input") else {
        return Err(DecodeError::new("", "missing field `input`"));
    };
    let expect = match map.get("expect") {
        None if kind.expect_lives_elsewhere() => Value::Object(Default::default()),
        None => return Err(DecodeError::new("", "missing field `expect`")),
        Some(Value::Object(m)) if m.is_empty() && !kind.expect_lives_elsewhere() => {
            return Err(DecodeError::new("expect", "empty: the case checks nothing"));
        }
        Some(Value::Object(m)) if !m.is_empty() && kind.expect_lives_elsewhere() => {
            let (article, lives) = if kind == Kind::Auth {
                ("an", "steps")
            } else {
                ("a", "turns")
            };
            return Err(DecodeError::new(
                "expect",
                format!(
                    "{article} {kind} case's top-level expect must be omitted or {{}} (its checks live in its {lives})"
                ),
            ));
        }
        Some(v @ Value::Object(_)) => v.clone(),
        Some(other) => {
            return Err(DecodeError::new(
                "expect",
                format!("expected object, got {}", type_name(other)),
            ));
        }
    };
    let spec = parse_spec(kind, input, &expect)?;
    if let Spec::Wire(w, _) = &spec {
        check_body_file(w, base_dir)?;
    }
    Ok(Case {
        name,
        kind,
        description,
        spec,
        expect,
        base_dir: base_dir.to_path_buf(),
    })
}

fn parse_spec(kind: Kind, input: &Value, expect: &Value) -> Result<Spec, DecodeError> {
    Ok(match kind {
        Kind::Chunker => {
            let (i, e) = pair(input, expect)?;
            Spec::Chunker(i, e)
        }
        Kind::Tags => {
            let (i, e) = pair(input, expect)?;
            Spec::Tags(i, e)
        }
        Kind::Classify => {
            let (i, e) = pair(input, expect)?;
            Spec::Classify(i, e)
        }
        Kind::Thinking => {
            let (i, e) = pair(input, expect)?;
            Spec::Thinking(i, e)
        }
        Kind::Guard => {
            let (i, e) = pair(input, expect)?;
            Spec::Guard(i, e)
        }
        Kind::History => {
            let i = history::HistoryInput::decode(input).map_err(|e| e.under("input"))?;
            let e = i.decode_expect(expect).map_err(|e| e.under("expect"))?;
            Spec::History(i, e)
        }
        Kind::Truncate => {
            let i = truncate::TruncateInput::decode(input).map_err(|e| e.under("input"))?;
            let e = i.decode_expect(expect).map_err(|e| e.under("expect"))?;
            Spec::Truncate(i, e)
        }
        Kind::Auth => {
            let i = decode(input).map_err(|e| e.under("input"))?;
            Spec::Auth(i)
        }
        Kind::Session => {
            let (i, e) = pair(input, expect)?;
            Spec::Session(i, e)
        }
        Kind::Wire => {
            let (i, e) = pair(input, expect)?;
            Spec::Wire(i, e)
        }
        Kind::Subscribe => {
            let (i, e) = pair(input, expect)?;
            Spec::Subscribe(i, e)
        }
        Kind::Run => {
            let i = decode(input).map_err(|e| e.under("input"))?;
            Spec::Run(i)
        }
    })
}

fn pair<I: DeserializeOwned, E: DeserializeOwned>(
    input: &Value,
    expect: &Value,
) -> Result<(I, E), DecodeError> {
    let i = decode(input).map_err(|e| e.under("input"))?;
    let e = decode(expect).map_err(|e| e.under("expect"))?;
    Ok((i, e))
}

fn check_body_file(w: &wire::WireInput, base_dir: &Path) -> Result<(), DecodeError> {
    let Some(rel) = &w.body_file else {
        return Ok(());
    };
    let rel = Path::new(&rel.0);
    if rel.is_absolute() {
        return Err(DecodeError::new(
            "input.bodyFile",
            "must be relative to the scenario file",
        ));
    }
    let full = base_dir.join(rel);
    if full.is_file() {
        Ok(())
    } else {
        Err(DecodeError::new(
            "input.bodyFile",
            format!("file not found: {}", full.display()),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value) -> Result<Case, DecodeError> {
        parse_case(&v, Path::new("."))
    }

    #[test]
    fn parses_classify() {
        let c = parse(
            json!({"kind": "classify", "name": "n", "input": {"message": "x", "status": 429},
            "expect": {"reason": "rate_limit", "userText": "t"}}),
        )
        .unwrap();
        assert_eq!(c.kind, Kind::Classify);
        assert!(matches!(c.spec, Spec::Classify(..)));
    }

    #[test]
    fn unknown_top_level_field() {
        let e = parse(
            json!({"kind": "classify", "name": "n", "input": {"message": "x"},
            "expect": {"reason": null}, "extra": 1}),
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("unknown field `extra`"), "{e}");
    }

    #[test]
    fn unknown_expect_field_names_path() {
        let e = parse(json!({"kind": "guard", "name": "n", "input": {}, "expect": {"tokenz": 1}}))
            .unwrap_err();
        assert!(e.path.starts_with("expect"), "{e}");
        assert!(e.message.contains("unknown field `tokenz`"), "{e}");
    }

    #[test]
    fn unknown_kind() {
        let e = parse(json!({"kind": "nope", "name": "n", "input": {}, "expect": {"a": 1}}))
            .unwrap_err();
        assert_eq!(e.path, "kind");
        assert!(e.message.contains("unknown kind \"nope\""), "{e}");
    }

    #[test]
    fn expect_rules() {
        let e = parse(json!({"kind": "guard", "name": "n", "input": {}})).unwrap_err();
        assert!(e.message.contains("missing field `expect`"), "{e}");
        let e =
            parse(json!({"kind": "guard", "name": "n", "input": {}, "expect": {}})).unwrap_err();
        assert!(e.message.contains("empty"), "{e}");
        let auth = json!({"kind": "auth", "name": "n", "input": {"nowMs": 0, "profiles": {},
            "steps": [{"op": "advanceClock", "ms": 5}]}});
        parse(auth.clone()).unwrap();
        let mut with_expect = auth;
        with_expect["expect"] = json!({"x": 1});
        assert!(parse(with_expect).is_err());
    }

    #[test]
    fn nested_step_errors_have_full_path() {
        let e = parse(json!({"kind": "auth", "name": "n", "input": {"nowMs": 0, "profiles": {},
            "steps": [{"op": "clearExpired"}, {"op": "stats", "profile": "p", "expect": {"errorCount": "x"}}]}}))
        .unwrap_err();
        assert_eq!(e.path, "input.steps[1].expect.errorCount", "{e}");
    }

    #[test]
    fn history_expect_follows_op() {
        parse(
            json!({"kind": "history", "name": "n", "input": {"op": "historyLimitFromSessionKey",
            "sessionKey": "k"}, "expect": {"limit": null}}),
        )
        .unwrap();
        let e = parse(
            json!({"kind": "history", "name": "n", "input": {"op": "historyLimitFromSessionKey",
            "sessionKey": "k"}, "expect": {"messages": []}}),
        )
        .unwrap_err();
        assert!(e.message.contains("unknown field `messages`"), "{e}");
        let e = parse(json!({"kind": "history", "name": "n", "input": {"op": "bogus"}, "expect": {"limit": 1}}))
            .unwrap_err();
        assert_eq!(e.path, "input.op");
    }

    #[test]
    fn run_reply_checks() {
        let e = parse(json!({"kind": "run", "name": "n", "input": {"config": {}, "turns": [{"prompt": "p",
            "responses": [{"reply": {"text": "a", "textChunks": ["b"]}}], "expect": {"requests": 1}}]}}))
        .unwrap_err();
        assert_eq!(e.path, "input.turns[0].responses[0].reply", "{e}");
        let e = parse(
            json!({"kind": "run", "name": "n", "input": {"config": {}, "turns": [{"prompt": "p",
            "responses": [], "expect": {}}]}}),
        )
        .unwrap_err();
        assert!(e.path.starts_with("input.turns[0].expect"), "{e}");
    }
}
