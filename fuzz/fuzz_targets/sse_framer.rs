//! Arbitrary bytes through `SseFramer`: any cut into reads gives the same events and the same
//! error, and the events, written back as SSE, frame to themselves.
#![no_main]

use clawloop_fuzz::split::{Rng, reads};
use clawloop_providers::transport::{DEFAULT_MAX_EVENT_BYTES, FrameError, SseEvent, SseFramer};
use libfuzzer_sys::fuzz_target;

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

/// The events as a server would send them.
fn write(events: &[SseEvent]) -> Vec<u8> {
    let mut text = String::new();
    for event in events {
        if !event.event.is_empty() {
            text.push_str(&format!("event: {}\n", event.event));
        }
        if let Some(id) = &event.id {
            text.push_str(&format!("id: {id}\n"));
        }
        for line in event.data.split('\n') {
            text.push_str(&format!("data: {line}\n"));
        }
        text.push('\n');
    }
    text.into_bytes()
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
    let split = frame(&pieces, limit);
    assert_eq!(
        whole, split,
        "the outcome depends on how the stream was cut"
    );
    let bytewise: Vec<&[u8]> = data.chunks(1).collect();
    assert_eq!(whole, frame(&bytewise, limit), "byte-by-byte reads differ");

    let (events, _) = whole;
    let rewritten = write(&events);
    let (again, end) = frame(&[&rewritten], usize::MAX);
    assert_eq!(end, Ok(()));
    assert_eq!(events, again, "framed events do not round-trip");
});
