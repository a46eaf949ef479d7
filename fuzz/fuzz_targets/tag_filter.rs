//! Arbitrary deltas through `TagFilter`: the shown text and the reasoning never depend on how
//! the text was split into deltas (`push`… `finish` equals one-shot `strip`), and nothing
//! shown is text the input did not have.
#![no_main]

use arbitrary::Arbitrary;
use clawloop_subscribe::{TagFilter, TagFilterOptions};
use libfuzzer_sys::fuzz_target;

#[derive(Debug, Arbitrary)]
struct Input {
    enforce_final_tag: bool,
    deltas: Vec<String>,
}

fuzz_target!(|input: Input| {
    let options = TagFilterOptions {
        enforce_final_tag: input.enforce_final_tag,
    };
    let whole: String = input.deltas.concat();

    let mut filter = TagFilter::new(options);
    let mut shown = String::new();
    for delta in &input.deltas {
        shown.push_str(&filter.push(delta));
    }
    shown.push_str(&filter.finish());
    assert_eq!(
        shown,
        TagFilter::strip(&whole, options),
        "the shown text depends on the deltas"
    );

    let mut one = TagFilter::new(options);
    let mut once = one.push(&whole);
    once.push_str(&one.finish());
    assert_eq!(
        filter.reasoning(),
        one.reasoning(),
        "the reasoning depends on the deltas"
    );

    // Char by char, the finest split there is.
    let mut fine = TagFilter::new(options);
    let mut by_char = String::new();
    let mut buf = [0u8; 4];
    for c in whole.chars() {
        by_char.push_str(&fine.push(c.encode_utf8(&mut buf)));
    }
    by_char.push_str(&fine.finish());
    assert_eq!(by_char, shown, "char-by-char deltas differ");
    assert_eq!(fine.reasoning(), filter.reasoning());

    // The filter only removes: what it shows is the input with parts left out.
    let mut rest = whole.chars();
    assert!(
        shown.chars().all(|c| rest.any(|w| w == c)),
        "shown text that the input does not have in that order"
    );
});
