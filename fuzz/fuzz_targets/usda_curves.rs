//! libFuzzer entry point of the `usda_curves` check (see `src/usda_curves.rs`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pelt_fuzz::usda_curves::check(data));
