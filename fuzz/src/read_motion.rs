//! Fuzz check: a root motion (`pelt tail-trace --motion`) must parse to Ok or Err for any
//! bytes, never panic; whatever it accepts gives a finite root transform at any time.
use pelt::spring::RootMotion;

/// The check, for any bytes: panics where the reader breaks its promise.
pub fn check(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(motion) = RootMotion::from_json(text) else {
        return;
    };
    for t in [-1.0, 0.0, 0.5, 1.0 / 60.0, 1.0e6] {
        assert!(motion.at(t).is_finite(), "non-finite root at t = {t}");
    }
}
