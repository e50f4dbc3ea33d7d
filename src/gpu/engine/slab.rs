//! The GPU engine on one process's slab of an MPI job ([`crate::search::slab`]): the table holds
//! the slab's entries, and a pass runs in rounds of the table's blocks (`shaders/slab.wgsl`).
//! A round claims the neighbours in the slab at once and leaves the others in the outbox (the
//! frontier lists' binding, which a slab's engine uses for nothing else): ranks for their
//! owners, or questions to them in a bottom-up pass. What the other processes send back, the
//! ranks to claim or the questions to answer, goes in through the same binding.

use super::{GpuEngine, Kernel, Modes};
use crate::gpu::Gpu;
use crate::gpu::device::map_read;
use crate::gpu::layout::{BLOCK_ENTRIES, Layout};
use crate::puzzle::GpuShader;
use crate::search::slab::{ROUND_BYTES, Slab};
use std::ops::Range;

/// Words of the outbox: what one round can send, as [`ROUND_BYTES`] of ranks on the host.
const OUTBOX_WORDS: u64 = ROUND_BYTES / 4;
/// Words an outbox item takes at most: a question (its rank and the entry that asks).
const QUESTION_WORDS: u64 = 4;
/// The most entries sent in at once: two words each, and their answers one bit each after
/// them, in the outbox's words (a multiple of 32, so that answers fill whole words).
const INBOX_ENTRIES: usize = ((OUTBOX_WORDS - 1) * 32 / 65 / 32 * 32) as usize;

/// What the engine needs to build a slab's kernels.
pub(super) struct Plan {
    /// The slab's first column, its columns and the ranks a plane (the shader's parameters).
    pub(super) geometry: [u64; 3],
    /// Each round's blocks.
    pub(super) rounds: Vec<Range<u64>>,
}

/// A slab's kernels and buffers.
pub(super) struct Kernels {
    /// As in [`Plan`].
    pub(super) geometry: [u64; 3],
    /// Each round's dispatches.
    pub(super) rounds: Vec<Range<usize>>,
    pub(super) top_down: wgpu::ComputePipeline,
    pub(super) bottom_up: wgpu::ComputePipeline,
    pub(super) claim: wgpu::ComputePipeline,
    pub(super) answer: wgpu::ComputePipeline,
    /// The outbox, read back.
    pub(super) outbox: wgpu::Buffer,
}

/// `layout` (of a slab's entries) with the frontier lists' binding sized as the outbox.
pub fn slab_layout(layout: Layout) -> Layout {
    Layout {
        // Three lists of `list_capacity` ranks, two words each, after the count.
        list_capacity: OUTBOX_WORDS.div_ceil(6),
        ..layout
    }
}

impl<'g> GpuEngine<'g> {
    /// The engine of `slab` (of a space whose moves are `puzzle`'s `moves`) on `gpu`, its table
    /// laid out as `layout` ([`slab_layout`] of the slab's entries).
    pub fn on_slab(
        gpu: &'g Gpu,
        layout: &Layout,
        puzzle: &GpuShader,
        slab: &Slab,
        moves: usize,
    ) -> Result<GpuEngine<'g>, String> {
        // A round's blocks can append at most this much: every entry asking every move.
        let per_round = (OUTBOX_WORDS / (BLOCK_ENTRIES * QUESTION_WORDS * moves as u64)).max(1);
        let rounds = (0..layout.blocks)
            .step_by(per_round as usize)
            .map(|b| b..(b + per_round).min(layout.blocks))
            .collect();
        let plan = Plan {
            geometry: [slab.first, slab.columns(), slab.width],
            rounds,
        };
        Self::build(gpu, layout, puzzle, None, true, Some(&plan))
    }

    /// This slab's kernels.
    fn slab(&self) -> &Kernels {
        self.slab.as_ref().expect("an engine on a slab")
    }

    /// The rounds of a pass on this slab.
    pub fn slab_rounds(&self) -> usize {
        self.slab().rounds.len()
    }

    /// Round `r` of the pass from level `depth`, top-down or `bottom_up`: the entries it set, and
    /// the outbox's ranks (top-down) or questions (bottom-up: pairs of the rank asked and the
    /// entry that asks, flattened).
    pub fn slab_round(
        &self,
        depth: u64,
        r: usize,
        bottom_up: bool,
    ) -> Result<(u64, Vec<u64>), String> {
        let s = self.slab();
        let (name, pipeline) = match bottom_up {
            true => ("slab_bottom_up", &s.bottom_up),
            false => ("slab_top_down", &s.top_down),
        };
        let kernels: [Kernel; 1] = [(name, pipeline, s.rounds[r].clone())];
        let (count, words) = self.run_pass(depth, &kernels, Modes::default())?;
        let words = self.read_lists(1..1 + u64::from(words))?;
        let items = (words.chunks_exact(2))
            .map(|w| u64::from(w[0]) | u64::from(w[1]) << 32)
            .collect();
        Ok((count, items))
    }

    /// Claims the slab's `entries` for level `depth + 1`: how many it set.
    pub fn slab_claim(&self, depth: u64, entries: &[u64]) -> Result<u64, String> {
        let mut count = 0;
        for part in entries.chunks(INBOX_ENTRIES) {
            count += self.send_in(depth, part, &self.slab().claim, "slab_claim")?;
        }
        Ok(count)
    }

    /// Whether each of the slab's `entries` (each a neighbour of an unreached entry somewhere)
    /// is in level `depth`: one bit an entry, in order.
    pub fn slab_answer(&self, depth: u64, entries: &[u64]) -> Result<Vec<u8>, String> {
        let mut bits = Vec::with_capacity(entries.len().div_ceil(8));
        for part in entries.chunks(INBOX_ENTRIES) {
            self.send_in(depth, part, &self.slab().answer, "slab_answer")?;
            let first = 1 + 2 * part.len() as u64;
            let words = self.read_lists(first..first + part.len().div_ceil(32) as u64)?;
            let bytes: &[u8] = bytemuck::cast_slice(&words);
            bits.extend_from_slice(&bytes[..part.len().div_ceil(8)]);
        }
        Ok(bits)
    }

    /// Puts `entries` in the outbox's binding and runs `pipeline` over them: what it counted.
    fn send_in(
        &self,
        depth: u64,
        entries: &[u64],
        pipeline: &wgpu::ComputePipeline,
        name: &'static str,
    ) -> Result<u64, String> {
        let words: Vec<u32> = (entries.iter())
            .flat_map(|&e| [e as u32, (e >> 32) as u32])
            .collect();
        self.gpu
            .queue
            .write_buffer(&self.lists, 4, bytemuck::cast_slice(&words));
        let modes = Modes {
            append: false,
            remaining: entries.len() as u32,
        };
        Ok(self.run_pass(depth, &[(name, pipeline, 0..0)], modes)?.0)
    }

    /// Words `words` of the lists' binding.
    fn read_lists(&self, words: Range<u64>) -> Result<Vec<u32>, String> {
        if words.is_empty() {
            return Ok(Vec::new());
        }
        let outbox = &self.slab().outbox;
        let bytes = 4 * (words.end - words.start);
        let mut encoder = self.gpu.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(&self.lists, 4 * words.start, outbox, 0, bytes);
        self.gpu.queue.submit([encoder.finish()]);
        map_read(&self.gpu.device, outbox, |all| {
            bytemuck::cast_slice::<u8, u32>(&all[..bytes as usize]).to_vec()
        })
    }
}
