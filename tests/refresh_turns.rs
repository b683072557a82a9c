//! Frames that refresh the key light's hair maps and the points' shading in turns
//! (`RenderSettings::refresh_in_turns`, the native path in real time) against frames that
//! refresh both, on lavapipe at a reduced tier: a still coat is drawn the same bit for bit
//! whatever the turn (what a frame keeps is what it would have made), a moving camera is
//! shaded every frame, and a moving coat is drawn a frame late in one of the two, close to
//! the fresh picture but not equal to it (so the turns do skip work).

mod render_common;

use pelt::creature::Creature;
use pelt::render::{
    Camera, CameraPreset, DebugMode, FurRenderer, Image, OFFSCREEN_FORMAT, Raster, RenderSettings,
    Scene, TargetLayout,
};
use pelt::sim::{FurConfig, FurSim};

const STRANDS: usize = 2048;
const SIZE: (u32, u32) = (320, 180);

/// A renderer of the native path with the window's settings, turns on or off, bound to
/// `sim`.
fn renderer(ctx: &pelt::gpu::GpuContext, sim: &FurSim, turns: bool) -> FurRenderer {
    let layout =
        Raster::Native.real_time_layout(TargetLayout::new(&ctx.adapter, OFFSCREEN_FORMAT, false));
    let settings = RenderSettings {
        raster: Raster::Native,
        ..RenderSettings::default()
    }
    .real_time(Raster::Native)
    .with_refresh_in_turns(turns);
    let mut r = FurRenderer::new(
        &ctx.device,
        &ctx.queue,
        layout,
        &Creature::default(),
        settings,
    )
    .unwrap();
    r.set_strands_from_sim(sim).unwrap();
    r
}

fn coat(ctx: &pelt::gpu::GpuContext) -> FurSim {
    let mut sim = FurSim::new_gpu(&FurConfig::new(STRANDS, 3), Creature::default(), ctx).unwrap();
    sim.step(5).unwrap();
    sim
}

fn scene<'a>(sim: &FurSim, camera: Camera) -> Scene<'a> {
    let mut s = render_common::preset_scene(sim, CameraPreset::Front, DebugMode::Final);
    s.camera = camera;
    s
}

fn draw(r: &mut FurRenderer, scene: &Scene) -> Image {
    render_common::draw_by(r, scene, Raster::Native, SIZE)
}

/// Pixels whose colour differs at all.
fn pixels_apart(a: &Image, b: &Image) -> usize {
    a.rgba
        .chunks(4)
        .zip(b.rgba.chunks(4))
        .filter(|(p, q)| p[..3] != q[..3])
        .count()
}

#[test]
fn a_still_coat_and_camera_are_drawn_the_same_in_turns_as_refreshing_both() {
    let ctx = render_common::gpu();
    let sim = coat(&ctx);
    let (mut turns, mut both) = (renderer(&ctx, &sim, true), renderer(&ctx, &sim, false));
    let s = scene(&sim, Camera::preset(CameraPreset::Front));
    for frame in 0..4 {
        let (a, b) = (draw(&mut turns, &s), draw(&mut both, &s));
        assert_eq!(pixels_apart(&a, &b), 0, "frame {frame}");
    }
}

#[test]
fn a_moving_camera_is_shaded_every_frame() {
    let ctx = render_common::gpu();
    let sim = coat(&ctx);
    let (mut turns, mut both) = (renderer(&ctx, &sim, true), renderer(&ctx, &sim, false));
    let start = Camera::preset(CameraPreset::Front);
    for frame in 0..4 {
        // A turntable: the coat lit and shaded from a new side each frame.
        let mut camera = start;
        let turn = glam::Quat::from_rotation_y(0.15 * frame as f32);
        camera.eye = camera.target + turn * (start.eye - start.target);
        let s = scene(&sim, camera);
        let (a, b) = (draw(&mut turns, &s), draw(&mut both, &s));
        assert_eq!(pixels_apart(&a, &b), 0, "frame {frame}");
    }
}

#[test]
fn a_moving_coat_is_drawn_a_frame_late_in_one_of_the_two_and_close_to_fresh() {
    let ctx = render_common::gpu();
    let mut sim = coat(&ctx);
    let (mut turns, mut both) = (renderer(&ctx, &sim, true), renderer(&ctx, &sim, false));
    let camera = Camera::preset(CameraPreset::Front);
    for frame in 0..5 {
        if frame > 0 {
            // The coat still settling from its groomed shape: it moves between frames.
            sim.step(6).unwrap();
        }
        let s = scene(&sim, camera);
        let (a, b) = (draw(&mut turns, &s), draw(&mut both, &s));
        let apart = pixels_apart(&a, &b);
        let error = render_common::mean_abs_error(&a, &b);
        if frame == 0 {
            assert_eq!(apart, 0, "the first frame refreshes both");
        } else {
            // Frames 1, 3: the light's maps kept from the frame before; 2, 4: the colours.
            assert!(
                apart > 0,
                "frame {frame}: nothing was kept from the frame before"
            );
            assert!(
                error < 0.1,
                "frame {frame}: {error:.3} levels from the fresh picture"
            );
        }
    }
}
