//! Pointer scripts: the documented format parses, frames take each event once, and every
//! kind of bad script is an error that names the event and what is wrong.

use glam::Vec2;
use pelt::hand::{
    MAX_SCRIPT_BYTES, MAX_SCRIPT_EVENTS, PointerButton, PointerEvent, PointerEventKind,
    PointerScript, PointerScriptError,
};

const EXAMPLE: &str = r#"[
  { "t": 0.00, "kind": "move", "x": 620, "y": 300 },
  { "t": 0.20, "kind": "down", "x": 620, "y": 300, "button": "primary" },
  { "t": 0.40, "kind": "move", "x": 560, "y": 340 },
  { "t": 0.40, "kind": "move", "x": 561.5, "y": 340 },
  { "t": 1.50, "kind": "up",   "x": 560, "y": 340 },
  { "t": 1.55, "kind": "cancel" },
  { "t": 1.60, "kind": "leave" }
]"#;

#[test]
fn the_documented_format_parses() {
    let script = PointerScript::from_json(EXAMPLE).unwrap();
    assert_eq!(script.len(), 7);
    assert_eq!(script.duration(), 1.6);
    let e = script.events();
    assert_eq!(
        e[1],
        PointerEvent {
            time: 0.2,
            kind: PointerEventKind::Down {
                position: Vec2::new(620.0, 300.0),
                button: PointerButton::Primary
            }
        }
    );
    assert_eq!(e[3].position(), Some(Vec2::new(561.5, 340.0)));
    // `up` without a button releases the primary one.
    assert!(matches!(
        e[4].kind,
        PointerEventKind::Up {
            button: PointerButton::Primary,
            ..
        }
    ));
    assert_eq!(e[5].kind, PointerEventKind::Cancel);
    assert_eq!(e[6].kind, PointerEventKind::Leave);
    let secondary = PointerScript::from_json(
        r#"[{"t": 0, "kind": "down", "x": 1, "y": 2, "button": "secondary"},
            {"t": 0, "kind": "up", "x": 1, "y": 2, "button": "middle"}]"#,
    )
    .unwrap();
    assert!(matches!(
        secondary.events()[0].kind,
        PointerEventKind::Down {
            button: PointerButton::Secondary,
            ..
        }
    ));
    assert!(PointerScript::from_json("[]").unwrap().is_empty());
}

#[test]
fn frames_take_every_event_exactly_once() {
    let script = PointerScript::from_json(EXAMPLE).unwrap();
    // (t0, t1]: an event at a frame's end belongs to that frame, not the next.
    assert_eq!(script.events_in(0.1, 0.2).len(), 1);
    assert_eq!(script.events_in(0.2, 0.3).len(), 0);
    assert_eq!(
        script.events_in(0.3, 0.4).len(),
        2,
        "equal times stay together"
    );
    assert_eq!(script.events_in(0.0, 0.1).len(), 0, "t = 0 is not after 0");
    assert_eq!(script.events_in(f64::NEG_INFINITY, 0.0).len(), 1);
    assert!(script.events_in(1.0, 0.5).is_empty());
    assert!(script.events_in(f64::NAN, 1.0).is_empty());
    let mut seen = Vec::new();
    let mut t0 = f64::NEG_INFINITY;
    for frame in 0..=120 {
        let t1 = frame as f64 / 60.0;
        seen.extend_from_slice(script.events_in(t0, t1));
        t0 = t1;
    }
    assert_eq!(seen, script.events());
}

/// Parses `json`, expecting an error whose message contains every piece of `needles`.
fn rejects(json: &str, needles: &[&str]) -> PointerScriptError {
    let err = PointerScript::from_json(json).expect_err(json);
    let message = err.to_string();
    for needle in needles {
        assert!(message.contains(needle), "{message:?} lacks {needle:?}");
    }
    err
}

#[test]
fn bad_scripts_are_errors_that_say_what_is_wrong() {
    rejects("[{\"t\": 0, ", &["not valid JSON"]);
    rejects(r#"{"t": 0, "kind": "move"}"#, &["JSON list"]);
    rejects(
        r#"[{"t": 0, "kind": "move", "x": 1, "y": 1}, {"t": 1, "kind": "drag", "x": 1, "y": 1}]"#,
        &["event 1", "drag"],
    );
    rejects(r#"[{"kind": "move", "x": 1, "y": 1}]"#, &["event 0", "`t`"]);
    rejects(r#"[{"t": 0, "x": 1, "y": 1}]"#, &["event 0", "`kind`"]);
    rejects(
        r#"[{"t": 0, "kind": "move", "x": 1, "y": 1, "buton": "primary"}]"#,
        &["event 0", "buton"],
    );
    rejects(
        r#"[{"t": 0, "kind": "down", "x": 1, "y": 1, "button": "left"}]"#,
        &["event 0", "left"],
    );
    rejects(
        r#"[{"t": 0, "kind": "move", "x": "10", "y": 1}]"#,
        &["event 0", "string"],
    );
    rejects(
        r#"[{"t": 0, "kind": "move", "x": 1, "y": 1}, {"t": 2, "kind": "move", "x": 1, "y": 1},
            {"t": 1.5, "kind": "move", "x": 1, "y": 1}]"#,
        &["event 2", "1.5", "2", "must not decrease"],
    );
    rejects(r#"[{"t": -0.5, "kind": "leave"}]"#, &["event 0", "-0.5"]);
    let err = rejects(
        r#"[{"t": 0, "kind": "leave"}, {"t": 1, "kind": "move", "y": 1}]"#,
        &["event 1", "`move`", "`x`"],
    );
    assert!(matches!(
        err,
        PointerScriptError::MissingCoordinate {
            index: 1,
            axis: "x",
            ..
        }
    ));
    rejects(r#"[{"t": 0, "kind": "up", "x": 1}]"#, &["event 0", "`y`"]);
    let err = rejects(
        r#"[{"t": 0, "kind": "down", "x": 1, "y": 1}]"#,
        &["event 0", "button"],
    );
    assert!(matches!(
        err,
        PointerScriptError::MissingButton { index: 0 }
    ));
    rejects(
        r#"[{"t": 0, "kind": "move", "x": 1e300, "y": 1}]"#,
        &["event 0", "`x`", "finite"],
    );
}

#[test]
fn built_scripts_are_checked_too() {
    let at = |time: f64, x: f32| PointerEvent {
        time,
        kind: PointerEventKind::Move {
            position: Vec2::new(x, 0.0),
        },
    };
    for (events, index) in [
        (vec![at(0.0, 0.0), at(f64::NAN, 0.0)], 1),
        (vec![at(f64::INFINITY, 0.0)], 0),
        (vec![at(0.0, 0.0), at(0.0, f32::NAN)], 1),
        (vec![at(0.0, 0.0), at(1.0, 0.0), at(0.5, 0.0)], 2),
    ] {
        let err = PointerScript::new(events).unwrap_err();
        assert!(err.to_string().contains(&format!("event {index}")), "{err}");
    }
    let too_many = vec![at(0.0, 0.0); MAX_SCRIPT_EVENTS + 1];
    assert!(matches!(
        PointerScript::new(too_many),
        Err(PointerScriptError::TooManyEvents { .. })
    ));
    assert!(PointerScript::new(vec![at(0.0, 0.0); MAX_SCRIPT_EVENTS]).is_ok());
}

#[test]
fn oversized_scripts_are_refused_before_parsing() {
    let huge = format!("[{}]", " ".repeat(MAX_SCRIPT_BYTES));
    let err = PointerScript::from_json(&huge).unwrap_err();
    assert!(matches!(err, PointerScriptError::TooLarge { .. }), "{err}");
    let many = format!(
        "[{}]",
        vec![r#"{"t":0,"kind":"leave"}"#; MAX_SCRIPT_EVENTS + 1].join(",")
    );
    assert!(matches!(
        PointerScript::from_json(&many),
        Err(PointerScriptError::TooManyEvents { count, .. }) if count == MAX_SCRIPT_EVENTS + 1
    ));
}

#[test]
fn files_are_read_with_the_path_in_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("stroke.json");
    std::fs::write(&path, EXAMPLE).unwrap();
    assert_eq!(PointerScript::from_path(&path).unwrap().len(), 7);
    let missing = dir.path().join("missing.json");
    let err = PointerScript::from_path(&missing).unwrap_err();
    assert!(err.to_string().contains("missing.json"), "{err}");
}
