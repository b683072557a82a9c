//! The hair fibre's specular lobes: energy-sane for every direction of light (integrated
//! over the sphere on the CPU mirror), the WGSL equal to its mirror on the GPU, and the
//! forward-scattering lobe that lights a backlit silhouette.

use glam::Vec3;
use pelt::gpu::GpuContext;
use pelt::render::hair_bsdf::{directional_albedo, hair_specular};
use pelt::shaders::{HAIR_BSDF_WGSL, prelude};
use wgpu::util::DeviceExt;

#[test]
fn no_direction_of_light_is_reflected_with_more_energy_than_it_brings() {
    let t = Vec3::X;
    let mut worst = (0.0f32, 0.0f32);
    for k in 0..=16 {
        // Incidence from along the fibre (−80°) to across it (0°) and beyond (+80°).
        let theta_i = (-80.0 + 10.0 * k as f32).to_radians();
        let l = Vec3::new(theta_i.sin(), theta_i.cos(), 0.0);
        let albedo = directional_albedo(t, l, 96);
        if albedo > worst.0 {
            worst = (albedo, theta_i.to_degrees());
        }
        assert!(
            albedo > 0.02,
            "at {}°, the fibre reflects nothing",
            theta_i.to_degrees()
        );
    }
    eprintln!(
        "largest directional albedo {:.3} at θi = {:.0}°",
        worst.0, worst.1
    );
    assert!(worst.0 <= 1.0, "the lobes return {} of the light", worst.0);
}

#[test]
fn backlit_fibres_glow_forward() {
    let t = Vec3::X;
    let l = Vec3::Y;
    let tint = Vec3::new(0.9, 0.6, 0.3);
    // Viewer straight across the fibre from the light (φ = π), and at right angles (φ = π/2).
    let through = hair_specular(t, l, -Vec3::Y, tint);
    let side = hair_specular(t, l, Vec3::Z, tint);
    eprintln!("through {through:?}, side {side:?}");
    assert!(
        through.x > 3.0 * side.x,
        "no forward scattering toward a backlit viewer"
    );
    // The light that went through the fibre is tinted by it.
    assert!(
        through.z < through.x * 0.6,
        "transmitted light is not tinted: {through:?}"
    );
}

/// Inputs per sample: t, l, v, tint (vec4 each, w unused); output: the lobes.
const KERNEL: &str = r#"
@group(0) @binding(0) var<storage, read> inputs: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> outputs: array<vec4<f32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= arrayLength(&outputs)) {
        return;
    }
    let t = inputs[4u * i].xyz;
    let l = inputs[4u * i + 1u].xyz;
    let v = inputs[4u * i + 2u].xyz;
    let tint = inputs[4u * i + 3u].xyz;
    outputs[i] = vec4<f32>(hair_specular(t, l, v, tint), 0.0);
}
"#;

#[test]
fn the_wgsl_lobes_equal_their_cpu_mirror() {
    let ctx = GpuContext::new().expect("a wgpu adapter");
    // Directions spread over the sphere by a deterministic spiral.
    let dir = |k: u32, salt: f32| {
        let a = (k as f32 * 0.618_034 + salt).fract() * std::f32::consts::TAU;
        let z = ((k as f32 * 0.754_877 + salt * 0.3).fract()) * 2.0 - 1.0;
        let r = (1.0 - z * z).sqrt();
        Vec3::new(r * a.cos(), r * a.sin(), z)
    };
    let n = 512u32;
    let mut inputs = Vec::new();
    let mut cases = Vec::new();
    for k in 0..n {
        let (t, l, v) = (dir(k, 0.1), dir(k, 0.37), dir(k, 0.71));
        let tint = Vec3::new(0.9, 0.55, 0.2);
        inputs.extend([t, l, v, tint].map(|x| x.extend(0.0)));
        cases.push((t, l, v, tint));
    }
    let device = &ctx.device;
    let input = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents: bytemuck::cast_slice(&inputs),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let output = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: u64::from(n) * 16,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: None,
        source: wgpu::ShaderSource::Wgsl(
            [prelude().as_str(), HAIR_BSDF_WGSL, KERNEL].concat().into(),
        ),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: input.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: output.as_entire_binding(),
            },
        ],
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups(n.div_ceil(64), 1, 1);
    }
    ctx.queue.submit(Some(encoder.finish()));
    let bytes = pelt::gpu::read_buffer(device, &ctx.queue, &output).unwrap();
    let gpu: Vec<glam::Vec4> = bytemuck::pod_collect_to_vec(&bytes);
    // Vulkan lets asin and acos be 4096 ulp off (2.4e-4 of the angle); through the
    // narrowest lobe (TT, 4° wide, evaluated a few widths out) that moves a value by up to
    // about 1% of the largest lobe. A wrong shift or width moves it by tens of percent.
    let peak = cases
        .iter()
        .map(|(t, l, v, tint)| hair_specular(*t, *l, *v, *tint).max_element())
        .fold(0.0f32, f32::max);
    let mut worst = (0.0f32, 0usize);
    for (k, ((t, l, v, tint), g)) in cases.iter().zip(&gpu).enumerate() {
        let cpu = hair_specular(*t, *l, *v, *tint);
        let err = (g.truncate() - cpu).abs().max_element() / peak;
        if err > worst.0 {
            worst = (err, k);
        }
    }
    let (t, l, v, tint) = cases[worst.1];
    eprintln!(
        "largest difference GPU vs CPU: {:.2e} of the peak {peak:.3}, at case {} (gpu {:?}, cpu {:?})",
        worst.0,
        worst.1,
        gpu[worst.1],
        hair_specular(t, l, v, tint)
    );
    assert!(
        worst.0 < 1e-2,
        "the WGSL and the mirror differ by {}",
        worst.0
    );
}
