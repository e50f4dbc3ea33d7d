//! The GPU backend: the passes of [`crate::search`]'s level loop as WGSL compute shaders through
//! wgpu (Vulkan), on the same 2-bit table and rank order, ending in the same [`Outcome`].
//!
//! - [`device`]: finding and opening an adapter, its limits and memory;
//! - [`layout`]: where the table lives on the device (windows of blocks) and the dispatches;
//! - [`engine`]: the [`GpuEngine`] the level loop drives (on a process's slab too);
//! - `cluster` (with the `mpi` feature): a process of an MPI job on its GPU;
//! - [`probe`]: a puzzle shader's neighbours at given ranks, for tests.
//!
//! The kernels are in `shaders/bfs.wgsl`, each puzzle's ranks and moves in its own shader.

#[cfg(feature = "mpi")]
pub mod cluster;
pub mod device;
pub mod engine;
pub mod layout;
pub mod probe;
pub mod sweep;

pub use device::{AdapterName, Adapters, Gpu, may_have_hardware};
pub use engine::GpuEngine;

/// The rank functions every puzzle shader uses, prepended to it.
const RANK_SHADER: &str = include_str!("../../shaders/rank.wgsl");
use layout::Layout;

use crate::puzzle::StateSpace;
use crate::search::engine::Engine;
use crate::search::{self, Options, Outcome, Progress};

impl Gpu {
    /// Runs a full breadth-first search of `space` from its solved states on the device:
    /// [`search::drive`] on [`Gpu::engine`], without checkpoints.
    pub fn search<S: StateSpace>(
        &self,
        space: &S,
        layout: &Layout,
        options: &Options,
        progress: &dyn Progress,
    ) -> Result<Outcome, String> {
        let mut engine = self.engine(space, layout, true)?;
        let (levels, antipodes) = search::drive(space, &mut engine, options, progress, None, None)?;
        Ok(Outcome {
            table: engine.into_table()?,
            levels,
            antipodes,
        })
    }

    /// The engine for `space` on `layout`: with `host_table`, a host copy of the table is read
    /// back for checkpoints and at the end; without, the table stays on the device and is read
    /// back chunk by chunk as it is read ([`Engine::with_table`]).
    pub fn engine<S: StateSpace>(
        &self,
        space: &S,
        layout: &Layout,
        host_table: bool,
    ) -> Result<GpuEngine<'_>, String> {
        let puzzle = space.gpu_shader().ok_or_else(|| {
            format!(
                "{} has no GPU shader: use --backend cpu",
                space.info().puzzle
            )
        })?;
        let structure = space.structure();
        GpuEngine::new(self, layout, &puzzle, structure.as_ref(), host_table)
    }
}
