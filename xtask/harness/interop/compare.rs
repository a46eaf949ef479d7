//! What each side sees in one session file, and where the two disagree.
//!
//! Both sides are reduced to the same plain data ([`Observed`]): pi's from the JSON report of
//! `pi_context.mjs`, clawloop's from a [`Transcript`]. Contexts are compared as JSON, message
//! by message, with nothing normalized: pi hands the parsed file objects through unchanged, so
//! any difference is one clawloop introduced (or a pi behaviour clawloop does not reproduce).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use serde::Deserialize;
use serde_json::{Map, Value};

use clawloop_session::{SessionContext, Transcript};

/// The longest JSON excerpt quoted in a difference; longer ones are cut in the middle.
const EXCERPT: usize = 160;

/// What pi's `SessionManager` saw in a session, as `pi_context.mjs` prints it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PiReport {
    /// The session file.
    pub path: PathBuf,
    /// The session as pi sees it.
    #[serde(flatten)]
    pub observed: Observed,
    /// Whether each line is what `JSON.stringify` writes for it.
    pub lines: LineReport,
}

/// The lines of a file that `JSON.stringify(JSON.parse(line))` would write differently.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LineReport {
    /// Lines in the file.
    pub count: usize,
    /// How many lines pi would write differently.
    pub mismatch_count: usize,
    /// The first few of them.
    pub mismatches: Vec<LineMismatch>,
}

/// One line pi would write differently.
#[derive(Debug, Clone, Deserialize)]
pub struct LineMismatch {
    /// 1-based line number.
    pub line: usize,
    /// The line in the file.
    pub file: String,
    /// What pi writes for the same JSON.
    pub pi: String,
}

/// What one implementation sees in a session file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Observed {
    /// The header's session id.
    pub session_id: String,
    /// Entries, the header not counted.
    pub entry_count: usize,
    /// The leaf after opening (the last entry in file order).
    pub leaf_id: Option<String>,
    /// Entry ids from the root to the leaf.
    pub branch: Vec<String>,
    /// Entry id → current label.
    pub labels: BTreeMap<String, String>,
    /// The session's display name.
    pub session_name: Option<String>,
    /// The context at the leaf: `{messages, thinkingLevel, model}`.
    pub context: Value,
    /// The context with each entry as the leaf, in file order.
    pub contexts_at: Vec<(String, Value)>,
}

impl Observed {
    /// What clawloop sees in `transcript`.
    ///
    /// The per-entry contexts move the leaf with [`Transcript::branch`] so they take the same
    /// path a runtime does ([`Transcript::build_context`], which types only what it needs);
    /// the leaf is put back before returning.
    pub fn from_transcript(transcript: &mut Transcript) -> Result<Observed, String> {
        let leaf_id = transcript.leaf_id().map(str::to_owned);
        let context = context_json(&transcript.build_context())?;
        let ids: Vec<String> = transcript
            .entries()
            .iter()
            .map(|e| e.id().to_owned())
            .collect();
        let mut contexts_at = Vec::with_capacity(ids.len());
        for id in &ids {
            transcript.branch(id).map_err(|e| e.to_string())?;
            contexts_at.push((id.clone(), context_json(&transcript.build_context())?));
        }
        match &leaf_id {
            Some(id) => transcript.branch(id).map_err(|e| e.to_string())?,
            None => transcript.reset_leaf(),
        }
        let branch = match &leaf_id {
            Some(id) => transcript
                .branch_path(id)
                .iter()
                .map(|e| e.id().to_owned())
                .collect(),
            None => Vec::new(),
        };
        let labels = ids
            .iter()
            .filter_map(|id| transcript.label(id).map(|l| (id.clone(), l.to_owned())))
            .collect();
        Ok(Observed {
            session_id: transcript.session_id().to_owned(),
            entry_count: ids.len(),
            leaf_id,
            branch,
            labels,
            session_name: transcript.session_name().map(str::to_owned),
            context,
            contexts_at,
        })
    }
}

/// A context as pi's `SessionContext` JSON.
fn context_json(context: &SessionContext) -> Result<Value, String> {
    let json = |e: serde_json::Error| format!("cannot serialize the context: {e}");
    let mut object = Map::new();
    object.insert(
        "messages".to_owned(),
        serde_json::to_value(&context.messages).map_err(json)?,
    );
    object.insert(
        "thinkingLevel".to_owned(),
        Value::String(context.thinking_level.clone()),
    );
    object.insert(
        "model".to_owned(),
        serde_json::to_value(&context.model).map_err(json)?,
    );
    Ok(Value::Object(object))
}

/// Differences between the contexts at the leaf, the first one of each kind.
pub fn leaf_context(pi: &Observed, ours: &Observed) -> Vec<String> {
    context_differences("", &pi.context, &ours.context)
}

/// Differences between the contexts with every entry as the leaf: one line per entry whose
/// context differs (the leaf's own is checked by [`leaf_context`]).
pub fn every_context(pi: &Observed, ours: &Observed) -> Vec<String> {
    let pi_ids: Vec<&str> = pi.contexts_at.iter().map(|(id, _)| id.as_str()).collect();
    let our_ids: Vec<&str> = ours.contexts_at.iter().map(|(id, _)| id.as_str()).collect();
    if pi_ids != our_ids {
        return vec![format!(
            "entries differ: pi {}, clawloop {}",
            excerpt(&pi_ids.join(",")),
            excerpt(&our_ids.join(","))
        )];
    }
    pi.contexts_at
        .iter()
        .zip(&ours.contexts_at)
        .filter_map(|((id, p), (_, o))| {
            let found = context_differences(&format!("leaf {id}: "), p, o);
            found.into_iter().next()
        })
        .collect()
}

/// Differences in the tree as each side sees it: entry count, leaf, path, labels, name, id.
pub fn tree(pi: &Observed, ours: &Observed) -> Vec<String> {
    let mut found = Vec::new();
    let mut check = |what: &str, p: String, o: String| {
        if p != o {
            found.push(format!(
                "{what}: pi {}, clawloop {}",
                excerpt(&p),
                excerpt(&o)
            ));
        }
    };
    check("session id", pi.session_id.clone(), ours.session_id.clone());
    check(
        "entry count",
        pi.entry_count.to_string(),
        ours.entry_count.to_string(),
    );
    check(
        "leaf",
        format!("{:?}", pi.leaf_id),
        format!("{:?}", ours.leaf_id),
    );
    check(
        "path to the leaf",
        pi.branch.join(","),
        ours.branch.join(","),
    );
    check(
        "labels",
        format!("{:?}", pi.labels),
        format!("{:?}", ours.labels),
    );
    check(
        "session name",
        format!("{:?}", pi.session_name),
        format!("{:?}", ours.session_name),
    );
    found
}

/// The lines pi would write differently, as differences.
pub fn lines(report: &LineReport) -> Vec<String> {
    let mut found: Vec<String> = report
        .mismatches
        .iter()
        .map(|m| line_difference(m.line, &m.file, &m.pi, "pi writes"))
        .collect();
    let more = report
        .mismatch_count
        .saturating_sub(report.mismatches.len());
    if more > 0 {
        found.push(format!("… and {more} more lines"));
    }
    found
}

/// One line written differently: where the texts part, with both sides from there.
pub fn line_difference(line: usize, file: &str, other: &str, other_name: &str) -> String {
    let at = file
        .char_indices()
        .zip(other.chars())
        .find(|((_, a), b)| a != b)
        .map_or_else(|| file.len().min(other.len()), |((i, _), _)| i);
    let start = file[..at]
        .char_indices()
        .rev()
        .nth(40)
        .map_or(0, |(i, _)| i);
    let tail = |s: &str| -> String {
        let from = if start <= s.len() && s.is_char_boundary(start) {
            start
        } else {
            0
        };
        excerpt(&s[from..])
    };
    format!(
        "line {line}, byte {at}: file …{}\n  {other_name} …{}",
        tail(file),
        tail(other)
    )
}

/// The differences between two `{messages, thinkingLevel, model}` objects: message counts and
/// roles, then the first message that differs, then the level and the model.
fn context_differences(prefix: &str, pi: &Value, ours: &Value) -> Vec<String> {
    let empty = Vec::new();
    let messages = |v: &Value| -> Vec<Value> {
        v.get("messages")
            .and_then(Value::as_array)
            .unwrap_or(&empty)
            .clone()
    };
    let mut found = message_differences(prefix, SIDES, &messages(pi), &messages(ours));
    for key in ["thinkingLevel", "model"] {
        let (p, o) = (
            pi.get(key).unwrap_or(&Value::Null),
            ours.get(key).unwrap_or(&Value::Null),
        );
        if let Some(d) = difference(p, o) {
            found.push(format!("{prefix}{key} {d}"));
        }
    }
    found
}

/// The differences between two message lists, `names` saying whose each is: the counts and
/// roles when the lengths differ, then the first message that differs.
pub fn message_differences(
    prefix: &str,
    names: (&str, &str),
    left: &[Value],
    right: &[Value],
) -> Vec<String> {
    let (ln, rn) = names;
    let mut found = Vec::new();
    let roles = |list: &[Value]| -> String {
        let names: Vec<&str> = list
            .iter()
            .map(|m| m.get("role").and_then(Value::as_str).unwrap_or("?"))
            .collect();
        format!("[{}]", names.join(", "))
    };
    if left.len() != right.len() {
        found.push(format!(
            "{prefix}{} messages from {ln}, {} from {rn}: {ln} {}, {rn} {}",
            left.len(),
            right.len(),
            roles(left),
            roles(right)
        ));
    }
    if let Some((i, d)) = left
        .iter()
        .zip(right)
        .enumerate()
        .find_map(|(i, (l, r))| difference_between(names, l, r).map(|d| (i, d)))
    {
        let role = left[i].get("role").and_then(Value::as_str).unwrap_or("?");
        found.push(format!("{prefix}message {i} ({role}) {d}"));
    }
    found
}

/// The two sides most checks compare.
const SIDES: (&str, &str) = ("pi", "clawloop");

/// Where two JSON values first differ, described: a different value (numbers compared as the
/// JS numbers they are), a missing key, or, when the values agree, a different key order or
/// number spelling (what makes two files differ byte for byte).
pub fn difference(pi: &Value, ours: &Value) -> Option<String> {
    difference_between(SIDES, pi, ours)
}

/// [`difference`] between any two sides, `names` saying whose each value is.
pub fn difference_between(names: (&str, &str), left: &Value, right: &Value) -> Option<String> {
    let (ln, rn) = names;
    if let Some((at, l, r)) = value_difference(left, right, String::new()) {
        let show = |v: Option<&Value>| v.map_or_else(|| "(absent)".to_owned(), json_excerpt);
        return Some(format!(
            "at {}: {ln} {}, {rn} {}",
            pointer(&at),
            show(l),
            show(r)
        ));
    }
    spelling_difference(names, left, right, String::new())
        .map(|(at, what)| format!("at {}: same value, {what}", pointer(&at)))
}

fn pointer(at: &str) -> &str {
    if at.is_empty() { "/" } else { at }
}

type Found<'a> = (String, Option<&'a Value>, Option<&'a Value>);

/// The JSON pointer of the first differing value, with both sides there.
fn value_difference<'a>(pi: &'a Value, ours: &'a Value, at: String) -> Option<Found<'a>> {
    match (pi, ours) {
        (Value::Object(p), Value::Object(o)) => {
            for (key, pv) in p {
                let here = format!("{at}/{key}");
                match o.get(key) {
                    None => return Some((here, Some(pv), None)),
                    Some(ov) => {
                        if let Some(found) = value_difference(pv, ov, here) {
                            return Some(found);
                        }
                    }
                }
            }
            o.iter()
                .find(|(key, _)| !p.contains_key(*key))
                .map(|(key, ov)| (format!("{at}/{key}"), None, Some(ov)))
        }
        (Value::Array(p), Value::Array(o)) => {
            for i in 0..p.len().max(o.len()) {
                let here = format!("{at}/{i}");
                match (p.get(i), o.get(i)) {
                    (Some(pv), Some(ov)) => {
                        if let Some(found) = value_difference(pv, ov, here) {
                            return Some(found);
                        }
                    }
                    (pv, ov) => return Some((here, pv, ov)),
                }
            }
            None
        }
        // JavaScript has one number type: 5 and 5.0 are the same value.
        (Value::Number(p), Value::Number(o)) if p.as_f64() == o.as_f64() => None,
        _ if pi == ours => None,
        _ => Some((at, Some(pi), Some(ours))),
    }
}

/// For values that agree: the first object whose keys come in another order, or number written
/// another way.
fn spelling_difference(
    names: (&str, &str),
    left: &Value,
    right: &Value,
    at: String,
) -> Option<(String, String)> {
    let (ln, rn) = names;
    match (left, right) {
        (Value::Object(l), Value::Object(r)) => {
            let (lk, rk): (Vec<&String>, Vec<&String>) = (l.keys().collect(), r.keys().collect());
            if lk != rk {
                let list = |keys: &[&String]| {
                    keys.iter()
                        .map(|k| k.as_str())
                        .collect::<Vec<_>>()
                        .join(",")
                };
                return Some((
                    at,
                    format!("key order {ln} [{}], {rn} [{}]", list(&lk), list(&rk)),
                ));
            }
            l.iter().find_map(|(key, lv)| {
                let rv = r.get(key)?;
                spelling_difference(names, lv, rv, format!("{at}/{key}"))
            })
        }
        (Value::Array(l), Value::Array(r)) => l
            .iter()
            .zip(r)
            .enumerate()
            .find_map(|(i, (lv, rv))| spelling_difference(names, lv, rv, format!("{at}/{i}"))),
        (Value::Number(l), Value::Number(r)) if l.to_string() != r.to_string() => {
            Some((at, format!("written {l} by {ln}, {r} by {rn}")))
        }
        _ => None,
    }
}

fn json_excerpt(v: &Value) -> String {
    excerpt(&v.to_string())
}

/// `s`, cut in the middle when longer than [`EXCERPT`] characters.
fn excerpt(s: &str) -> String {
    let count = s.chars().count();
    if count <= EXCERPT {
        return s.to_owned();
    }
    let half = EXCERPT / 2;
    let head: String = s.chars().take(half).collect();
    let tail: String = s.chars().skip(count - half).collect();
    let mut out = String::with_capacity(EXCERPT + 16);
    let _ = write!(out, "{head}…{tail}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn equal_values_have_no_difference() {
        let v = json!({"a": [1, {"b": "x"}], "c": null});
        assert_eq!(difference(&v, &v.clone()), None);
    }

    #[test]
    fn the_first_differing_value_is_named_by_pointer() {
        let pi = json!({"usage": {"cost": {"input": 0.00003, "total": 1}}});
        let ours = json!({"usage": {"cost": {"input": 0.00004, "total": 2}}});
        assert_eq!(
            difference(&pi, &ours).as_deref(),
            Some("at /usage/cost/input: pi 0.00003, clawloop 0.00004")
        );
        let d = difference(&json!({"a": [1, 2]}), &json!({"a": [1]})).unwrap_or_default();
        assert_eq!(d, "at /a/1: pi 2, clawloop (absent)");
        let d = difference(&json!({}), &json!({"x": true})).unwrap_or_default();
        assert_eq!(d, "at /x: pi (absent), clawloop true");
    }

    #[test]
    fn numbers_are_js_numbers_but_their_spelling_is_reported() {
        let pi: Value = serde_json::from_str(r#"{"n":5}"#).unwrap_or_default();
        let ours: Value = serde_json::from_str(r#"{"n":5.0}"#).unwrap_or_default();
        assert_eq!(
            difference(&pi, &ours).as_deref(),
            Some("at /n: same value, written 5 by pi, 5.0 by clawloop")
        );
    }

    #[test]
    fn key_order_is_reported_when_values_agree() {
        let pi: Value = serde_json::from_str(r#"{"a":1,"b":2}"#).unwrap_or_default();
        let ours: Value = serde_json::from_str(r#"{"b":2,"a":1}"#).unwrap_or_default();
        assert_eq!(
            difference(&pi, &ours).as_deref(),
            Some("at /: same value, key order pi [a,b], clawloop [b,a]")
        );
    }

    #[test]
    fn contexts_report_counts_then_the_first_differing_message() {
        let pi = json!({"messages": [{"role": "user", "content": "a"}, {"role": "assistant"}],
            "thinkingLevel": "off", "model": null});
        let ours = json!({"messages": [{"role": "user", "content": "b"}],
            "thinkingLevel": "low", "model": null});
        assert_eq!(
            context_differences("", &pi, &ours),
            [
                "2 messages from pi, 1 from clawloop: pi [user, assistant], clawloop [user]",
                "message 0 (user) at /content: pi \"a\", clawloop \"b\"",
                "thinkingLevel at /: pi \"off\", clawloop \"low\"",
            ]
        );
    }

    #[test]
    fn line_differences_quote_both_sides_from_where_they_part() {
        let d = line_difference(3, r#"{"a":1.5e-6}"#, r#"{"a":0.0000015}"#, "pi writes");
        assert_eq!(
            d,
            "line 3, byte 5: file …{\"a\":1.5e-6}\n  pi writes …{\"a\":0.0000015}"
        );
    }

    #[test]
    fn long_excerpts_are_cut_in_the_middle() {
        let long = "x".repeat(500);
        let cut = excerpt(&long);
        assert_eq!(cut.chars().count(), EXCERPT + 1);
        assert!(cut.contains('…'));
    }
}
