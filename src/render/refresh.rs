//! Which of the hair's two slowest per-frame refreshes a frame drawn in real time makes:
//! the key light's hair maps (drawn from the strands' positions) and the shading of the
//! points (from those maps and the camera). Where frames are drawn on the host's cores
//! (the native path on a CPU adapter) each costs about a sixth of a frame, and neither
//! changes much from one frame to the next: so, with
//! [`super::RenderSettings::refresh_in_turns`], a frame refreshes one of them and the other
//! keeps what the frame before made. While the camera is still they take turns, so every
//! frame costs about the same (a frame budget reads a median of frames: frames that
//! alternate between cheap and dear would be judged by the dear ones); while it moves the
//! shading, which depends on where the camera is, is made every frame and the light's maps
//! every [`MAX_LIGHT_AGE`]th. Anything else that changes what either would draw (the
//! path, the view, the target's size, the level of detail, the settings, the cull, the
//! light) makes a frame refresh both, and so does a frame drawn between (the renderer
//! forgets the turns when it draws into a caller's scene or binds new strands). Only the
//! native path takes turns: the others read the cull's flags in their own passes. A frame's shading is then at most one frame older than its
//! positions, its strand shadows at most [`MAX_LIGHT_AGE`] − 1 frames older.

use super::debug::DebugMode;
use super::pass_view::PassView;
use super::settings::{Raster, RenderSettings};
use super::strand_lod::StrandLod;

/// Frames after the light's maps were drawn by which they are drawn again even while the
/// camera moves (and the shading takes every frame).
pub const MAX_LIGHT_AGE: u32 = 4;

/// What one frame refreshes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refresh {
    /// The key light's hair maps (the first hair's depth and the deep opacity).
    pub light: bool,
    /// The cull pass and the shading of the points.
    pub shading: bool,
}

impl Refresh {
    /// Both, as every frame does without turns.
    pub const BOTH: Refresh = Refresh {
        light: true,
        shading: true,
    };
}

/// What the light's maps and the shading were last made for, beyond the camera: when any
/// of it changes, a frame makes both again.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RefreshKey {
    /// The hair path drawing the frame.
    pub raster: Raster,
    /// The debug view.
    pub mode: DebugMode,
    /// The target's size, pixels.
    pub size: (u32, u32),
    /// The strands drawn and how.
    pub lod: StrandLod,
    /// The renderer's settings.
    pub settings: RenderSettings,
    /// Whether the frame culls the strands the camera cannot see (the flags a kept
    /// shading reads must be this camera's).
    pub cull: bool,
    /// The key light's view (its direction and the maps' size).
    pub light: PassView,
}

/// The turns' state, kept by the renderer from frame to frame.
#[derive(Clone, Debug, Default)]
pub struct RefreshTurns {
    /// What the last frame was drawn for (`None` before the first, or once forgotten).
    key: Option<RefreshKey>,
    /// The camera's view when the points were last shaded.
    shaded_camera: Option<PassView>,
    /// Frames since the light's maps were drawn: 0 when the last frame drew them.
    light_age: u32,
}

impl RefreshTurns {
    /// What a frame drawn for `key` from `camera` refreshes; with `in_turns` off, both.
    pub fn next(&mut self, in_turns: bool, key: RefreshKey, camera: PassView) -> Refresh {
        let refresh = if !in_turns || self.key != Some(key) {
            Refresh::BOTH
        } else {
            // The shading when the camera moved, or in turn after the light's maps.
            let shading = self.shaded_camera != Some(camera) || self.light_age == 0;
            let light = !shading || self.light_age + 1 >= MAX_LIGHT_AGE;
            Refresh { light, shading }
        };
        self.key = Some(key);
        if refresh.shading {
            self.shaded_camera = Some(camera);
        }
        self.light_age = if refresh.light {
            0
        } else {
            self.light_age.saturating_add(1)
        };
        refresh
    }

    /// Forgets what was made (the strands were bound again: their shaded colours are
    /// gone), so the next frame refreshes both.
    pub fn forget(&mut self) {
        *self = RefreshTurns::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Mat4, Vec3};

    fn view(x: f32) -> PassView {
        PassView {
            view_proj: Mat4::from_translation(Vec3::new(x, 0.0, 0.0)),
            eye: Vec3::new(x, 0.0, 2.0),
            perspective: 1,
            forward: Vec3::NEG_Z,
            pixel_scale: 0.001,
        }
    }

    fn key() -> RefreshKey {
        RefreshKey {
            raster: Raster::Native,
            mode: DebugMode::default(),
            size: (640, 360),
            lod: StrandLod::all(16_384),
            settings: RenderSettings::default(),
            cull: true,
            light: view(9.0),
        }
    }

    fn turns(
        t: &mut RefreshTurns,
        frames: usize,
        camera: impl Fn(usize) -> PassView,
    ) -> Vec<Refresh> {
        (0..frames)
            .map(|i| t.next(true, key(), camera(i)))
            .collect()
    }

    #[test]
    fn a_still_camera_alternates_the_two_after_a_first_frame_of_both() {
        let mut t = RefreshTurns::default();
        let seen = turns(&mut t, 7, |_| view(0.0));
        assert_eq!(seen[0], Refresh::BOTH);
        for (i, r) in seen.iter().enumerate().skip(1) {
            // One of the two, never both, never neither.
            assert!(r.light != r.shading, "frame {i}: {r:?}");
            assert_eq!(r.shading, i % 2 == 1, "frame {i}: {r:?}");
        }
    }

    #[test]
    fn a_moving_camera_shades_every_frame_and_draws_the_light_every_fourth() {
        let mut t = RefreshTurns::default();
        let seen = turns(&mut t, 13, |i| view(i as f32 * 0.01));
        assert!(seen.iter().all(|r| r.shading));
        let lit: Vec<usize> = (0..seen.len()).filter(|&i| seen[i].light).collect();
        assert_eq!(lit, vec![0, 4, 8, 12]);
    }

    #[test]
    fn a_change_of_anything_else_or_turns_off_refreshes_both() {
        let mut t = RefreshTurns::default();
        turns(&mut t, 3, |_| view(0.0));
        let mut other = key();
        other.size = (641, 360);
        assert_eq!(t.next(true, other, view(0.0)), Refresh::BOTH);
        assert_ne!(t.next(true, other, view(0.0)), Refresh::BOTH);
        other.cull = false;
        assert_eq!(t.next(true, other, view(0.0)), Refresh::BOTH);
        assert_ne!(t.next(true, other, view(0.0)), Refresh::BOTH);
        assert_eq!(t.next(false, other, view(0.0)), Refresh::BOTH);
        t.forget();
        assert_eq!(t.next(true, other, view(0.0)), Refresh::BOTH);
    }
}
