//! The device: finding and opening a Vulkan adapter, its limits and memory, and the small
//! helpers every GPU module uses (buffers, read-backs).

use super::layout::Layout;
use crate::setting::Setting;
use serde::{Deserialize, Serialize};

/// The rank functions every puzzle shader uses, prepended to it.
pub(super) const RANK_SHADER: &str = include_str!("../../shaders/rank.wgsl");

/// The adapter that ran a search, as reports name it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdapterName {
    /// The device's name (e.g. `NVIDIA H100 80GB HBM3`, `llvmpipe (LLVM 15.0.6, 256 bits)`).
    pub name: String,
    /// The driver and its version.
    pub driver: String,
}

/// Which adapters may be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Adapters {
    /// Hardware GPUs only (`--backend auto`: a software rasteriser is slower than the CPU backend).
    Hardware,
    /// Any Vulkan adapter, software ones (lavapipe) included.
    Any,
}

/// An opened Vulkan device.
pub struct Gpu {
    pub(super) device: wgpu::Device,
    pub(super) queue: wgpu::Queue,
    pub(super) limits: wgpu::Limits,
    pub(super) adapter: AdapterName,
    /// Device-local memory, where the driver says.
    pub(super) memory: Option<u64>,
}

impl Gpu {
    /// Opens the best Vulkan adapter with 64-bit shader integers, or `None` if there is none.
    pub fn open(which: Adapters) -> Result<Option<Gpu>, String> {
        Self::open_nth(which, 0)
    }

    /// Opens adapter `index` (counted round) of the best kind with 64-bit shader integers (for
    /// the processes of a machine with several GPUs, one each), or `None` if there is none.
    pub fn open_nth(which: Adapters, index: usize) -> Result<Option<Gpu>, String> {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends: wgpu::Backends::VULKAN,
            ..wgpu::InstanceDescriptor::new_without_display_handle()
        });
        let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::VULKAN));
        let best = adapters
            .into_iter()
            .filter(|a| a.features().contains(wgpu::Features::SHADER_INT64))
            .filter(|a| which == Adapters::Any || a.get_info().device_type != wgpu::DeviceType::Cpu)
            .collect::<Vec<_>>();
        let Some(kind) = (best.iter())
            .map(|a| preference(a.get_info().device_type))
            .min()
        else {
            return Ok(None);
        };
        let mut best: Vec<_> = (best.into_iter())
            .filter(|a| preference(a.get_info().device_type) == kind)
            .collect();
        let adapter = best.swap_remove(index % best.len());
        let info = adapter.get_info();
        let limits = adapter.limits();
        let memory = device_memory(&adapter);
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("gpusearch"),
            required_features: wgpu::Features::SHADER_INT64,
            required_limits: limits.clone(),
            ..Default::default()
        }))
        .map_err(|e| format!("cannot open the GPU '{}': {e}", info.name))?;
        Ok(Some(Gpu {
            device,
            queue,
            limits,
            adapter: AdapterName {
                name: info.name,
                driver: format!("{} {}", info.driver, info.driver_info)
                    .trim()
                    .to_string(),
            },
            memory,
        }))
    }

    /// The adapter's name and driver.
    pub fn adapter(&self) -> &AdapterName {
        &self.adapter
    }

    /// Device-local memory in bytes, where the driver says.
    pub fn memory(&self) -> Option<u64> {
        self.memory
    }

    /// The layout of a table of `entries` entries on this device, for a puzzle without tables
    /// of its own, windows no larger than `max_window_bytes` if given; an error with the numbers
    /// if the shader cannot bind its windows (whether the device's memory holds it is the
    /// plan's to say).
    pub fn plan(&self, entries: u64, max_window_bytes: Option<u64>) -> Result<Layout, String> {
        self.plan_with_tables(entries, 0, max_window_bytes, None)
    }

    /// As [`Gpu::plan`], beside the puzzle's own tables of `puzzle_bytes` bytes; with
    /// `two_bits_within = Some(memory)`, 2 bits an entry where `memory` bytes of the GPU do not
    /// hold 3 ([`Layout::fit`]). Whether the device's memory holds the layout is the plan's to
    /// say ([`Layout::memory_refusal`]): beyond it, the device may sweep slabs of the table, and
    /// its windows are not counted against the shader's bindings.
    pub fn plan_with_tables(
        &self,
        entries: u64,
        puzzle_bytes: u64,
        max_window_bytes: Option<u64>,
        two_bits_within: Option<u64>,
    ) -> Result<Layout, String> {
        let binding = self
            .limits
            .max_storage_buffer_binding_size
            .min(self.limits.max_buffer_size);
        let window = max_window_bytes.map_or(binding, |w| w.min(binding));
        let layout = Layout {
            puzzle_bytes,
            ..Layout::plan(entries, window)?
        }
        .fit(two_bits_within, window);
        let name = &self.adapter.name;
        // The counters, the frontier lists, the sweep maps and the puzzle's tables take a
        // storage binding each; the windows the rest, up to MAX_BINDINGS (each window is a
        // `switch` arm in the shader, and drivers that allow a million bindings take minutes to
        // compile such a shader).
        let bindings =
            u64::from(self.limits.max_storage_buffers_per_shader_stage).min(MAX_BINDINGS);
        let beyond = two_bits_within.is_some_and(|m| layout.device_bytes() > m);
        if u64::from(layout.windows) + OTHER_STORAGE > bindings && !beyond {
            return Err(format!(
                "the table of {entries} entries needs {} GPU windows of {} bytes, but '{name}' binds at most {} storage buffers per shader: choose a smaller puzzle or {}",
                layout.windows,
                layout.window_bytes(0),
                bindings.saturating_sub(OTHER_STORAGE),
                Setting::Backend.to("cpu")
            ));
        }
        Ok(layout)
    }
}

/// The storage bindings besides the windows: counters, lists, sweep maps, puzzle tables.
const OTHER_STORAGE: u64 = 4;

/// The most storage buffers a shader binds, whatever the device allows: 253 windows of 4 GiB
/// hold a table of 2.7e12 entries.
const MAX_BINDINGS: u64 = 256;

/// False when the system surely has no hardware GPU: on Linux, neither a DRM render node
/// (`/dev/dri`) nor an NVIDIA device file. Asking Vulkan instead costs a few hundred
/// milliseconds where only a software driver is installed.
pub fn may_have_hardware() -> bool {
    if cfg!(target_os = "linux") {
        ["/dev/dri", "/dev/nvidiactl", "/dev/nvidia0"]
            .iter()
            .any(|p| std::path::Path::new(p).exists())
    } else {
        true
    }
}

/// Lower is better: discrete GPUs first, software last.
fn preference(kind: wgpu::DeviceType) -> u8 {
    match kind {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 4,
    }
}

/// The largest device-local memory heap, asked of Vulkan directly (wgpu does not say).
fn device_memory(adapter: &wgpu::Adapter) -> Option<u64> {
    // SAFETY: the raw handles are only used for a read-only query while `adapter` lives.
    let hal = unsafe { adapter.as_hal::<wgpu::hal::api::Vulkan>() }?;
    let instance = hal.shared_instance().raw_instance();
    // SAFETY: the physical device belongs to this instance.
    let properties =
        unsafe { instance.get_physical_device_memory_properties(hal.raw_physical_device()) };
    const DEVICE_LOCAL: u32 = 1;
    properties.memory_heaps[..properties.memory_heap_count as usize]
        .iter()
        .filter(|heap| heap.flags.as_raw() & DEVICE_LOCAL != 0)
        .map(|heap| heap.size)
        .max()
}

/// A data buffer (a uniform buffer of [`DATA_WORDS`] words) holding `data`, at most that many
/// words.
pub(super) fn data_buffer(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    data: &[u32],
) -> wgpu::Buffer {
    assert!(data.len() <= DATA_WORDS, "checked by the callers");
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("data"),
        size: 4 * DATA_WORDS as u64,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    if !data.is_empty() {
        queue.write_buffer(&buffer, 0, bytemuck::cast_slice(data));
    }
    buffer
}

/// The binding of a puzzle's tables ([`crate::puzzle::GpuShader::tables`]).
pub(super) const TABLES_BINDING: u32 = 6;

/// A read-only storage buffer holding `words` (one word where there are none: a binding is never
/// empty), labelled `what`, or why the device cannot bind it.
pub(super) fn storage_buffer(gpu: &Gpu, words: &[u32], what: &str) -> Result<wgpu::Buffer, String> {
    let bytes = 4 * words.len().max(1) as u64;
    let most = gpu
        .limits
        .max_storage_buffer_binding_size
        .min(gpu.limits.max_buffer_size);
    if bytes > most {
        return Err(format!(
            "the {what} take {bytes} bytes on the GPU, more than the {most} that '{}' binds: use {}",
            gpu.adapter.name,
            Setting::Backend.to("cpu")
        ));
    }
    let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(what),
        size: bytes,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    gpu.queue
        .write_buffer(&buffer, 0, bytemuck::cast_slice(words));
    Ok(buffer)
}

/// The words of a data buffer (`array<vec4<u32>, 4096>` in the shaders: 64 KiB, the uniform
/// buffer binding every Vulkan device allows). Data the kernels read at the same index in every
/// invocation goes in uniform buffers: drivers read those once for all the invocations (lavapipe
/// reads a storage buffer invocation by invocation, which made the sweeps several times
/// slower).
pub const DATA_WORDS: usize = 16384;

/// A uniform buffer binding of the compute stage (a data buffer).
pub(super) fn data_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// A storage buffer binding of the compute stage.
pub(super) fn storage_entry(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// The compute pipeline of kernel `entry` in `module`, its `override` constants set to
/// `constants`.
pub(super) fn compute_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    entry: &str,
    constants: &[(&str, f64)],
) -> wgpu::ComputePipeline {
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry),
        layout: Some(layout),
        module,
        entry_point: Some(entry),
        compilation_options: wgpu::PipelineCompilationOptions {
            constants,
            ..Default::default()
        },
        cache: None,
    })
}

/// A buffer of `size` bytes that the device copies into and the host maps to read.
pub(super) fn read_back_buffer(device: &wgpu::Device, label: &str, size: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// Maps `buffer` (after the work submitted so far), reads it with `read`, unmaps it.
pub(super) fn map_read<T>(
    device: &wgpu::Device,
    buffer: &wgpu::Buffer,
    read: impl FnOnce(&[u8]) -> T,
) -> Result<T, String> {
    let slice = buffer.slice(..);
    let (tx, rx) = std::sync::mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |r| {
        let _ = tx.send(r);
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| format!("the GPU stopped: {e}"))?;
    rx.recv()
        .map_err(|e| format!("the GPU read-back failed: {e}"))?
        .map_err(|e| format!("the GPU read-back failed: {e}"))?;
    let view = slice
        .get_mapped_range()
        .map_err(|e| format!("the GPU read-back failed: {e}"))?;
    let value = read(&view);
    drop(view);
    buffer.unmap();
    Ok(value)
}
