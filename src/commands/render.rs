//! `pelt render`: grows the coat, steps it (optionally under a scripted hand), and saves one
//! frame as a PNG. Every argument is checked before any GPU work.

use anyhow::bail;
use glam::Vec3;
use pelt::creature::Creature;
use pelt::gpu::GpuContext;
use pelt::render::{
    Camera, CameraPreset, DebugMode, DrawCapsule, FurRenderer, Material, OFFSCREEN_FORMAT, Raster,
    RenderSettings, Scene, TargetLayout,
};
use pelt::sim::{FurConfig, MAX_CAPSULE_REACH, StrandTier};
use std::path::PathBuf;

use crate::common::printable::{shortest, shortest_vec3};

/// The most solver steps one render takes (over four hours at 60 Hz).
pub const MAX_STEPS: u32 = 1_000_000;
/// The narrowest and widest field of view `--fov` takes, degrees.
pub const FOV_RANGE: std::ops::RangeInclusive<f32> = 1.0..=179.0;

/// Arguments of `pelt render`.
#[derive(clap::Args, Debug)]
pub struct RenderArgs {
    /// What to draw.
    #[arg(long, default_value = "final", value_parser = mode_parser())]
    pub mode: DebugMode,
    /// Number of strands (default: the adapter's tier; at most what it holds, `pelt info`).
    #[arg(long)]
    pub strands: Option<usize>,
    /// Fixed 60 Hz solver steps before the frame (the coat settles under gravity); at most
    /// 1,000,000.
    #[arg(long, default_value_t = 90)]
    pub steps: u32,
    /// Seed for the groom and the idle motion.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Image width in pixels (at most the adapter's largest texture side, and all render
    /// targets within 4 GiB of GPU memory).
    #[arg(long, default_value_t = 1280)]
    pub width: u32,
    /// Image height in pixels (the same limits).
    #[arg(long, default_value_t = 720)]
    pub height: u32,
    /// Where to write the PNG (the name must end in .png; an existing regular file is
    /// replaced only once the picture is complete, and anything else is refused).
    #[arg(long, default_value = "pelt.png")]
    pub out: PathBuf,
    /// A named viewpoint: front, side, back, top or closeup.
    #[arg(long, default_value = "front", value_parser = camera_preset())]
    pub camera: CameraPreset,
    /// Camera position `x,y,z` (metres; overrides --camera together with --target).
    #[arg(long, value_parser = parse_vec3, requires = "target", allow_hyphen_values = true)]
    pub eye: Option<Vec3>,
    /// Point looked at, `x,y,z`.
    #[arg(long, value_parser = parse_vec3, requires = "eye", allow_hyphen_values = true)]
    pub target: Option<Vec3>,
    /// Vertical field of view, degrees, from 1 to 179 (default: the preset's).
    #[arg(long, allow_hyphen_values = true)]
    pub fov: Option<f32>,
    /// A JSON capsule script (at most 16 MiB): the coat is rendered mid-stroke, the
    /// capsules drawn.
    #[arg(long)]
    pub capsule_script: Option<PathBuf>,
    /// How the hair is drawn: ribbons (the hardware ribbons, the reference), native (the
    /// strand rasteriser on the CPU's cores), strands (the same rasteriser in WGSL) or
    /// auto (native on CPU adapters such as lavapipe, the ribbons elsewhere).
    #[arg(long, default_value = "auto")]
    pub raster: Raster,
    /// The coat's density and velocity grid.
    #[command(flatten)]
    pub volume: super::simulate::VolumeArgs,
    /// Which solver steps the coat before the frame.
    #[command(flatten)]
    pub solver: crate::common::solver_args::SolverArgs,
    /// An equirectangular environment map (Radiance .hdr, OpenEXR or PNG; at most 128 MiB
    /// and 16,777,216 pixels) that the eyes and nose reflect and that lights the surfaces'
    /// ambient term; the strands never see it.
    #[arg(long)]
    pub env: Option<PathBuf>,
    #[command(flatten)]
    pub body: crate::common::body_args::BodyArgs,
}

/// `--mode`'s values, each with its summary, from the one list of debug modes.
pub fn mode_parser() -> impl clap::builder::TypedValueParser<Value = DebugMode> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    let values = DebugMode::ALL.map(|m| PossibleValue::new(m.name()).help(m.summary()));
    PossibleValuesParser::new(values).try_map(|s| s.parse::<DebugMode>())
}

/// `--camera`'s parser: the presets' names, which clap lists when the value is missing or
/// wrong.
fn camera_preset() -> impl clap::builder::TypedValueParser<Value = CameraPreset> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(CameraPreset::ALL.map(|p| p.name()))
        .try_map(|name| name.parse::<CameraPreset>())
}

/// Parses `x,y,z` into finite coordinates.
fn parse_vec3(s: &str) -> Result<Vec3, String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    if parts.len() != 3 {
        return Err(format!("expected three numbers x,y,z, got {s:?}"));
    }
    let mut v = [0.0f32; 3];
    for (slot, p) in v.iter_mut().zip(&parts) {
        *slot = p
            .parse::<f32>()
            .map_err(|e| format!("{p:?} is not a number: {e}"))?;
        if !slot.is_finite() {
            return Err(format!("{p:?} is not a finite number"));
        }
    }
    Ok(Vec3::from(v))
}

impl RenderArgs {
    /// The camera the arguments describe, checked.
    fn camera(&self) -> anyhow::Result<Camera> {
        // The camera lies where a hand may (capsules' reach): far past it, the view's
        // numbers lose all precision in f32 and the picture comes out empty.
        for (flag, point) in [("--eye", self.eye), ("--target", self.target)] {
            if let Some(p) = point
                && p.abs().max_element() > MAX_CAPSULE_REACH
            {
                bail!(
                    "{flag} {}: the camera and its target must lie within {} m of the origin on each axis, as a hand's capsules must",
                    shortest_vec3(p),
                    shortest(f64::from(MAX_CAPSULE_REACH))
                );
            }
        }
        let mut camera = match (self.eye, self.target) {
            (Some(eye), Some(target)) => Camera::look_at(eye, target, 38.0),
            _ => Camera::preset(self.camera),
        };
        if let Some(fov) = self.fov {
            if !FOV_RANGE.contains(&fov) {
                bail!(
                    "--fov {}: the field of view must be a number of degrees from {} to {}",
                    shortest(fov),
                    FOV_RANGE.start(),
                    FOV_RANGE.end()
                );
            }
            camera.fov_y = fov.to_radians();
        }
        camera.validate()?;
        Ok(camera)
    }
}

/// Runs `pelt render`.
pub fn run(args: &RenderArgs) -> anyhow::Result<()> {
    if args.width == 0 || args.height == 0 {
        bail!(
            "--width and --height must be at least 1 (got {}×{})",
            args.width,
            args.height
        );
    }
    let camera = args.camera()?;
    if args.steps > MAX_STEPS {
        bail!("--steps {}: at most {MAX_STEPS}", args.steps);
    }
    args.volume.check_for_run()?;
    crate::common::output_path::check(args)?;
    if args.strands == Some(0) {
        bail!("--strands must be at least 1");
    }
    let script = match &args.capsule_script {
        Some(path) => Some(super::read_capsule_script(path)?),
        None => None,
    };
    let body = args.body.load(args)?;
    let environment = args
        .env
        .as_deref()
        .map(pelt::render::EnvironmentMap::from_path)
        .transpose()?;
    let ctx = GpuContext::new()?;
    let layout = TargetLayout::new(&ctx.adapter, OFFSCREEN_FORMAT, false);
    crate::common::picture_size::check(
        &ctx.device.limits(),
        &layout,
        args.width,
        args.height,
        1,
        "--width/--height",
    )?;
    super::check_strands(args.strands, &ctx)?;
    let strands = args
        .strands
        .unwrap_or(StrandTier::for_device(ctx.info().device_type).strands());
    // The coat as grown (a groom file may set its count), refused before it is grown: the
    // CPU solver's memory, and the one buffer the renderer binds its positions in.
    let solver = args.solver.for_adapter(&ctx);
    let (planned, what) =
        crate::common::strand_count::planned(strands, body.as_ref().map(|b| &b.body));
    crate::common::strand_count::check_planned((planned, &what), solver, Some(&ctx), true)?;
    let creature = Creature::default();
    let grown = std::time::Instant::now();
    let mut sim =
        crate::common::progress::while_doing(&format!("growing {planned} strands"), || {
            let config = args.volume.apply(FurConfig::new(strands, args.seed));
            match &body {
                Some(b) => solver.grow(
                    &b.on_its_floor(config),
                    creature.clone(),
                    Some(b.body.clone()),
                    &ctx,
                ),
                None => solver.grow(&config, creature.clone(), None, &ctx),
            }
        })?;
    let grow_s = grown.elapsed().as_secs_f64();
    // A groom file's count or density, or a file of strands, sets the count.
    let strands = sim.groom().len();
    let mut renderer = FurRenderer::new(
        &ctx.device,
        &ctx.queue,
        layout,
        &creature,
        RenderSettings {
            raster: args.raster,
            floor: sim.params().floor,
            ..RenderSettings::default()
        },
    )?;
    renderer.set_strands_from_sim(&sim)?;
    renderer.set_environment(environment.as_ref());
    let mut contact = None;
    let stepped = std::time::Instant::now();
    let mut bar = crate::common::progress::Progress::new(u64::from(args.steps), "steps");
    for step in 0..args.steps {
        if let Some(s) = &script {
            let c = s.contact_at(f64::from(step) + 1.0);
            sim.set_contact(Some(c.clone()))?;
            contact = Some(c);
        }
        sim.step(1)?;
        bar.inc(1);
    }
    let hand: Vec<DrawCapsule> = contact
        .iter()
        .flat_map(|c| &c.capsules)
        .map(|c| {
            let (a, b) = c.ends();
            DrawCapsule {
                a,
                b,
                radius: c.radius,
                material: Material::Hand,
            }
        })
        .collect();
    let mut camera = camera;
    if let Some(b) = &body {
        let pose = b.body.motion.pose_at(sim.time());
        renderer.set_body_surface(Some(&pelt::render::mesh::body_surface(&b.body.mesh, &pose)));
        // The presets frame the creature; a body is framed on its coat as the creature is
        // at the preset, unless --eye/--target place the camera.
        if args.eye.is_none() {
            let mut points: Vec<Vec3> = sim.positions()?.iter().map(|p| p.truncate()).collect();
            if args.camera == CameraPreset::Closeup {
                let mesh = &b.body.mesh;
                // The head as posed: the joint's skinning matrix moves its rest position.
                let head = mesh.highest_joint().map_or(Vec3::NAN, |j| {
                    let rest = mesh.joint_positions[j];
                    pose.joints
                        .get(j)
                        .map_or(rest, |m| m.transform_point3(rest))
                });
                points = pelt::render::near_head(&points, head, mesh.rest_height());
            }
            let fov = camera.fov_y;
            let aspect = args.width as f32 / args.height as f32;
            camera = Camera::fit(args.camera, &points, aspect);
            if args.fov.is_some() {
                camera.fov_y = fov;
            }
        }
    }
    // A CPU-stepped coat's positions go to the renderer's buffer once, after the steps.
    renderer.upload_strands_from_sim(&sim)?;
    let mut scene = Scene::new(camera, sim.pose_at(sim.time() as f32));
    scene.mode = args.mode;
    scene.positions_index = sim.gpu().map_or(0, |gpu| gpu.current_index());
    scene.hand = &hand;
    scene.hand_occlusion = if hand.is_empty() { 0.0 } else { 0.6 };
    // The solver's steps are queued, not done: wait for them, so the time printed is the
    // picture's alone.
    ctx.device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| anyhow::anyhow!("waiting for the solver's steps: {e}"))?;
    bar.finish();
    let step_s = stepped.elapsed().as_secs_f64();
    let started = std::time::Instant::now();
    let image = renderer.render_image(&scene, args.width, args.height)?;
    let render_s = started.elapsed().as_secs_f64();
    pelt::files::write_atomic(&args.out, "the picture", &image.to_png()?)?;
    // The switches that change the picture besides the view, named when used.
    let mut extras = String::new();
    extras.push_str(&args.volume.describe(strands));
    if args.volume.on() && u64::from(args.steps) <= pelt::sim::SETTLE_STEPS {
        extras.push_str(&format!(
            "; it starts after step {}, so not in this run",
            pelt::sim::SETTLE_STEPS
        ));
    }
    if let Some(b) = &body {
        extras.push_str(&format!(", body {}", b.summary));
    }
    if let Some(env) = &args.env {
        extras.push_str(&format!(
            ", environment {}",
            crate::common::printable::printable_path(env)
        ));
    }
    // The path that drew the frame (`auto` resolved for the adapter); the contact view's
    // colouring is the ribbons' own, whatever path was asked for.
    let raster = match args.mode {
        DebugMode::Contact => format!("{} raster (the contact view's own)", Raster::Hardware),
        _ => format!("{} raster", renderer.last_raster()),
    };
    eprintln!(
        "{} strands{} grown in {grow_s:.2} s, {} steps in {step_s:.2} s on the {} solver, {} view, {}×{} on {}, {}{}, rendered in {:.2} s: wrote {}",
        strands,
        super::beyond_full_coat(strands),
        args.steps,
        solver,
        args.mode,
        args.width,
        args.height,
        ctx.info().name,
        raster,
        extras,
        render_s,
        crate::common::printable::printable_path(&args.out)
    );
    Ok(())
}
