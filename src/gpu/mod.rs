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
use crate::search::levels::Levels;
use crate::search::{self, Checkpoints, Options, Outcome, Progress, Resume};
use crate::table::TableView;

impl Gpu {
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
        let mut engine = self.engine(space, layout, true)?;
        let (levels, antipodes) =
            search::drive(space, &mut engine, options, progress, checkpoints, resume)?;
        Ok(Outcome {
            table: engine.into_table()?,
            levels,
            antipodes,
        })
    }

    /// [`Gpu::search_from`], ending in `finish` on the table where it lies: with `host_table`
    /// a host copy (read back once, as for checkpoints), else the device's table, read back
    /// chunk by chunk as `finish` (and each checkpoint) reads it, so that the host never holds
    /// it whole. Returns the level counts, the antipodes and what `finish` returned.
    #[allow(clippy::too_many_arguments)]
    pub fn search_then<S: StateSpace, R>(
        &self,
        space: &S,
        layout: &Layout,
        options: &Options,
        progress: &dyn Progress,
        checkpoints: Option<&dyn Checkpoints>,
        resume: Option<Resume>,
        host_table: bool,
        finish: impl FnOnce(&dyn TableView, &Levels) -> Result<R, String>,
    ) -> Result<(Levels, Vec<u64>, R), String> {
        let mut engine = self.engine(space, layout, host_table)?;
        let (levels, antipodes) =
            search::drive(space, &mut engine, options, progress, checkpoints, resume)?;
        let mut finish = Some(finish);
        let mut result = None;
        engine.with_table(&mut |table| {
            let finish = finish.take().expect("the table is given once");
            result = Some(finish(table, &levels)?);
            Ok(())
        })?;
        let result = result.expect("with_table gives the table");
        Ok((levels, antipodes, result))
    }

    /// The engine for `space` on `layout`.
    fn engine<S: StateSpace>(
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
