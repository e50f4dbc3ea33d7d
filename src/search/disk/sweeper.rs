//! The seam where a GPU sweeps the slabs' block moves ([`SlabSweep`]), for the slabs' engine
//! when a GPU that cannot hold the table sweeps its slabs one at a time
//! ([`crate::gpu::engine::GpuSweeper`]).

use crate::puzzle::BlockMove;
use crate::search::bitmap::Bitmap;
use crate::table::DistanceTable;

/// Sweeps a slab's block moves elsewhere than on the host's cores (the GPU: [`crate::gpu`]).
pub trait SlabSweep {
    /// Sets the unreached neighbours of a slab's states of level `depth` by `blocks` (moves
    /// that stay in the slab, in its entries) to level `depth + 1` in `table`, and their bits
    /// in `next`, as `Sweep::pass_bits` does; returns how many. `table` holds every level of
    /// the slab up to `depth` and none after, so the entries holding `depth`'s value are its
    /// states, and older levels of that value (which have no unreached neighbour).
    fn sweep(
        &mut self,
        blocks: &[BlockMove],
        table: &DistanceTable,
        next: &Bitmap,
        depth: u64,
    ) -> Result<u64, String>;
}

/// A sweeper lent to an engine: one kept across searches keeps its kernels.
impl<T: SlabSweep + ?Sized> SlabSweep for &mut T {
    fn sweep(
        &mut self,
        blocks: &[BlockMove],
        table: &DistanceTable,
        next: &Bitmap,
        depth: u64,
    ) -> Result<u64, String> {
        (**self).sweep(blocks, table, next, depth)
    }
}
