//! Building the engine: the shader's source, the buffers, pipelines and bind groups of the
//! table's layout, and the first compilation.

use super::*;
use crate::setting::Setting;

/// The shader for `puzzle` on `layout`: the window bindings and accessors (each line of
/// `shaders/windows.wgsl` marked `// each window` once per window), the rank functions, the
/// puzzle's source, then the kernels (with a slab's where `slab`).
pub(super) fn shader_source(layout: &Layout, puzzle: &str, slab: bool) -> String {
    let mut s = String::new();
    for line in WINDOWS_SHADER.lines() {
        if line.ends_with("// each window") {
            for w in 0..layout.windows {
                s += &line
                    .replace("{w}", &w.to_string())
                    .replace("{binding}", &(FIRST_WINDOW_BINDING + w).to_string());
                s.push('\n');
            }
        } else {
            s += line;
            s.push('\n');
        }
    }
    s.push_str(RANK_SHADER);
    s.push_str(puzzle);
    s.push('\n');
    s.push_str(BFS_SHADER);
    s.push_str(SWEEP_SHADER);
    if slab {
        s.push_str(SLAB_SHADER);
    }
    s
}

/// Every dispatch of the engine, each with its slot of parameters and counts: those over the
/// whole table, then those of the sweep kernels over part of it, then the slots a slab's rounds
/// write their own into.
struct Slots {
    dispatches: Vec<Dispatch>,
    table: Range<usize>,
    runs: Range<usize>,
    short: Range<usize>,
    residual: Range<usize>,
    rounds: Range<usize>,
}

impl Slots {
    fn plan(gpu: &Gpu, layout: &Layout, swept: Option<&Structure>, slab: bool) -> Slots {
        let most = gpu.limits.max_compute_workgroups_per_dimension;
        let mut dispatches = layout.dispatches(most);
        let table = 0..dispatches.len();
        let mut over = |blocks: Vec<Range<u64>>| {
            let start = dispatches.len();
            dispatches.extend(layout.dispatches_over(&blocks, most));
            start..dispatches.len()
        };
        let (runs, short, residual) = match swept {
            Some(s) => (
                over(sweep_data::run_blocks(s)),
                over(sweep_data::short_blocks(s)),
                over(sweep_data::residual_blocks(s)),
            ),
            None => (0..0, 0..0, 0..0),
        };
        // A slab's rounds write their own dispatches into slots kept for them: no more than
        // the whole table's, and one more a window where a round starts inside one.
        let rounds = dispatches.len()
            ..dispatches.len()
                + if slab {
                    table.len() + layout.windows as usize + 1
                } else {
                    0
                };
        dispatches.resize(rounds.end, Dispatch::default());
        Slots {
            dispatches,
            table,
            runs,
            short,
            residual,
            rounds,
        }
    }
}

/// The buffers of the table and of the passes' bookkeeping.
struct Buffers {
    params: wgpu::Buffer,
    counts: wgpu::Buffer,
    counts_back: wgpu::Buffer,
    lists: wgpu::Buffer,
    windows: Vec<wgpu::Buffer>,
}

impl Buffers {
    /// The buffers for `dispatches` dispatches, their parameters `stride` bytes apart.
    fn new(device: &wgpu::Device, layout: &Layout, dispatches: usize, stride: u64) -> Buffers {
        let buffer = |label: &str, size: u64, usage: wgpu::BufferUsages| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage,
                mapped_at_creation: false,
            })
        };
        use wgpu::BufferUsages as U;
        // A counter per dispatch, then the word that says loops were cut short.
        let counts_bytes = 4 * (dispatches as u64 + 1);
        Buffers {
            // One slot per dispatch, then one left zero (no blocks, no lists) for compiling.
            params: buffer(
                "params",
                stride * (dispatches as u64 + 1),
                U::UNIFORM | U::COPY_DST,
            ),
            counts: buffer(
                "counts",
                counts_bytes,
                U::STORAGE | U::COPY_SRC | U::COPY_DST,
            ),
            // The counts, then the next list's length.
            counts_back: buffer(
                "counts read-back",
                counts_bytes + 4,
                U::MAP_READ | U::COPY_DST,
            ),
            lists: buffer(
                "frontier lists",
                layout.list_bytes(),
                U::STORAGE | U::COPY_SRC | U::COPY_DST,
            ),
            windows: (0..layout.windows)
                .map(|w| {
                    buffer(
                        &format!("window {w}"),
                        layout.window_bytes(w),
                        U::STORAGE | U::COPY_SRC | U::COPY_DST,
                    )
                })
                .collect(),
        }
    }

    /// The bind group of every kernel: these buffers, the puzzle's data and tables, and the
    /// sweep's records and maps (empty ones where it has none); its layout, and the sweep's
    /// records' buffer.
    fn bind(
        &self,
        gpu: &Gpu,
        puzzle: &GpuShader,
        sweep: Option<&sweep_data::SweepData>,
    ) -> Result<(wgpu::BindGroupLayout, wgpu::BindGroup, wgpu::Buffer), String> {
        let device = &gpu.device;
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
            storage_entry(1, false),
            data_entry(2),
            data_entry(3),
            storage_entry(LISTS_BINDING, false),
            storage_entry(MAPS_BINDING, true),
            storage_entry(TABLES_BINDING, true),
        ];
        entries.extend(
            (0..self.windows.len() as u32).map(|w| storage_entry(FIRST_WINDOW_BINDING + w, false)),
        );
        let bind_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("table"),
            entries: &entries,
        });
        // The bind group keeps these alive.
        let puzzle_data = data_buffer(device, &gpu.queue, &puzzle.data);
        let puzzle_tables = storage_buffer(gpu, &puzzle.tables, "puzzle's move tables")?;
        let no_sweep = sweep_data::no_sweep();
        let sweep = sweep.unwrap_or(&no_sweep);
        let records = data_buffer(device, &gpu.queue, &sweep.records);
        let maps = storage_buffer(gpu, &sweep.maps, "sweep's window maps")?;
        let mut bindings = vec![
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: &self.params,
                    offset: 0,
                    size: wgpu::BufferSize::new(PARAMS_BYTES),
                }),
            },
            entry(1, &self.counts),
            entry(2, &puzzle_data),
            entry(3, &records),
            entry(LISTS_BINDING, &self.lists),
            entry(MAPS_BINDING, &maps),
            entry(TABLES_BINDING, &puzzle_tables),
        ];
        bindings.extend(
            (self.windows.iter().enumerate())
                .map(|(w, b)| entry(FIRST_WINDOW_BINDING + w as u32, b)),
        );
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("table"),
            layout: &bind_layout,
            entries: &bindings,
        });
        Ok((bind_layout, bind_group, records))
    }
}

/// The binding of a whole buffer.
fn entry(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: buffer.as_entire_binding(),
    }
}

/// The engine's compute pipelines, compiled from one shader module.
struct Pipelines {
    init: wgpu::ComputePipeline,
    top_down: wgpu::ComputePipeline,
    top_down_list: wgpu::ComputePipeline,
    bottom_up: wgpu::ComputePipeline,
    remaining_list: wgpu::ComputePipeline,
    sweeps: Option<Sweeps>,
    slab: Option<slab::Kernels>,
}

impl Pipelines {
    /// The pipelines of `puzzle` on `layout`: the sweep's where `swept` gives the structure
    /// they sweep, a slab's where `slab` gives its geometry.
    fn new(
        gpu: &Gpu,
        layout: &Layout,
        bind_layout: &wgpu::BindGroupLayout,
        puzzle: &GpuShader,
        swept: Option<&Structure>,
        slots: &Slots,
        slab: Option<&[u64; 3]>,
    ) -> Pipelines {
        let device = &gpu.device;
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("bfs"),
            source: wgpu::ShaderSource::Wgsl(
                shader_source(layout, puzzle.source, slab.is_some()).into(),
            ),
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("bfs"),
            bind_group_layouts: &[Some(bind_layout)],
            immediate_size: 0,
        });
        let mut constants = puzzle.constants.clone();
        constants.push(("TABLE_WORDS", (layout.block_bytes() / 4) as f64));
        if let Some(pushed) = puzzle.pushed {
            // A directed graph: pushes follow the generators, pulls their inverses.
            constants.push(("PUSH_END", f64::from(pushed)));
            constants.push(("PULL_FIRST", f64::from(pushed)));
        }
        let pipeline =
            |entry: &str| compute_pipeline(device, &pipeline_layout, &module, entry, &constants);
        let push_pull = |push, pull, slots: &Range<usize>| PushPull {
            push: (push, pipeline(push)),
            pull: (pull, pipeline(pull)),
            slots: slots.clone(),
        };
        Pipelines {
            init: pipeline("init"),
            top_down: pipeline("top_down"),
            top_down_list: pipeline("top_down_list"),
            bottom_up: pipeline("bottom_up"),
            remaining_list: pipeline("remaining_list"),
            sweeps: swept.map(|structure| Sweeps {
                shifts: match sweep_data::aligned_shifts(structure) {
                    true => ("sweep_aligned_shifts", pipeline("sweep_aligned_shifts")),
                    false => ("sweep_shifts", pipeline("sweep_shifts")),
                },
                // Only where there are such moves (they have blocks to pull into).
                runs: (!slots.runs.is_empty())
                    .then(|| (pipeline("sweep_runs"), slots.runs.clone())),
                short: (!slots.short.is_empty()).then(|| {
                    let push = match sweep_data::short_pushes_reach(structure) {
                        true => "sweep_short_push",
                        false => "sweep_short_pull",
                    };
                    push_pull(push, "sweep_short_pull", &slots.short)
                }),
                residual: push_pull(
                    "sweep_residual_push",
                    "sweep_residual_pull",
                    &slots.residual,
                ),
            }),
            slab: slab.map(|geometry| slab::Kernels {
                geometry: *geometry,
                slots: slots.rounds.clone(),
                top_down: pipeline("slab_top_down"),
                bottom_up: pipeline("slab_bottom_up"),
                claim: pipeline("slab_claim"),
                answer: pipeline("slab_answer"),
                outbox: read_back_buffer(device, "outbox read-back", layout.list_bytes()),
            }),
        }
    }
}

impl<'g> GpuEngine<'g> {
    /// [`GpuEngine::new`], on a process's slab where `slab` gives its first column, its columns
    /// and the ranks a plane (the table then holds the slab's entries, and the slab's kernels are
    /// built).
    pub(super) fn build(
        gpu: &'g Gpu,
        layout: &Layout,
        puzzle: &GpuShader,
        structure: Option<&Structure>,
        host_table: bool,
        slab: Option<&[u64; 3]>,
    ) -> Result<GpuEngine<'g>, String> {
        let started = std::time::Instant::now();
        if puzzle.data.len() > DATA_WORDS {
            return Err(format!(
                "the puzzle's moves take {} words on the GPU, more than the {DATA_WORDS} it holds: use {}",
                puzzle.data.len(),
                Setting::Backend.to("cpu")
            ));
        }
        // The sweep kernels run where the structure's records fit the shader's data.
        let sweep = structure.and_then(|s| {
            sweep_data::of(s)
                .filter(|data| data.records.len() <= DATA_WORDS)
                .map(|data| (s, data))
        });
        let swept = sweep.as_ref().map(|(s, _)| *s);
        let device = &gpu.device;
        let slots = Slots::plan(gpu, layout, swept, slab.is_some());
        let stride = PARAMS_BYTES
            .next_multiple_of(u64::from(gpu.limits.min_uniform_buffer_offset_alignment));
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let memory_scope = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let buffers = Buffers::new(device, layout, slots.dispatches.len(), stride);
        let (bind_layout, bind_group, sweep_records) =
            buffers.bind(gpu, puzzle, sweep.as_ref().map(|(_, data)| data))?;
        let pipelines = Pipelines::new(gpu, layout, &bind_layout, puzzle, swept, &slots, slab);
        if let Some(e) = pollster::block_on(memory_scope.pop()) {
            return Err(format!(
                "the GPU '{}' cannot hold the table ({} bytes): {e}; choose a smaller puzzle or {}",
                gpu.adapter.name,
                layout.device_bytes(),
                Setting::Backend.to("cpu")
            ));
        }
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(format!("the GPU backend failed to set up: {e}"));
        }
        let profile = std::env::var_os("GPUSEARCH_PROFILE").is_some();
        let Buffers {
            params,
            counts,
            counts_back,
            lists,
            windows,
        } = buffers;
        let Pipelines {
            init,
            top_down,
            top_down_list,
            bottom_up,
            remaining_list,
            sweeps,
            slab,
        } = pipelines;
        let engine = GpuEngine {
            gpu,
            layout: *layout,
            dispatches: slots.dispatches,
            table: slots.table,
            stride,
            params,
            counts,
            counts_back,
            windows,
            bind_group,
            lists,
            listed: Lists::default(),
            listed_level: 0,
            remaining: None,
            init,
            top_down,
            top_down_list,
            bottom_up,
            remaining_list,
            sweeps,
            profile,
            read: None,
            host_table,
            slab,
            sweep_records,
            descent: None,
            remaining_from: 0,
        };
        engine.compile()?;
        if profile {
            eprintln!("profile: set-up {:.3} s", started.elapsed().as_secs_f64());
        }
        Ok(engine)
    }

    /// Runs every kernel once on no blocks: drivers that compile a pipeline when it first runs
    /// (lavapipe) compile them all here, in the set-up, rather than in the first passes.
    pub(super) fn compile(&self) -> Result<(), String> {
        let mut kernels = vec![
            &self.init,
            &self.top_down,
            &self.top_down_list,
            &self.bottom_up,
            &self.remaining_list,
        ];
        if let Some(s) = &self.slab {
            kernels.extend([&s.top_down, &s.bottom_up, &s.claim, &s.answer]);
        }
        if let Some(s) = &self.sweeps {
            kernels.push(&s.shifts.1);
            kernels.extend(s.runs.iter().map(|r| &r.0));
            for modes in s.short.iter().chain([&s.residual]) {
                kernels.extend([&modes.push.1, &modes.pull.1]);
            }
        }
        let zero = (self.dispatches.len() as u64 * self.stride) as u32;
        let mut encoder = self.gpu.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            for kernel in kernels {
                pass.set_pipeline(kernel);
                pass.set_bind_group(0, &self.bind_group, &[zero]);
                pass.dispatch_workgroups(1, 1, 1);
            }
        }
        self.gpu.queue.submit([encoder.finish()]);
        self.gpu
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| format!("the GPU stopped: {e}"))?;
        Ok(())
    }
}
