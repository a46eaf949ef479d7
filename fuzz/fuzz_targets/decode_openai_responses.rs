//! Arbitrary bytes as the 2xx body of a Responses API response, through the public decoding path
//! (`BodyDecoder` over `ResponsesDecoder`), whole and cut into reads.
#![no_main]

use clawloop_fuzz::decode::{PRICES, check_body, initial};
use clawloop_providers::openai_responses::ResponsesDecoder;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|body: &[u8]| {
    check_body(
        || ResponsesDecoder::new(initial("openai-responses", "openai"), PRICES),
        body,
    );
});
