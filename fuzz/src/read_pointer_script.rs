//! Fuzz check: a pointer script (`pelt demo --script`) must parse to Ok or Err for any
//! bytes, never panic; whatever it accepts has events in time order with finite positions,
//! and every frame's window of events takes each event exactly once.
use pelt::hand::PointerScript;

/// The check, for any bytes: panics where the reader breaks its promise.
pub fn check(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(script) = PointerScript::from_json(text) else {
        return;
    };
    let events = script.events();
    assert!(events.windows(2).all(|w| w[0].time <= w[1].time));
    assert!(
        events
            .iter()
            .all(|e| e.time.is_finite() && e.position().is_none_or(|p| p.is_finite()))
    );
    // Frames of 1/60 s up to the end (at most 10,000 of them) take every event once.
    // (Capped as a float first: a script may end past any usize of frames.)
    let frames = ((script.duration() * 60.0).ceil().min(1e4) as usize + 1).min(10_000);
    let mut taken = script.events_in(f64::NEG_INFINITY, 0.0).len();
    for f in 0..frames {
        taken += script
            .events_in(f as f64 / 60.0, (f + 1) as f64 / 60.0)
            .len();
    }
    if frames < 10_000 {
        assert_eq!(taken, events.len());
    }
}
