//! Probes of the shaders: the neighbours a puzzle's shader computes for given ranks, and the
//! quotients of the shaders' 64-bit division helpers, to check both against the CPU's on any
//! adapter without a whole search.

use super::device::RANK_SHADER;
use super::device::{
    Gpu, TABLES_BINDING, compute_pipeline, data_buffer, data_entry, map_read, read_back_buffer,
    storage_buffer, storage_entry,
};
use super::layout::WORKGROUP;
use crate::puzzle::{GpuShader, StateSpace};

/// The probe kernels.
const PROBE_SHADER: &str = include_str!("../../shaders/probe.wgsl");
/// A puzzle of no moves, for the kernels that need none.
const NO_PUZZLE_SHADER: &str = include_str!("../../shaders/no_puzzle.wgsl");

impl Gpu {
    /// Every neighbour of each of `ranks`, as the puzzle's shader computes them: `MOVES` ranks
    /// per rank, in the shader's move order. A cross-check of the shader's ranking against the
    /// CPU's at any rank, 64-bit ones included, without a whole search.
    pub fn neighbours<S: StateSpace>(&self, space: &S, ranks: &[u64]) -> Result<Vec<u64>, String> {
        let puzzle = space
            .gpu_shader()
            .ok_or_else(|| format!("{} has no GPU shader", space.info().puzzle))?;
        let moves = space.move_count();
        let stride = 2 + 2 * moves;
        let mut words = vec![0u32; ranks.len() * stride];
        for (chunk, &rank) in words.chunks_mut(stride).zip(ranks) {
            chunk[0] = rank as u32;
            chunk[1] = (rank >> 32) as u32;
        }
        let words = self.probe(&puzzle, "neighbours", words, ranks.len())?;
        Ok(words
            .chunks(stride)
            .flat_map(|c| {
                c[2..]
                    .chunks(2)
                    .map(|p| u64::from(p[0]) | u64::from(p[1]) << 32)
            })
            .collect())
    }

    /// `n / d` for each pair, as the shaders' `div64` computes it (for quotients below 2^32, `n`
    /// and `d` below 2^62), and as `div_small` computes it where `d` is below 2^32 (else 0): the
    /// shaders divide only through them (and by constants).
    pub fn quotients(&self, pairs: &[(u64, u64)]) -> Result<Vec<(u64, u64)>, String> {
        let mut words = Vec::with_capacity(pairs.len() * 8);
        for &(n, d) in pairs {
            words.extend([
                n as u32,
                (n >> 32) as u32,
                d as u32,
                (d >> 32) as u32,
                0,
                0,
                0,
                0,
            ]);
        }
        let none = GpuShader {
            source: NO_PUZZLE_SHADER,
            constants: Vec::new(),
            data: Vec::new(),
            tables: Vec::new(),
            pushed: None,
        };
        let words = self.probe(&none, "quotients", words, pairs.len())?;
        Ok(words
            .chunks(8)
            .map(|c| {
                (
                    u64::from(c[4]) | u64::from(c[5]) << 32,
                    u64::from(c[6]) | u64::from(c[7]) << 32,
                )
            })
            .collect())
    }

    /// Runs kernel `entry` of the probe shader, built with `puzzle`'s, once per item over
    /// `words` (bound as `io`) and returns the words as it left them.
    fn probe(
        &self,
        puzzle: &GpuShader,
        entry: &str,
        words: Vec<u32>,
        items: usize,
    ) -> Result<Vec<u32>, String> {
        let device = &self.device;
        let source = format!("{RANK_SHADER}\n{}\n{PROBE_SHADER}", puzzle.source);
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let bytes = (words.len() * 4) as u64;
        let io = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("probe"),
            size: bytes,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let back = read_back_buffer(device, "probe read-back", bytes);
        self.queue
            .write_buffer(&io, 0, bytemuck::cast_slice(&words));
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("probe"),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        // An explicit layout: a shader that does not read the puzzle data still binds it.
        let bind_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("probe"),
            entries: &[
                storage_entry(0, false),
                data_entry(2),
                storage_entry(TABLES_BINDING, true),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("probe"),
            bind_group_layouts: &[Some(&bind_layout)],
            immediate_size: 0,
        });
        let pipeline =
            compute_pipeline(device, &pipeline_layout, &module, entry, &puzzle.constants);
        let data = data_buffer(device, &self.queue, &puzzle.data);
        let tables = storage_buffer(self, &puzzle.tables, "puzzle's move tables")?;
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("probe"),
            layout: &bind_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: io.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: data.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: TABLES_BINDING,
                    resource: tables.as_entire_binding(),
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
            pass.dispatch_workgroups((items as u64).div_ceil(WORKGROUP) as u32, 1, 1);
        }
        encoder.copy_buffer_to_buffer(&io, 0, &back, 0, None);
        self.queue.submit([encoder.finish()]);
        map_read(device, &back, |b| bytemuck::cast_slice(b).to_vec())
    }
}
