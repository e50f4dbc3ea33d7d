//! The GPU engine on one process's slab of an MPI job ([`crate::search::slab`]): the table holds
//! the slab's entries, and a pass runs in rounds of the table's blocks (`shaders/slab.wgsl`).
//! A round claims the neighbours in the slab at once and leaves the others in the outbox (the
//! frontier lists' binding, which a slab's engine uses for nothing else): ranks for their
//! owners, or questions to them in a bottom-up pass. A round that overflows the outbox is run
//! again in parts (see [`GpuEngine::slab_round`]). What the other processes send back, the
//! ranks to claim or the questions to answer, goes in through the same binding.

use super::{GpuEngine, LIST_GROUPS, Modes};
use crate::gpu::Gpu;
use crate::gpu::device::map_read;
use crate::gpu::layout::{BLOCK_ENTRIES, Dispatch, Layout, WORKGROUP};
use crate::puzzle::GpuShader;
use crate::search::slab::{ROUND_BYTES, Slab};
use std::ops::Range;

/// Words of the outbox: what one round can send, as [`ROUND_BYTES`] of ranks on the host.
/// `GPUSEARCH_OUTBOX_WORDS` sets fewer, down to 2^16 (for tests whose rounds overflow it).
fn outbox_words() -> u64 {
    let most = ROUND_BYTES / 4;
    (std::env::var("GPUSEARCH_OUTBOX_WORDS").ok())
        .and_then(|w| w.parse::<u64>().ok())
        .map_or(most, |w| w.clamp(1 << 16, most))
}

/// Words an outbox item takes at most: a question (its rank and the entry that asks).
const QUESTION_WORDS: u64 = 4;

/// A slab's kernels and buffers.
pub(super) struct Kernels {
    /// The slab's first column, its columns and the ranks a plane (the shader's parameters).
    pub(super) geometry: [u64; 3],
    /// The slots a round writes its dispatches into.
    pub(super) slots: Range<usize>,
    pub(super) top_down: wgpu::ComputePipeline,
    pub(super) bottom_up: wgpu::ComputePipeline,
    pub(super) claim: wgpu::ComputePipeline,
    pub(super) answer: wgpu::ComputePipeline,
    /// The outbox, read back.
    pub(super) outbox: wgpu::Buffer,
}

/// What a slab kernel runs over.
enum Work {
    /// The table's blocks.
    Blocks(Range<u64>),
    /// The entries sent in, this many.
    Inbox(u32),
}

/// What a round left in the outbox.
pub enum Outbox {
    /// The ranks to send (top-down), or the questions to ask (bottom-up: pairs of the rank
    /// asked and the entry that asks, flattened).
    Held(Vec<u64>),
    /// More than it holds: the items the round wanted to append.
    Overflowed { wanted: u64 },
}

/// `layout` (of a slab's entries) with the frontier lists' binding sized as the outbox.
pub fn slab_layout(layout: Layout) -> Layout {
    Layout {
        // Three lists of `list_capacity` ranks, two words each, after the count.
        list_capacity: outbox_words().div_ceil(6),
        ..layout
    }
}

impl<'g> GpuEngine<'g> {
    /// The engine of `slab` on `gpu`, its table laid out as `layout` ([`slab_layout`] of the
    /// slab's entries).
    pub fn on_slab(
        gpu: &'g Gpu,
        layout: &Layout,
        puzzle: &GpuShader,
        slab: &Slab,
    ) -> Result<GpuEngine<'g>, String> {
        let geometry = [slab.first, slab.columns(), slab.width];
        Self::build(gpu, layout, puzzle, None, true, Some(&geometry))
    }

    /// This slab's kernels.
    fn slab(&self) -> &Kernels {
        self.slab.as_ref().expect("an engine on a slab")
    }

    /// The blocks of the slab's table.
    pub fn slab_blocks(&self) -> u64 {
        self.layout.blocks
    }

    /// The outbox's words after its count: the lists' binding, three lists of
    /// `list_capacity` ranks (`outbox_room` in `shaders/slab.wgsl`).
    fn outbox_room(&self) -> u64 {
        6 * self.layout.list_capacity
    }

    /// The ranks the outbox holds (or twice the questions).
    pub fn outbox_items(&self) -> u64 {
        self.outbox_room() / 2
    }

    /// The blocks a round of a space of `moves` moves takes: at least `.0`, where the outbox
    /// holds whatever they send (every entry asking about every move), and at most `.1`, where
    /// the outbox's count of words cannot wrap.
    pub fn round_blocks(&self, moves: usize) -> (u64, u64) {
        let most_words = BLOCK_ENTRIES * QUESTION_WORDS * moves as u64;
        (
            (self.outbox_room() / most_words).max(1),
            (1u64 << 31) / most_words,
        )
    }

    /// A round of the pass from level `depth` over `blocks` of the table, top-down or
    /// `bottom_up`: the entries it set, and its [`Outbox`]. The entries set stand either way,
    /// and running an overflowed round again (in parts) sets none of them twice: it sends again
    /// what its entries send.
    pub fn slab_round(
        &self,
        depth: u64,
        blocks: Range<u64>,
        bottom_up: bool,
    ) -> Result<(u64, Outbox), String> {
        let s = self.slab();
        let pipeline = if bottom_up { &s.bottom_up } else { &s.top_down };
        let (count, words) = self.run_slab(depth, pipeline, Work::Blocks(blocks))?;
        let words = u64::from(words);
        if words > self.outbox_room() {
            return Ok((count, Outbox::Overflowed { wanted: words / 2 }));
        }
        let words = self.read_lists(1..1 + words)?;
        let items = (words.chunks_exact(2))
            .map(|w| u64::from(w[0]) | u64::from(w[1]) << 32)
            .collect();
        Ok((count, Outbox::Held(items)))
    }

    /// Claims the slab's `entries` for level `depth + 1`: how many it set.
    pub fn slab_claim(&self, depth: u64, entries: &[u64]) -> Result<u64, String> {
        let mut count = 0;
        for part in entries.chunks(self.inbox_entries()) {
            self.send_in(part);
            let work = Work::Inbox(part.len() as u32);
            count += self.run_slab(depth, &self.slab().claim, work)?.0;
        }
        Ok(count)
    }

    /// Whether each of the slab's `entries` (each a neighbour of an unreached entry somewhere)
    /// is in level `depth`: one bit an entry, in order.
    pub fn slab_answer(&self, depth: u64, entries: &[u64]) -> Result<Vec<u8>, String> {
        let mut bits = Vec::with_capacity(entries.len().div_ceil(8));
        for part in entries.chunks(self.inbox_entries()) {
            self.send_in(part);
            let work = Work::Inbox(part.len() as u32);
            self.run_slab(depth, &self.slab().answer, work)?;
            let first = 1 + 2 * part.len() as u64;
            let words = self.read_lists(first..first + part.len().div_ceil(32) as u64)?;
            let bytes: &[u8] = bytemuck::cast_slice(&words);
            bits.extend_from_slice(&bytes[..part.len().div_ceil(8)]);
        }
        Ok(bits)
    }

    /// The most entries sent in at once: two words each, and their answers one bit each after
    /// them, in the outbox's words (a multiple of 32, so that answers fill whole words).
    fn inbox_entries(&self) -> usize {
        (self.outbox_room() * 32 / 65 / 32 * 32) as usize
    }

    /// Puts `entries` in the outbox's binding, from word 1.
    fn send_in(&self, entries: &[u64]) {
        let words: Vec<u32> = (entries.iter())
            .flat_map(|&e| [e as u32, (e >> 32) as u32])
            .collect();
        self.gpu
            .queue
            .write_buffer(&self.lists, 4, bytemuck::cast_slice(&words));
    }

    /// Runs a slab kernel over `work` from level `depth`, its dispatches in the slots kept for
    /// rounds: what it counted, and the words it appended to the outbox.
    fn run_slab(
        &self,
        depth: u64,
        pipeline: &wgpu::ComputePipeline,
        work: Work,
    ) -> Result<(u64, u32), String> {
        let slots = &self.slab().slots;
        let most = self.gpu.limits.max_compute_workgroups_per_dimension;
        let (dispatches, modes) = match &work {
            Work::Blocks(blocks) => (
                self.layout
                    .dispatches_over(std::slice::from_ref(blocks), most),
                Modes::default(),
            ),
            Work::Inbox(count) => (
                vec![Dispatch::default()],
                Modes {
                    append: false,
                    remaining: *count,
                },
            ),
        };
        assert!(
            dispatches.len() <= slots.len(),
            "a round's dispatches fit its slots"
        );
        self.write_params_at(slots.start, &dispatches, depth, modes);
        let mut encoder = self.gpu.device.create_command_encoder(&Default::default());
        encoder.clear_buffer(&self.counts, 0, None);
        encoder.clear_buffer(&self.lists, 0, Some(4));
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            pass.set_pipeline(pipeline);
            for (i, d) in dispatches.iter().enumerate() {
                let offset = ((slots.start + i) as u64 * self.stride) as u32;
                pass.set_bind_group(0, &self.bind_group, &[offset]);
                let groups = match &work {
                    Work::Blocks(_) => u64::from(d.blocks).div_ceil(WORKGROUP),
                    Work::Inbox(count) => {
                        u64::from(*count).div_ceil(WORKGROUP).clamp(1, LIST_GROUPS)
                    }
                };
                pass.dispatch_workgroups(groups as u32, 1, 1);
            }
        }
        self.finish_pass(encoder)
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
