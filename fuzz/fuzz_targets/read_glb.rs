//! libFuzzer entry point of the `read_glb` check (see `src/read_glb.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pelt_fuzz::read_glb::check(data));
