//! Arbitrary bytes through `NdjsonFramer`: any cut into reads gives the same lines and the
//! same error, and the lines, written back one per line, frame to themselves.
#![no_main]

use clawloop_fuzz::split::{Rng, reads};
use clawloop_providers::transport::{DEFAULT_MAX_EVENT_BYTES, FrameError, NdjsonFramer};
use libfuzzer_sys::fuzz_target;

fn frame(pieces: &[&[u8]], limit: usize) -> (Vec<String>, Result<(), FrameError>) {
    let mut framer = NdjsonFramer::new(limit);
    let mut out = Vec::new();
    for piece in pieces {
        if let Err(error) = framer.feed(piece, &mut out) {
            return (out, Err(error));
        }
    }
    let end = framer.finish(&mut out);
    (out, end)
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
        "the outcome depends on how the stream was cut"
    );
    let bytewise: Vec<&[u8]> = data.chunks(1).collect();
    assert_eq!(whole, frame(&bytewise, limit), "byte-by-byte reads differ");

    let (lines, _) = whole;
    for line in &lines {
        assert!(!line.contains('\n'), "a line holds a newline: {line:?}");
        // Blank as JSON sees it (a vertical tab is not JSON whitespace).
        assert!(
            !line
                .trim_matches(|c: char| c.is_ascii_whitespace())
                .is_empty(),
            "a blank line was delivered"
        );
    }
    let mut rewritten = lines.join("\n");
    rewritten.push('\n');
    let (again, end) = frame(&[rewritten.as_bytes()], usize::MAX);
    assert_eq!(end, Ok(()));
    assert_eq!(lines, again, "framed lines do not round-trip");
});
