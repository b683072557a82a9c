// The `contact` diagnostic overlay: translucent wireframes of the analytic proxies that
// pointer and finger rays are tested against, placed by the same pivots as the skin, and a
// marker at the last ray hit. Drawn over everything, without depth. Composed after
// `frame.wgsl`.

struct LineVertex {
    @location(0) position: vec3<f32>,
    @location(1) tail_t: f32,
    // Low 8 bits: space.
    @location(2) space: u32,
    @location(3) color: vec4<f32>,
}

struct LineVarying {
    @builtin(position) clip: vec4<f32>,
    @location(0) color: vec4<f32>,
}

@vertex
fn vs_lines(v: LineVertex) -> LineVarying {
    var out: LineVarying;
    let m = space_matrix(v.space & 0xffu, v.tail_t);
    out.clip = view.view_proj * (m * vec4<f32>(v.position, 1.0));
    out.color = v.color;
    return out;
}

struct LineOut {
    @location(0) color: vec4<f32>,
    @location(1) id: u32,
}

@fragment
fn fs_lines(v: LineVarying) -> LineOut {
    var out: LineOut;
    out.color = v.color;
    out.id = ID_OVERLAY;
    return out;
}
