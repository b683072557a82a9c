//! The demo's frame budget: from measured frame times, a level of detail (a render scale
//! for dynamic resolution, and how densely the coat's strands are drawn per pixel) that
//! holds the target frame rate, with hysteresis so it settles instead of oscillating.
//!
//! Pure logic (no GPU): `record` takes each shown frame's time and says when to switch.
//! A window of frames is judged by its median (the mean of its middle two): the window
//! refreshes the light's maps and the shading in turns, so its frames alternate between two
//! costs, and the frame rate one sees is their mean, not the dearer one. Down is fast: when
//! two windows in a row run over budget, or one runs well over it, the controller jumps
//! straight to the richest level predicted (by the levels' relative costs) to fit with a
//! margin; one window just over, on a level whose frames sit near the budget, is noise. Up
//! is slow: one level at a time, only after two windows well under budget (at most 60% of
//! it), and a level that had to be left again is not retried for a while, twice as long
//! each time, so an overloaded level is not visited over and over.

/// One level: the share of the window's size the scene is drawn at, strands drawn per
/// pixel of the coat on screen (`LodPolicy::strands_per_pixel`) and the fewest drawn
/// (`LodPolicy::min_drawn`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Level {
    /// Render scale, 0 … 1 of the window's width and height.
    pub scale: f32,
    /// Strands drawn per pixel of the coat.
    pub strands_per_pixel: f32,
    /// Fewest strands drawn (all of a smaller coat).
    pub min_drawn: u32,
    /// Estimated cost relative to level 0 (only for how far to jump down).
    pub cost: f64,
}

/// Fewest strands the levels drawn at half the window's size or more hold: the coat keeps
/// looking like a coat there (fewer read as a porcupine, even widened).
pub const RICH_MIN_DRAWN: u32 = 16_384;

/// The levels, richest first. Costs: a frame is roughly a fixed part (the solver, the
/// panel), a part per pixel, and a part per drawn strand, which falls with both the scale
/// and the density. Every level drawn at a render scale of 0.5 or more draws at least
/// [`RICH_MIN_DRAWN`] strands; only the cheaper ones below draw fewer.
pub const LEVELS: [Level; 9] = [
    Level {
        scale: 1.0,
        strands_per_pixel: 1.0,
        min_drawn: RICH_MIN_DRAWN,
        cost: 1.0,
    },
    Level {
        scale: 0.85,
        strands_per_pixel: 0.7,
        min_drawn: RICH_MIN_DRAWN,
        cost: 0.72,
    },
    Level {
        scale: 0.71,
        strands_per_pixel: 0.5,
        min_drawn: RICH_MIN_DRAWN,
        cost: 0.5,
    },
    Level {
        scale: 0.6,
        strands_per_pixel: 0.35,
        min_drawn: RICH_MIN_DRAWN,
        cost: 0.36,
    },
    Level {
        scale: 0.5,
        strands_per_pixel: 0.25,
        min_drawn: RICH_MIN_DRAWN,
        cost: 0.26,
    },
    Level {
        scale: 0.42,
        strands_per_pixel: 0.18,
        min_drawn: 1024,
        cost: 0.19,
    },
    Level {
        scale: 0.35,
        strands_per_pixel: 0.13,
        min_drawn: 1024,
        cost: 0.145,
    },
    Level {
        scale: 0.3,
        strands_per_pixel: 0.1,
        min_drawn: 1024,
        cost: 0.115,
    },
    Level {
        scale: 0.25,
        strands_per_pixel: 0.08,
        min_drawn: 1024,
        cost: 0.095,
    },
];

/// Frames measured per decision.
const WINDOW: usize = 4;
/// Frames ignored after a switch (new targets, a first frame at the new size).
const SETTLE: u32 = 2;
/// Frames ignored when the budget starts (the first frames it is given, after any tier
/// search and rasteriser probe): the first frames drawn at its level compile shader
/// variants (a CPU adapter compiles them at first use) and first touch their buffers.
const START_SETTLE: u32 = 8;
/// Going down aims at this share of the budget, leaving room for noise.
const DOWN_AIM: f64 = 0.8;
/// A window over this share of the budget leaves its level at once; one between the budget
/// and this leaves it only when the window before was over budget too.
const CLEARLY_OVER: f64 = 1.2;
/// Going up needs two windows at most this share of the budget.
const UP_BELOW: f64 = 0.6;
/// Frames a level left for being over budget is not retried, at first (then doubled).
const FIRST_BAN: u64 = 60;

/// The controller's state.
#[derive(Clone, Debug)]
pub struct FrameBudget {
    budget_ms: f64,
    level: usize,
    window: Vec<f64>,
    settle: u32,
    good_windows: u32,
    /// Whether the last window judged ran over budget.
    over_before: bool,
    frame: u64,
    /// Per level: the frame before which it may not be tried again, and the next ban.
    banned_until: [u64; LEVELS.len()],
    next_ban: [u64; LEVELS.len()],
    /// Switches made so far.
    pub switches: u32,
}

impl FrameBudget {
    /// A controller holding frames to `budget_ms`, starting at `level`.
    pub fn new(budget_ms: f64, level: usize) -> Self {
        FrameBudget {
            budget_ms,
            level: level.min(LEVELS.len() - 1),
            window: Vec::with_capacity(WINDOW),
            settle: START_SETTLE,
            good_windows: 0,
            over_before: false,
            frame: 0,
            banned_until: [0; LEVELS.len()],
            next_ban: [FIRST_BAN; LEVELS.len()],
            switches: 0,
        }
    }

    /// The level in use.
    pub fn level(&self) -> Level {
        LEVELS[self.level]
    }

    /// Its index (0 richest).
    pub fn index(&self) -> usize {
        self.level
    }

    /// Records one shown frame's time; returns the new level when it switches.
    pub fn record(&mut self, frame_ms: f64) -> Option<Level> {
        self.frame += 1;
        if self.settle > 0 {
            self.settle -= 1;
            return None;
        }
        if !frame_ms.is_finite() {
            return None;
        }
        self.window.push(frame_ms);
        if self.window.len() < WINDOW {
            return None;
        }
        let mut sorted = std::mem::take(&mut self.window);
        sorted.sort_by(f64::total_cmp);
        let median = 0.5 * (sorted[WINDOW / 2 - 1] + sorted[WINDOW / 2]);
        let cost = LEVELS[self.level].cost;
        let over = median > self.budget_ms;
        let over_before = std::mem::replace(&mut self.over_before, over);
        if over && !over_before && median <= self.budget_ms * CLEARLY_OVER {
            // Just over, once: judged again on the next window.
            self.good_windows = 0;
            return None;
        }
        if over {
            self.good_windows = 0;
            // The richest cheaper level predicted to fit; the cheapest if none does.
            let target = (self.level + 1..LEVELS.len())
                .find(|&j| median * LEVELS[j].cost / cost <= self.budget_ms * DOWN_AIM)
                .unwrap_or(LEVELS.len() - 1);
            if target == self.level {
                return None;
            }
            // Every level richer than the target proved (or is predicted) too slow.
            for j in 0..target {
                if self.banned_until[j] <= self.frame {
                    self.banned_until[j] = self.frame + self.next_ban[j];
                    self.next_ban[j] = self.next_ban[j].saturating_mul(2);
                }
            }
            return Some(self.switch(target));
        }
        if self.level > 0 && median <= self.budget_ms * UP_BELOW {
            self.good_windows += 1;
            let up = self.level - 1;
            let predicted = median * LEVELS[up].cost / cost;
            if self.good_windows >= 2
                && self.banned_until[up] <= self.frame
                && predicted <= self.budget_ms * DOWN_AIM
            {
                return Some(self.switch(up));
            }
        } else {
            self.good_windows = 0;
        }
        None
    }

    fn switch(&mut self, level: usize) -> Level {
        self.level = level;
        self.settle = SETTLE;
        self.good_windows = 0;
        self.over_before = false;
        self.window.clear();
        self.switches += 1;
        LEVELS[level]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_at_half_scale_or_more_draw_every_strand_of_the_16384_tier_no_wider_than_a_pixel_more()
    {
        use pelt::render::camera::CREATURE_CENTER;
        use pelt::render::strand_lod::{FULL_COAT_STRANDS, LodPolicy, StrandLod};
        use pelt::render::{Camera, CameraPreset, RenderSettings};
        // The demo's window and the shipped script's camera.
        let camera = Camera::preset(CameraPreset::Front);
        let settings = RenderSettings::default();
        for level in LEVELS {
            let height = (720.0 * level.scale).round() as u32;
            let policy = LodPolicy {
                strands_per_pixel: level.strands_per_pixel,
                min_drawn: level.min_drawn,
                reference_strands: Some(FULL_COAT_STRANDS),
                max_extra_pixels: Some(crate::app::MAX_EXTRA_PIXELS),
                ..LodPolicy::default()
            };
            let lod = StrandLod::for_view(
                16_384,
                &camera,
                height,
                settings.root_width,
                settings.min_pixels,
                &policy,
            );
            if level.scale >= 0.5 {
                assert_eq!(lod.drawn, 16_384, "scale {}", level.scale);
            }
            // The nearest strand's root, on screen, at full density and as drawn.
            let distance = (CREATURE_CENTER - camera.eye).length() - 0.55;
            let root = settings.root_width / (distance * camera.pixel_scale(height));
            let full = root.max(settings.min_pixels);
            let drawn = (root * lod.width_scale).max(settings.min_pixels);
            assert!(
                drawn <= full + 1.0 + 1e-3,
                "scale {}: a strand {drawn:.2} px wide, {full:.2} at full density",
                level.scale
            );
        }
    }

    /// A frame-time model: a fixed part plus parts that scale with pixels and strands,
    /// with ±15% deterministic noise. Its costs differ from the levels' estimates.
    fn model(level: Level, frame: u64, full_ms: f64) -> f64 {
        let s = f64::from(level.scale);
        let strands = f64::from(level.strands_per_pixel) * s * s;
        let clean = full_ms * (0.06 + 0.5 * s * s + 0.44 * strands);
        let noise = ((frame.wrapping_mul(2_654_435_761) >> 7) % 1000) as f64 / 1000.0;
        clean * (0.85 + 0.3 * noise)
    }

    /// Runs `frames` frames; returns the final level and the switches in the last half.
    fn run(full_ms: f64, frames: u64) -> (usize, u32) {
        let mut budget = FrameBudget::new(50.0, 0);
        let mut late_switches = 0;
        for f in 0..frames {
            let t = model(budget.level(), f, full_ms);
            if budget.record(t).is_some() && f >= frames / 2 {
                late_switches += 1;
            }
        }
        (budget.index(), late_switches)
    }

    /// The richest level whose worst-case modelled time is within the budget.
    fn richest_fitting(full_ms: f64) -> usize {
        (0..LEVELS.len())
            .find(|&j| {
                let s = f64::from(LEVELS[j].scale);
                let strands = f64::from(LEVELS[j].strands_per_pixel) * s * s;
                full_ms * (0.06 + 0.5 * s * s + 0.44 * strands) * 1.15 <= 50.0
            })
            .unwrap_or(LEVELS.len() - 1)
    }

    #[test]
    fn converges_to_a_level_that_fits_and_stays() {
        for full_ms in [30.0, 60.0, 120.0, 380.0, 900.0] {
            let (level, late) = run(full_ms, 600);
            let best = richest_fitting(full_ms);
            assert_eq!(late, 0, "{full_ms} ms: switched {late} times late on");
            // Fits (within the noise) and gives up at most one level for safety.
            assert!(
                level >= best.saturating_sub(1) && level <= best + 1,
                "{full_ms} ms: settled on level {level}, the richest that fits is {best}"
            );
            let worst = model(LEVELS[level], 0, full_ms) / 0.85 * 1.15;
            assert!(
                worst <= 50.0 || level == LEVELS.len() - 1,
                "{full_ms} ms: level {level} runs up to {worst:.0} ms"
            );
        }
    }

    #[test]
    fn a_level_just_over_budget_is_not_retried_over_and_over() {
        // Level 0 costs 52 ms, level 1 about 40: the naive controller would flip between them.
        let mut budget = FrameBudget::new(50.0, 0);
        for f in 0..1000u64 {
            let t = if budget.index() == 0 { 52.0 } else { 40.0 };
            let _ = budget.record(t + (f % 3) as f64);
        }
        assert!(budget.switches <= 1, "{} switches", budget.switches);
        assert_eq!(budget.index(), 1);
    }

    /// Frames until `budget` leaves its level, with frame `f`'s time `time(f)`; `None` if
    /// it stays for `frames`.
    fn frames_to_leave(
        mut budget: FrameBudget,
        frames: u64,
        time: impl Fn(u64) -> f64,
    ) -> Option<u64> {
        let start = budget.index();
        (0..frames).find(|&f| {
            let _ = budget.record(time(f));
            budget.index() != start
        })
    }

    #[test]
    fn frames_that_alternate_between_two_costs_are_judged_by_their_mean() {
        // The window's turns: frames of 44 and 54 ms, a mean of 49, within the 50 ms budget.
        let within = |f: u64| if f.is_multiple_of(2) { 44.0 } else { 54.0 };
        assert_eq!(
            frames_to_leave(FrameBudget::new(50.0, 4), 1000, within),
            None
        );
        // 48 and 58 ms, a mean of 53: over, and left after two windows (and the settling).
        let over = |f: u64| if f.is_multiple_of(2) { 48.0 } else { 58.0 };
        let left = frames_to_leave(FrameBudget::new(50.0, 4), 1000, over);
        assert_eq!(left, Some(u64::from(START_SETTLE) + 2 * WINDOW as u64 - 1));
    }

    #[test]
    fn one_window_just_over_budget_is_noise_but_a_window_well_over_leaves_at_once() {
        let settled = u64::from(START_SETTLE);
        // 46 ms frames with one window of 52 ms frames: the level holds.
        let spike = move |f: u64| {
            if (settled + 8..settled + 12).contains(&f) {
                52.0
            } else {
                46.0
            }
        };
        assert_eq!(frames_to_leave(FrameBudget::new(50.0, 4), 400, spike), None);
        // Two windows of 52 ms in a row: left at the end of the second.
        let twice = move |f: u64| {
            if (settled + 8..settled + 16).contains(&f) {
                52.0
            } else {
                46.0
            }
        };
        assert_eq!(
            frames_to_leave(FrameBudget::new(50.0, 4), 400, twice),
            Some(settled + 15)
        );
        // A window well over the budget (65 ms, 1.3×) leaves at once.
        let well_over = |_| 65.0;
        assert_eq!(
            frames_to_leave(FrameBudget::new(50.0, 4), 400, well_over),
            Some(settled + WINDOW as u64 - 1)
        );
    }

    #[test]
    fn windows_over_budget_count_only_in_a_row() {
        // Windows of 52 and 46 ms by turns: never two over in a row.
        let start = u64::from(START_SETTLE);
        let by_turns = move |f: u64| {
            let window = f.saturating_sub(start) / WINDOW as u64;
            if window.is_multiple_of(2) { 52.0 } else { 46.0 }
        };
        assert_eq!(
            frames_to_leave(FrameBudget::new(50.0, 4), 400, by_turns),
            None
        );
        // Two windows just over leave level 4; at level 5 a first window just over is noise
        // again (the window that left level 4 does not count for level 5).
        let mut budget = FrameBudget::new(50.0, 4);
        for _ in 0..START_SETTLE + 2 * WINDOW as u32 {
            let _ = budget.record(52.0);
        }
        assert_eq!(budget.index(), 5);
        for t in [30.0, 30.0, 52.0, 52.0, 52.0, 52.0] {
            let _ = budget.record(t);
        }
        assert_eq!(budget.index(), 5);
        for _ in 0..40 {
            let _ = budget.record(30.0);
        }
        assert_eq!(budget.index(), 5);
    }

    #[test]
    fn a_level_left_again_and_again_is_retried_ever_more_rarely() {
        // Level 0 runs over budget, level 1 well under it: the controller goes back up
        // when the ban on level 0 ends, and each ban is twice the last.
        let mut budget = FrameBudget::new(50.0, 0);
        let mut ups = Vec::new();
        for f in 0..2_000u64 {
            let before = budget.index();
            let _ = budget.record(if budget.index() == 0 { 56.0 } else { 25.0 });
            if before == 1 && budget.index() == 0 {
                ups.push(f);
            }
        }
        assert!(
            ups.len() >= 3,
            "level 0 retried {} times: {ups:?}",
            ups.len()
        );
        for pair in ups.windows(3) {
            let (first, second) = (pair[1] - pair[0], pair[2] - pair[1]);
            assert!(
                second as f64 >= 1.8 * first as f64,
                "retries {ups:?}: the gaps do not grow"
            );
        }
    }

    #[test]
    fn the_first_frames_of_a_run_are_not_judged() {
        // Eight frames at 60 ms (shader variants compiled at first use), then 45 ms.
        let warming = |f: u64| {
            if f < u64::from(START_SETTLE) {
                60.0
            } else {
                45.0
            }
        };
        assert_eq!(
            frames_to_leave(FrameBudget::new(50.0, 4), 400, warming),
            None
        );
        // Past them a level that stays at 65 ms (well over) is left after one window.
        let slow = |_| 65.0;
        assert_eq!(
            frames_to_leave(FrameBudget::new(50.0, 4), 400, slow),
            Some(u64::from(START_SETTLE) + WINDOW as u64 - 1)
        );
    }

    #[test]
    fn same_frame_times_same_decisions() {
        let trace = || {
            let mut b = FrameBudget::new(50.0, 0);
            (0..300u64)
                .map(|f| b.record(model(b.level(), f, 400.0)).map(|l| l.scale))
                .collect::<Vec<_>>()
        };
        assert_eq!(trace(), trace());
    }
}
