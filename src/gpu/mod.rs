//! The GPU backend: the level loop of [`crate::search`] as WGSL compute shaders through wgpu
//! (Vulkan), on the same 2-bit table and rank order, ending in the same [`Outcome`].
//!
//! The table lives on the device in windows of blocks (see [`layout`]); each level is one
//! submission (one pass, which counts the entries it sets) and one small read-back of the counts.
//! At the end the table is read back into a [`DistanceTable`] and the antipodes are taken from
//! it. The kernels are in `shaders/bfs.wgsl`, the puzzle's ranks and moves in its own shader.

pub mod layout;

use crate::puzzle::StateSpace;
use crate::search::bitmap::Bitmap;
use crate::search::levels::Levels;
use crate::search::table::{
    DistanceTable, LOW_BITS, UNREACHED, huge_pages, matches, spread, squeeze,
};
use crate::search::{self, Checkpoints, Options, Outcome, Progress, Resume, Step, Strategy};
use layout::{BLOCK_BYTES, Dispatch, Layout, WORKGROUP};
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// The kernels, shared by every puzzle.
const BFS_SHADER: &str = include_str!("../../shaders/bfs.wgsl");
/// Bytes of the shader's `Params`.
const PARAMS_BYTES: u64 = 32;
/// Blocks read back from the device at a time at the end (48 MiB).
const READBACK_BLOCKS: u64 = 1 << 22;

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
    device: wgpu::Device,
    queue: wgpu::Queue,
    limits: wgpu::Limits,
    adapter: AdapterName,
    /// Device-local memory, where the driver says.
    memory: Option<u64>,
}

impl Gpu {
    /// Opens the best Vulkan adapter with 64-bit shader integers, or `None` if there is none.
    pub fn open(which: Adapters) -> Result<Option<Gpu>, String> {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends: wgpu::Backends::VULKAN,
            ..wgpu::InstanceDescriptor::new_without_display_handle()
        });
        let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::VULKAN));
        let best = adapters
            .into_iter()
            .filter(|a| a.features().contains(wgpu::Features::SHADER_INT64))
            .filter(|a| which == Adapters::Any || a.get_info().device_type != wgpu::DeviceType::Cpu)
            .min_by_key(|a| preference(a.get_info().device_type));
        let Some(adapter) = best else {
            return Ok(None);
        };
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

    /// The layout of a table of `entries` entries on this device, windows no larger than
    /// `max_window_bytes` if given; an error with the numbers if the device cannot hold it.
    pub fn plan(&self, entries: u64, max_window_bytes: Option<u64>) -> Result<Layout, String> {
        let binding = self
            .limits
            .max_storage_buffer_binding_size
            .min(self.limits.max_buffer_size);
        let window = max_window_bytes.map_or(binding, |w| w.min(binding));
        let layout = Layout::plan(entries, window)?;
        let name = &self.adapter.name;
        // The counters and the puzzle's data take a storage binding each; the windows the rest.
        let bindings = u64::from(self.limits.max_storage_buffers_per_shader_stage);
        if u64::from(layout.windows) + 2 > bindings {
            return Err(format!(
                "the table of {entries} entries needs {} GPU windows of {} bytes, but '{name}' binds at most {} storage buffers per shader: choose a smaller --n or --backend cpu",
                layout.windows,
                layout.window_bytes(0),
                bindings.saturating_sub(2)
            ));
        }
        if let Some(memory) = self.memory
            && layout.bytes() > memory
        {
            return Err(format!(
                "the table of {entries} entries needs {} bytes of GPU memory, but '{name}' has {memory}: choose a smaller --n or --backend cpu",
                layout.bytes()
            ));
        }
        Ok(layout)
    }

    /// Runs a full breadth-first search of `space` from its solved states on the device.
    pub fn search<S: StateSpace>(
        &self,
        space: &S,
        layout: &Layout,
        options: &Options,
        progress: &dyn Progress,
    ) -> Result<Outcome, String> {
        self.search_from(space, layout, options, progress, None, None)
    }

    /// [`Gpu::search`], saving checkpoints where `checkpoints` asks (the table read back from
    /// the device) and going on from `resume` if given (uploaded to the device).
    pub fn search_from<S: StateSpace>(
        &self,
        space: &S,
        layout: &Layout,
        options: &Options,
        progress: &dyn Progress,
        checkpoints: Option<&dyn Checkpoints>,
        resume: Option<Resume>,
    ) -> Result<Outcome, String> {
        let puzzle = space.gpu_source().ok_or_else(|| {
            format!(
                "{} has no GPU shader: use --backend cpu",
                space.info().puzzle
            )
        })?;
        let run = Run::new(self, layout, &puzzle, &space.gpu_data())?;
        // The smallest ranks of the last level, when it was found before this run.
        let mut resumed_antipodes = None;
        let mut levels = match resume {
            None => {
                let starts = space.starts();
                run.init(&starts);
                let first = starts.len() as u64;
                progress.found(first);
                progress.level(0, first, Step::TopDown);
                Levels::from_counts(&[first])
            }
            Some(r) => {
                run.upload(&r.table, ((r.levels.len() - 1) % 3) as u8)?;
                progress.found(r.levels.total());
                resumed_antipodes = Some(r.antipodes);
                r.levels
            }
        };
        let size = space.size();
        let moves = space.move_count();
        let mut reached = levels.total();
        let mut bottom_up = options.strategy == Strategy::BottomUp;
        // The device has no sweep passes: the strategies that choose by cost choose here too.
        let choose = matches!(options.strategy, Strategy::Auto | Strategy::Sweep);
        loop {
            let depth = levels.len() - 1;
            if choose && search::prefer_bottom_up(size - reached, levels.last(), moves) {
                bottom_up = true;
            }
            let count = run.pass(depth, bottom_up)?;
            if count == 0 {
                break;
            }
            resumed_antipodes = None;
            reached += count;
            levels.push(count);
            progress.found(count);
            let step = if bottom_up {
                Step::BottomUp
            } else {
                Step::TopDown
            };
            progress.level(depth + 1, count, step);
            if let Some(c) = checkpoints.filter(|c| c.due()) {
                let (table, last) = run.read_back(((depth + 1) % 3) as u8)?;
                c.save(&table, &levels, &last.smallest(options.antipode_limit))?;
            }
        }
        let (table, last) = run.read_back(((levels.len() - 1) % 3) as u8)?;
        let antipodes = resumed_antipodes.unwrap_or_else(|| last.smallest(options.antipode_limit));
        Ok(Outcome {
            table,
            levels,
            antipodes,
        })
    }
}

impl Gpu {
    /// Every neighbour of each of `ranks`, as the puzzle's shader computes them: `MOVES` ranks
    /// per rank, in the shader's move order. A cross-check of the shader's ranking against the
    /// CPU's at any rank, 64-bit ones included, without a whole search.
    pub fn neighbours<S: StateSpace>(&self, space: &S, ranks: &[u64]) -> Result<Vec<u64>, String> {
        let puzzle = space
            .gpu_source()
            .ok_or_else(|| format!("{} has no GPU shader", space.info().puzzle))?;
        let moves = space.move_count();
        let stride = 2 + 2 * moves;
        let device = &self.device;
        let source = format!(
            "{puzzle}\n@group(0) @binding(0) var<storage, read_write> io: array<u32>;\n\
             @group(0) @binding(1) var<storage, read> puzzle_data: array<u32>;\n\
             @compute @workgroup_size(64)\n\
             fn probe(@builtin(global_invocation_id) id: vec3<u32>) {{\n\
                 let at = id.x * {stride}u;\n\
                 if at >= arrayLength(&io) {{ return; }}\n\
                 load_state(u64(io[at]) | (u64(io[at + 1u]) << 32u));\n\
                 for (var m = 0u; m < MOVES; m++) {{\n\
                     let r = neighbour(m);\n\
                     io[at + 2u + 2u * m] = u32(r & 0xfffffffflu);\n\
                     io[at + 3u + 2u * m] = u32(r >> 32u);\n\
                 }}\n\
             }}\n"
        );
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let mut words = vec![0u32; ranks.len() * stride];
        for (chunk, &rank) in words.chunks_mut(stride).zip(ranks) {
            chunk[0] = rank as u32;
            chunk[1] = (rank >> 32) as u32;
        }
        let bytes = (words.len() * 4) as u64;
        let io = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("probe"),
            size: bytes,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let back = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("probe read-back"),
            size: bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        self.queue
            .write_buffer(&io, 0, bytemuck::cast_slice(&words));
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("probe"),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        // An explicit layout: a shader that does not read the puzzle data still binds it.
        let storage = |binding: u32, read_only: bool| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let bind_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("probe"),
            entries: &[storage(0, false), storage(1, true)],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("probe"),
            bind_group_layouts: &[Some(&bind_layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("probe"),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("probe"),
            compilation_options: Default::default(),
            cache: None,
        });
        let data = puzzle_data_buffer(device, &self.queue, &space.gpu_data());
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("probe"),
            layout: &bind_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: io.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: data.as_entire_binding(),
                },
            ],
        });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(format!("the probe shader failed to set up: {e}"));
        }
        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.dispatch_workgroups((ranks.len() as u64).div_ceil(WORKGROUP) as u32, 1, 1);
        }
        encoder.copy_buffer_to_buffer(&io, 0, &back, 0, None);
        self.queue.submit([encoder.finish()]);
        let words: Vec<u32> = map_read(device, &back, |b| bytemuck::cast_slice(b).to_vec())?;
        Ok(words
            .chunks(stride)
            .flat_map(|c| {
                c[2..]
                    .chunks(2)
                    .map(|p| u64::from(p[0]) | u64::from(p[1]) << 32)
            })
            .collect())
    }
}

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

/// The shader for `puzzle` on `layout`: constants, window bindings and their accessors, the
/// puzzle's source, then the kernels.
fn shader_source(layout: &Layout, puzzle: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "@group(0) @binding({}) var<storage, read> puzzle_data: array<u32>;",
        layout.windows + 2
    );
    let _ = writeln!(s, "const ENTRIES: u64 = {}lu;", layout.entries);
    let _ = writeln!(s, "const WINDOW_SHIFT: u32 = {}u;", layout.window_shift);
    for w in 0..layout.windows {
        let _ = writeln!(
            s,
            "@group(0) @binding({}) var<storage, read_write> window{w}: array<atomic<u32>>;",
            w + 2
        );
    }
    let arms = |body: &dyn Fn(u32) -> String| -> String {
        (0..layout.windows)
            .map(|w| format!("        case {w}u: {{ {} }}\n", body(w)))
            .collect()
    };
    let _ = write!(
        s,
        "fn word_load(w: u32, i: u32) -> u32 {{\n    var v = 0u;\n    switch w {{\n{}        default: {{}}\n    }}\n    return v;\n}}\n",
        arms(&|w| format!("v = atomicLoad(&window{w}[i]);"))
    );
    let _ = write!(
        s,
        "fn word_store(w: u32, i: u32, v: u32) {{\n    switch w {{\n{}        default: {{}}\n    }}\n}}\n",
        arms(&|w| format!("atomicStore(&window{w}[i], v);"))
    );
    let _ = write!(
        s,
        "fn word_cas(w: u32, i: u32, old: u32, value: u32) -> vec2<u32> {{\n    var r = vec2<u32>(old, 1u);\n    switch w {{\n{}        default: {{}}\n    }}\n    return r;\n}}\n",
        arms(&|w| format!(
            "let x = atomicCompareExchangeWeak(&window{w}[i], old, value); r = vec2<u32>(x.old_value, select(0u, 1u, x.exchanged));"
        ))
    );
    s.push_str(puzzle);
    s.push('\n');
    s.push_str(BFS_SHADER);
    s
}

/// The device objects of one search.
struct Run<'g> {
    gpu: &'g Gpu,
    layout: Layout,
    dispatches: Vec<Dispatch>,
    /// Bytes between two dispatches' parameters (the uniform offset alignment).
    stride: u64,
    params: wgpu::Buffer,
    counts: wgpu::Buffer,
    counts_back: wgpu::Buffer,
    windows: Vec<wgpu::Buffer>,
    bind_group: wgpu::BindGroup,
    init: wgpu::ComputePipeline,
    top_down: wgpu::ComputePipeline,
    bottom_up: wgpu::ComputePipeline,
}

impl<'g> Run<'g> {
    fn new(gpu: &'g Gpu, layout: &Layout, puzzle: &str, data: &[u32]) -> Result<Run<'g>, String> {
        let device = &gpu.device;
        let dispatches = layout.dispatches(gpu.limits.max_compute_workgroups_per_dimension);
        let stride = PARAMS_BYTES
            .next_multiple_of(u64::from(gpu.limits.min_uniform_buffer_offset_alignment));
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let memory_scope = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let buffer = |label: &str, size: u64, usage: wgpu::BufferUsages| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage,
                mapped_at_creation: false,
            })
        };
        use wgpu::BufferUsages as U;
        let params = buffer(
            "params",
            stride * dispatches.len() as u64,
            U::UNIFORM | U::COPY_DST,
        );
        let counts_bytes = 4 * dispatches.len() as u64;
        let counts = buffer(
            "counts",
            counts_bytes,
            U::STORAGE | U::COPY_SRC | U::COPY_DST,
        );
        let counts_back = buffer("counts read-back", counts_bytes, U::MAP_READ | U::COPY_DST);
        let windows: Vec<wgpu::Buffer> = (0..layout.windows)
            .map(|w| {
                buffer(
                    &format!("window {w}"),
                    layout.window_bytes(w),
                    U::STORAGE | U::COPY_SRC | U::COPY_DST,
                )
            })
            .collect();

        let storage = |binding: u32| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only: false },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let mut entries = vec![
            wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: true,
                    min_binding_size: wgpu::BufferSize::new(PARAMS_BYTES),
                },
                count: None,
            },
            storage(1),
        ];
        entries.extend((0..layout.windows).map(|w| storage(w + 2)));
        entries.push(wgpu::BindGroupLayoutEntry {
            binding: layout.windows + 2,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only: true },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        });
        let bind_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("table"),
            entries: &entries,
        });
        let mut bindings = vec![
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: &params,
                    offset: 0,
                    size: wgpu::BufferSize::new(PARAMS_BYTES),
                }),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: counts.as_entire_binding(),
            },
        ];
        bindings.extend(
            windows
                .iter()
                .enumerate()
                .map(|(w, b)| wgpu::BindGroupEntry {
                    binding: w as u32 + 2,
                    resource: b.as_entire_binding(),
                }),
        );
        let puzzle_data = puzzle_data_buffer(device, &gpu.queue, data);
        bindings.push(wgpu::BindGroupEntry {
            binding: layout.windows + 2,
            resource: puzzle_data.as_entire_binding(),
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("table"),
            layout: &bind_layout,
            entries: &bindings,
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("bfs"),
            source: wgpu::ShaderSource::Wgsl(shader_source(layout, puzzle).into()),
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("bfs"),
            bind_group_layouts: &[Some(&bind_layout)],
            immediate_size: 0,
        });
        let pipeline = |entry: &str| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry),
                layout: Some(&pipeline_layout),
                module: &module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        let (init, top_down, bottom_up) = (
            pipeline("init"),
            pipeline("top_down"),
            pipeline("bottom_up"),
        );
        if let Some(e) = pollster::block_on(memory_scope.pop()) {
            return Err(format!(
                "the GPU '{}' cannot hold the table ({} bytes): {e}; choose a smaller --n or --backend cpu",
                gpu.adapter.name,
                layout.bytes()
            ));
        }
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(format!("the GPU backend failed to set up: {e}"));
        }
        Ok(Run {
            gpu,
            layout: *layout,
            dispatches,
            stride,
            params,
            counts,
            counts_back,
            windows,
            bind_group,
            init,
            top_down,
            bottom_up,
        })
    }

    /// Writes every dispatch's parameters for the pass from level `depth`.
    fn write_params(&self, depth: u64) {
        let (cur, next, prev) = (depth % 3, (depth + 1) % 3, (depth + 2) % 3);
        let mut bytes = vec![0u8; (self.stride * self.dispatches.len() as u64) as usize];
        for (slot, d) in self.dispatches.iter().enumerate() {
            let words = [
                d.window,
                d.first_block,
                d.blocks,
                slot as u32,
                cur as u32,
                next as u32,
                prev as u32,
                0,
            ];
            let at = slot * self.stride as usize;
            bytes[at..at + PARAMS_BYTES as usize].copy_from_slice(bytemuck::cast_slice(&words));
        }
        self.gpu.queue.write_buffer(&self.params, 0, &bytes);
    }

    /// Records `pipeline` over every dispatch as one compute pass.
    fn record(&self, encoder: &mut wgpu::CommandEncoder, pipeline: &wgpu::ComputePipeline) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
        pass.set_pipeline(pipeline);
        for (slot, d) in self.dispatches.iter().enumerate() {
            let offset = (slot as u64 * self.stride) as u32;
            pass.set_bind_group(0, &self.bind_group, &[offset]);
            pass.dispatch_workgroups(u64::from(d.blocks).div_ceil(WORKGROUP) as u32, 1, 1);
        }
    }

    /// Fills the table (every entry unreached, nothing seen) and puts the `starts` at level 0.
    fn init(&self, starts: &[u64]) {
        self.write_params(0);
        let mut encoder = self.gpu.device.create_command_encoder(&Default::default());
        self.record(&mut encoder, &self.init);
        self.gpu.queue.submit([encoder.finish()]);
        // Each word holding starts, with their entries at 0.
        let mut words: std::collections::BTreeMap<(u32, u64), u32> = Default::default();
        for &rank in starts {
            let (window, at, shift) = self.layout.locate(rank);
            *words.entry((window, at)).or_insert(u32::MAX) &= !(3u32 << shift);
        }
        for ((window, at), word) in words {
            self.gpu
                .queue
                .write_buffer(&self.windows[window as usize], at, &word.to_le_bytes());
        }
    }

    /// One pass from level `depth`; returns the size of level `depth + 1`.
    fn pass(&self, depth: u64, bottom_up: bool) -> Result<u64, String> {
        self.write_params(depth);
        let mut encoder = self.gpu.device.create_command_encoder(&Default::default());
        encoder.clear_buffer(&self.counts, 0, None);
        let expand = if bottom_up {
            &self.bottom_up
        } else {
            &self.top_down
        };
        self.record(&mut encoder, expand);
        encoder.copy_buffer_to_buffer(&self.counts, 0, &self.counts_back, 0, None);
        self.gpu.queue.submit([encoder.finish()]);
        let counts: Vec<u32> = map_read(&self.gpu.device, &self.counts_back, |bytes| {
            bytemuck::cast_slice::<u8, u32>(bytes).to_vec()
        })?;
        Ok(counts.iter().map(|&c| u64::from(c)).sum())
    }

    /// The table, read back block by block, and the states of the last level (entries holding
    /// `last` that are not yet seen).
    fn read_back(&self, last: u8) -> Result<(DistanceTable, Bitmap), String> {
        let layout = &self.layout;
        let mut table_words = Vec::with_capacity(layout.blocks as usize);
        huge_pages(table_words.as_ptr(), layout.blocks as usize * 8);
        // One bitmap word per two blocks.
        let mut last_words = vec![0u64; layout.blocks.div_ceil(2) as usize];
        let staging = self.gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("table read-back"),
            size: READBACK_BLOCKS.min(layout.window_blocks(0)) * BLOCK_BYTES,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        for w in 0..layout.windows {
            let blocks = layout.window_blocks(w);
            let mut first = 0;
            while first < blocks {
                let count = READBACK_BLOCKS.min(blocks - first);
                let mut encoder = self.gpu.device.create_command_encoder(&Default::default());
                encoder.copy_buffer_to_buffer(
                    &self.windows[w as usize],
                    first * BLOCK_BYTES,
                    &staging,
                    0,
                    count * BLOCK_BYTES,
                );
                self.gpu.queue.submit([encoder.finish()]);
                map_read(&self.gpu.device, &staging, |bytes| {
                    let words: &[u32] =
                        bytemuck::cast_slice(&bytes[..(count * BLOCK_BYTES) as usize]);
                    for b in words.chunks_exact(3) {
                        let block = table_words.len();
                        let word = u64::from(b[0]) | u64::from(b[1]) << 32;
                        table_words.push(word);
                        let level = squeeze(matches(word, last) & !spread(b[2])) as u64;
                        last_words[block / 2] |= level << (32 * (block % 2));
                    }
                })?;
                first += count;
            }
        }
        Ok((
            DistanceTable::from_words(layout.entries, table_words),
            Bitmap::from_fn(layout.entries, |w| last_words[w]),
        ))
    }

    /// Puts a table on the device to go on from: each block's words, and as seen every reached
    /// entry but those holding `last`, the last level's value (the next pass then expands that
    /// level, and levels `last - 3`, ... once more, finding nothing there).
    fn upload(&self, table: &DistanceTable, last: u8) -> Result<(), String> {
        let layout = &self.layout;
        let mut block = 0u64;
        for w in 0..layout.windows {
            let blocks = layout.window_blocks(w);
            let mut first = 0;
            while first < blocks {
                let count = READBACK_BLOCKS.min(blocks - first);
                let mut words = Vec::with_capacity(3 * count as usize);
                for b in block..block + count {
                    let word = table.word(b as usize);
                    let reached = squeeze(!matches(word, UNREACHED) & LOW_BITS);
                    let level = squeeze(matches(word, last));
                    words.extend([word as u32, (word >> 32) as u32, reached & !level]);
                }
                self.gpu.queue.write_buffer(
                    &self.windows[w as usize],
                    first * BLOCK_BYTES,
                    bytemuck::cast_slice(&words),
                );
                block += count;
                first += count;
            }
        }
        self.gpu
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| format!("the GPU stopped: {e}"))?;
        Ok(())
    }
}

/// A read-only storage buffer holding the puzzle's data (one word if it has none: bindings must
/// not be empty).
fn puzzle_data_buffer(device: &wgpu::Device, queue: &wgpu::Queue, data: &[u32]) -> wgpu::Buffer {
    let words: &[u32] = if data.is_empty() { &[0] } else { data };
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("puzzle data"),
        size: (words.len() * 4) as u64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    queue.write_buffer(&buffer, 0, bytemuck::cast_slice(words));
    buffer
}

/// Maps `buffer` (after the work submitted so far), reads it with `read`, unmaps it.
fn map_read<T>(
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
