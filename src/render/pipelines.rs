//! Every render pipeline and the bind group layouts they share, built once for a
//! [`TargetLayout`]: explicit descriptors, one function per kind of pipeline.

use super::mesh::SkinVertex;
use super::proxies::LineVertex;
use super::shaders::module_source;
use super::shadow::{DEEP_OPACITY_FORMAT, FIRST_HAIR_FORMAT, SHADOW_DEPTH_FORMAT};
use super::target::{DEPTH_FORMAT, ID_FORMAT, TargetLayout};
use super::uniforms::{FrameUniforms, PassView};
use encase::ShaderType;

/// The bind group layouts: 0 the frame and the pass view, 1 the strands, 2 the shadow maps
/// (colour passes) or the first-hair depth (the deep opacity pass).
#[derive(Debug)]
pub struct Layouts {
    /// Group 0: frame uniforms, pass view (dynamic offset).
    pub frame: wgpu::BindGroupLayout,
    /// Group 1: positions, packed strands and the camera's cull flags.
    pub strands: wgpu::BindGroupLayout,
    /// The cull pass's only group: positions, cull flags (written), its uniforms.
    pub cull: wgpu::BindGroupLayout,
    /// Group 2 of colour passes: the three shadow maps and two samplers.
    pub shadow_inputs: wgpu::BindGroupLayout,
    /// Group 2 of the deep opacity pass: the first hair's depth.
    pub first_hair: wgpu::BindGroupLayout,
    /// The ID copy's input.
    pub id_input: wgpu::BindGroupLayout,
}

/// The render pipelines.
#[derive(Debug)]
pub struct Pipelines {
    /// Hair, shaded (`final`, `strands`).
    pub ribbon_final: wgpu::RenderPipeline,
    /// Hair in the `contact` colouring.
    pub ribbon_contact: wgpu::RenderPipeline,
    /// Nearest hair depth from the light.
    pub ribbon_hair_depth: wgpu::RenderPipeline,
    /// Deep opacity accumulation from the light.
    pub ribbon_deep_opacity: wgpu::RenderPipeline,
    /// Opaque surfaces, shaded (skin, hand, sleeve, floor).
    pub skin: wgpu::RenderPipeline,
    /// The glossy surfaces: eyes, nose, nails.
    pub skin_glossy: wgpu::RenderPipeline,
    /// Opaque surfaces' depth from the light.
    pub skin_depth: wgpu::RenderPipeline,
    /// The contact overlay.
    pub lines: wgpu::RenderPipeline,
    /// Marks the strands the camera cannot see.
    pub cull: wgpu::ComputePipeline,
    /// Copies sample 0 of the ID target (only with MSAA and IDs).
    pub id_resolve: Option<wgpu::RenderPipeline>,
}

const FRAGMENT_VERTEX: wgpu::ShaderStages = wgpu::ShaderStages::VERTEX_FRAGMENT;

fn uniform_entry(binding: u32, size: u64, dynamic: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: FRAGMENT_VERTEX,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: dynamic,
            min_binding_size: wgpu::BufferSize::new(size),
        },
        count: None,
    }
}

fn storage_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: FRAGMENT_VERTEX,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: true },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

fn compute_entry(binding: u32, ty: wgpu::BufferBindingType) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

fn texture_entry(
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

fn sampler_entry(
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

impl Layouts {
    /// Creates the layouts.
    pub fn new(device: &wgpu::Device) -> Self {
        let layout = |label, entries: &[wgpu::BindGroupLayoutEntry]| {
            device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(label),
                entries,
            })
        };
        Layouts {
            frame: layout(
                "render: frame",
                &[
                    uniform_entry(0, FrameUniforms::min_size().get(), false),
                    uniform_entry(1, PassView::min_size().get(), true),
                ],
            ),
            strands: layout(
                "render: strands",
                &[storage_entry(0), storage_entry(1), storage_entry(2)],
            ),
            cull: layout(
                "render: strand cull",
                &[
                    compute_entry(0, wgpu::BufferBindingType::Storage { read_only: true }),
                    compute_entry(1, wgpu::BufferBindingType::Storage { read_only: false }),
                    compute_entry(2, wgpu::BufferBindingType::Uniform),
                ],
            ),
            // The hair reads its shadows per ribbon vertex, the skin per fragment.
            shadow_inputs: layout(
                "render: shadow maps",
                &[
                    texture_entry(0, FRAGMENT_VERTEX, wgpu::TextureSampleType::Depth, false),
                    texture_entry(
                        1,
                        FRAGMENT_VERTEX,
                        wgpu::TextureSampleType::Float { filterable: false },
                        false,
                    ),
                    texture_entry(
                        2,
                        FRAGMENT_VERTEX,
                        wgpu::TextureSampleType::Float { filterable: true },
                        false,
                    ),
                    sampler_entry(3, FRAGMENT_VERTEX, wgpu::SamplerBindingType::Comparison),
                    sampler_entry(4, FRAGMENT_VERTEX, wgpu::SamplerBindingType::Filtering),
                ],
            ),
            first_hair: layout(
                "render: first hair",
                &[texture_entry(
                    0,
                    wgpu::ShaderStages::FRAGMENT,
                    wgpu::TextureSampleType::Float { filterable: false },
                    false,
                )],
            ),
            id_input: layout(
                "render: ids",
                &[texture_entry(
                    0,
                    wgpu::ShaderStages::FRAGMENT,
                    wgpu::TextureSampleType::Uint,
                    true,
                )],
            ),
        }
    }
}

/// Depth state of the camera passes: reversed depth, nearer is greater.
fn camera_depth(write: bool) -> wgpu::DepthStencilState {
    wgpu::DepthStencilState {
        format: DEPTH_FORMAT,
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
fn light_depth() -> wgpu::DepthStencilState {
    wgpu::DepthStencilState {
        format: SHADOW_DEPTH_FORMAT,
        depth_write_enabled: Some(true),
        depth_compare: Some(wgpu::CompareFunction::Less),
        stencil: Default::default(),
        bias: Default::default(),
    }
}

/// Unculled triangles: ribbons have no front.
fn triangles() -> wgpu::PrimitiveState {
    wgpu::PrimitiveState {
        topology: wgpu::PrimitiveTopology::TriangleList,
        cull_mode: None,
        ..Default::default()
    }
}

/// Closed surfaces wound outward ([`super::mesh::Mesh::orient_outward`]): the faces turned
/// away are hidden behind the near ones, so they are culled before they cost any pixels.
fn front_faces() -> wgpu::PrimitiveState {
    wgpu::PrimitiveState {
        topology: wgpu::PrimitiveTopology::TriangleList,
        front_face: wgpu::FrontFace::Ccw,
        cull_mode: Some(wgpu::Face::Back),
        ..Default::default()
    }
}

impl Pipelines {
    /// Compiles every pipeline for `target`.
    pub fn new(device: &wgpu::Device, layouts: &Layouts, target: &TargetLayout) -> Self {
        let module = |name: &str| {
            device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(name),
                source: wgpu::ShaderSource::Wgsl(module_source(name).into()),
            })
        };
        let ribbon_color = module("ribbon_color");
        let ribbon_shadow = module("ribbon_shadow");
        let skin = module("skin");
        let lines = module("lines");

        let pipeline_layout = |label, groups: &[Option<&wgpu::BindGroupLayout>]| {
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(label),
                bind_group_layouts: groups,
                immediate_size: 0,
            })
        };
        let ribbon_color_layout = pipeline_layout(
            "ribbon colour",
            &[
                Some(&layouts.frame),
                Some(&layouts.strands),
                Some(&layouts.shadow_inputs),
            ],
        );
        let ribbon_depth_layout = pipeline_layout(
            "ribbon depth",
            &[Some(&layouts.frame), Some(&layouts.strands)],
        );
        let ribbon_opacity_layout = pipeline_layout(
            "ribbon deep opacity",
            &[
                Some(&layouts.frame),
                Some(&layouts.strands),
                Some(&layouts.first_hair),
            ],
        );
        let skin_layout = pipeline_layout(
            "skin",
            &[Some(&layouts.frame), None, Some(&layouts.shadow_inputs)],
        );
        let frame_only = pipeline_layout("frame only", &[Some(&layouts.frame)]);
        let cull_layout = pipeline_layout("strand cull", &[Some(&layouts.cull)]);
        let strand_cull = module("strand_cull");

        // Ribbons write their own sample mask with MSAA, and discard by coverage without.
        let msaa = target.samples > 1;
        let multisample = wgpu::MultisampleState {
            count: target.samples,
            mask: !0,
            alpha_to_coverage_enabled: false,
        };
        let color_targets = |blend: Option<wgpu::BlendState>| {
            [
                Some(wgpu::ColorTargetState {
                    format: target.color_format,
                    blend,
                    write_mask: wgpu::ColorWrites::ALL,
                }),
                target.ids.then_some(wgpu::ColorTargetState {
                    format: ID_FORMAT,
                    blend: None,
                    write_mask: if blend.is_some() {
                        wgpu::ColorWrites::empty()
                    } else {
                        wgpu::ColorWrites::ALL
                    },
                }),
            ]
        };
        let opaque_targets = color_targets(None);
        let overlay_targets = color_targets(Some(wgpu::BlendState::ALPHA_BLENDING));

        let ribbon_camera = |label, vs: &str, fs: &str| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(&ribbon_color_layout),
                vertex: wgpu::VertexState {
                    module: &ribbon_color,
                    entry_point: Some(vs),
                    compilation_options: Default::default(),
                    buffers: &[],
                },
                primitive: triangles(),
                depth_stencil: Some(camera_depth(true)),
                multisample,
                fragment: Some(wgpu::FragmentState {
                    module: &ribbon_color,
                    entry_point: Some(fs),
                    compilation_options: Default::default(),
                    targets: &opaque_targets,
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let skin_vertex = [Some(wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<SkinVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &SkinVertex::ATTRIBUTES,
        })];
        let line_vertex = [Some(wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<LineVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &LineVertex::ATTRIBUTES,
        })];

        let surface = |label, fs: &str| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(&skin_layout),
                vertex: wgpu::VertexState {
                    module: &skin,
                    entry_point: Some("vs_skin"),
                    compilation_options: Default::default(),
                    buffers: &skin_vertex,
                },
                primitive: front_faces(),
                depth_stencil: Some(camera_depth(true)),
                multisample,
                fragment: Some(wgpu::FragmentState {
                    module: &skin,
                    entry_point: Some(fs),
                    compilation_options: Default::default(),
                    targets: &opaque_targets,
                }),
                multiview_mask: None,
                cache: None,
            })
        };

        let id_resolve = (target.ids && target.samples > 1).then(|| {
            let module = module("id_resolve");
            let layout = pipeline_layout("id resolve", &[Some(&layouts.id_input)]);
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("id resolve"),
                layout: Some(&layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some("vs_fullscreen"),
                    compilation_options: Default::default(),
                    buffers: &[],
                },
                primitive: Default::default(),
                depth_stencil: None,
                multisample: Default::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some("fs_resolve"),
                    compilation_options: Default::default(),
                    targets: &[Some(ID_FORMAT.into())],
                }),
                multiview_mask: None,
                cache: None,
            })
        });

        Pipelines {
            ribbon_final: ribbon_camera(
                "ribbons: final",
                "vs_ribbon",
                if msaa { "fs_final" } else { "fs_final_single" },
            ),
            ribbon_contact: ribbon_camera(
                "ribbons: contact",
                "vs_ribbon_contact",
                if msaa {
                    "fs_contact"
                } else {
                    "fs_contact_single"
                },
            ),
            ribbon_hair_depth: device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("ribbons: first hair depth"),
                layout: Some(&ribbon_depth_layout),
                vertex: wgpu::VertexState {
                    module: &ribbon_shadow,
                    entry_point: Some("vs_shadow"),
                    compilation_options: Default::default(),
                    buffers: &[],
                },
                primitive: triangles(),
                depth_stencil: Some(light_depth()),
                multisample: Default::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &ribbon_shadow,
                    entry_point: Some("fs_hair_depth"),
                    compilation_options: Default::default(),
                    targets: &[Some(FIRST_HAIR_FORMAT.into())],
                }),
                multiview_mask: None,
                cache: None,
            }),
            ribbon_deep_opacity: device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("ribbons: deep opacity"),
                layout: Some(&ribbon_opacity_layout),
                vertex: wgpu::VertexState {
                    module: &ribbon_shadow,
                    entry_point: Some("vs_shadow"),
                    compilation_options: Default::default(),
                    buffers: &[],
                },
                primitive: triangles(),
                depth_stencil: None,
                multisample: Default::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &ribbon_shadow,
                    entry_point: Some("fs_deep_opacity"),
                    compilation_options: Default::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format: DEEP_OPACITY_FORMAT,
                        blend: Some(wgpu::BlendState {
                            color: wgpu::BlendComponent {
                                src_factor: wgpu::BlendFactor::One,
                                dst_factor: wgpu::BlendFactor::One,
                                operation: wgpu::BlendOperation::Add,
                            },
                            alpha: wgpu::BlendComponent {
                                src_factor: wgpu::BlendFactor::One,
                                dst_factor: wgpu::BlendFactor::One,
                                operation: wgpu::BlendOperation::Add,
                            },
                        }),
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            }),
            skin: surface("skin", "fs_skin"),
            skin_glossy: surface("skin: glossy", "fs_glossy"),
            skin_depth: device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("skin: light depth"),
                layout: Some(&frame_only),
                vertex: wgpu::VertexState {
                    module: &skin,
                    entry_point: Some("vs_skin_depth"),
                    compilation_options: Default::default(),
                    buffers: &skin_vertex,
                },
                primitive: front_faces(),
                depth_stencil: Some(light_depth()),
                multisample: Default::default(),
                fragment: None,
                multiview_mask: None,
                cache: None,
            }),
            lines: device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("contact overlay"),
                layout: Some(&frame_only),
                vertex: wgpu::VertexState {
                    module: &lines,
                    entry_point: Some("vs_lines"),
                    compilation_options: Default::default(),
                    buffers: &line_vertex,
                },
                primitive: wgpu::PrimitiveState {
                    topology: wgpu::PrimitiveTopology::LineList,
                    ..Default::default()
                },
                depth_stencil: Some(camera_depth(false)),
                multisample,
                fragment: Some(wgpu::FragmentState {
                    module: &lines,
                    entry_point: Some("fs_lines"),
                    compilation_options: Default::default(),
                    targets: &overlay_targets,
                }),
                multiview_mask: None,
                cache: None,
            }),
            cull: device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some("strand cull"),
                layout: Some(&cull_layout),
                module: &strand_cull,
                entry_point: Some("cull_strands"),
                compilation_options: Default::default(),
                cache: None,
            }),
            id_resolve,
        }
    }
}
