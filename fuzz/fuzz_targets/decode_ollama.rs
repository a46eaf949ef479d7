//! Arbitrary bytes as the 2xx body of a Ollama /api/chat response, through the public decoding path
//! (`BodyDecoder` over `ChunkDecoder`), whole and cut into reads.
#![no_main]

use clawloop_fuzz::decode::{PRICES, check_body, initial};
use clawloop_providers::ollama::ChunkDecoder;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|body: &[u8]| {
    check_body(
        || ChunkDecoder::new(initial("ollama", "ollama"), PRICES),
        body,
    );
});
