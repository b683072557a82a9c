//! libFuzzer entry point of the `read_pointer_script` check (see `src/read_pointer_script.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pelt_fuzz::read_pointer_script::check(data));
