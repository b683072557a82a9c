//! Adapter and device acquisition: a hardware adapter first, a CPU adapter (lavapipe,
//! llvmpipe) as the fallback, `WGPU_BACKEND` and `WGPU_ADAPTER_NAME` honoured, and an error
//! that says what to install when there is no adapter at all; and the read-back of a GPU
//! buffer, which the solver and the renderer both use.

use std::sync::{Arc, Mutex};
use thiserror::Error;

/// The names `WGPU_BACKEND` takes (wgpu's own), each backend with its other spellings.
const BACKEND_NAMES: [(wgpu::Backends, &str, &[&str]); 6] = [
    (wgpu::Backends::VULKAN, "vulkan", &["vk"]),
    (wgpu::Backends::METAL, "metal", &["mtl"]),
    (wgpu::Backends::DX12, "dx12", &["d3d12"]),
    (wgpu::Backends::GL, "gl", &["gles", "opengl"]),
    (wgpu::Backends::BROWSER_WEBGPU, "webgpu", &[]),
    (wgpu::Backends::NOOP, "noop", &[]),
];

/// The backend names `WGPU_BACKEND` takes, for an error: "vulkan (or vk), metal (or mtl), …".
fn valid_backends() -> String {
    BACKEND_NAMES
        .iter()
        .map(|(_, name, others)| match others {
            [] => name.to_string(),
            _ => format!("{name} (or {})", others.join(", ")),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `backends` by name: "vulkan, gl", or "none".
fn backend_list(backends: wgpu::Backends) -> String {
    let names: Vec<&str> = BACKEND_NAMES
        .iter()
        .filter(|(b, _, _)| backends.contains(*b))
        .map(|(_, name, _)| *name)
        .collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

/// The backends a comma-separated list names (case and spaces ignored, as wgpu reads
/// `WGPU_BACKEND`), or an error naming the first word that is no backend. wgpu itself
/// logs a warning for such a word and goes on with no backend at all.
pub fn parse_backends(list: &str) -> Result<wgpu::Backends, GpuError> {
    let mut backends = wgpu::Backends::empty();
    for word in list.split(',') {
        let word = word.trim();
        let lower = word.to_lowercase();
        let found = BACKEND_NAMES
            .iter()
            .find(|(_, name, others)| *name == lower || others.contains(&lower.as_str()));
        match found {
            Some((b, _, _)) => backends |= *b,
            None => {
                return Err(GpuError::BadBackend {
                    value: list.into(),
                    problem: if word.is_empty() {
                        "an empty name is no backend".into()
                    } else {
                        format!("`{word}` is not a backend")
                    },
                    valid: valid_backends(),
                });
            }
        }
    }
    Ok(backends)
}

/// The backends `WGPU_BACKEND` allows: every one when it is unset.
pub fn backends_from_env() -> Result<wgpu::Backends, GpuError> {
    match std::env::var("WGPU_BACKEND") {
        Err(std::env::VarError::NotPresent) => Ok(wgpu::Backends::all()),
        Err(std::env::VarError::NotUnicode(_)) => Err(GpuError::BadBackend {
            value: "…".into(),
            problem: "the value is not UTF-8 text".into(),
            valid: valid_backends(),
        }),
        Ok(list) => parse_backends(&list),
    }
}

/// What went wrong acquiring a GPU.
#[derive(Debug, Error)]
pub enum GpuError {
    /// `WGPU_BACKEND` holds a word that is no backend.
    #[error(
        "WGPU_BACKEND={value}: {problem}; give one or more of {valid}, separated by commas, or unset WGPU_BACKEND to try every backend"
    )]
    BadBackend {
        /// The variable's value.
        value: String,
        /// What is wrong with it.
        problem: String,
        /// The names it takes.
        valid: String,
    },
    /// No adapter on any backend.
    #[error(
        "no graphics adapter found (backends tried: {backends}). Install a Vulkan driver: on Debian or Ubuntu `apt-get install mesa-vulkan-drivers libvulkan1` gives a CPU one (lavapipe); or unset WGPU_BACKEND"
    )]
    NoAdapter {
        /// The backends searched.
        backends: String,
    },
    /// `WGPU_ADAPTER_NAME` matched none of the adapters found.
    #[error("WGPU_ADAPTER_NAME={wanted:?} matches no adapter; found: {found}")]
    NoMatchingAdapter {
        /// The name asked for.
        wanted: String,
        /// The adapters that exist.
        found: String,
    },
    /// The adapter refused to open a device.
    #[error("could not open a device on {adapter}: {source}")]
    RequestDevice {
        /// The adapter's name.
        adapter: String,
        /// wgpu's reason.
        #[source]
        source: wgpu::RequestDeviceError,
    },
}

/// An adapter as `pelt info` describes it.
#[derive(Clone, Debug)]
pub struct AdapterSummary {
    /// wgpu's description of the adapter.
    pub info: wgpu::AdapterInfo,
    /// Its limits.
    pub limits: wgpu::Limits,
}

/// An open device and queue on the chosen adapter.
#[derive(Clone, Debug)]
pub struct GpuContext {
    /// The instance the adapter came from.
    pub instance: wgpu::Instance,
    /// The chosen adapter.
    pub adapter: wgpu::Adapter,
    /// The device opened on it.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// The last validation or out-of-memory error the device reported, if any: wgpu reports
    /// these asynchronously, and Pelt returns them as errors rather than panicking.
    pub last_error: Arc<Mutex<Option<String>>>,
}

/// An instance on `backends`, its other settings from wgpu's environment variables
/// (`WGPU_BACKEND` is read by [`backends_from_env`], which refuses a misspelt name).
fn instance(backends: wgpu::Backends) -> wgpu::Instance {
    let mut descriptor = wgpu::InstanceDescriptor::new_without_display_handle();
    descriptor.backends = backends;
    descriptor.flags = descriptor.flags.with_env();
    descriptor.backend_options = descriptor.backend_options.with_env();
    wgpu::Instance::new(descriptor)
}

/// Lower is better: hardware first, then virtual and unknown, then CPU; within a kind,
/// every native API before OpenGL (slower, fewer storage buffers).
fn rank(info: &wgpu::AdapterInfo) -> (u8, u8) {
    let kind = match info.device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 4,
    };
    let api = u8::from(info.backend == wgpu::Backend::Gl);
    (kind, api)
}

/// The adapters of `instance` on `backends`, best first.
fn ranked_adapters(instance: &wgpu::Instance, backends: wgpu::Backends) -> Vec<wgpu::Adapter> {
    let mut adapters = pollster::block_on(instance.enumerate_adapters(backends));
    adapters.sort_by_key(|a| rank(&a.get_info()));
    adapters
}

/// Every adapter on the backends allowed by `WGPU_BACKEND`, best first; none where
/// `WGPU_BACKEND` names no backend (opening a device then says what is wrong with it).
pub fn list_adapters() -> Vec<AdapterSummary> {
    let Ok(backends) = backends_from_env() else {
        return Vec::new();
    };
    ranked_adapters(&instance(backends), backends)
        .iter()
        .map(|a| AdapterSummary {
            info: a.get_info(),
            limits: a.limits(),
        })
        .collect()
}

/// The first of `adapters` (ranked best first), or the first whose name contains
/// `WGPU_ADAPTER_NAME` when that is set.
fn pick(
    mut adapters: Vec<wgpu::Adapter>,
    searched: wgpu::Backends,
) -> Result<wgpu::Adapter, GpuError> {
    if adapters.is_empty() {
        return Err(GpuError::NoAdapter {
            backends: backend_list(searched),
        });
    }
    match std::env::var("WGPU_ADAPTER_NAME") {
        Ok(wanted) if !wanted.is_empty() => {
            let needle = wanted.to_lowercase();
            let found = adapters
                .iter()
                .map(|a| a.get_info().name)
                .collect::<Vec<_>>()
                .join(", ");
            adapters
                .into_iter()
                .find(|a| a.get_info().name.to_lowercase().contains(&needle))
                .ok_or(GpuError::NoMatchingAdapter { wanted, found })
        }
        _ => Ok(adapters.remove(0)),
    }
}

impl GpuContext {
    /// Opens a device on the best adapter (see [`list_adapters`] for the order).
    pub fn new() -> Result<Self, GpuError> {
        let backends = backends_from_env()?;
        let instance = instance(backends);
        let adapter = pick(ranked_adapters(&instance, backends), backends)?;
        Self::with_adapter(instance, adapter)
    }

    /// Opens a device on the best adapter that can present to `surface` (made from
    /// `instance`), honouring `WGPU_BACKEND` and `WGPU_ADAPTER_NAME` as [`GpuContext::new`]
    /// does.
    pub fn for_surface(
        instance: wgpu::Instance,
        surface: &wgpu::Surface<'_>,
    ) -> Result<Self, GpuError> {
        let backends = backends_from_env()?;
        let adapters: Vec<wgpu::Adapter> = ranked_adapters(&instance, backends)
            .into_iter()
            .filter(|a| a.is_surface_supported(surface))
            .collect();
        let adapter = pick(adapters, backends)?;
        Self::with_adapter(instance, adapter)
    }

    /// Opens a device on `adapter` with every limit the adapter supports (the full strand
    /// tier needs larger storage buffers than WebGPU's defaults on some devices).
    pub fn with_adapter(
        instance: wgpu::Instance,
        adapter: wgpu::Adapter,
    ) -> Result<Self, GpuError> {
        let required_limits = adapter.limits();
        // Timestamps where the adapter has them, for the frame bench's per-pass times.
        let required_features = adapter.features() & wgpu::Features::TIMESTAMP_QUERY;
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("pelt"),
            required_limits,
            required_features,
            ..Default::default()
        }))
        .map_err(|source| GpuError::RequestDevice {
            adapter: adapter.get_info().name,
            source,
        })?;
        let last_error = Arc::new(Mutex::new(None));
        let sink = last_error.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            log::error!("wgpu: {e}");
            if let Ok(mut slot) = sink.lock() {
                *slot = Some(e.to_string());
            }
        }));
        Ok(GpuContext {
            instance,
            adapter,
            device,
            queue,
            last_error,
        })
    }

    /// The adapter's description.
    pub fn info(&self) -> wgpu::AdapterInfo {
        self.adapter.get_info()
    }

    /// Takes the last error the device reported asynchronously, if any.
    pub fn take_error(&self) -> Option<String> {
        self.last_error.lock().ok().and_then(|mut e| e.take())
    }
}

/// Maps `staging` for reading and waits until it is mapped. Submit the copy into it first;
/// then `staging.get_mapped_range(..)` holds the bytes. The error is text, for the caller's
/// own error type.
pub fn map_for_reading(device: &wgpu::Device, staging: &wgpu::Buffer) -> Result<(), String> {
    let (tx, rx) = std::sync::mpsc::channel();
    staging.map_async(wgpu::MapMode::Read, .., move |r| {
        let _ = tx.send(r);
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| e.to_string())?;
    rx.recv()
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())
}

/// Copies the whole of `buffer` (which needs `COPY_SRC`) back to the host through a staging
/// buffer and waits for it. The error is text, for the caller's own error type.
pub fn read_buffer(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    buffer: &wgpu::Buffer,
) -> Result<Vec<u8>, String> {
    let size = buffer.size();
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("read back"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("read back"),
    });
    encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, size);
    queue.submit(Some(encoder.finish()));
    map_for_reading(device, &staging)?;
    let bytes = staging
        .get_mapped_range(..)
        .map_err(|e| e.to_string())?
        .to_vec();
    staging.unmap();
    Ok(bytes)
}
