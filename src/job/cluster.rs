//! A run as one of the processes of an MPI job: the search across them, and how a failure of
//! one ends them all alike.

use super::checkpoints::FileCheckpoints;
use super::output::DistancesWriter;
#[cfg(feature = "mpi")]
use super::output::PendingDistances;
#[cfg(feature = "mpi")]
use super::tier::{Outputs, TierEngine, search_on};
use super::{Error, Found};
use crate::gpu::Gpu;
use crate::gpu::layout::Layout;
use crate::plan::SlabPlan;
use crate::puzzle::StateSpace;
use crate::search::SearchError;
use crate::search::slab::Slab;
use crate::search::{Options, Resume};
use crate::store::atomic;
#[cfg(feature = "mpi")]
use crate::store::atomic::AtomicFile;
#[cfg(feature = "mpi")]
use crate::{gpu, search, search::Footprint, store};
#[cfg(feature = "mpi")]
use crate::{report::DiskReport, search::Engine, search::disk::DiskEngine, search::levels::Levels};

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

/// A search across the processes of `cluster` (`on`: the job, this process's `slab`, the plan
/// of slabs on disk where the table is cut into them, and this process's GPU where it searches
/// its slab), each writing its part of the distances file: each process's slab in its memory,
/// or the table cut into slabs on disk, each process searching a run of them from its disk.
#[cfg(feature = "mpi")]
pub(super) fn search_across<S: StateSpace>(
    space: &S,
    (cluster, slab, disk, device): (&MpiJob, &Slab, Option<&SlabPlan>, Option<&(Gpu, Layout)>),
    options: &Options,
    saver: &FileCheckpoints,
    writer: &DistancesWriter,
    resume: Option<Resume>,
) -> Result<Found, SearchError> {
    use search::cluster::CpuSlabEngine;
    if let Some(plan) = disk {
        let folder = plan.folder.join(format!("process-{}", cluster.rank()));
        let engine = DiskEngine::new(space, plan.cut(), &folder, options.antipode_limit)?;
        let engine = engine.across(cluster);
        let slabs = SlabsAcross {
            engine,
            cluster,
            plan,
        };
        return search_on(space, slabs, options, saver, writer, resume);
    }
    // A slab engine keeps its last level apart from the table (as bits or a list): a top-down
    // pass expands that level alone, as under the full footprint.
    let options = &Options {
        footprint: Footprint::Full,
        ..options.clone()
    };
    match device {
        Some((gpu, layout)) => {
            let shader = (space.gpu_shader()).ok_or("the puzzle has no GPU shader")?;
            let moves = space.move_count();
            let device = gpu::engine::GpuEngine::on_slab(gpu, layout, &shader, slab)?;
            let engine = gpu::cluster::GpuSlabEngine::new(device, cluster, slab.clone(), moves);
            let slab = ProcessSlab { engine, cluster };
            search_on(space, slab, options, saver, writer, resume)
        }
        None => {
            let engine = CpuSlabEngine::new(space, cluster, slab.clone())?;
            let slab = ProcessSlab { engine, cluster };
            search_on(space, slab, options, saver, writer, resume)
        }
    }
}

/// This process's slab of an MPI job, in its memory: each process writes its part of the file
/// from its slab.
#[cfg(feature = "mpi")]
struct ProcessSlab<'a, E> {
    engine: E,
    cluster: &'a MpiJob,
}

#[cfg(feature = "mpi")]
impl<S: StateSpace, E: search::cluster::SlabEngine> TierEngine<S> for ProcessSlab<'_, E> {
    type Engine = E;

    fn engine(&mut self) -> &mut E {
        &mut self.engine
    }

    fn finish(
        self,
        space: &S,
        levels: &Levels,
        writer: &DistancesWriter,
    ) -> Result<Outputs, SearchError> {
        let cluster = self.cluster;
        let exchanged = self.engine.exchanged().clone();
        let slab = self.engine.slab().clone();
        let table = self.engine.into_table()?;
        let seconds = writer.searched();
        if !writer.bar.quiet() {
            let levels: Vec<String> = (exchanged.compressed.iter().zip(&exchanged.ranks))
                .map(|(bytes, ranks)| format!("{bytes}/{ranks}"))
                .collect();
            eprintln!(
                "gpusearch: {} processes; exchanged per level (compressed bytes/ranks): {}",
                cluster.size(),
                levels.join(" ")
            );
        }
        let (info, starts) = (&writer.info, &writer.starts);
        let header = |chunks| store::header(info, starts, levels, space.size(), chunks);
        let gsd = &writer.gsd;
        let written = store::cluster::write_distances(
            cluster,
            &slab,
            &table,
            space.size(),
            header,
            gsd,
            writer.frame_memory,
        )
        .unwrap_or_else(|e| cluster.abort(&format!("cannot write {}: {e}", gsd.display()), 1));
        Ok(Outputs {
            distances: pending(written, seconds),
            picture: None,
            disk: None,
        })
    }
}

/// A table cut into slabs on the processes' disks, each process searching a run of them
/// ([`DiskEngine::across`]) in its own folder, then writing the distances file's chunks that
/// start in its slabs.
#[cfg(feature = "mpi")]
struct SlabsAcross<'a, S: StateSpace> {
    engine: DiskEngine<'a, S>,
    cluster: &'a MpiJob,
    plan: &'a SlabPlan,
}

#[cfg(feature = "mpi")]
impl<'a, S: StateSpace> TierEngine<S> for SlabsAcross<'a, S> {
    type Engine = DiskEngine<'a, S>;

    fn engine(&mut self) -> &mut Self::Engine {
        &mut self.engine
    }

    fn finish(
        mut self,
        space: &S,
        levels: &Levels,
        writer: &DistancesWriter,
    ) -> Result<Outputs, SearchError> {
        let (cluster, engine) = (self.cluster, &mut self.engine);
        let seconds = writer.searched();
        let (info, starts) = (&writer.info, &writer.starts);
        let mut header = Some(|chunks| store::header(info, starts, levels, space.size(), chunks));
        let bounds = engine.process_bounds();
        let planes = space.capabilities().slab_planes();
        let width = space.size() / planes;
        let gsd = &writer.gsd;
        let mut written = None;
        engine.with_table(&mut |view| {
            let header = header.take().ok_or("the distances file is written once")?;
            let columns = (&bounds[..], width, planes);
            written = store::cluster::write_shared(cluster, columns, view, header, gsd, 0)
                .unwrap_or_else(|e| {
                    cluster.abort(&format!("cannot write {}: {e}", gsd.display()), 1)
                });
            Ok(())
        })?;
        engine.remove_files()?;
        // The processes' folders are gone: the job's goes too, where nothing else is in it.
        cluster.everywhere(Ok(()));
        if cluster.rank() == 0 {
            let _ = std::fs::remove_dir(&self.plan.folder);
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
        Ok(Outputs {
            distances: pending(written, seconds),
            picture: None,
            disk: Some(DiskReport {
                slabs: self.plan.count,
                in_memory: false,
                read_bytes,
                written_bytes,
                io_seconds: (io_seconds * 10.0).round() / 10.0,
                levels: levels_io,
            }),
        })
    }
}

/// The distances file a process `written` (process 0's: the others write none), searched for
/// `seconds`, as the report takes it.
#[cfg(feature = "mpi")]
fn pending(written: Option<(AtomicFile, String)>, seconds: f64) -> Option<PendingDistances> {
    written.map(|(file, sha)| PendingDistances {
        file: Some(file),
        sha,
        seconds,
    })
}

#[cfg(not(feature = "mpi"))]
pub(super) fn search_across<S: StateSpace>(
    _: &S,
    (cluster, ..): (&MpiJob, &Slab, Option<&SlabPlan>, Option<&(Gpu, Layout)>),
    _: &Options,
    _: &FileCheckpoints,
    _: &DistancesWriter,
    _: Option<Resume>,
) -> Result<Found, SearchError> {
    match *cluster {}
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
