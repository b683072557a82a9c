//! libFuzzer entry point of the `groom_json` check (see `src/groom_json.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pelt_fuzz::groom_json::check(data));
