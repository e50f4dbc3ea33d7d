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
        let sweep = structure
            .and_then(sweep::sweep_data)
            .filter(|data| data.records.len() <= DATA_WORDS);
        if puzzle.data.len() > DATA_WORDS {
            return Err(format!(
                "the puzzle's moves take {} words on the GPU, more than the {DATA_WORDS} it holds: use {}",
                puzzle.data.len(),
                Setting::Backend.to("cpu")
            ));
        }
        let device = &gpu.device;
        let most = gpu.limits.max_compute_workgroups_per_dimension;
        let mut dispatches = layout.dispatches(most);
        let table = 0..dispatches.len();
        let mut over = |blocks: Vec<Range<u64>>| {
            let start = dispatches.len();
            dispatches.extend(layout.dispatches_over(&blocks, most));
            start..dispatches.len()
        };
        let (run_slots, short_slots, residual_slots) = match (&sweep, structure) {
            (Some(_), Some(s)) => (
                over(sweep::run_blocks(s)),
                over(sweep::short_blocks(s)),
                over(sweep::residual_blocks(s)),
            ),
            _ => (0..0, 0..0, 0..0),
        };
        // A slab's rounds write their own dispatches into slots kept for them: no more than
        // the whole table's, and one more a window where a round starts inside one.
        let round_slots = dispatches.len()
            ..dispatches.len() + slab.map_or(0, |_| table.len() + layout.windows as usize + 1);
        dispatches.resize(round_slots.end, Dispatch::default());
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
        // One slot per dispatch, then one left zero (no blocks, no lists) for compiling.
        let params = buffer(
            "params",
            stride * (dispatches.len() as u64 + 1),
            U::UNIFORM | U::COPY_DST,
        );
        // A counter per dispatch, then the word that says loops were cut short.
        let counts_bytes = 4 * (dispatches.len() as u64 + 1);
        let counts = buffer(
            "counts",
            counts_bytes,
            U::STORAGE | U::COPY_SRC | U::COPY_DST,
        );
        // The counts, then the next list's length.
        let counts_back = buffer(
            "counts read-back",
            counts_bytes + 4,
            U::MAP_READ | U::COPY_DST,
        );
        let lists = buffer(
            "frontier lists",
            layout.list_bytes(),
            U::STORAGE | U::COPY_SRC | U::COPY_DST,
        );
        let windows: Vec<wgpu::Buffer> = (0..layout.windows)
            .map(|w| {
                buffer(
                    &format!("window {w}"),
                    layout.window_bytes(w),
                    U::STORAGE | U::COPY_SRC | U::COPY_DST,
                )
            })
            .collect();

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
        entries.extend((0..layout.windows).map(|w| storage_entry(FIRST_WINDOW_BINDING + w, false)));
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
            wgpu::BindGroupEntry {
                binding: LISTS_BINDING,
                resource: lists.as_entire_binding(),
            },
        ];
        bindings.extend(
            windows
                .iter()
                .enumerate()
                .map(|(w, b)| wgpu::BindGroupEntry {
                    binding: FIRST_WINDOW_BINDING + w as u32,
                    resource: b.as_entire_binding(),
                }),
        );
        let puzzle_data = data_buffer(device, &gpu.queue, &puzzle.data);
        let puzzle_tables = storage_buffer(gpu, &puzzle.tables, "puzzle's move tables")?;
        let no_sweep = sweep::no_sweep();
        let sweep_data = sweep.as_ref().unwrap_or(&no_sweep);
        let records = data_buffer(device, &gpu.queue, &sweep_data.records);
        let maps = storage_buffer(gpu, &sweep_data.maps, "sweep's window maps")?;
        bindings.push(wgpu::BindGroupEntry {
            binding: 2,
            resource: puzzle_data.as_entire_binding(),
        });
        bindings.push(wgpu::BindGroupEntry {
            binding: 3,
            resource: records.as_entire_binding(),
        });
        bindings.push(wgpu::BindGroupEntry {
            binding: MAPS_BINDING,
            resource: maps.as_entire_binding(),
        });
        bindings.push(wgpu::BindGroupEntry {
            binding: TABLES_BINDING,
            resource: puzzle_tables.as_entire_binding(),
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("table"),
            layout: &bind_layout,
            entries: &bindings,
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("bfs"),
            source: wgpu::ShaderSource::Wgsl(
                shader_source(layout, puzzle.source, slab.is_some()).into(),
            ),
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("bfs"),
            bind_group_layouts: &[Some(&bind_layout)],
            immediate_size: 0,
        });
        let pipeline = |entry: &str| {
            compute_pipeline(device, &pipeline_layout, &module, entry, &puzzle.constants)
        };
        let (init, top_down, top_down_list, bottom_up, remaining_list) = (
            pipeline("init"),
            pipeline("top_down"),
            pipeline("top_down_list"),
            pipeline("bottom_up"),
            pipeline("remaining_list"),
        );
        let push_pull = |push, pull, slots| PushPull {
            push: (push, pipeline(push)),
            pull: (pull, pipeline(pull)),
            slots,
        };
        let sweeps = sweep.is_some().then(|| Sweeps {
            shifts: match structure.is_some_and(sweep::aligned_shifts) {
                true => ("sweep_aligned_shifts", pipeline("sweep_aligned_shifts")),
                false => ("sweep_shifts", pipeline("sweep_shifts")),
            },
            // Only where there are such moves (they have blocks to pull into).
            runs: (!run_slots.is_empty()).then(|| (pipeline("sweep_runs"), run_slots)),
            short: (!short_slots.is_empty())
                .then(|| push_pull("sweep_short_push", "sweep_short_pull", short_slots)),
            residual: push_pull("sweep_residual_push", "sweep_residual_pull", residual_slots),
        });
        let slab = slab.map(|geometry| slab::Kernels {
            geometry: *geometry,
            slots: round_slots,
            top_down: pipeline("slab_top_down"),
            bottom_up: pipeline("slab_bottom_up"),
            claim: pipeline("slab_claim"),
            answer: pipeline("slab_answer"),
            outbox: read_back_buffer(device, "outbox read-back", layout.list_bytes()),
        });
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
        let engine = GpuEngine {
            gpu,
            layout: *layout,
            dispatches,
            table,
            stride,
            params,
            counts,
            counts_back,
            windows,
            bind_group,
            lists,
            listed: Lists::default(),
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
