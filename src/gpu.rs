//! Adapter and device acquisition: a hardware adapter first, a CPU adapter (lavapipe,
//! llvmpipe) as the fallback, `WGPU_BACKEND` and `WGPU_ADAPTER_NAME` honoured, and an error
//! that says what to install when there is no adapter at all; and the read-back of a GPU
//! buffer, which the solver and the renderer both use.

use std::sync::{Arc, Mutex};
use thiserror::Error;

/// The device features of the compute rasteriser's one-walk path (64-bit atomic max on
/// storage buffers), asked for wherever the adapter has them.
pub const WIDE_ATOMICS: wgpu::Features =
    wgpu::Features::SHADER_INT64.union(wgpu::Features::SHADER_INT64_ATOMIC_MIN_MAX);

/// What went wrong acquiring a GPU.
#[derive(Debug, Error)]
pub enum GpuError {
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

fn instance() -> wgpu::Instance {
    wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env())
}

fn backends() -> wgpu::Backends {
    wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all())
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

/// The adapters of `instance` on the backends allowed by `WGPU_BACKEND`, best first.
fn ranked_adapters(instance: &wgpu::Instance) -> Vec<wgpu::Adapter> {
    let mut adapters = pollster::block_on(instance.enumerate_adapters(backends()));
    adapters.sort_by_key(|a| rank(&a.get_info()));
    adapters
}

/// Every adapter on the backends allowed by `WGPU_BACKEND`, best first.
pub fn list_adapters() -> Vec<AdapterSummary> {
    ranked_adapters(&instance())
        .iter()
        .map(|a| AdapterSummary {
            info: a.get_info(),
            limits: a.limits(),
        })
        .collect()
}

fn choose_adapter(instance: &wgpu::Instance) -> Result<wgpu::Adapter, GpuError> {
    pick(ranked_adapters(instance), backends())
}

/// The first of `adapters` (ranked best first), or the first whose name contains
/// `WGPU_ADAPTER_NAME` when that is set.
fn pick(
    mut adapters: Vec<wgpu::Adapter>,
    searched: wgpu::Backends,
) -> Result<wgpu::Adapter, GpuError> {
    if adapters.is_empty() {
        return Err(GpuError::NoAdapter {
            backends: format!("{searched:?}"),
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
        let instance = instance();
        let adapter = choose_adapter(&instance)?;
        Self::with_adapter(instance, adapter)
    }

    /// Opens a device on the best adapter that can present to `surface` (made from
    /// `instance`), honouring `WGPU_BACKEND` and `WGPU_ADAPTER_NAME` as [`GpuContext::new`]
    /// does.
    pub fn for_surface(
        instance: wgpu::Instance,
        surface: &wgpu::Surface<'_>,
    ) -> Result<Self, GpuError> {
        let adapters: Vec<wgpu::Adapter> = ranked_adapters(&instance)
            .into_iter()
            .filter(|a| a.is_surface_supported(surface))
            .collect();
        let adapter = pick(adapters, backends())?;
        Self::with_adapter(instance, adapter)
    }

    /// Opens a device on `adapter` with every limit the adapter supports (the full strand
    /// tier needs larger storage buffers than WebGPU's defaults on some devices).
    pub fn with_adapter(
        instance: wgpu::Instance,
        adapter: wgpu::Adapter,
    ) -> Result<Self, GpuError> {
        let required_limits = adapter.limits();
        // Timestamps where the adapter has them, for the frame bench's per-pass times, and
        // 64-bit atomic max, for the compute rasteriser's one-walk path.
        let required_features =
            adapter.features() & (wgpu::Features::TIMESTAMP_QUERY | WIDE_ATOMICS);
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
