//! `--raster auto` in the demo with the budget on: which hair path draws each budget level
//! faster, measured on this machine rather than guessed from the adapter's kind. Which
//! path is faster depends on the target's size and the strands drawn (the numbers are in
//! `docs/architecture.md`, "Measured"), so no one choice is right for every level.
//!
//! Pure logic (no GPU): the first time a level is drawn, three frames are drawn by each
//! candidate path in turn (after one that settles: a path's first frame builds its
//! pipelines), and the path with the lowest median is kept for that level from then on.
//! The budget does not count the frames measured here. With the budget off the demo never
//! probes: the adapter's kind decides, so the same arguments draw the same pictures.

use pelt::render::Raster;

/// Frames measured for each path (few: the budget waits while a level is measured).
const FRAMES: usize = 3;
/// Frames not measured after a path is switched in.
const SETTLE: u32 = 1;

/// The paths the demo's probe measures: the ribbons and the native rasteriser (the compute
/// rasteriser that emulates the ribbons' MSAA is slower than the native one wherever both
/// were measured, and is on its way out).
pub const CANDIDATES: [Raster; 2] = [Raster::Hardware, Raster::Native];

/// The candidates that draw right in targets of `samples` MSAA samples: all of them with
/// MSAA; at one sample only the native path (the ribbons' alpha-to-coverage would turn
/// into all-or-nothing pixels, cheaper and wrong, and the probe would pick them for it).
pub fn candidates(samples: u32) -> &'static [Raster] {
    if samples > 1 {
        &CANDIDATES
    } else {
        &CANDIDATES[1..]
    }
}

/// Which path each level draws faster, as far as measured.
#[derive(Clone, Debug)]
pub struct RasterProbe {
    /// The paths measured, in the order they are tried (at least one).
    candidates: Vec<Raster>,
    /// Per level: the faster path, once every candidate was measured.
    chosen: Vec<Option<Raster>>,
    /// The level being measured, the candidate being measured (its index), its frames, the
    /// fastest median so far, and frames still to settle.
    level: usize,
    trying: usize,
    frames: Vec<f64>,
    best: Option<(Raster, f64)>,
    settle: u32,
}

impl RasterProbe {
    /// A probe for `levels` budget levels choosing among `candidates` (the first when
    /// none are given, and on ties), none measured yet.
    pub fn new(levels: usize, candidates: &[Raster]) -> Self {
        let candidates = if candidates.is_empty() {
            vec![Raster::Hardware]
        } else {
            candidates.to_vec()
        };
        RasterProbe {
            candidates,
            chosen: vec![None; levels],
            level: usize::MAX,
            trying: 0,
            frames: Vec::with_capacity(FRAMES),
            best: None,
            settle: SETTLE,
        }
    }

    /// The path to draw the next frame of `level` with.
    pub fn raster(&mut self, level: usize) -> Raster {
        if let Some(Some(chosen)) = self.chosen.get(level) {
            return *chosen;
        }
        if level != self.level {
            self.level = level;
            self.trying = 0;
            self.frames.clear();
            self.best = None;
            self.settle = SETTLE;
        }
        self.candidates[self.trying]
    }

    /// Whether `level`'s faster path is known.
    pub fn measured(&self, level: usize) -> bool {
        matches!(self.chosen.get(level), Some(Some(_)))
    }

    /// Records a shown frame of `level`, drawn by the path [`RasterProbe::raster`] gave,
    /// in `frame_ms`. Returns whether the frame was part of a measurement (then the budget
    /// should not count it).
    pub fn record(&mut self, level: usize, frame_ms: f64) -> bool {
        if self.measured(level) || level != self.level || level >= self.chosen.len() {
            return false;
        }
        if self.settle > 0 {
            self.settle -= 1;
            return true;
        }
        if !frame_ms.is_finite() {
            return true;
        }
        self.frames.push(frame_ms);
        if self.frames.len() < FRAMES {
            return true;
        }
        let mut sorted = std::mem::take(&mut self.frames);
        sorted.sort_by(f64::total_cmp);
        let median = sorted[FRAMES / 2];
        let raster = self.candidates[self.trying];
        if self.best.is_none_or(|(_, best)| median < best) {
            self.best = Some((raster, median));
        }
        self.trying += 1;
        self.settle = SETTLE;
        if self.trying == self.candidates.len() {
            self.chosen[level] = self.best.map(|(r, _)| r);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs frames at `level` with `ms_of` giving each path's frame time, until the probe
    /// settles; returns the chosen path and the frames it took.
    fn probe(p: &mut RasterProbe, level: usize, ms_of: impl Fn(Raster) -> f64) -> (Raster, usize) {
        for frame in 1..100 {
            let raster = p.raster(level);
            p.record(level, ms_of(raster));
            if p.measured(level) {
                return (p.raster(level), frame);
            }
        }
        panic!("the probe never chose");
    }

    #[test]
    fn each_level_keeps_the_path_measured_faster_there() {
        let mut p = RasterProbe::new(3, &CANDIDATES);
        // Level 0: native faster; level 2: the ribbons.
        let (chosen, frames) = probe(&mut p, 0, |r| match r {
            Raster::Native => 40.0,
            _ => 60.0,
        });
        assert_eq!(chosen, Raster::Native);
        assert_eq!(frames, 2 * (SETTLE as usize + FRAMES));
        let (chosen, _) = probe(&mut p, 2, |r| match r {
            Raster::Native => 92.0,
            _ => 86.0,
        });
        assert_eq!(chosen, Raster::Hardware);
        // Back at level 0, the earlier measurement stands and nothing is measured again.
        assert_eq!(p.raster(0), Raster::Native);
        assert!(!p.record(0, 1000.0));
        assert_eq!(p.raster(0), Raster::Native);
    }

    #[test]
    fn settling_frames_and_outliers_do_not_decide() {
        let mut p = RasterProbe::new(1, &CANDIDATES);
        // The first frames of each path are slow (pipelines built): they settle unseen.
        // One outlier among the measured frames does not move the median either.
        let mut seen = std::collections::HashMap::new();
        for _ in 0..100 {
            let raster = p.raster(0);
            let n = seen.entry(raster).or_insert(0u32);
            *n += 1;
            let ms = match (raster, *n) {
                (_, n) if n <= SETTLE => 5000.0,
                (Raster::Native, n) if n == SETTLE + 1 => 900.0,
                (Raster::Native, _) => 50.0,
                _ => 70.0,
            };
            p.record(0, ms);
            if p.measured(0) {
                break;
            }
        }
        assert_eq!(p.raster(0), Raster::Native);
    }

    #[test]
    fn a_level_left_halfway_is_measured_again_from_the_start() {
        let mut p = RasterProbe::new(2, &CANDIDATES);
        for _ in 0..SETTLE as usize + 2 {
            let r = p.raster(0);
            p.record(0, if r == Raster::Hardware { 10.0 } else { 20.0 });
        }
        // The budget moved to level 1, then back.
        let _ = probe(&mut p, 1, |_| 30.0);
        assert!(!p.measured(0));
        assert_eq!(p.raster(0), Raster::Hardware, "level 0 starts over");
        let (chosen, frames) = probe(&mut p, 0, |r| match r {
            Raster::Native => 20.0,
            _ => 10.0,
        });
        assert_eq!(chosen, Raster::Hardware);
        assert_eq!(frames, 2 * (SETTLE as usize + FRAMES));
    }

    #[test]
    fn one_sample_targets_never_probe_the_ribbons() {
        assert_eq!(candidates(4), &CANDIDATES[..]);
        assert!(candidates(1).iter().all(|&r| r != Raster::Hardware));
        assert!(candidates(1).contains(&Raster::Native));
        // Ribbons measured faster (all-or-nothing pixels are cheap) are still not chosen.
        let mut p = RasterProbe::new(1, candidates(1));
        let (chosen, _) = probe(&mut p, 0, |r| match r {
            Raster::Hardware => 10.0,
            _ => 50.0,
        });
        assert_eq!(chosen, Raster::Native);
        let mut p = RasterProbe::new(1, candidates(4));
        let (chosen, _) = probe(&mut p, 0, |r| match r {
            Raster::Hardware => 10.0,
            _ => 50.0,
        });
        assert_eq!(chosen, Raster::Hardware);
    }

    #[test]
    fn three_candidates_are_each_measured_and_the_fastest_kept() {
        let mut p = RasterProbe::new(1, &[Raster::Hardware, Raster::Strands, Raster::Native]);
        let (chosen, frames) = probe(&mut p, 0, |r| match r {
            Raster::Strands => 30.0,
            Raster::Native => 35.0,
            _ => 60.0,
        });
        assert_eq!(chosen, Raster::Strands);
        assert_eq!(frames, 3 * (SETTLE as usize + FRAMES));
    }
}
