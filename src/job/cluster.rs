//! A run as one of the processes of an MPI job: the search across them, and how a failure of
//! one ends them all alike.

#[cfg(feature = "mpi")]
use super::PendingDistances;
use super::checkpoints::FileCheckpoints;
use super::{Error, Found};
use crate::gpu::Gpu;
use crate::gpu::layout::Layout;
use crate::plan::SlabPlan;
use crate::progress::LevelBar;
use crate::puzzle::StateSpace;
use crate::search::SearchError;
use crate::search::slab::Slab;
#[cfg(feature = "mpi")]
use crate::search::{Engine, disk::DiskEngine};
use crate::search::{Options, Resume};
use crate::store::atomic;
#[cfg(feature = "mpi")]
use crate::{gpu, search, search::Footprint, store};
#[cfg(feature = "mpi")]
use crate::{report::DiskReport, search::levels::Levels};
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
/// `gsd`: each process's `slab` in its memory (on `device` where given), or the table cut into
/// `disk` slabs, each process searching a run of them from its disk.
#[cfg(feature = "mpi")]
pub(super) fn search_across<S: StateSpace>(
    space: &S,
    cluster: &MpiJob,
    (slab, disk): (&Slab, Option<&SlabPlan>),
    device: Option<&(Gpu, Layout)>,
    options: &Options,
    run: &MpiRun,
    resume: Option<Resume>,
) -> Result<Found, SearchError> {
    use search::cluster::CpuSlabEngine;
    if let Some(slabs) = disk {
        return search_slabs_across(space, cluster, slabs, options, run, resume);
    }
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
    Ok(Found {
        levels,
        antipodes,
        distances: written.map(|(file, sha)| PendingDistances {
            file: Some(file),
            sha,
            seconds,
        }),
        picture: None,
        disk: None,
    })
}

/// The search of a table cut into `slabs` on the processes' disks, each process searching a
/// run of them ([`DiskEngine::across`]) in its own folder, then writing the distances file's
/// chunks that start in its slabs.
#[cfg(feature = "mpi")]
fn search_slabs_across<S: StateSpace>(
    space: &S,
    cluster: &MpiJob,
    slabs: &SlabPlan,
    options: &Options,
    run: &MpiRun,
    resume: Option<Resume>,
) -> Result<Found, SearchError> {
    let folder = slabs.folder.join(format!("process-{}", cluster.rank()));
    let engine = DiskEngine::new(space, slabs.cut(), &folder, options.antipode_limit)?;
    let mut engine = engine.across(cluster);
    let saver = Some(run.saver as &dyn search::Checkpoints);
    let (levels, antipodes) = search::drive(space, &mut engine, options, run.bar, saver, resume)?;
    let seconds = run.saver.earlier + run.saver.started.elapsed().as_secs_f64();
    run.bar.finish();
    let info = space.info();
    let starts = space.starts();
    let mut header = Some(|chunks| store::header(&info, &starts, &levels, space.size(), chunks));
    let bounds = engine.process_bounds();
    let (width, planes) = (
        space.size() / space.capabilities().slab_planes(),
        space.capabilities().slab_planes(),
    );
    let mut written = None;
    engine.with_table(&mut |view| {
        let header = header.take().ok_or("the distances file is written once")?;
        let columns = (&bounds[..], width, planes);
        written = store::cluster::write_shared(cluster, columns, view, header, run.gsd, 0)
            .unwrap_or_else(|e| {
                cluster.abort(&format!("cannot write {}: {e}", run.gsd.display()), 1)
            });
        Ok(())
    })?;
    engine.remove_files()?;
    // The processes' folders are gone: the job's goes too, where nothing else is in it.
    cluster.everywhere(Ok(()));
    if cluster.rank() == 0 {
        let _ = std::fs::remove_dir(&slabs.folder);
    }
    // The job's bytes: every process's summed, step by step.
    let io = engine.io();
    let [read_bytes, written_bytes] = cluster.sum([io.read, io.written]);
    let steps: Vec<u64> = engine.steps().iter().flatten().copied().collect();
    let all = cluster.gather_all(&steps);
    let levels_io = (0..steps.len() / 2)
        .map(|s| {
            let at = |k: usize| all.chunks(steps.len()).map(|p| p[2 * s + k]).sum();
            [at(0), at(1)]
        })
        .collect();
    let io_seconds = cluster
        .gather_all(&[io.seconds])
        .into_iter()
        .fold(0.0, f64::max);
    let disk = DiskReport {
        slabs: slabs.count,
        in_memory: false,
        read_bytes,
        written_bytes,
        io_seconds: (io_seconds * 10.0).round() / 10.0,
        levels: levels_io,
    };
    Ok(Found {
        levels,
        antipodes,
        distances: written.map(|(file, sha)| PendingDistances {
            file: Some(file),
            sha,
            seconds,
        }),
        picture: None,
        disk: Some(disk),
    })
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
    SearchError,
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
    _: (&Slab, Option<&SlabPlan>),
    _: Option<&(Gpu, Layout)>,
    _: &Options,
    _: &MpiRun,
    _: Option<Resume>,
) -> Result<Found, SearchError> {
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
