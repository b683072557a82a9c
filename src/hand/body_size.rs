//! The hand's size on a body of the user's. The hand is sized for the built-in creature;
//! a body is fitted to a height of the user's choosing (`--body-height`), so on a body the
//! hand is scaled by the body's height against the creature's: the same hand beside a
//! 0.3 m kitten and a 3 m bear reads as it does beside the creature. The heights the palm
//! and fingertips keep above the skin follow the coat, which grows shorter on a smaller
//! body and no longer on a larger one.

use std::ops::RangeInclusive;

/// The built-in creature's height at rest, metres: the vertical extent of its skin as its
/// exported mesh has it (a body's height is measured the same way).
pub const CREATURE_HEIGHT: f32 = 1.18;

/// The smallest and largest factor a body's height scales the hand by. Within them the hand
/// stays in proportion; past them (bodies under about 15 cm or over about 9.4 m) it stops at
/// an eighth or eight times its size beside the creature, a fifth of an adult's hand to a
/// giant's, rather than shrinking below a few strands' width or outgrowing the view.
pub const BODY_HAND_FACTORS: RangeInclusive<f32> = 0.125..=8.0;

/// How much the hand is scaled on a body `height` metres tall: `height` over
/// [`CREATURE_HEIGHT`], within [`BODY_HAND_FACTORS`]; 1 (the creature's hand) for a height
/// that is not a positive finite number.
pub fn body_hand_factor(height: f32) -> f32 {
    if !(height.is_finite() && height > 0.0) {
        return 1.0;
    }
    (height / CREATURE_HEIGHT).clamp(*BODY_HAND_FACTORS.start(), *BODY_HAND_FACTORS.end())
}

/// The body height from which a body's coat is as long as the creature's: a body's longest
/// strand is 12% of its height (its groom's cap), which at 1 m is the creature's 12 cm.
const FULL_COAT_HEIGHT: f32 = 1.0;

/// How much the palm's and fingertips' heights above the skin are scaled on a body `height`
/// metres tall: as its coat is, shorter on a body under [`FULL_COAT_HEIGHT`] and no longer
/// on a taller one; no less than the hand's own least factor; 1 for a height that is not a
/// positive finite number.
pub(super) fn coat_height_factor(height: f32) -> f32 {
    if !(height.is_finite() && height > 0.0) {
        return 1.0;
    }
    (height / FULL_COAT_HEIGHT).clamp(*BODY_HAND_FACTORS.start(), 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::{CylinderSpec, skinned_cylinder};
    use crate::creature::{Creature, CreatureExport, CreaturePose, Ray, creature_body};
    use crate::hand::{
        Hand, HandDimensions, HandMaterial, HandRig, HandTarget, ModeStyles, PlaneSurface,
        PointerButton,
    };
    use crate::sim::{Capsule, ContactMode, FurBody};
    use glam::{Vec2, Vec3};
    use std::sync::Arc;

    #[test]
    fn the_creature_is_as_tall_as_the_hand_takes_it_to_be() {
        let body = creature_body(&Creature::default(), &CreatureExport::default()).unwrap();
        let mesh = body.mesh.unwrap();
        let (lo, hi) = mesh
            .positions
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), p| {
                (lo.min(p.y), hi.max(p.y))
            });
        let height = hi - lo;
        assert!(
            (height - CREATURE_HEIGHT).abs() < 0.01,
            "the creature's skin is {height} m tall, not {CREATURE_HEIGHT} m"
        );
    }

    /// The skinned cylinder, unbent, `height` metres tall in the proportions of the
    /// default one.
    fn cylinder(height: f32) -> FurBody {
        let spec = CylinderSpec::default();
        let (mesh, motion) = skinned_cylinder(&CylinderSpec {
            radius: spec.radius * height,
            height,
            base: spec.base * height,
            bend: 0.0,
            ..spec
        });
        FurBody {
            mesh: Arc::new(mesh),
            motion: Arc::new(motion),
            groom: None,
        }
    }

    /// A fresh hand pressed onto the front of the cylinder `height` tall, a little below
    /// its middle, and held for half a second (a scratch by then): its
    /// contact capsules and its sleeve's drawn radius.
    fn pressed(height: f32) -> (Vec<Capsule>, f32) {
        let mut hand = Hand::new(Creature::default(), 3);
        hand.set_body(Some(cylinder(height)));
        // From above the front, so the view says which way the fingers point.
        let ray = Ray::new(
            Vec3::new(0.013, 0.6, 2.0) * height,
            Vec3::new(0.0, -0.5, -1.0),
        );
        hand.pointer_down(ray, Vec2::new(400.0, 300.0), PointerButton::Primary, 0.0);
        let pose = CreaturePose::rest(&Creature::default());
        for i in 1..=30 {
            let t = f64::from(i) / 60.0;
            hand.set_body_time(t);
            hand.step(t, 1.0 / 60.0, &pose);
        }
        let contact = hand.contact().expect("the hand is on the body");
        let sleeve = hand
            .shapes()
            .iter()
            .find(|s| s.material == HandMaterial::Sleeve)
            .expect("a sleeve is drawn")
            .radius;
        // Back on the creature, the creature's hand.
        hand.set_body(None);
        assert_eq!(*hand.rig().dimensions(), HandDimensions::default());
        assert_eq!(hand.rig().size(), 1.0);
        (contact.capsules, sleeve)
    }

    #[test]
    fn the_hand_on_a_body_is_sized_by_its_height() {
        let adult = HandDimensions::default();
        let mut posed = Vec::new();
        for height in [0.3f32, 1.0, 3.0] {
            let factor = height / CREATURE_HEIGHT;
            let (capsules, sleeve) = pressed(height);
            // Contact capsules and what is drawn alike.
            let palm = capsules[0].radius;
            assert!(
                (palm - adult.palm_radius * factor).abs() < 1e-6,
                "{height} m: palm radius {palm}"
            );
            assert!(
                (sleeve - adult.sleeve_radius * factor).abs() < 1e-6,
                "{height} m: sleeve radius {sleeve}"
            );
            posed.push(capsules);
        }
        // Under 1 m the coat shrinks with the body, and so does all of the hand's pose: on
        // the body a third as tall, the hand is the same hand a third the size, every
        // capsule where a third of its place puts it.
        let scale = 0.3;
        let worst = posed[0]
            .iter()
            .zip(&posed[1])
            .map(|(small, big)| {
                let (a, b) = small.ends();
                let (c, d) = big.ends();
                a.distance(c * scale)
                    .max(b.distance(d * scale))
                    .max((small.radius - big.radius * scale).abs())
            })
            .fold(0.0f32, f32::max);
        assert!(
            worst < 1e-4,
            "the hand on the smaller body strays {worst} m from the larger hand scaled"
        );
    }

    #[test]
    fn a_resized_rig_on_a_surface_scaled_alike_is_the_rig_scaled() {
        // Planes that climb under the fingers (50°: the palm rises as far as it may) or
        // fall away from them (−80°: past the probes' reach): the digits curl, the probes
        // reach and the palm rises at the hand's size, so a quarter-size hand on the
        // quarter-size surface poses a quarter-size.
        for degrees in [50f32, -80.0] {
            let (sin, cos) = degrees.to_radians().sin_cos();
            let normal = Vec3::new(0.0, cos, -sin);
            let posed = |scale: f32| {
                let mut rig = HandRig::new(HandDimensions::default(), 5);
                rig.resize(HandDimensions::default().scaled(scale), scale, scale);
                let surface = PlaneSurface::new(Vec3::new(0.0, 0.0, 0.02) * scale, normal);
                let target = HandTarget {
                    point: Vec3::ZERO,
                    normal: Vec3::Y,
                    forward: Vec3::Z,
                    mode: ContactMode::Pet,
                };
                for i in 1..=30 {
                    rig.update(&target, &surface, f64::from(i) / 60.0, 1.0 / 60.0);
                }
                (rig.capsules().to_vec(), rig.lift())
            };
            let (full, full_lift) = posed(1.0);
            let (quarter, quarter_lift) = posed(0.25);
            if degrees == 50.0 {
                assert!(
                    full_lift > ModeStyles::default().pet.palm_lift + 0.01,
                    "the palm rose only to {full_lift} m: the surface does not climb under it"
                );
            }
            let worst = quarter
                .iter()
                .zip(&full)
                .map(|(q, f)| {
                    let (a, b) = q.ends();
                    let (c, d) = f.ends();
                    a.distance(c * 0.25).max(b.distance(d * 0.25))
                })
                .fold(0.0f32, f32::max);
            assert!(
                worst < 1e-5 && (quarter_lift - full_lift * 0.25).abs() < 1e-5,
                "{degrees}°: the quarter-size hand strays {worst} m from the full one scaled \
                 (lift {quarter_lift} against {full_lift})"
            );
        }
    }

    #[test]
    fn a_body_scales_the_hand_by_its_height_within_bounds() {
        let factor = |h: f32| body_hand_factor(h);
        assert_eq!(factor(CREATURE_HEIGHT), 1.0);
        assert!((factor(0.3) - 0.3 / CREATURE_HEIGHT).abs() < 1e-6);
        assert!((factor(3.0) - 3.0 / CREATURE_HEIGHT).abs() < 1e-6);
        assert_eq!(factor(0.01), *BODY_HAND_FACTORS.start());
        assert_eq!(factor(100.0), *BODY_HAND_FACTORS.end());
        for bad in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            assert_eq!(factor(bad), 1.0, "{bad}");
        }
        assert_eq!(coat_height_factor(0.25), 0.25);
        assert_eq!(coat_height_factor(3.0), 1.0);
        assert_eq!(coat_height_factor(0.01), *BODY_HAND_FACTORS.start());
        assert_eq!(coat_height_factor(f32::NAN), 1.0);
    }
}
