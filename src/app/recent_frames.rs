//! The panel's frame-rate line: how many frames reached the window in the last second, and
//! the mean of those frames' update, render and panel times, so that the rate and the times
//! describe the same frames. (A frame's own times can be far from the rate: frames that
//! refresh the light's maps and the shading in turns alternate between two costs.)

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// How far back the line looks.
const SPAN: Duration = Duration::from_secs(1);

/// One shown frame's times, milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameTimes {
    /// The creature's update (hand, tail, solver).
    pub update_ms: f64,
    /// Recording and presenting the frame, the panel included.
    pub render_ms: f64,
    /// The panel's part of that, on the CPU.
    pub panel_ms: f64,
}

/// The frames shown in the last second.
#[derive(Clone, Debug, Default)]
pub struct RecentFrames {
    frames: VecDeque<(Instant, FrameTimes)>,
}

impl RecentFrames {
    /// Records a frame shown at `at`, and forgets those a second or more before it.
    pub fn push(&mut self, at: Instant, times: FrameTimes) {
        self.frames.push_back((at, times));
        self.forget_before(at);
    }

    /// Forgets the frames shown a second or more before `now` (called every frame, shown
    /// or not, so that a window that showed nothing for a while counts no old frames).
    pub fn forget_before(&mut self, now: Instant) {
        while self
            .frames
            .front()
            .is_some_and(|(t, _)| now.saturating_duration_since(*t) >= SPAN)
        {
            self.frames.pop_front();
        }
    }

    /// Frames shown in the second up to the last call.
    pub fn fps(&self) -> f64 {
        self.frames.len() as f64
    }

    /// The mean of their times (zero before the first).
    pub fn mean(&self) -> FrameTimes {
        let n = self.frames.len().max(1) as f64;
        let sum =
            |f: fn(&FrameTimes) -> f64| self.frames.iter().map(|(_, t)| f(t)).sum::<f64>() / n;
        FrameTimes {
            update_ms: sum(|t| t.update_ms),
            render_ms: sum(|t| t.render_ms),
            panel_ms: sum(|t| t.panel_ms),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn times(render_ms: f64) -> FrameTimes {
        FrameTimes {
            update_ms: 2.0,
            render_ms,
            panel_ms: 0.5,
        }
    }

    #[test]
    fn the_rate_and_the_times_describe_the_last_second_of_frames() {
        let start = Instant::now();
        let mut recent = RecentFrames::default();
        assert_eq!((recent.fps(), recent.mean()), (0.0, FrameTimes::default()));
        // Two seconds of frames every 50 ms, rendering in 40 and 50 ms by turns, then one
        // second at 100 ms a frame.
        let mut at = start;
        for i in 0..40 {
            recent.push(at, times(if i % 2 == 0 { 40.0 } else { 50.0 }));
            at += Duration::from_millis(50);
        }
        assert_eq!(recent.fps(), 20.0);
        assert!(
            (recent.mean().render_ms - 45.0).abs() < 1e-9,
            "{:?}",
            recent.mean()
        );
        assert!((recent.mean().update_ms - 2.0).abs() < 1e-9);
        for _ in 0..10 {
            at += Duration::from_millis(50);
            recent.push(at, times(95.0));
            at += Duration::from_millis(50);
        }
        // Only the slow second counts now.
        assert_eq!(recent.fps(), 10.0);
        assert!(
            (recent.mean().render_ms - 95.0).abs() < 1e-9,
            "{:?}",
            recent.mean()
        );
        // A second and more with no frame shown (a hidden window): none counts.
        recent.forget_before(at + Duration::from_millis(1000));
        assert_eq!((recent.fps(), recent.mean()), (0.0, FrameTimes::default()));
    }
}
