//! A run as one of the processes of an MPI job: the search across them, and how a failure of
//! one ends them all alike.

use super::checkpoints::FileCheckpoints;
use super::{Error, PendingDistances};
use crate::gpu::Gpu;
use crate::gpu::layout::Layout;
use crate::progress::LevelBar;
use crate::puzzle::StateSpace;
use crate::search::levels::Levels;
use crate::search::slab::Slab;
use crate::search::{Options, Resume};
use crate::store::atomic;
#[cfg(feature = "mpi")]
use crate::{gpu, search, search::Footprint, store};
use std::path::Path;

/// The processes of an MPI job ([`crate::search::cluster`]); none in a build without MPI.
#[cfg(feature = "mpi")]
pub use crate::search::cluster::MpiJob;

/// The processes of an MPI job: none in a build without the `mpi` feature.
#[cfg(not(feature = "mpi"))]
pub enum MpiJob {}

#[cfg(not(feature = "mpi"))]
impl MpiJob {
    /// This process's number (there is no such process).
    pub fn rank(&self) -> usize {
        match *self {}
    }

    /// How many processes the job has (there is no such job).
    pub fn size(&self) -> usize {
        match *self {}
    }

    /// This process's number among those of its machine (there is no such process).
    pub fn node_rank(&self) -> usize {
        match *self {}
    }

    /// A note on the cores this process may use (there is no such process).
    pub fn cores_note(&self) -> Option<String> {
        match *self {}
    }

    /// Process 0's `value` (there is no such process).
    pub fn decide(&self, _: bool) -> bool {
        match *self {}
    }

    /// Waits for every process (there is none).
    pub fn everywhere(&self, _: Result<(), String>) {
        match *self {}
    }

    /// The first process that failed (there is none).
    pub fn first_failure(&self, _: i32) -> Option<(usize, i32)> {
        match *self {}
    }
}

/// A search across the processes of `cluster`, each writing its part of the distances file
/// `gsd`: the levels, the antipodes and, on process 0, what it wrote.
#[cfg(feature = "mpi")]
pub(super) fn search_across<S: StateSpace>(
    space: &S,
    cluster: &MpiJob,
    slab: &Slab,
    device: Option<&(Gpu, Layout)>,
    options: &Options,
    run: &MpiRun,
    resume: Option<Resume>,
) -> Result<(Levels, Vec<u64>, Option<PendingDistances>), String> {
    use search::cluster::CpuSlabEngine;
    // A slab engine keeps its last level apart from the table (as bits or a list): a top-down
    // pass expands that level alone, as under the full footprint.
    let options = &Options {
        footprint: Footprint::Full,
        ..options.clone()
    };
    let (levels, antipodes, exchanged, table) = match device {
        Some((gpu, layout)) => {
            let shader = (space.gpu_shader()).ok_or("the puzzle has no GPU shader")?;
            let moves = space.move_count();
            let device = gpu::engine::GpuEngine::on_slab(gpu, layout, &shader, slab)?;
            let engine = gpu::cluster::GpuSlabEngine::new(device, cluster, slab.clone(), moves);
            slab_search(space, engine, options, run, resume)?
        }
        None => {
            let engine = CpuSlabEngine::new(space, cluster, slab.clone())?;
            slab_search(space, engine, options, run, resume)?
        }
    };
    let seconds = run.saver.earlier + run.saver.started.elapsed().as_secs_f64();
    run.bar.finish();
    if !run.quiet && cluster.rank() == 0 {
        let levels: Vec<String> = (exchanged.compressed.iter().zip(&exchanged.ranks))
            .map(|(bytes, ranks)| format!("{bytes}/{ranks}"))
            .collect();
        eprintln!(
            "gpusearch: {} processes; exchanged per level (compressed bytes/ranks): {}",
            cluster.size(),
            levels.join(" ")
        );
    }
    let info = space.info();
    let starts = space.starts();
    let header = |chunks| store::header(&info, &starts, &levels, space.size(), chunks);
    let written = store::cluster::write_distances(
        cluster,
        slab,
        &table,
        space.size(),
        header,
        run.gsd,
        run.frame_memory,
    )
    .unwrap_or_else(|e| cluster.abort(&format!("cannot write {}: {e}", run.gsd.display()), 1));
    Ok((
        levels,
        antipodes,
        written.map(|(file, sha)| (file, sha, seconds)),
    ))
}

/// The search of this process's slab on `engine`: the level counts, the antipodes, what the
/// exchanges moved, and the slab's table.
#[cfg(feature = "mpi")]
fn slab_search<S: StateSpace, E: search::cluster::SlabEngine>(
    space: &S,
    mut engine: E,
    options: &Options,
    run: &MpiRun,
    resume: Option<Resume>,
) -> Result<
    (
        Levels,
        Vec<u64>,
        search::cluster::Exchanged,
        crate::table::DistanceTable,
    ),
    String,
> {
    let saver = Some(run.saver as &dyn search::Checkpoints);
    let (levels, antipodes) = search::drive(space, &mut engine, options, run.bar, saver, resume)?;
    let exchanged = engine.exchanged().clone();
    Ok((levels, antipodes, exchanged, engine.into_table()?))
}

#[cfg(not(feature = "mpi"))]
pub(super) fn search_across<S: StateSpace>(
    _: &S,
    cluster: &MpiJob,
    _: &Slab,
    _: Option<&(Gpu, Layout)>,
    _: &Options,
    _: &MpiRun,
    _: Option<Resume>,
) -> Result<(Levels, Vec<u64>, Option<PendingDistances>), String> {
    match *cluster {}
}

/// What a search across processes needs of its run besides the space.
// Read only by the MPI build's search.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(super) struct MpiRun<'a> {
    pub(super) bar: &'a LevelBar,
    pub(super) saver: &'a FileCheckpoints<'a>,
    pub(super) quiet: bool,
    pub(super) gsd: &'a Path,
    pub(super) frame_memory: u64,
}

/// `result` where every process of `cluster` succeeded. Otherwise the first failing process
/// prints its error (named where it is not process 0, which speaks for the job) and every
/// process returns [`Error::Reported`] with its exit status, once all are ready to end: mpirun
/// stops the others as soon as one exits with an error, and they then end silently.
pub(super) fn first_failure_ends_all<T>(
    cluster: &MpiJob,
    result: Result<T, Error>,
) -> Result<T, Error> {
    let code = result.as_ref().err().map_or(0, Error::exit_code);
    let Some((p, code)) = cluster.first_failure(code) else {
        return result;
    };
    if let Err(e) = result
        && p == cluster.rank()
    {
        match p {
            0 => eprintln!("gpusearch: error: {e}"),
            p => eprintln!("gpusearch: error: process {p}: {e}"),
        }
    }
    atomic::ending();
    cluster.everywhere(Ok(()));
    Err(Error::Reported(code))
}
