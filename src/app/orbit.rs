//! The orbit camera control: the primary button drags the camera around the creature or
//! body (when it is not being petted), the secondary or middle button pans, the wheel
//! zooms; and the view the demo starts in. Kept free of window types so it is easy to
//! follow.

use glam::{Vec2, Vec3};
use pelt::SimulatedFur;
use pelt::render::{Camera, CameraPreset, ZOOM_DISTANCES};

/// Which drag is under way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drag {
    /// None.
    Idle,
    /// Turning about the target (primary button on empty space).
    Orbit,
    /// Sliding the view (secondary or middle button).
    Pan,
}

/// How the view is framed in a window beside its panel: the image shifted right into the
/// columns the panel leaves, and shrunk where those are narrower than they are tall.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Framing {
    /// [`Camera::shift`]'s x, normalised device units.
    pub shift: f32,
    /// The image's scale about its centre (1: as drawn full-window; less: smaller).
    pub zoom: f32,
}

impl Framing {
    /// The view as drawn in a whole window.
    pub const CENTRED: Framing = Framing {
        shift: 0.0,
        zoom: 1.0,
    };

    /// The framing for a panel covering `covered` of a view's `size` columns (0 for a view
    /// without one, a recording): centred in the columns it leaves and, where those are
    /// narrower than tall, shrunk to their width over the height (the creature fills about
    /// 0.7 of the height across). Centred when the panel covers everything.
    pub fn beside_panel(covered: u32, size: (u32, u32)) -> Framing {
        let (width, height) = size;
        if covered >= width || height == 0 {
            return Framing::CENTRED;
        }
        let visible = (width - covered) as f32;
        Framing {
            shift: covered as f32 / width as f32,
            // At least MIN_ZOOM, so the widened field of view stays below 180° and the
            // rays through placed events stay those of the centred view.
            zoom: (visible / height as f32).clamp(MIN_ZOOM, 1.0),
        }
    }

    /// Where a replayed event at `p` (pixels of a `size` window as drawn centred) lands in
    /// the framed view: scaled about the window's centre, then moved with the view.
    pub fn place(&self, p: Vec2, size: Vec2) -> Vec2 {
        let centre = 0.5 * size;
        centre + (p - centre) * self.zoom + Vec2::new(self.shift * centre.x, 0.0)
    }
}

/// The smallest view scale a framing asks for: the default 38° field of view widened by
/// 1 / MIN_ZOOM is 176°.
const MIN_ZOOM: f32 = 0.01;

/// The view the demo starts in: the creature's front preset, or for a body the front view
/// fitted to its coat, fur included, as the creature fills its own (as `pelt render
/// --body` frames it), since a body's size and place are its own.
pub fn start_camera(fur: &mut SimulatedFur) -> Camera {
    let preset = Camera::preset(CameraPreset::Front);
    if fur.hair().body().is_none() {
        return preset;
    }
    let Ok(positions) = fur.hair_mut().positions() else {
        return preset;
    };
    let points: Vec<Vec3> = positions.iter().map(|p| p.truncate()).collect();
    let camera = Camera::fit(CameraPreset::Front, &points, START_ASPECT);
    if camera.validate().is_ok() {
        camera
    } else {
        preset
    }
}

/// The shape, wide over tall, a body's starting view is framed for: the window's default
/// 1280×720. Other shapes are framed from it as the creature's view is ([`Framing`]).
const START_ASPECT: f32 = 16.0 / 9.0;

/// The orbit control's state.
#[derive(Clone, Debug)]
pub struct OrbitControls {
    /// The camera it moves (its shift and field of view set by [`OrbitControls::frame`]).
    pub camera: Camera,
    /// The field of view the camera has unframed.
    fov_y: f32,
    framing: Framing,
    drag: Drag,
    last: Option<Vec2>,
    /// How near and far the wheel takes the eye ([`zoom_distances`]).
    zoom_distances: (f32, f32),
}

/// The wheel's nearest and farthest eye distances for a view that starts at `camera`: the
/// creature's [`ZOOM_DISTANCES`] scaled by how far this view starts from its target against
/// the creature's front view, so a body fitted to 0.01 or 100 metres zooms as the creature
/// does (the same share of the view per turn, the same range), not into or away from it at
/// the first turn of the wheel.
fn zoom_distances(camera: &Camera) -> (f32, f32) {
    let creature = Camera::preset(CameraPreset::Front);
    let scale = camera.eye.distance(camera.target) / creature.eye.distance(creature.target);
    let scale = if scale.is_finite() && scale > 0.0 {
        scale
    } else {
        1.0
    };
    (ZOOM_DISTANCES.start() * scale, ZOOM_DISTANCES.end() * scale)
}

/// Radians turned per pixel dragged in a 720-pixel-tall view drawn full size: a drag turns
/// the camera by its share of the view's height, so a recording at another size (whose
/// script is scaled to it) and a view shrunk beside the panel turn as the window does.
const TURN_PER_PIXEL: f32 = 0.008;

/// The view height [`TURN_PER_PIXEL`] is for, pixels.
const TURN_REFERENCE_HEIGHT: f32 = 720.0;

/// The most a single pointer move may turn the camera, radians: a scripted drag of 1e30
/// pixels would otherwise land at an arbitrary angle.
const MAX_TURN_PER_MOVE: f32 = 100.0;

/// How far from the world's origin a pan may take the point looked at, metres: the
/// creature is about a metre across, so past this there is nothing to see.
const MAX_TARGET_DISTANCE: f32 = 100.0;

impl OrbitControls {
    /// Controls moving `camera`.
    pub fn new(camera: Camera) -> Self {
        OrbitControls {
            camera,
            fov_y: camera.fov_y,
            framing: Framing::CENTRED,
            drag: Drag::Idle,
            last: None,
            zoom_distances: zoom_distances(&camera),
        }
    }

    /// Frames the camera's view by `framing`: its lens shift, and a field of view widened
    /// by 1 / zoom (the same picture as the image scaled about its centre).
    pub fn frame(&mut self, framing: Framing) {
        self.framing = framing;
        self.camera.shift.x = framing.shift;
        let half = (0.5 * self.fov_y).tan() / framing.zoom.max(MIN_ZOOM);
        self.camera.fov_y = 2.0 * half.atan();
    }

    /// The framing last set.
    pub fn framing(&self) -> Framing {
        self.framing
    }

    /// A drag of kind `drag` begins at `position`.
    pub fn begin(&mut self, drag: Drag, position: Vec2) {
        self.drag = drag;
        self.last = Some(position);
    }

    /// Any drag ends.
    pub fn end(&mut self) {
        self.drag = Drag::Idle;
    }

    /// The drag under way.
    pub fn drag(&self) -> Drag {
        self.drag
    }

    /// The pointer moved to `position` in a window `height` pixels tall.
    pub fn moved(&mut self, position: Vec2, height: f32) {
        let delta = self.last.map_or(Vec2::ZERO, |last| position - last);
        self.last = Some(position);
        let before = self.camera;
        match self.drag {
            Drag::Orbit => {
                let per_pixel = TURN_PER_PIXEL * TURN_REFERENCE_HEIGHT
                    / (height.max(1.0) * self.framing.zoom.max(1e-3));
                let turn = delta * per_pixel;
                if turn.abs().max_element() <= MAX_TURN_PER_MOVE {
                    self.camera.orbit(turn.x, turn.y);
                }
            }
            Drag::Pan => {
                let distance = self.camera.eye.distance(self.camera.target);
                let per_pixel = distance * self.camera.pixel_scale(height.max(1.0) as u32);
                self.camera.pan(-delta.x * per_pixel, delta.y * per_pixel);
            }
            Drag::Idle => {}
        }
        // A drag that would take the camera where no picture can be drawn (numbers that
        // are not finite, eye on target, or a pan far from the creature, as a scripted
        // drag of 1e30 pixels does) leaves it where it was.
        if self.camera.validate().is_err() || self.camera.target.length() > MAX_TARGET_DISTANCE {
            self.camera = before;
        }
    }

    /// The wheel turned by `lines` (positive: away from the user, zoom in).
    pub fn wheel(&mut self, lines: f32) {
        let (nearest, farthest) = self.zoom_distances;
        self.camera
            .zoom_within(0.9f32.powf(lines), nearest, farthest);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pelt::render::CameraPreset;

    #[test]
    fn the_view_is_framed_beside_the_panel_and_replays_are_placed_with_it() {
        let covered = 278;
        for (width, height) in [(640u32, 360u32), (1280, 720), (500, 700), (279, 720)] {
            let framing = Framing::beside_panel(covered, (width, height));
            let size = Vec2::new(width as f32, height as f32);
            let centred = Camera::preset(CameraPreset::Front);
            let mut orbit = OrbitControls::new(centred);
            orbit.frame(framing);
            let framed = orbit.camera;
            // The target lands in the middle of the columns the panel leaves.
            let clip = framed.view_proj(size.x / size.y) * centred.target.extend(1.0);
            let column = (clip.x / clip.w * 0.5 + 0.5) * size.x;
            let middle = covered as f32 + 0.5 * (width - covered) as f32;
            assert!(
                (column - middle).abs() < 0.01,
                "{width}×{height}: target at column {column}, not {middle}"
            );
            // A replayed event, placed in the framed view, picks what it picks in a
            // centred one.
            for p in [Vec2::new(100.0, 50.0), Vec2::new(460.0, 224.0), size - 1.0] {
                let a = centred.ray_through(p, size);
                let b = framed.ray_through(framing.place(p, size), size);
                assert!(
                    a.direction.distance(b.direction) < 1e-5 && a.origin == b.origin,
                    "{width}×{height}, {p}: {a:?} against {b:?}"
                );
            }
        }
        // Landscape windows keep the scale; a portrait one shrinks the view to its width.
        assert_eq!(Framing::beside_panel(covered, (640, 360)).zoom, 1.0);
        let portrait = Framing::beside_panel(covered, (500, 700));
        assert!((portrait.zoom - 222.0 / 700.0).abs() < 1e-6, "{portrait:?}");
        // No panel: centred, and shrunk only where the view is narrower than tall (a
        // recording of a tall shape); a panel over the whole window: centred.
        for (covered, size) in [(0, (640, 360)), (640, (640, 360)), (5, (0, 0)), (5, (9, 0))] {
            assert_eq!(Framing::beside_panel(covered, size), Framing::CENTRED);
        }
        let tall = Framing::beside_panel(0, (500, 700));
        assert_eq!(tall.shift, 0.0);
        assert!((tall.zoom - 500.0 / 700.0).abs() < 1e-6, "{tall:?}");
    }

    #[test]
    fn the_wheel_zooms_a_body_of_any_size_as_it_zooms_the_creature() {
        let creature = Camera::preset(CameraPreset::Front);
        let distance = |c: &Camera| c.eye.distance(c.target);
        for scale in [0.01f32, 0.1, 1.0, 10.0, 85.0] {
            // The creature's view moved to frame a body `scale` times its size.
            let start = Camera {
                eye: creature.target + (creature.eye - creature.target) * scale,
                ..creature
            };
            let mut orbit = OrbitControls::new(start);
            // One line in: a tenth nearer, whatever the size.
            orbit.wheel(1.0);
            let ratio = distance(&orbit.camera) / distance(&start);
            assert!(
                (ratio - 0.9).abs() < 1e-4,
                "×{scale}: one line in moved ×{ratio}"
            );
            // All the way in and out: the creature's range, scaled.
            orbit.wheel(200.0);
            let nearest = distance(&orbit.camera);
            orbit.wheel(-400.0);
            let farthest = distance(&orbit.camera);
            for (got, want) in [
                (nearest, ZOOM_DISTANCES.start() * scale),
                (farthest, ZOOM_DISTANCES.end() * scale),
            ] {
                assert!(
                    (got / want - 1.0).abs() < 1e-3,
                    "×{scale}: {got} m, not {want}"
                );
            }
        }
        // Bad factors or bounds leave the camera where it was; an endless one zooms out
        // as far as allowed.
        let mut camera = creature;
        for (factor, nearest, farthest) in [
            (0.0, 0.3, 20.0),
            (-1.0, 0.3, 20.0),
            (f32::NAN, 0.3, 20.0),
            (0.5, 20.0, 0.3),
            (0.5, f32::NAN, 20.0),
            (0.5, 0.3, f32::INFINITY),
        ] {
            camera.zoom_within(factor, nearest, farthest);
            assert_eq!(camera.eye, creature.eye, "{factor} {nearest} {farthest}");
        }
        camera.zoom_within(f32::INFINITY, 0.3, 20.0);
        assert!((distance(&camera) - 20.0).abs() < 1e-3);
    }

    #[test]
    fn a_drag_turns_the_camera_by_its_share_of_the_view_whatever_its_size() {
        // The window (720 tall), a half-size recording of the same script (its positions
        // scaled by 0.5), and a view shrunk to 0.25 beside the panel (its events placed
        // at a quarter of the distance): the same turn.
        let start = Camera::preset(CameraPreset::Front);
        let turned = |height: f32, zoom: f32, drag: f32| {
            let mut orbit = OrbitControls::new(start);
            orbit.frame(Framing { shift: 0.0, zoom });
            orbit.begin(Drag::Orbit, Vec2::new(100.0, 100.0));
            orbit.moved(Vec2::new(100.0 + drag, 100.0), height);
            orbit.camera.eye
        };
        let window = turned(720.0, 1.0, 100.0);
        assert!(
            window.distance(start.eye) > 0.5,
            "a 100-pixel drag barely turned"
        );
        for (name, eye) in [
            ("half-size recording", turned(360.0, 1.0, 50.0)),
            ("view shrunk to a quarter", turned(720.0, 0.25, 25.0)),
        ] {
            assert!(
                eye.distance(window) < 1e-4,
                "{name}: {eye} against {window}"
            );
        }
    }

    #[test]
    fn drags_too_far_for_a_picture_leave_the_camera_where_it_was() {
        let start = Camera::preset(CameraPreset::Front);
        for (drag, to) in [
            (Drag::Pan, Vec2::splat(1e30)),
            (Drag::Pan, Vec2::splat(-3.4e38)),
            (Drag::Orbit, Vec2::splat(-3.4e38)),
            (Drag::Orbit, Vec2::splat(1e30)),
        ] {
            let mut orbit = OrbitControls::new(start);
            orbit.begin(drag, Vec2::splat(3.4e38));
            orbit.moved(to, 720.0);
            assert_eq!(orbit.camera, start, "{drag:?} to {to}");
        }
        // An ordinary pan still moves it, and stays drawable.
        let mut orbit = OrbitControls::new(start);
        orbit.begin(Drag::Pan, Vec2::new(600.0, 300.0));
        orbit.moved(Vec2::new(640.0, 320.0), 720.0);
        assert!(orbit.camera.target.distance(start.target) > 0.01);
        assert!(orbit.camera.validate().is_ok());
    }
}
