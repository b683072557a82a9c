//! The CPU mirror of `shaders/hair_bsdf.wgsl`, line for line: the hair fibre's three
//! longitudinal lobes (R, TT, TRT). Tests integrate it over the sphere to check that no
//! direction of light is reflected with more energy than it brings, and compare it with
//! the WGSL on the GPU.

use glam::Vec3;

/// Cuticle tilt α (3°).
pub const ALPHA: f32 = crate::shaders::HAIR_ALPHA;
/// Longitudinal width of the R lobe (8°); TT is half as wide, TRT twice.
pub const BETA_R: f32 = crate::shaders::HAIR_BETA_R;
/// Azimuthal width of the TT lobe, radians.
pub const GAMMA_TT: f32 = crate::shaders::HAIR_GAMMA_TT;
/// Fresnel reflectance at normal incidence.
pub const F0: f32 = crate::shaders::HAIR_F0;
/// Share of the light entering the fibre that leaves it forward (the rest is absorbed or
/// scattered inside even by the palest fibre).
pub const TT_SHARE: f32 = crate::shaders::HAIR_TT_SHARE;

/// A unit Gaussian of the half angle, halved so it integrates to one over θ_o.
fn gaussian(width: f32, x: f32) -> f32 {
    (-x * x / (2.0 * width * width)).exp() / (width * 5.013_256_6)
}

fn fresnel(cos_theta: f32) -> f32 {
    let m = 1.0 - cos_theta.clamp(0.0, 1.0);
    let m2 = m * m;
    F0 + (1.0 - F0) * m2 * m2 * m
}

/// Radiance leaving toward `v` per unit irradiance from `l` (unit vectors away from the
/// fibre), for a fibre along unit `t` whose interior transmits `tint` per crossing;
/// includes the cos θ_i of the incoming light. See `shaders/hair_bsdf.wgsl`.
pub fn hair_specular(t: Vec3, l: Vec3, v: Vec3, tint: Vec3) -> Vec3 {
    let sin_i = t.dot(l).clamp(-1.0, 1.0);
    let sin_o = t.dot(v).clamp(-1.0, 1.0);
    let theta_i = sin_i.asin();
    let theta_o = sin_o.asin();
    let theta_h = 0.5 * (theta_i + theta_o);
    let cos_d = (0.5 * (theta_o - theta_i)).cos();
    let cos_i = (1.0 - sin_i * sin_i).max(0.0).sqrt();

    let l_perp = l - t * sin_i;
    let v_perp = v - t * sin_o;
    let lens = l_perp.length() * v_perp.length();
    let cos_phi = if lens > 1e-6 {
        (l_perp.dot(v_perp) / lens).clamp(-1.0, 1.0)
    } else {
        1.0
    };
    let phi = cos_phi.acos();
    let cos_half_phi = (0.5 * (1.0 + cos_phi)).max(0.0).sqrt();

    let f_r = fresnel(cos_d * cos_half_phi);
    let f_t = fresnel(cos_d);
    let m_r = gaussian(BETA_R, theta_h + 2.0 * ALPHA);
    let m_tt = gaussian(BETA_R * 0.5, theta_h - ALPHA);
    let m_trt = gaussian(BETA_R * 2.0, theta_h - 3.0 * ALPHA);

    let n_r = f_r * 0.25 * cos_half_phi;
    let x = std::f32::consts::PI - phi;
    let n_tt = TT_SHARE * (1.0 - f_t) * (1.0 - f_t) * 2.0 * gaussian(GAMMA_TT, x);
    let n_trt = (1.0 - f_t) * (1.0 - f_t) * f_t / std::f32::consts::TAU;

    let lobes = Vec3::splat(m_r * n_r) + tint * (m_tt * n_tt) + tint * tint * (m_trt * n_trt);
    lobes * (cos_i / (cos_d * cos_d).max(0.05))
}

/// The share of light arriving from `l` that the fibre along `t` sends out in all
/// directions (white fibre): `∫ S cos θ_o dω_o`, by the midpoint rule on an
/// `n × 2n` grid of the fibre's longitudinal and azimuthal angles.
pub fn directional_albedo(t: Vec3, l: Vec3, n: usize) -> f32 {
    let cos_i = (1.0 - t.dot(l).powi(2)).max(0.0).sqrt();
    if cos_i < 1e-4 {
        return 0.0;
    }
    let (u, w) = t.any_orthonormal_pair();
    let mut sum = 0.0f64;
    let d_theta = std::f64::consts::PI / n as f64;
    let d_phi = std::f64::consts::TAU / (2 * n) as f64;
    for i in 0..n {
        let theta = -std::f64::consts::FRAC_PI_2 + (i as f64 + 0.5) * d_theta;
        for j in 0..2 * n {
            let phi = (j as f64 + 0.5) * d_phi;
            let across = u * phi.cos() as f32 + w * phi.sin() as f32;
            let v = t * theta.sin() as f32 + across * theta.cos() as f32;
            // S = specular / cos θ_i; dω = cos θ dθ dφ; and the cos θ_o of the measure.
            let s = f64::from(hair_specular(t, l, v, Vec3::ONE).x) / f64::from(cos_i);
            sum += s * theta.cos() * theta.cos() * d_theta * d_phi;
        }
    }
    sum as f32
}
