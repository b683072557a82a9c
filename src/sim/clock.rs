//! Time: fixed 60 Hz steps from an accumulator (frame time capped at 1/30 s), so motion does
//! not depend on the frame rate; or one step per frame, as the seed document does.

use super::SimError;

/// Steps per second in fixed mode: the rate the seed's per-dispatch constants assume.
pub const FIXED_STEP_HZ: f64 = 60.0;
/// Longest frame time counted; a longer frame (a stall, a breakpoint) is cut to this.
pub const MAX_FRAME_SECONDS: f64 = 1.0 / 30.0;

/// How frame time becomes solver steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TimeMode {
    /// Fixed 60 Hz steps: the same motion at any frame rate.
    #[default]
    Fixed,
    /// One step per positive update, as the seed document does: motion depends on the
    /// frame rate (its calibration assumed 60 updates a second).
    PerFrame,
}

/// Turns frame times into steps and keeps simulation time.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct StepClock {
    /// The mode.
    pub mode: TimeMode,
    accumulator: f64,
    steps: u64,
    per_frame_time: f64,
    start: f64,
}

impl StepClock {
    /// A clock at time zero.
    pub fn new(mode: TimeMode) -> Self {
        Self::starting_at(mode, 0.0)
    }

    /// A clock whose time starts at `start` seconds (a long-running session resumed, or a
    /// test of long runs). Time is f64 throughout, so ten hours in it still resolves well
    /// below a microsecond.
    pub fn starting_at(mode: TimeMode, start: f64) -> Self {
        StepClock {
            mode,
            start,
            ..Default::default()
        }
    }

    /// Counts a frame of `dt` seconds and returns how many steps to take now and the
    /// seconds each step covers. A negative or zero `dt` takes no step; NaN is an error.
    pub fn advance(&mut self, dt: f64) -> Result<(u32, f64), SimError> {
        if !dt.is_finite() {
            return Err(SimError::FrameTime(dt));
        }
        if dt <= 0.0 {
            return Ok((0, 0.0));
        }
        let dt = dt.min(MAX_FRAME_SECONDS);
        match self.mode {
            TimeMode::Fixed => {
                self.accumulator += dt;
                // The epsilon keeps 1/144 s frames from losing a step to rounding.
                let n = (self.accumulator * FIXED_STEP_HZ + 1e-7).floor();
                self.accumulator = (self.accumulator - n / FIXED_STEP_HZ).max(0.0);
                Ok((n as u32, 1.0 / FIXED_STEP_HZ))
            }
            TimeMode::PerFrame => Ok((1, dt)),
        }
    }

    /// Records that one step of `seconds` was taken.
    pub fn record_step(&mut self, seconds: f64) {
        self.steps += 1;
        self.per_frame_time += seconds;
    }

    /// Steps taken so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Simulation time after the steps taken: the start plus exactly `steps / 60` in fixed
    /// mode, so it carries no accumulated rounding.
    pub fn time(&self) -> f64 {
        match self.mode {
            TimeMode::Fixed => self.start + self.steps as f64 / FIXED_STEP_HZ,
            TimeMode::PerFrame => self.start + self.per_frame_time,
        }
    }
}
