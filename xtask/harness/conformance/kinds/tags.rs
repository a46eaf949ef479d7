//! `tags` runner: the streaming think/final tag filter (reference §18.5).

use clawloop_subscribe::{TagFilter, TagFilterOptions};
use serde_json::json;

use super::wrong_spec;
use crate::conformance::compare::compare;
use crate::conformance::kind::Kind;
use crate::conformance::scenario::{Case, Spec};

/// Runs a `tags` case: the scenario's chunks, then the same text one char per delta and as one
/// delta, must all give the same visible text (FORMAT.md: a filter may not depend on splits).
pub fn run(case: &Case) -> Result<(), String> {
    let Spec::Tags(input, _) = &case.spec else {
        return Err(wrong_spec(case, Kind::Tags));
    };
    let options = TagFilterOptions {
        enforce_final_tag: input.enforce_final_tag.unwrap_or(false),
    };
    let text = filter(options, input.chunks.iter().map(String::as_str));
    compare(&case.expect, &json!({ "text": text })).map_err(|m| m.to_string())?;

    let whole: String = input.chunks.concat();
    let per_char = filter(
        options,
        whole
            .char_indices()
            .map(|(i, c)| &whole[i..i + c.len_utf8()]),
    );
    if per_char != text {
        return Err(format!(
            "one char per delta gives {per_char:?}, the scenario's chunks give {text:?}"
        ));
    }
    let at_once = filter(options, std::iter::once(whole.as_str()));
    if at_once != text {
        return Err(format!(
            "the whole text as one delta gives {at_once:?}, the scenario's chunks give {text:?}"
        ));
    }
    Ok(())
}

fn filter<'a>(options: TagFilterOptions, deltas: impl Iterator<Item = &'a str>) -> String {
    let mut filter = TagFilter::new(options);
    let mut visible = String::new();
    for delta in deltas {
        visible.push_str(&filter.push(delta));
    }
    visible.push_str(&filter.finish());
    visible
}
