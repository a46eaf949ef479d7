//! Arbitrary bytes as the 2xx body of a Anthropic Messages response, through the public decoding path
//! (`BodyDecoder` over `EventDecoder`), whole and cut into reads.
#![no_main]

use clawloop_fuzz::decode::{PRICES, check_body, initial};
use clawloop_providers::anthropic_messages::EventDecoder;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|body: &[u8]| {
    check_body(
        || {
            EventDecoder::new(initial("anthropic-messages", "anthropic"), PRICES)
                .with_tool_names(vec!["Read".to_owned(), "Bash".to_owned()])
        },
        body,
    );
});
