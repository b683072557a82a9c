//! libFuzzer entry point of the `read_motion` check (see `src/read_motion.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pelt_fuzz::read_motion::check(data));
