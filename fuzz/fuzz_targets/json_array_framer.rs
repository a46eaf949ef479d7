//! Arbitrary bytes through `JsonArrayFramer`: any cut into reads gives the same elements and
//! the same error, a valid JSON array frames into exactly its elements, and elements that are
//! JSON, written back as an array, frame to themselves.
#![no_main]

use clawloop_fuzz::split::{Rng, reads};
use clawloop_providers::transport::{ArrayFrameError, DEFAULT_MAX_EVENT_BYTES, JsonArrayFramer};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn frame(pieces: &[&[u8]], limit: usize) -> (Vec<String>, Result<(), ArrayFrameError>) {
    let mut framer = JsonArrayFramer::new(limit);
    let mut out = Vec::new();
    for piece in pieces {
        if let Err(error) = framer.feed(piece, &mut out) {
            return (out, Err(error));
        }
    }
    let end = framer.finish(&mut out);
    (out, end)
}

fn parse(text: &str) -> Option<Value> {
    serde_json::from_str(text).ok()
}

fuzz_target!(|data: &[u8]| {
    let mut rng = Rng::from_bytes(data);
    let limit = if rng.next() % 3 == 0 {
        rng.range(1, 512)
    } else {
        DEFAULT_MAX_EVENT_BYTES
    };
    let whole = frame(&[data], limit);
    let pieces = reads(data, &mut rng, 16);
    assert_eq!(
        whole,
        frame(&pieces, limit),
        "the outcome depends on how the body was cut"
    );
    let bytewise: Vec<&[u8]> = data.chunks(1).collect();
    assert_eq!(whole, frame(&bytewise, limit), "byte-by-byte reads differ");

    // A valid array (the framer's own input format) yields exactly its elements.
    if let Ok(Value::Array(expected)) = serde_json::from_slice::<Value>(data) {
        let (elements, end) = frame(&[data], usize::MAX);
        assert_eq!(end, Ok(()), "a valid JSON array is refused");
        let values: Vec<Option<Value>> = elements.iter().map(|e| parse(e)).collect();
        let expected: Vec<Option<Value>> = expected.into_iter().map(Some).collect();
        assert_eq!(
            values, expected,
            "a valid JSON array frames into other elements"
        );
    }

    let (elements, _) = whole;
    if !elements.is_empty() && elements.iter().all(|e| parse(e).is_some()) {
        let rewritten = format!("[{}]", elements.join(","));
        let (again, end) = frame(&[rewritten.as_bytes()], usize::MAX);
        assert_eq!(end, Ok(()));
        assert_eq!(elements, again, "framed elements do not round-trip");
    }
});
