//! The GPU in a search in slabs, from disk or in host memory ([`crate::search::disk`]): each
//! slab's block moves (those that stay in it) swept on the device. The slab goes to the device,
//! the sweep kernels run over its entries as over a table of their own (a puzzle of no moves of
//! its own: only block moves, no residual ones; 2 bits an entry, [`Layout::slab`]), and the slab
//! comes back with its next level, told from the table before by the entries that were
//! unreached there. The moves that leave a
//! slab stay with the host, pushed state by state.

use super::*;
use crate::puzzle::BlockMove;
use crate::search::bitmap::Bitmap;
use crate::search::disk::SlabSweep;

/// A puzzle with no moves: the sweep kernels need none.
const NO_PUZZLE_SHADER: &str = include_str!("../../../shaders/no_puzzle.wgsl");

/// Sweeps slabs on one GPU, keeping the kernels of the last slab's entries and moves for the
/// next slab with the same (slabs cut alike share them).
pub struct GpuSweeper<'g> {
    gpu: &'g Gpu,
    /// The largest window.
    max_window_bytes: Option<u64>,
    /// Blocks sent to the device or read back at a time.
    readback_blocks: u64,
    /// The engine of the last slab: its entries and block moves, and its kernels.
    built: Option<(u64, Vec<BlockMove>, GpuEngine<'g>)>,
}

impl<'g> GpuSweeper<'g> {
    /// A sweeper on `gpu`, in windows of at most `max_window_bytes` (the plan checks that a
    /// slab fits the GPU's memory), moving `readback_blocks` blocks to and from it at a time.
    pub fn new(gpu: &'g Gpu, max_window_bytes: Option<u64>, readback_blocks: u64) -> Self {
        GpuSweeper {
            gpu,
            max_window_bytes,
            readback_blocks,
            built: None,
        }
    }

    /// The engine of a slab of `entries` with `blocks`: the last one where it is the same, or
    /// differs only where the moves' ranges start in their windows (its records rewritten).
    fn engine(&mut self, entries: u64, blocks: &[BlockMove]) -> Result<&mut GpuEngine<'g>, String> {
        let same = matches!(&self.built, Some((e, b, _)) if *e == entries && b == blocks);
        let alike = matches!(&self.built, Some((e, b, _)) if *e == entries && alike(b, blocks));
        if alike && !same {
            let structure = Structure {
                blocks: blocks.to_vec(),
                residual: Vec::new(),
            };
            let data = sweep_data::of(&structure).expect("swept as the slab before");
            let (_, b, engine) = self.built.as_mut().expect("built");
            (self.gpu.queue).write_buffer(
                &engine.sweep_records,
                0,
                bytemuck::cast_slice(&data.records),
            );
            *b = blocks.to_vec();
        } else if !same {
            // The last slab's buffers go before the next one's are made.
            self.built = None;
            let limits = &self.gpu.limits;
            let binding = (limits.max_storage_buffer_binding_size).min(limits.max_buffer_size);
            let window = self.max_window_bytes.map_or(binding, |w| w.min(binding));
            let layout = Layout::slab(entries, window, self.readback_blocks)?;
            let structure = Structure {
                blocks: blocks.to_vec(),
                residual: Vec::new(),
            };
            let none = GpuShader {
                source: NO_PUZZLE_SHADER,
                constants: Vec::new(),
                data: Vec::new(),
                tables: Vec::new(),
                pushed: None,
            };
            let engine = GpuEngine::new(self.gpu, &layout, &none, Some(&structure), false, None)?;
            if engine.sweeps.is_none() {
                return Err(format!(
                    "the GPU cannot sweep this slab's moves: use {}",
                    crate::setting::Setting::Backend.to("cpu")
                ));
            }
            self.built = Some((entries, blocks.to_vec(), engine));
        }
        Ok(&mut self.built.as_mut().expect("built").2)
    }
}

/// Whether two slabs' block moves differ at most in where their ranges start in their windows.
fn alike(a: &[BlockMove], b: &[BlockMove]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x == &BlockMove {
                first_block: x.first_block,
                ..y.clone()
            }
        })
}

impl SlabSweep for GpuSweeper<'_> {
    fn sweep(
        &mut self,
        blocks: &[BlockMove],
        table: &DistanceTable,
        next: &Bitmap,
        depth: u64,
    ) -> Result<u64, String> {
        self.engine(table.entries(), blocks)?
            .sweep_slab(table, next, depth)
    }
}

impl GpuEngine<'_> {
    /// One sweep of a slab's `table` from its states of level `depth`: the slab to the device
    /// and back, the entries it sets to level `depth + 1` set in `next` too.
    fn sweep_slab(
        &mut self,
        table: &DistanceTable,
        next: &Bitmap,
        depth: u64,
    ) -> Result<u64, String> {
        self.read = None;
        self.listed = Lists::default();
        self.remaining = None;
        // A slab is on the device at 2 bits an entry ([`Layout::slab`]): no seen words to make.
        debug_assert!(!self.layout.seen);
        let counts = self.put(table, |_, _| 0)?;
        // What the push kernels expand: every entry of the level's value (older levels too).
        let frontier = counts[(depth % 3) as usize];
        let unreached = counts[3];
        let sweeps = self.sweeps.as_ref().expect("a sweeper's engine sweeps");
        let kernels = self.sweep_kernels(sweeps, frontier <= unreached);
        let (count, _) = self.run_pass(depth, &kernels, Modes::default())?;
        // Back: each entry that joined (unreached before, the next level's value now) in `next`.
        let value = ((depth + 1) % 3) as u8;
        let block_words = (self.layout.block_bytes() / 4) as usize;
        self.read_chunks(|first, words| {
            words
                .par_chunks(block_words * 4096)
                .enumerate()
                .for_each(|(part, words)| {
                    for (i, b) in words.chunks_exact(block_words).enumerate() {
                        let at = first + part * 4096 + i;
                        let word = u64::from(b[0]) | u64::from(b[1]) << 32;
                        let before = table.word(at);
                        let joined = squeeze(matches(word, value) & matches(before, UNREACHED));
                        if joined != 0 {
                            next.or_word(at / 2, u64::from(joined) << (32 * (at % 2)));
                            table.store_word(at, word);
                        }
                    }
                });
        })?;
        Ok(count)
    }
}
