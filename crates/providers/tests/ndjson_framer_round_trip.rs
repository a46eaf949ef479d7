//! Regression tests for the NDJSON framer's line ends, found by the `ndjson_framer` fuzz target
//! (`cargo xtask fuzz --target ndjson_framer`).

use clawloop_providers::transport::{FrameError, NdjsonFramer};
use pretty_assertions::assert_eq;

fn frame(pieces: &[&[u8]]) -> (Vec<String>, Result<(), FrameError>) {
    let mut framer = NdjsonFramer::new(1 << 20);
    let mut out = Vec::new();
    for piece in pieces {
        if let Err(error) = framer.feed(piece, &mut out) {
            return (out, Err(error));
        }
    }
    let end = framer.finish(&mut out);
    (out, end)
}

/// Every way of cutting `input` in two gives what one read gives.
fn assert_split_invariant(input: &[u8]) -> Vec<String> {
    let whole = frame(&[input]);
    for cut in 0..=input.len() {
        let (a, b) = input.split_at(cut);
        assert_eq!(frame(&[a, b]), whole, "cut at {cut}");
    }
    let (lines, end) = whole;
    assert_eq!(end, Ok(()));
    lines
}

#[test]
fn lines_keep_no_trailing_json_whitespace_and_frame_to_themselves_when_written_back() {
    // From the crash input: a line ending in several `\r` before its `\n` was delivered with
    // all but one, and written back one per line it lost another.
    let input = b"\x08      \r\r\r\r\n{\"a\":1} \t\r\n  {\"b\":2}\r\r\n\t\r \r\n{\"c\":3}\x0c\r\n{\"d\":4}\r\r";
    let lines = assert_split_invariant(input);
    assert_eq!(
        lines,
        [
            "\u{8}",
            "{\"a\":1}",
            "  {\"b\":2}",
            "{\"c\":3}\u{c}",
            "{\"d\":4}"
        ]
    );
    let mut written = lines.join("\n");
    written.push('\n');
    assert_eq!(assert_split_invariant(written.as_bytes()), lines);
    // The same lines written with `\r\n` read the same too.
    let crlf = lines.join("\r\n");
    assert_eq!(assert_split_invariant(crlf.as_bytes()), lines);
}
