//! Regression tests for the SSE framer's size limit, found by the `sse_framer` fuzz target
//! (`cargo xtask fuzz --target sse_framer`).

use clawloop_providers::transport::{FrameError, SseEvent, SseFramer};
use pretty_assertions::assert_eq;

fn frame(pieces: &[&[u8]], limit: usize) -> (Vec<SseEvent>, Result<(), FrameError>) {
    let mut framer = SseFramer::new(limit);
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
fn assert_split_invariant(input: &[u8], limit: usize) -> (Vec<SseEvent>, Result<(), FrameError>) {
    let whole = frame(&[input], limit);
    for cut in 0..=input.len() {
        let (a, b) = input.split_at(cut);
        assert_eq!(frame(&[a, b], limit), whole, "cut at {cut}");
    }
    whole
}

#[test]
fn a_data_line_counts_the_same_whether_it_arrives_whole_or_in_pieces() {
    // 16 bytes of line, 10 of them the value: it fit in one read (value + newline = 11) but
    // failed when cut, where the pending line counted its `data: ` prefix.
    let input = b"data: 0123456789\n\n";
    assert_eq!(
        assert_split_invariant(input, 12),
        (Vec::new(), Err(FrameError::TooLarge { limit: 12 }))
    );
    let fits = assert_split_invariant(input, 16);
    assert_eq!(
        fits,
        (
            vec![SseEvent {
                event: String::new(),
                data: "0123456789".to_owned(),
                id: None,
            }],
            Ok(())
        )
    );
}

#[test]
fn a_long_comment_line_is_refused_in_any_cut() {
    let input = b": keep-alive padding padding\ndata: x\n\n";
    assert_eq!(
        assert_split_invariant(input, 16),
        (Vec::new(), Err(FrameError::TooLarge { limit: 16 }))
    );
}
