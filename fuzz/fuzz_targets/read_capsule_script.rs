//! libFuzzer entry point of the `read_capsule_script` check (see `src/read_capsule_script.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pelt_fuzz::read_capsule_script::check(data));
