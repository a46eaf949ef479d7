//! Arbitrary bytes as the 2xx body of a Gemini streamGenerateContent response, through the public decoding path
//! (`BodyDecoder` over `ChunkDecoder`), whole and cut into reads.
#![no_main]

use clawloop_fuzz::decode::{PRICES, check_body, initial};
use clawloop_providers::google_generative_ai::ChunkDecoder;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|body: &[u8]| {
    check_body(
        || ChunkDecoder::new(initial("google-generative-ai", "google"), PRICES),
        body,
    );
});
