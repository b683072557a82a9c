//! Choosing the strand tier from measured frames: the demo starts on the largest tier the
//! adapter keeps at 20 frames a second or more, found by timing real frames (never guessed
//! from the adapter's name).

/// Frames a second the chosen tier must keep.
pub const TARGET_FPS: f64 = 20.0;
/// Frames skipped after a tier starts (pipeline compilation, first uploads).
const WARM_UP: usize = 3;
/// Frames timed per tier.
const MEASURED: usize = 8;
/// The tiers tried, largest first: the full coat and halvings of it down to 4,096.
pub const CANDIDATES: [usize; 8] = [
    420_032, 262_144, 131_072, 65_536, 32_768, 16_384, 8_192, 4_096,
];

/// What to do after a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Keep measuring the current tier.
    Measure,
    /// Rebuild the coat with this many strands and measure it.
    Switch(usize),
    /// The current tier is chosen.
    Done,
}

/// The tier search.
#[derive(Clone, Debug)]
pub struct TierChooser {
    candidates: Vec<usize>,
    current: usize,
    frames: Vec<f64>,
    /// Strand counts measured, with their median frame time in ms.
    pub tried: Vec<(usize, f64)>,
    done: bool,
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

impl TierChooser {
    /// A search among the candidate tiers up to `max_strands`, starting at `first` (which
    /// is added to the candidates if it is not one).
    pub fn new(first: usize, max_strands: usize) -> Self {
        let mut candidates: Vec<usize> = CANDIDATES
            .iter()
            .copied()
            .filter(|&c| c <= max_strands)
            .chain(std::iter::once(first.min(max_strands).max(1)))
            .collect();
        candidates.sort_unstable_by(|a, b| b.cmp(a));
        candidates.dedup();
        TierChooser {
            current: first.min(max_strands).max(1),
            candidates,
            frames: Vec::new(),
            tried: Vec::new(),
            done: false,
        }
    }

    /// The strand count being measured (or chosen).
    pub fn current(&self) -> usize {
        self.current
    }

    /// Records one frame of `ms` milliseconds at the current tier.
    pub fn record(&mut self, ms: f64) -> Decision {
        if self.done {
            return Decision::Done;
        }
        self.frames.push(ms);
        if self.frames.len() < WARM_UP + MEASURED {
            return Decision::Measure;
        }
        let frame_ms = median(&self.frames[WARM_UP..]);
        self.frames.clear();
        self.tried.push((self.current, frame_ms));
        let budget = 1000.0 / TARGET_FPS;
        let fits = |n: usize| self.tried.iter().any(|&(s, t)| s == n && t <= budget);
        let failed = |n: usize| self.tried.iter().any(|&(s, t)| s == n && t > budget);
        let predicted = self.predict(budget);
        let next = if frame_ms <= budget {
            self.candidates
                .iter()
                .copied()
                .find(|&c| c > self.current && c <= predicted && !failed(c))
        } else {
            self.candidates
                .iter()
                .copied()
                .find(|&c| c < self.current && (c <= predicted || c == self.smallest()))
        };
        match next {
            Some(n) if !fits(n) && !failed(n) => {
                self.current = n;
                Decision::Switch(n)
            }
            _ => {
                // Nothing better to try: keep the largest tier that fitted, or the smallest.
                let best = self
                    .tried
                    .iter()
                    .filter(|&&(_, t)| t <= budget)
                    .map(|&(s, _)| s)
                    .max()
                    .unwrap_or_else(|| self.smallest());
                self.done = true;
                if best != self.current {
                    self.current = best;
                    Decision::Switch(best)
                } else {
                    Decision::Done
                }
            }
        }
    }

    /// The strand count predicted to take `budget` ms a frame. Frame time grows about
    /// linearly with strands: a line through the last two tiers measured, or through the
    /// origin and the only one. The next measurement confirms it; a tier that misses is
    /// never tried again, and the search settles on the largest that fitted.
    fn predict(&self, budget: f64) -> usize {
        let n = self.tried.len();
        let (s1, t1) = self.tried[n - 1];
        let line = (n >= 2)
            .then(|| self.tried[n - 2])
            .filter(|&(s0, t0)| s0 != s1 && t1 > t0)
            .map(|(s0, t0)| {
                let slope = (t1 - t0) / (s1 as f64 - s0 as f64);
                (t1 - slope * s1 as f64, slope)
            });
        let strands = match line {
            Some((fixed, per_strand)) => (budget - fixed.max(0.0)) / per_strand,
            None => s1 as f64 * budget / t1.max(1e-3),
        };
        strands.max(0.0) as usize
    }

    fn smallest(&self) -> usize {
        self.candidates.last().copied().unwrap_or(self.current)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the search against a machine whose frame costs `fixed + per_strand · strands`.
    fn choose(first: usize, fixed: f64, per_strand: f64) -> (usize, usize) {
        let mut chooser = TierChooser::new(first, 420_032);
        let mut switches = 0;
        for _ in 0..1000 {
            let ms = fixed + per_strand * chooser.current() as f64;
            match chooser.record(ms) {
                Decision::Measure => {}
                Decision::Switch(_) => switches += 1,
                Decision::Done => return (chooser.current(), switches),
            }
        }
        panic!("the search never ended");
    }

    #[test]
    fn a_fast_gpu_keeps_the_full_coat() {
        assert_eq!(choose(420_032, 2.0, 1e-5).0, 420_032);
    }

    #[test]
    fn a_slow_adapter_steps_down_to_the_largest_tier_that_keeps_20_fps() {
        // 10 ms fixed + 1 ms per 1000 strands: 40k strands fit in 50 ms, 65k do not.
        let (tier, switches) = choose(420_032, 10.0, 1e-3);
        assert_eq!(tier, 32_768);
        assert!(switches <= 3, "{switches} rebuilds");
    }

    #[test]
    fn a_small_probe_climbs_to_what_fits() {
        let (tier, _) = choose(32_768, 5.0, 1e-4);
        // 5 + 0.1 ms per 1000: 450k would fit, so the full coat.
        assert_eq!(tier, 420_032);
        let (tier, _) = choose(32_768, 5.0, 3e-4);
        // 150k fit: 131,072 is the largest candidate below.
        assert_eq!(tier, 131_072);
    }

    #[test]
    fn nothing_fits_gives_the_smallest_tier() {
        assert_eq!(choose(32_768, 80.0, 1e-3).0, 4_096);
    }
}
