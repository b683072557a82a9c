//! The root sampler: each part's area from sampled Jacobians, a part chosen by area, a
//! parameter accepted with probability `J / (1.15 · J_max)` (so roots are uniform per unit
//! area), and roots buried inside another part culled (a culled root starts over from the
//! part choice, which keeps the density uniform over the visible surface).

use super::flow::{flow_at, project_and_turn};
use super::noise::clump_field;
use super::{BODY_LENGTH, Groom, GroomError, HEAD_LENGTH, PAW_LENGTH, StrandRoot};
use crate::creature::pattern_at;
use crate::creature::{Creature, Part};
use glam::Vec3;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// Jacobians sampled per part to estimate its area and the rejection bound.
pub const JACOBIAN_SAMPLES: usize = 12_000;
/// The rejection bound is this many times the largest sampled Jacobian, since the sampled
/// maximum underestimates the true one.
pub const REJECTION_MARGIN: f32 = 1.15;
/// Spread of the random turn of the groom flow about the normal, radians (total width).
const FLOW_JITTER: f32 = 0.5;
/// Spatial frequency of the clump field's first octave, cycles per metre.
const CLUMP_FREQUENCY: f32 = 9.0;
/// How strongly the clump field changes length (±).
const CLUMP_STRENGTH: f32 = 0.25;

/// One part's measured area and Jacobian bound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PartArea {
    /// The part.
    pub part: Part,
    /// Estimated area, m² (mean sampled Jacobian × parameter measure).
    pub area: f32,
    /// Largest sampled Jacobian.
    pub max_jacobian: f32,
}

/// A uniformly distributed parameter for `part`: a unit direction, or `(t, ψ, 0)`.
pub fn sample_parameter(part: Part, rng: &mut Pcg64Mcg) -> Vec3 {
    let a: f32 = rng.random();
    let b: f32 = rng.random();
    match part {
        Part::Tail => Vec3::new(a, b * std::f32::consts::TAU, 0.0),
        _ => {
            let y = 1.0 - 2.0 * a;
            let ring = (1.0 - y * y).max(0.0).sqrt();
            let phi = b * std::f32::consts::TAU;
            Vec3::new(ring * phi.cos(), y, ring * phi.sin())
        }
    }
}

/// Measures every part's area and Jacobian bound from [`JACOBIAN_SAMPLES`] samples each.
pub fn measure_areas(creature: &Creature, rng: &mut Pcg64Mcg) -> Vec<PartArea> {
    Part::ALL
        .iter()
        .map(|&part| {
            let (mut sum, mut max) = (0.0f64, 0.0f32);
            for _ in 0..JACOBIAN_SAMPLES {
                let j = creature.surface(part, sample_parameter(part, rng)).jacobian;
                sum += f64::from(j);
                max = max.max(j);
            }
            let mean = (sum / JACOBIAN_SAMPLES as f64) as f32;
            PartArea {
                part,
                area: mean * Creature::parameter_measure(part),
                max_jacobian: max,
            }
        })
        .collect()
}

fn base_length(part: Part) -> f32 {
    match part {
        Part::Head => HEAD_LENGTH,
        Part::Body | Part::Tail => BODY_LENGTH,
        Part::Paw(_) => PAW_LENGTH,
    }
}

/// Places `count` roots; see the module docs.
pub fn sample(creature: &Creature, count: usize, seed: u64) -> Result<Groom, GroomError> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let areas = measure_areas(creature, &mut rng);
    let total: f32 = areas.iter().map(|a| a.area).sum();
    if !(total.is_finite() && total > 0.0) {
        return Err(GroomError::Degenerate {
            placed: 0,
            wanted: count,
            tries: 0,
        });
    }
    let clump_seed = (seed ^ (seed >> 32)) as u32;
    let max_tries = 2_000_000 + 2_000 * count as u64;
    let mut roots = Vec::with_capacity(count);
    let mut tries = 0u64;
    // Counts one candidate; past the budget the creature is taken to be degenerate.
    let count_try = |tries: &mut u64, placed: usize| {
        *tries += 1;
        if *tries > max_tries {
            Err(GroomError::Degenerate {
                placed,
                wanted: count,
                tries: *tries,
            })
        } else {
            Ok(())
        }
    };
    while roots.len() < count {
        count_try(&mut tries, roots.len())?;
        // The part, chosen in proportion to its area.
        let pick = rng.random::<f32>() * total;
        let mut acc = 0.0;
        let chosen = areas
            .iter()
            .find(|a| {
                acc += a.area;
                pick < acc
            })
            .unwrap_or(&areas[areas.len() - 1]);
        let part = chosen.part;
        // Rejection within the chosen part: retrying the part choice after a rejection
        // would favour parts whose Jacobian varies least (the ears would go bald).
        let (param, surface) = loop {
            let param = sample_parameter(part, &mut rng);
            let surface = creature.surface(part, param);
            let accept = rng.random::<f32>() * REJECTION_MARGIN * chosen.max_jacobian;
            if accept < surface.jacobian {
                break (param, surface);
            }
            count_try(&mut tries, roots.len())?;
        };
        let body_position = creature.to_body(part, surface.position);
        if creature.inside_other(part, body_position) {
            continue;
        }
        let turn = (rng.random::<f32>() - 0.5) * FLOW_JITTER;
        let random: f32 = rng.random();
        let t = param.x;
        let groom = flow_at(creature, part, surface.position, surface.normal, t);
        let clump = clump_field(clump_seed, body_position, CLUMP_FREQUENCY);
        let length = base_length(part)
            * groom.length_factor
            * (1.0 + CLUMP_STRENGTH * clump)
            * (0.88 + 0.24 * random);
        roots.push(StrandRoot {
            part,
            position: surface.position,
            normal: surface.normal,
            flow: project_and_turn(groom.direction, surface.normal, turn),
            length: length.clamp(0.015, 0.25),
            lift_root: groom.lift_root,
            lift_tip: groom.lift_tip,
            random,
            tail_t: if part == Part::Tail { t } else { 0.0 },
            pattern: pattern_at(creature, part, surface.position, surface.normal, t),
        });
    }
    Ok(Groom { seed, roots, areas })
}
