//! Scripted pointer events: what `pelt demo --script FILE` replays, with a fixed frame
//! time, so a whole petting session runs headless and repeats exactly.
//!
//! A script is a JSON list of events in time order:
//!
//! ```json
//! [
//!   { "t": 0.00, "kind": "move", "x": 620, "y": 300 },
//!   { "t": 0.20, "kind": "down", "x": 620, "y": 300, "button": "primary" },
//!   { "t": 0.40, "kind": "move", "x": 560, "y": 340 },
//!   { "t": 1.50, "kind": "up",   "x": 560, "y": 340, "button": "primary" },
//!   { "t": 1.60, "kind": "leave" }
//! ]
//! ```
//!
//! - `t`: seconds from the start of the replay; finite, at least 0, never less than the
//!   previous event's (equal times keep their order).
//! - `kind`: `down`, `move`, `up`, `cancel` or `leave`.
//! - `x`, `y`: the pointer in window pixels from the top-left corner (any finite number;
//!   outside the window is allowed). Required for `down`, `move` and `up`; ignored for
//!   `cancel` and `leave`.
//! - `button`: `primary`, `secondary` or `middle`. Required for `down`; optional for `up`
//!   (default `primary`); ignored otherwise.
//!
//! No other fields are accepted, so a typo is an error rather than a silently ignored
//! value. A script holds at most [`MAX_SCRIPT_EVENTS`] events and [`MAX_SCRIPT_BYTES`]
//! bytes. Every error names the event (counting from 0) and what is wrong with it.

use super::gesture::PointerButton;
use crate::json_numbers::plain_types;
use glam::Vec2;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The most events a script may hold (a ten-minute session at 120 events per second fits).
pub const MAX_SCRIPT_EVENTS: usize = 100_000;
/// The largest script file accepted, bytes.
pub const MAX_SCRIPT_BYTES: usize = 16 << 20;

/// What a pointer script looks like, for the errors that say what the file should be.
const EXAMPLE: &str = r#"a list of events like [{"t": 0, "kind": "move", "x": 10, "y": 20}, …]"#;

/// What a scripted event does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PointerEventKind {
    /// A button goes down at `position`.
    Down {
        /// Window pixels.
        position: Vec2,
        /// Which button.
        button: PointerButton,
    },
    /// The pointer moves to `position`.
    Move {
        /// Window pixels.
        position: Vec2,
    },
    /// A button comes up at `position`.
    Up {
        /// Window pixels.
        position: Vec2,
        /// Which button.
        button: PointerButton,
    },
    /// The system cancels the pointer.
    Cancel,
    /// The pointer leaves the window.
    Leave,
}

/// One scripted pointer event.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointerEvent {
    /// Seconds from the start of the replay.
    pub time: f64,
    /// What happens.
    pub kind: PointerEventKind,
}

impl PointerEvent {
    /// The event with its position multiplied by `factor` (logical to physical pixels).
    pub fn scaled(&self, factor: f32) -> Self {
        self.mapped(|p| p * factor)
    }

    /// The event with its position, if it has one, mapped by `map` (the demo places
    /// replays in its view, which it frames beside its panel).
    pub fn mapped(&self, map: impl Fn(Vec2) -> Vec2) -> Self {
        let kind = match self.kind {
            PointerEventKind::Down { position, button } => PointerEventKind::Down {
                position: map(position),
                button,
            },
            PointerEventKind::Move { position } => PointerEventKind::Move {
                position: map(position),
            },
            PointerEventKind::Up { position, button } => PointerEventKind::Up {
                position: map(position),
                button,
            },
            other => other,
        };
        PointerEvent {
            time: self.time,
            kind,
        }
    }

    /// The event's window position, for the kinds that have one.
    pub fn position(&self) -> Option<Vec2> {
        match self.kind {
            PointerEventKind::Down { position, .. }
            | PointerEventKind::Move { position }
            | PointerEventKind::Up { position, .. } => Some(position),
            PointerEventKind::Cancel | PointerEventKind::Leave => None,
        }
    }
}

/// What is wrong with a pointer script.
#[derive(Debug, Error)]
pub enum PointerScriptError {
    /// The file could not be read.
    #[error("cannot read pointer script {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The text is larger than [`MAX_SCRIPT_BYTES`].
    #[error("pointer script is larger than {max} bytes, the most accepted")]
    TooLarge {
        /// Its size, or the bytes read before stopping.
        bytes: usize,
        /// The limit.
        max: usize,
    },
    /// Not JSON at all.
    #[error("pointer script is not valid JSON: {}", plain_types(&.0.to_string()))]
    Json(#[source] serde_json::Error),
    /// A number written as `NaN` or `Infinity`, which JSON does not have: where, and
    /// the word.
    #[error("pointer script is not valid JSON: {0}")]
    NotFinite(String),
    /// Lists or objects nested deeper than any pointer script is.
    #[error("pointer script is not valid JSON: {0}")]
    TooDeep(String),
    /// Another kind of file: a capsule script, a root motion, a picture; what it is and
    /// which command reads it.
    #[error("{0}")]
    WrongFile(String),
    /// JSON, but not a list.
    #[error(
        "pointer script must be a JSON list of events, like [{{\"t\": 0, \"kind\": \"move\", \"x\": 10, \"y\": 20}}]"
    )]
    NotAList,
    /// More than [`MAX_SCRIPT_EVENTS`] events.
    #[error("pointer script has {count} events; at most {max} are accepted")]
    TooManyEvents {
        /// Events in the script.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// An event of the wrong shape: a missing `t` or `kind`, an unknown kind or button, a
    /// field of the wrong type, an unknown field.
    #[error("pointer script event {index}: {}", plain_types(&.source.to_string()))]
    Shape {
        /// The event, counting from 0.
        index: usize,
        /// What serde found.
        #[source]
        source: serde_json::Error,
    },
    /// A time that is not a finite number, or below 0.
    #[error(
        "pointer script event {index}: time {time} must be a finite number of seconds, 0 or more"
    )]
    BadTime {
        /// The event.
        index: usize,
        /// Its time.
        time: f64,
    },
    /// A time earlier than the previous event's.
    #[error(
        "pointer script event {index}: time {time} s is earlier than the previous event's {previous} s; times must not decrease"
    )]
    TimeGoesBack {
        /// The event.
        index: usize,
        /// Its time.
        time: f64,
        /// The previous event's time.
        previous: f64,
    },
    /// A `down`, `move` or `up` without `x` or `y`.
    #[error("pointer script event {index}: a `{kind}` event needs `{axis}` (window pixels)")]
    MissingCoordinate {
        /// The event.
        index: usize,
        /// Its kind.
        kind: &'static str,
        /// `x` or `y`.
        axis: &'static str,
    },
    /// A coordinate that is not a finite number, or too large for an `f32` (a JSON number
    /// is always finite, so from a file this means too large).
    #[error(
        "pointer script event {index}: `{axis}` = {value:e} pixels is out of range: give a finite number within ±3.4e38"
    )]
    BadCoordinate {
        /// The event.
        index: usize,
        /// `x` or `y`.
        axis: &'static str,
        /// The value.
        value: f64,
    },
    /// A `down` without a button.
    #[error(
        "pointer script event {index}: a `down` event needs a `button` (primary, secondary or middle)"
    )]
    MissingButton {
        /// The event.
        index: usize,
    },
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum KindJson {
    Down,
    Move,
    Up,
    Cancel,
    Leave,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum ButtonJson {
    Primary,
    Secondary,
    Middle,
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "an event: {\"t\": seconds, \"kind\": ..., \"x\": pixels, \"y\": pixels}"
)]
struct EventJson {
    t: f64,
    kind: KindJson,
    x: Option<f64>,
    y: Option<f64>,
    button: Option<ButtonJson>,
}

/// A checked list of pointer events in time order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PointerScript {
    events: Vec<PointerEvent>,
}

impl PointerScript {
    /// Checks `events` (times finite, at least 0 and non-decreasing; positions finite; at
    /// most [`MAX_SCRIPT_EVENTS`]) and wraps them.
    pub fn new(events: Vec<PointerEvent>) -> Result<Self, PointerScriptError> {
        if events.len() > MAX_SCRIPT_EVENTS {
            return Err(PointerScriptError::TooManyEvents {
                count: events.len(),
                max: MAX_SCRIPT_EVENTS,
            });
        }
        let mut previous = 0.0f64;
        for (index, e) in events.iter().enumerate() {
            if !(e.time.is_finite() && e.time >= 0.0) {
                return Err(PointerScriptError::BadTime {
                    index,
                    time: e.time,
                });
            }
            if e.time < previous {
                return Err(PointerScriptError::TimeGoesBack {
                    index,
                    time: e.time,
                    previous,
                });
            }
            previous = e.time;
            if let Some(p) = e.position() {
                for (axis, value) in [("x", p.x), ("y", p.y)] {
                    if !value.is_finite() {
                        return Err(PointerScriptError::BadCoordinate {
                            index,
                            axis,
                            value: f64::from(value),
                        });
                    }
                }
            }
        }
        Ok(PointerScript { events })
    }

    /// Parses and checks a script's JSON text.
    pub fn from_json(text: &str) -> Result<Self, PointerScriptError> {
        if text.len() > MAX_SCRIPT_BYTES {
            return Err(PointerScriptError::TooLarge {
                bytes: text.len(),
                max: MAX_SCRIPT_BYTES,
            });
        }
        let text = crate::files::strip_bom(text);
        if let Some(message) = crate::json_numbers::too_deep(text.as_bytes()) {
            return Err(PointerScriptError::TooDeep(message));
        }
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(
                |e| match crate::json_numbers::non_finite_number(text, &e) {
                    Some(message) => PointerScriptError::NotFinite(message),
                    None => PointerScriptError::Json(e),
                },
            )?;
        match crate::script_file::kind_of(&value) {
            Some(kind) if kind != crate::script_file::JsonFile::PointerScript => {
                return Err(PointerScriptError::WrongFile(kind.given_as(
                    "a pointer script",
                    "`pelt demo --script`",
                    EXAMPLE,
                )));
            }
            _ => {}
        }
        let serde_json::Value::Array(items) = value else {
            return Err(PointerScriptError::NotAList);
        };
        if items.len() > MAX_SCRIPT_EVENTS {
            return Err(PointerScriptError::TooManyEvents {
                count: items.len(),
                max: MAX_SCRIPT_EVENTS,
            });
        }
        let events = items
            .into_iter()
            .enumerate()
            .map(|(index, item)| {
                let json: EventJson = serde_json::from_value(item)
                    .map_err(|source| PointerScriptError::Shape { index, source })?;
                event_from_json(index, json)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Self::new(events)
    }

    /// Reads (at most [`MAX_SCRIPT_BYTES`], counted as read: a device reports no length),
    /// parses and checks a script file.
    pub fn from_path(path: &Path) -> Result<Self, PointerScriptError> {
        let bytes = crate::files::read_capped(path, MAX_SCRIPT_BYTES as u64, "pointer script")
            .map_err(|e| match e {
                crate::files::FileError::TooLarge { .. } => PointerScriptError::TooLarge {
                    bytes: MAX_SCRIPT_BYTES + 1,
                    max: MAX_SCRIPT_BYTES,
                },
                crate::files::FileError::Read { source, .. } => PointerScriptError::Io {
                    path: path.to_path_buf(),
                    source,
                },
                other => PointerScriptError::Io {
                    path: path.to_path_buf(),
                    source: std::io::Error::other(other.to_string()),
                },
            })?;
        let text = String::from_utf8(bytes).map_err(|e| {
            PointerScriptError::WrongFile(format!(
                "this is {}, not a pointer script: `pelt demo --script` takes a JSON file, {EXAMPLE}",
                crate::script_file::binary_kind(e.as_bytes())
            ))
        })?;
        Self::from_json(&text)
    }

    /// Every event, in order.
    pub fn events(&self) -> &[PointerEvent] {
        &self.events
    }

    /// The events due in the frame `(t0, t1]`: after `t0`, up to and including `t1`.
    /// Consecutive frames take every event exactly once; start the first frame's `t0`
    /// below 0 (for example at `f64::NEG_INFINITY`) so that events at `t = 0` are taken.
    /// Empty when `t1 < t0` or either is NaN.
    pub fn events_in(&self, t0: f64, t1: f64) -> &[PointerEvent] {
        if t1.is_nan() || t0.is_nan() || t1 < t0 {
            return &[];
        }
        let start = self.events.partition_point(|e| e.time <= t0);
        let end = self.events.partition_point(|e| e.time <= t1);
        &self.events[start..end.max(start)]
    }

    /// The last event's time (0 for an empty script).
    pub fn duration(&self) -> f64 {
        self.events.last().map_or(0.0, |e| e.time)
    }

    /// The number of events.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether there are no events.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }
}

fn event_from_json(index: usize, json: EventJson) -> Result<PointerEvent, PointerScriptError> {
    let (name, needs_position) = match json.kind {
        KindJson::Down => ("down", true),
        KindJson::Move => ("move", true),
        KindJson::Up => ("up", true),
        KindJson::Cancel => ("cancel", false),
        KindJson::Leave => ("leave", false),
    };
    let coordinate = |axis: &'static str, value: Option<f64>| {
        let value = value.ok_or(PointerScriptError::MissingCoordinate {
            index,
            kind: name,
            axis,
        })?;
        // A finite f64 beyond f32's range becomes infinite here and is caught.
        let px = value as f32;
        if px.is_finite() {
            Ok(px)
        } else {
            Err(PointerScriptError::BadCoordinate { index, axis, value })
        }
    };
    let position = if needs_position {
        Vec2::new(coordinate("x", json.x)?, coordinate("y", json.y)?)
    } else {
        Vec2::ZERO
    };
    let button = json.button.map(|b| match b {
        ButtonJson::Primary => PointerButton::Primary,
        ButtonJson::Secondary => PointerButton::Secondary,
        ButtonJson::Middle => PointerButton::Middle,
    });
    let kind = match json.kind {
        KindJson::Down => PointerEventKind::Down {
            position,
            button: button.ok_or(PointerScriptError::MissingButton { index })?,
        },
        KindJson::Move => PointerEventKind::Move { position },
        KindJson::Up => PointerEventKind::Up {
            position,
            button: button.unwrap_or(PointerButton::Primary),
        },
        KindJson::Cancel => PointerEventKind::Cancel,
        KindJson::Leave => PointerEventKind::Leave,
    };
    Ok(PointerEvent { time: json.t, kind })
}
