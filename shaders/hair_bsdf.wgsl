// The hair fibre's specular response: three longitudinal lobes in the Marschner style.
// R (reflection at the surface) shifted by −2α, TT (through the fibre, what lights a backlit
// silhouette) by +α, TRT (one internal bounce, tinted by the fibre) by +3α, each a Gaussian
// in the half angle, normalised over θ so no lobe returns more light than it receives.
// Composed after the prelude alone (`src/shaders.rs`): the ribbon shader and a test's
// compute shader both include it. CPU mirror: `render::hair_bsdf` (tests integrate it to
// check energy), which is also where the prelude's HAIR_* constants come from: the cuticle
// tilt α, the R lobe's width, the TT lobe's azimuthal width, the Fresnel reflectance at
// normal incidence and the share of the light entering the fibre that leaves it forward.

// A unit Gaussian of the half angle θ_h − shift; halved, so that it integrates to one
// over θ_o (θ_h moves half as fast as θ_o).
fn hair_gaussian(width: f32, x: f32) -> f32 {
    return exp(-x * x / (2.0 * width * width)) / (width * 5.0132566);
}

fn hair_fresnel(cos_theta: f32) -> f32 {
    let m = 1.0 - clamp(cos_theta, 0.0, 1.0);
    let m2 = m * m;
    return HAIR_F0 + (1.0 - HAIR_F0) * m2 * m2 * m;
}

// Radiance leaving toward `v` per unit irradiance arriving from `l` (both unit, pointing
// away from the fibre), for a fibre along unit `t` whose interior transmits `tint` per
// crossing. Includes the cos θ_i of the incoming light.
fn hair_specular(t: vec3<f32>, l: vec3<f32>, v: vec3<f32>, tint: vec3<f32>) -> vec3<f32> {
    let sin_i = clamp(dot(t, l), -1.0, 1.0);
    let sin_o = clamp(dot(t, v), -1.0, 1.0);
    let theta_i = asin(sin_i);
    let theta_o = asin(sin_o);
    let theta_h = 0.5 * (theta_i + theta_o);
    let cos_d = cos(0.5 * (theta_o - theta_i));
    let cos_i = sqrt(max(0.0, 1.0 - sin_i * sin_i));

    // Azimuth between the light and the view, projected across the fibre.
    let l_perp = l - t * sin_i;
    let v_perp = v - t * sin_o;
    let lens = length(l_perp) * length(v_perp);
    var cos_phi = 1.0;
    if (lens > 1e-6) {
        cos_phi = clamp(dot(l_perp, v_perp) / lens, -1.0, 1.0);
    }
    let phi = acos(cos_phi);
    let cos_half_phi = sqrt(max(0.0, 0.5 * (1.0 + cos_phi)));

    let f_r = hair_fresnel(cos_d * cos_half_phi);
    let f_t = hair_fresnel(cos_d);
    let m_r = hair_gaussian(HAIR_BETA_R, theta_h + 2.0 * HAIR_ALPHA);
    let m_tt = hair_gaussian(HAIR_BETA_R * 0.5, theta_h - HAIR_ALPHA);
    let m_trt = hair_gaussian(HAIR_BETA_R * 2.0, theta_h - 3.0 * HAIR_ALPHA);

    // Azimuthal parts, each integrating to at most its energy share over φ ∈ [−π, π].
    let n_r = f_r * 0.25 * cos_half_phi;
    let x = PI - phi;
    // (A full unit Gaussian in φ: twice the halved one.)
    let n_tt = HAIR_TT_SHARE * (1.0 - f_t) * (1.0 - f_t) * 2.0 * hair_gaussian(HAIR_GAMMA_TT, x);
    let n_trt = (1.0 - f_t) * (1.0 - f_t) * f_t / (2.0 * PI);

    let lobes = vec3<f32>(m_r * n_r) + tint * (m_tt * n_tt) + tint * tint * (m_trt * n_trt);
    return lobes * (cos_i / max(cos_d * cos_d, 0.05));
}
