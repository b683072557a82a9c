//! Small helpers for the wgpu descriptors every pass repeats: bind group layout entries,
//! bind groups numbered in order, pipeline layouts, a render pipeline from the few fields
//! that differ between passes, and the depth and primitive states the passes share.

use super::target::DEPTH_FORMAT;

/// Stages a render pass's bindings are visible to.
pub const VERTEX_FRAGMENT: wgpu::ShaderStages = wgpu::ShaderStages::VERTEX_FRAGMENT;

/// A uniform buffer of at least `size` bytes, visible to vertex and fragment shaders.
pub fn uniform_entry(binding: u32, size: u64, dynamic: bool) -> wgpu::BindGroupLayoutEntry {
    buffer_entry(
        binding,
        VERTEX_FRAGMENT,
        wgpu::BufferBindingType::Uniform,
        dynamic,
        wgpu::BufferSize::new(size),
    )
}

/// A read-only storage buffer visible to vertex and fragment shaders.
pub fn storage_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    buffer_entry(
        binding,
        VERTEX_FRAGMENT,
        wgpu::BufferBindingType::Storage { read_only: true },
        false,
        None,
    )
}

/// A buffer of kind `ty` visible to compute shaders.
pub fn compute_entry(binding: u32, ty: wgpu::BufferBindingType) -> wgpu::BindGroupLayoutEntry {
    buffer_entry(binding, wgpu::ShaderStages::COMPUTE, ty, false, None)
}

/// The most workgroups along one dispatch dimension (WebGPU's limit).
pub const MAX_WORKGROUPS_X: u32 = 65_535;

/// Workgroups of `RASTER_WORKGROUP` threads for `items`, spread over two dimensions when
/// one is not enough (the shaders number threads `x + y · groups.x · RASTER_WORKGROUP`).
pub fn workgroups_for(items: u32) -> (u32, u32) {
    let groups = items.div_ceil(crate::shaders::RASTER_WORKGROUP);
    if groups <= MAX_WORKGROUPS_X {
        (groups, 1)
    } else {
        (MAX_WORKGROUPS_X, groups.div_ceil(MAX_WORKGROUPS_X))
    }
}

fn buffer_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
    ty: wgpu::BufferBindingType,
    has_dynamic_offset: bool,
    min_binding_size: Option<wgpu::BufferSize>,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset,
            min_binding_size,
        },
        count: None,
    }
}

/// A 2D texture of `sample_type`.
pub fn texture_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
    sample_type: wgpu::TextureSampleType,
    multisampled: bool,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Texture {
            sample_type,
            view_dimension: wgpu::TextureViewDimension::D2,
            multisampled,
        },
        count: None,
    }
}

/// A sampler of `kind`.
pub fn sampler_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
    kind: wgpu::SamplerBindingType,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Sampler(kind),
        count: None,
    }
}

/// A bind group layout of `entries`.
pub fn bind_group_layout(
    device: &wgpu::Device,
    label: &str,
    entries: &[wgpu::BindGroupLayoutEntry],
) -> wgpu::BindGroupLayout {
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries,
    })
}

/// A bind group whose binding `i` is `resources[i]`.
pub fn bind_group(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    resources: &[wgpu::BindingResource],
) -> wgpu::BindGroup {
    let entries: Vec<wgpu::BindGroupEntry> = resources
        .iter()
        .enumerate()
        .map(|(i, resource)| wgpu::BindGroupEntry {
            binding: i as u32,
            resource: resource.clone(),
        })
        .collect();
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout,
        entries: &entries,
    })
}

/// A pipeline layout of `groups` (`None` for a group the pipeline does not use).
pub fn pipeline_layout(
    device: &wgpu::Device,
    label: &str,
    groups: &[Option<&wgpu::BindGroupLayout>],
) -> wgpu::PipelineLayout {
    device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(label),
        bind_group_layouts: groups,
        immediate_size: 0,
    })
}

/// What differs between the render pipelines: everything else is wgpu's default.
pub struct RenderPipelineSpec<'a> {
    /// The pipeline's name.
    pub label: &'a str,
    /// Its layout.
    pub layout: &'a wgpu::PipelineLayout,
    /// The shader module of both stages.
    pub module: &'a wgpu::ShaderModule,
    /// The vertex entry point.
    pub vertex: &'a str,
    /// Vertex buffers (none for the passes that pull from storage buffers).
    pub buffers: &'a [Option<wgpu::VertexBufferLayout<'a>>],
    /// Topology and culling.
    pub primitive: wgpu::PrimitiveState,
    /// The depth test, if any.
    pub depth: Option<wgpu::DepthStencilState>,
    /// Samples per pixel.
    pub multisample: wgpu::MultisampleState,
    /// The fragment entry point and its targets; `None` for depth only.
    pub fragment: Option<(&'a str, &'a [Option<wgpu::ColorTargetState>])>,
}

/// The render pipeline `spec` describes.
pub fn render_pipeline(device: &wgpu::Device, spec: RenderPipelineSpec) -> wgpu::RenderPipeline {
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(spec.label),
        layout: Some(spec.layout),
        vertex: wgpu::VertexState {
            module: spec.module,
            entry_point: Some(spec.vertex),
            compilation_options: Default::default(),
            buffers: spec.buffers,
        },
        primitive: spec.primitive,
        depth_stencil: spec.depth,
        multisample: spec.multisample,
        fragment: spec.fragment.map(|(entry, targets)| wgpu::FragmentState {
            module: spec.module,
            entry_point: Some(entry),
            compilation_options: Default::default(),
            targets,
        }),
        multiview_mask: None,
        cache: None,
    })
}

/// Depth state of the camera passes: reversed depth, nearer is greater; `write` false
/// draws over everything without writing depth.
pub fn camera_depth(write: bool) -> wgpu::DepthStencilState {
    camera_depth_in(DEPTH_FORMAT, write)
}

/// [`camera_depth`] in a depth buffer of `format` (a caller's, for frames drawn into its
/// targets).
pub fn camera_depth_in(format: wgpu::TextureFormat, write: bool) -> wgpu::DepthStencilState {
    wgpu::DepthStencilState {
        format,
        depth_write_enabled: Some(write),
        depth_compare: Some(if write {
            wgpu::CompareFunction::GreaterEqual
        } else {
            wgpu::CompareFunction::Always
        }),
        stencil: Default::default(),
        bias: Default::default(),
    }
}

/// Depth state of the light's passes: forward depth, cleared to 1.
pub fn light_depth() -> wgpu::DepthStencilState {
    wgpu::DepthStencilState {
        format: super::light_view::SHADOW_DEPTH_FORMAT,
        depth_write_enabled: Some(true),
        depth_compare: Some(wgpu::CompareFunction::Less),
        stencil: Default::default(),
        bias: Default::default(),
    }
}

/// Unculled triangles: ribbons have no front.
pub fn triangles() -> wgpu::PrimitiveState {
    wgpu::PrimitiveState {
        topology: wgpu::PrimitiveTopology::TriangleList,
        cull_mode: None,
        ..Default::default()
    }
}

/// Closed surfaces wound outward ([`super::mesh::Mesh::orient_outward`]): the faces turned
/// away are hidden behind the near ones, so they are culled before they cost any pixels.
pub fn front_faces() -> wgpu::PrimitiveState {
    wgpu::PrimitiveState {
        topology: wgpu::PrimitiveTopology::TriangleList,
        front_face: wgpu::FrontFace::Ccw,
        cull_mode: Some(wgpu::Face::Back),
        ..Default::default()
    }
}

/// The camera passes' multisampling: the layout's samples, every sample written.
pub fn camera_multisample(samples: u32) -> wgpu::MultisampleState {
    wgpu::MultisampleState {
        count: samples,
        mask: !0,
        alpha_to_coverage_enabled: false,
    }
}

/// The camera passes' colour targets: the colour, and the ID target when the layout has
/// one. Blended passes (the overlay) leave the IDs alone.
pub fn camera_targets(
    target: &super::target::TargetLayout,
    blend: Option<wgpu::BlendState>,
) -> [Option<wgpu::ColorTargetState>; 2] {
    [
        Some(wgpu::ColorTargetState {
            format: target.color_format,
            blend,
            write_mask: wgpu::ColorWrites::ALL,
        }),
        target.ids.then_some(wgpu::ColorTargetState {
            format: super::target::ID_FORMAT,
            blend: None,
            write_mask: if blend.is_some() {
                wgpu::ColorWrites::empty()
            } else {
                wgpu::ColorWrites::ALL
            },
        }),
    ]
}
