//! A groom grown on any body's triangles, with no groom file: roots sampled by area (a
//! triangle chosen in proportion to its area, a point uniform within it), each bound to its
//! triangle by barycentrics; the flow combed along the skeleton away from the highest joint
//! (down the limbs, from the head toward the tail); colour from the base colour texture at
//! the root's UV times the vertex colour; lengths, lift angles and clumps the creature's;
//! no fur on the materials a user expects bare ([`super::BARE_MATERIAL_WORDS`]), and short
//! fur beside them ([`super::near_bare`]); none on skin another layer of the body covers
//! ([`CoveredSkin`]: a body under its clothes); none longer than the room in front of it
//! ([`FreeSpace`]: under a chin, between the legs) or than its part is thick (short on ears,
//! muzzles and lower legs).
//! A groom file ([`GroomFile`]) changes any of these and keeps fur off its masks; strands
//! made elsewhere are grown as they are ([`BodyGroomSource::Strands`]).

use super::body_root::{BodyRoot, surface_at, triangle_area};
use super::covered::CoveredSkin;
use super::file::{Density, Direction, GroomFile, Mask};
use super::flow::project_and_turn;
use super::free_space::FreeSpace;
use super::mask::BodyMasks;
use super::morton::morton_code;
use super::near_bare::NearBare;
use super::noise::clump_field;
use super::strands::{BodyGroomSource, roots_from_strands};
use super::{BODY_LENGTH, GroomError, MAX_STRANDS};
use crate::body::BodyMesh;
use glam::Vec3;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// Spread of the random turn of the flow about the normal, radians (the creature's).
const FLOW_JITTER: f32 = 0.5;
/// The largest share of the skin's area the default bare list may leave bare; past it the
/// list's words name the coat's own material, and the list is not used.
const DEFAULT_LIST_MOST_BARE: f64 = 0.5;
/// The clump field's first octave, cycles per metre, and its strength (the creature's).
const CLUMP_FREQUENCY: f32 = 9.0;
const CLUMP_STRENGTH: f32 = 0.25;
/// Lift from the normal at the root and toward the tip, radians (the creature's body).
const LIFT_ROOT: f32 = 0.6;
const LIFT_TIP: f32 = 1.25;
/// How much "down" is added to the direction along the bones: fur on a level bone still
/// falls a little toward the ground.
const GRAVITY_COMB: f32 = 0.35;
/// Candidates drawn, every one under a mask, after which the masks are taken to cover the
/// whole body (a share of skin left bare of one in this many is missed at odds of 1/e).
const ALL_MASKED_AFTER: usize = 100_000;
/// The longest strand as a share of the body's height, so a small body is not buried.
const MAX_LENGTH_SHARE: f32 = 0.12;
/// The shortest fur of the default groom, metres.
const SHORTEST: f32 = 0.005;

/// A groom of a body: its roots in Morton order of their rest position.
#[derive(Clone, Debug, PartialEq)]
pub struct BodyGroom {
    /// The seed it was grown from.
    pub seed: u64,
    /// Every root (strand `i` grows from root `i`).
    pub roots: Vec<BodyRoot>,
}

impl BodyGroom {
    /// Grows `count` roots on `mesh` from `seed` (see the module docs). Same seed, same
    /// bits. An error for a count out of range or a body with no usable triangle.
    pub fn generate(mesh: &BodyMesh, count: usize, seed: u64) -> Result<BodyGroom, GroomError> {
        Self::grow(mesh, None, count, seed)
    }

    /// How many strands [`BodyGroom::grow`] grows at most with these arguments, known
    /// before any growing (cheap: for a density, one winding number per triangle to leave
    /// out the covered skin, as the growing does), so a count a device cannot hold is
    /// refused first: the strands' count, the file's `count`, its `density` times the area
    /// of the skin that grows fur (masks drop some), or `count`.
    pub fn planned_count(mesh: &BodyMesh, source: Option<&BodyGroomSource>, count: usize) -> usize {
        match source {
            Some(BodyGroomSource::Strands(s)) => s.len(),
            Some(BodyGroomSource::File(f)) => match f.density {
                Density::Count(n) => n,
                Density::PerSquareMetre(d) => {
                    let n = (f64::from(d) * skin_area(mesh)).round();
                    if n.is_finite() && n >= 0.0 {
                        n.min(usize::MAX as f64) as usize
                    } else {
                        0
                    }
                }
                Density::Tier => count,
            },
            None => count,
        }
    }

    /// Grows the coat of `mesh` as `source` says (`None`: the body alone, as
    /// [`BodyGroom::generate`]); `count` is the strand count where the source does not set
    /// one (a groom file's `density` or `count`, or the strands themselves).
    pub fn grow(
        mesh: &BodyMesh,
        source: Option<&BodyGroomSource>,
        count: usize,
        seed: u64,
    ) -> Result<BodyGroom, GroomError> {
        let file = match source {
            None => None,
            Some(BodyGroomSource::File(file)) => Some(file),
            Some(BodyGroomSource::Strands(strands)) => {
                let roots = roots_from_strands(mesh, strands, seed)?;
                return Ok(BodyGroom {
                    seed,
                    roots: in_morton_order(roots),
                });
            }
        };
        if let Some(f) = file {
            f.check_against(mesh).map_err(GroomError::Masks)?;
        }
        let cumulative = sampled_areas(mesh);
        let total = cumulative.last().copied().unwrap_or(0.0);
        if !(total.is_finite() && total > 0.0) {
            return Err(GroomError::NoSurface {
                triangles: mesh.triangles.len(),
            });
        }
        // A density draws its candidates over the skin (less what another layer covers)
        // and drops those a mask covers, so the furred skin gets the density asked for; a
        // count redraws them, so the coat has the count asked for.
        let (count, redraw) = match file.map(|f| f.density) {
            Some(Density::PerSquareMetre(d)) => {
                let n = (f64::from(d) * total).round();
                if !(n >= 1.0 && n <= MAX_STRANDS as f64) {
                    return Err(GroomError::Density {
                        density: d,
                        area: total as f32,
                        max: MAX_STRANDS,
                    });
                }
                (n as usize, false)
            }
            Some(Density::Count(n)) => (n, true),
            Some(Density::Tier) | None => (count, true),
        };
        if count == 0 || count > MAX_STRANDS {
            return Err(GroomError::StrandCount {
                count,
                max: MAX_STRANDS,
            });
        }
        // With no file (or a file without `no_fur`), the default list: no fur on the parts
        // a user expects bare, unless its words would bare more than half of the skin
        // (then they name the coat itself, "Eye_of_the_storm_body", not an eye).
        let default_masks = GroomFile::default().no_fur;
        let list = file.map_or(&default_masks, |f| &f.no_fur);
        let masks = masks_for(list, mesh);
        let near_bare = NearBare::new(mesh, &masks);
        let height = mesh.rest_height();
        let comb = CombField::new(mesh);
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let clump_seed = (seed ^ (seed >> 32)) as u32;
        let clump_frequency = file.map_or(CLUMP_FREQUENCY, |f| f.clumping.frequency);
        let jitter = file.map_or(FLOW_JITTER, |f| f.flow_jitter);
        let mut roots = Vec::with_capacity(count);
        // A body whose chosen triangles keep giving no usable root is degenerate: give up
        // after a budget as the creature's sampler does, never loop for ever.
        let max_tries = 2_000_000 + 2_000 * count as u64;
        let mut tries = 0u64;
        let mut drawn = 0usize;
        while roots.len() < count && (redraw || drawn < count) {
            tries += 1;
            if tries > max_tries {
                return Err(GroomError::Degenerate {
                    placed: roots.len(),
                    wanted: count,
                    tries,
                });
            }
            drawn += 1;
            let pick = rng.random::<f64>() * total;
            let triangle = cumulative
                .partition_point(|&c| c <= pick)
                .min(cumulative.len() - 1);
            // Uniform in the triangle: fold the unit square's upper half back.
            let (mut a, mut b): (f32, f32) = (rng.random(), rng.random());
            if a + b > 1.0 {
                (a, b) = (1.0 - a, 1.0 - b);
            }
            let barycentric = Vec3::new(1.0 - a - b, a, b);
            let turn = (rng.random::<f32>() - 0.5) * jitter;
            let random: f32 = rng.random();
            if !masks.grows_at(mesh, triangle, barycentric) {
                // Masks that have covered every candidate of a long run cover the body.
                if roots.is_empty() && drawn >= ALL_MASKED_AFTER {
                    return Err(GroomError::AllMasked);
                }
                continue;
            }
            let Some(root) = comb.root(mesh, file, triangle as u32, barycentric, turn, random)
            else {
                continue;
            };
            let length = match file {
                None => {
                    let clump = clump_field(clump_seed, root.position, CLUMP_FREQUENCY);
                    let length =
                        BODY_LENGTH * (1.0 + CLUMP_STRENGTH * clump) * (0.88 + 0.24 * random);
                    length.clamp(SHORTEST, (MAX_LENGTH_SHARE * height).max(0.01))
                }
                Some(f) => f.length_for(
                    random,
                    clump_field(clump_seed, root.position, clump_frequency),
                ),
            };
            let length = match &near_bare {
                Some(near) => near.shortened(root.position, length),
                None => length,
            };
            roots.push(BodyRoot { length, ..root });
        }
        if roots.is_empty() {
            return Err(GroomError::AllMasked);
        }
        if file.is_none() {
            // A groom file's lengths are the user's (long hair may drape over the body).
            if !FreeSpace::new(mesh).shorten(&mut roots, SHORTEST) {
                log::warn!(
                    "the body's triangles pile up or span it too much to measure the room in front of its fur and the depth beneath it: lengths kept"
                );
            }
        }
        Ok(BodyGroom {
            seed,
            roots: in_morton_order(roots),
        })
    }
}

/// The running total of the areas the root sampler draws from, one per triangle (f64, so a
/// million small triangles add exactly enough): every triangle's area but the skin another
/// layer of the body covers ([`CoveredSkin`]), unless that is all of it; 0 for a triangle
/// with an index past the vertices.
fn sampled_areas(mesh: &BodyMesh) -> Vec<f64> {
    let covered = CoveredSkin::new(mesh);
    let running = |skip: &dyn Fn(usize) -> bool| {
        let mut total = 0.0f64;
        mesh.triangles
            .iter()
            .enumerate()
            .map(|(i, t)| {
                if !skip(i) {
                    total += triangle_area(mesh, t);
                }
                total
            })
            .collect::<Vec<f64>>()
    };
    let cumulative = running(&|i| covered.is_covered(i));
    if cumulative.last().is_some_and(|&t| t == 0.0) && !covered.is_empty() {
        running(&|_| false)
    } else {
        cumulative
    }
}

/// The area of the skin the root sampler draws from, square metres, added as it adds it.
fn skin_area(mesh: &BodyMesh) -> f64 {
    sampled_areas(mesh).last().copied().unwrap_or(0.0)
}

/// The masks `list` makes on `mesh`; for the default list (every mask a
/// [`Mask::MaterialWord`]) none where it would leave more than
/// [`DEFAULT_LIST_MOST_BARE`] of the skin's area bare.
fn masks_for<'a>(list: &'a [Mask], mesh: &BodyMesh) -> BodyMasks<'a> {
    let masks = BodyMasks::new(list, mesh);
    if !list.iter().all(|m| matches!(m, Mask::MaterialWord(_))) {
        return masks;
    }
    let (mut bare, mut total) = (0.0f64, 0.0f64);
    for (t, &m) in mesh.triangles.iter().zip(&mesh.triangle_materials) {
        let area = triangle_area(mesh, t);
        total += area;
        if masks.material_is_bare(m) {
            bare += area;
        }
    }
    if bare > DEFAULT_LIST_MOST_BARE * total {
        BodyMasks::new(&[], mesh)
    } else {
        masks
    }
}

/// The names of `mesh`'s materials the groom leaves bare when no groom file says
/// otherwise ([`super::BARE_MATERIAL_WORDS`]), in the body's order: for a summary, so a
/// user sees which parts grow no fur.
pub fn default_bare_materials(mesh: &BodyMesh) -> Vec<&str> {
    let list = GroomFile::default().no_fur;
    let masks = masks_for(&list, mesh);
    mesh.material_names
        .iter()
        .enumerate()
        .filter(|(i, _)| u16::try_from(*i).is_ok_and(|m| masks.material_is_bare(m)))
        .map(|(_, n)| n.as_str())
        .collect()
}

/// `roots` in Morton order of their rest positions.
fn in_morton_order(mut roots: Vec<BodyRoot>) -> Vec<BodyRoot> {
    let (lo, hi) = roots.iter().fold(
        (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
        |(lo, hi), r| (lo.min(r.position), hi.max(r.position)),
    );
    roots.sort_by_cached_key(|r| morton_code(r.position, lo, hi));
    roots
}

/// Which way fur lies along the skeleton: for each joint, the direction of its bone
/// (parent → joint) turned to point away from the highest joint (the head, on most
/// animals and on people), plus a little "down"; a root joint points away from the highest
/// joint.
struct CombField {
    directions: Vec<Vec3>,
}

impl CombField {
    fn new(mesh: &BodyMesh) -> Self {
        let joints = &mesh.joint_positions;
        let highest = mesh.highest_joint().map_or(Vec3::ZERO, |j| joints[j]);
        let directions = joints
            .iter()
            .enumerate()
            .map(|(j, &p)| {
                let parent = mesh
                    .joint_parents
                    .get(j)
                    .copied()
                    .flatten()
                    .and_then(|q| joints.get(usize::from(q)).copied());
                let along = match parent {
                    Some(q) => {
                        let d = p - q;
                        if d.dot(highest - q) > 0.0 { -d } else { d }
                    }
                    None => p - highest,
                };
                along.normalize_or_zero() + Vec3::NEG_Y * GRAVITY_COMB
            })
            .collect();
        CombField { directions }
    }

    /// The comb direction at vertex `v`: its heaviest joint's.
    fn at(&self, mesh: &BodyMesh, v: usize) -> Vec3 {
        let heaviest = match (mesh.joints.get(v), mesh.weights.get(v)) {
            (Some(j), Some(w)) => {
                let mut best = 0;
                for k in 1..j.len() {
                    if w[k] > w[best] {
                        best = k;
                    }
                }
                Some(usize::from(j[best]))
            }
            _ => None,
        };
        heaviest
            .and_then(|j| self.directions.get(j).copied())
            .unwrap_or(Vec3::NEG_Y)
    }

    /// The root at `barycentric` in `triangle`, or `None` where the triangle gives no
    /// usable normal (zero area, non-finite numbers); `file`'s direction, lift and colour
    /// where there is one.
    fn root(
        &self,
        mesh: &BodyMesh,
        file: Option<&GroomFile>,
        triangle: u32,
        barycentric: Vec3,
        turn: f32,
        random: f32,
    ) -> Option<BodyRoot> {
        let surface = surface_at(mesh, triangle, barycentric)?;
        let along_bones = || {
            let idx = mesh.triangles.get(triangle as usize)?.map(|i| i as usize);
            let c = idx.map(|v| self.at(mesh, v));
            Some(c[0] * barycentric.x + c[1] * barycentric.y + c[2] * barycentric.z)
        };
        let comb = match file.map(|f| f.direction) {
            None | Some(Direction::AlongBones) => along_bones().unwrap_or(Vec3::NEG_Y),
            Some(Direction::Down) => Vec3::NEG_Y,
            Some(Direction::Fixed(d)) => d,
        };
        let comb = if comb.is_finite() { comb } else { Vec3::NEG_Y };
        let flow = project_and_turn(comb, surface.normal, turn);
        let color = match file {
            None => surface.color,
            Some(f) => {
                let c = f.colour_at(mesh, triangle as usize, barycentric);
                if c.is_finite() {
                    c.clamp(Vec3::ZERO, Vec3::ONE)
                } else {
                    Vec3::splat(0.5)
                }
            }
        };
        Some(BodyRoot {
            triangle,
            barycentric,
            position: surface.position,
            normal: surface.normal,
            flow,
            length: BODY_LENGTH,
            lift_root: file.map_or(LIFT_ROOT, |f| f.lift.root),
            lift_tip: file.map_or(LIFT_TIP, |f| f.lift.tip),
            random,
            color,
            rest_angles: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::{CylinderSpec, skinned_cylinder};

    #[test]
    fn roots_lie_on_their_triangles_and_the_fur_is_combed_down() {
        let (mesh, _) = skinned_cylinder(&CylinderSpec::default());
        let groom = BodyGroom::generate(&mesh, 2_000, 7).unwrap();
        assert_eq!(groom.roots.len(), 2_000);
        let mut down = 0;
        for r in &groom.roots {
            let t = mesh.triangles[r.triangle as usize].map(|i| mesh.positions[i as usize]);
            let p = t[0] * r.barycentric.x + t[1] * r.barycentric.y + t[2] * r.barycentric.z;
            assert!((p - r.position).length() < 1e-6);
            assert!(r.flow.dot(r.normal).abs() < 1e-3);
            assert!((r.flow.length() - 1.0).abs() < 1e-3);
            if r.flow.y < -0.5 {
                down += 1;
            }
        }
        // The jitter turns a few flows away from straight down, never most of them.
        assert!(down > 1_900, "{down} of 2000 roots combed down");
    }

    #[test]
    fn roots_spread_by_area_not_by_triangle() {
        // Rings crowded toward the bottom (height ∝ s²): the lower half of the height holds
        // 71% of the triangles but half the area, so half the roots.
        let spec = CylinderSpec::default();
        let (mut mesh, _) = skinned_cylinder(&spec);
        for p in &mut mesh.positions {
            let s = (p.y - spec.base) / spec.height;
            p.y = spec.base + spec.height * s * s;
        }
        let groom = BodyGroom::generate(&mesh, 4_000, 3).unwrap();
        let mid = spec.base + spec.height * 0.5;
        let upper = groom.roots.iter().filter(|r| r.position.y > mid).count();
        assert!(
            (1_800..2_200).contains(&upper),
            "{upper} of 4000 in the upper half"
        );
    }

    #[test]
    fn colour_comes_from_the_texture() {
        let (mesh, _) = skinned_cylinder(&CylinderSpec::default());
        let groom = BodyGroom::generate(&mesh, 500, 1).unwrap();
        let lin = |c: [u8; 4]| {
            Vec3::new(
                crate::creature::srgb_to_linear(c[0]),
                crate::creature::srgb_to_linear(c[1]),
                crate::creature::srgb_to_linear(c[2]),
            )
        };
        let spec = CylinderSpec::default();
        let mid = spec.base + spec.height * 0.5;
        for r in &groom.roots {
            let want = lin(crate::body::CYLINDER_COLORS[usize::from(r.position.y < mid)]);
            // Roots within a texel row's rounding of the middle may take either colour.
            if (r.position.y - mid).abs() > 0.01 {
                assert!((r.color - want).length() < 1e-5, "{} vs {want}", r.color);
            }
        }
    }

    #[test]
    fn masks_over_the_whole_body_are_an_error() {
        use crate::groom::{Channel, GroomFile, Mask, Threshold};
        let (mesh, _) = skinned_cylinder(&CylinderSpec::default());
        // The cylinder's vertex colours are white: red above 0.5 everywhere.
        let everywhere = BodyGroomSource::File(GroomFile {
            no_fur: vec![Mask::VertexColour(Channel::R, Threshold::Above(0.5))],
            ..GroomFile::default()
        });
        assert_eq!(
            BodyGroom::grow(&mesh, Some(&everywhere), 10, 1),
            Err(GroomError::AllMasked)
        );
    }

    #[test]
    fn a_flat_body_is_an_error() {
        let (mut mesh, _) = skinned_cylinder(&CylinderSpec::default());
        for p in &mut mesh.positions {
            *p = Vec3::ZERO;
        }
        assert!(BodyGroom::generate(&mesh, 10, 1).is_err());
    }
}
