//! Arbitrary text through `parse_streaming_json`, the parser of streamed tool-call arguments.
//!
//! Valid JSON parses as strict JSON does, and every prefix of a JSON object parses to an
//! object whose keys are keys of the whole object (a cut never invents a key).
#![no_main]

use clawloop_core::stream_event::parse_streaming_json;
use clawloop_fuzz::split::Rng;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let value = parse_streaming_json(text);
    let Ok(strict) = serde_json::from_str::<Value>(text) else {
        return;
    };
    assert_eq!(value, strict, "valid JSON parsed differently");
    let Value::Object(whole) = strict else {
        return;
    };
    // A sample of cut points keeps an input's cost linear.
    let mut rng = Rng::from_bytes(data);
    for _ in 0..16 {
        let mut cut = rng.range(0, text.len());
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let prefix = &text[..cut];
        match parse_streaming_json(prefix) {
            Value::Object(partial) => {
                for key in partial.keys() {
                    assert!(
                        whole.contains_key(key),
                        "the prefix {prefix:?} has key {key:?} that the object does not"
                    );
                }
            }
            other => panic!("the prefix {prefix:?} of an object parsed to {other}"),
        }
    }
});
