//! Fuzz check: a capsule script (`pelt simulate --capsule-script`) must parse to Ok or Err
//! for any bytes, never panic; whatever it accepts passes its own checks and gives a finite
//! hand (capsules with finite ends and velocities) at any step.
use pelt::hand::CapsuleScript;

/// The check, for any bytes: panics where the reader breaks its promise.
pub fn check(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(script) = CapsuleScript::from_json(text) else {
        return;
    };
    assert!(script.validate().is_ok());
    // At each key, between keys and just outside them, the hand is one the solver accepts:
    // finite ends and velocities, positive radii, within reach.
    for c in &script.capsules {
        for (k, key) in c.keys.iter().enumerate() {
            let mut steps = vec![key.step - 0.5, key.step, key.step + 0.25];
            if let Some(next) = c.keys.get(k + 1) {
                steps.push(key.step + (next.step - key.step) * 0.5);
            }
            for step in steps {
                let contact = script.contact_at(step);
                assert!(contact.capsules.len() <= script.capsules.len());
                if let Err(e) = contact.validate() {
                    panic!("the hand at step {step:e} is refused: {e}");
                }
            }
        }
    }
}
