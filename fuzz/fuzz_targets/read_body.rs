//! libFuzzer entry point of the `read_body` check (see `src/read_body.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pelt_fuzz::read_body::check(data));
