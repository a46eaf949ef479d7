//! Arbitrary text as `config.toml` (read into a JSON-shaped value, as the CLI does) and as JSON,
//! through the runner's `Config::from_value`. A configuration that loads writes back to a value
//! that loads to the same configuration.
#![no_main]

use clawloop_runner::config::Config;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn check(value: Value) {
    let Ok(config) = Config::from_value(value) else {
        return;
    };
    let written = match serde_json::to_value(&config) {
        Ok(written) => written,
        Err(error) => panic!("a loaded configuration does not serialize: {error}"),
    };
    match Config::from_value(written.clone()) {
        Ok(again) => assert_eq!(again, config, "the configuration changed through {written}"),
        Err(error) => panic!("a loaded configuration does not load again: {error}: {written}"),
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(value) = toml::from_str::<Value>(text) {
        check(value);
    }
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        check(value);
    }
});
