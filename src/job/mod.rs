//! One run of the tool: check the request, search, and write the output folder.
//!
//! - [`engine`]: which engine runs a search (the CPU, a GPU) and how many workers;
//! - [`setup`]: every check before a search, and the plan `--dry-run` prints;
//! - [`checkpoints`]: the checkpoints in the output folder, saved and read back;
//! - [`cluster`]: a run as one process of an MPI job;
//! - `tier`: the one run path of every tier, its engine behind one interface;
//! - `output`: the distances file and the report's files, each written whole or not at all.

pub mod checkpoints;
pub mod cluster;
pub mod engine;
mod output;
pub mod setup;
mod tier;

pub use checkpoints::CHECKPOINT;
pub use cluster::MpiJob;
pub use engine::{Backend, MAX_THREADS, Placement, pool, thread_count};
pub(crate) use setup::prepare_output;
pub use setup::{DryRun, dry_run};

use crate::gpu::engine::GpuSweeper;
use crate::plan::{self, Estimate, Plan, Tier};
use crate::progress::LevelBar;
use crate::puzzle::StateSpace;
use crate::puzzle::family::{PuzzleError, Request};
use crate::puzzle::registry;
use crate::puzzle::with_space;
use crate::report::{DiskReport, Report};
use crate::search::SearchError;
use crate::search::cpu::CpuEngine;
use crate::search::disk::DiskEngine;
use crate::search::levels::Levels;
use crate::search::{Footprint, Options, Resume};
use crate::store::atomic;
use crate::units::bytes;
use checkpoints::{FileCheckpoints, saved_hint};
use cluster::{first_failure_ends_all, search_across};
pub(crate) use output::PendingDistances;
use output::{DISTANCES_FILE, DistancesWriter, Searched, report_of, write_files};
use setup::{Setup, setup};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;
use tier::search_on;

/// Why a run did not complete.
#[derive(Debug)]
pub enum Error {
    /// The request cannot be carried out as given (exit status 2), found before any search.
    Input(String),
    /// The request names no puzzle (exit status 2).
    Puzzle(PuzzleError),
    /// Something failed while running (exit status 1).
    Run(String),
    /// A process of the MPI job failed and has said why (every process exits with its status,
    /// silently).
    Reported(i32),
    /// The search stopped as asked ([`crate::search::stop`]; exit status 130, said by
    /// [`atomic::say_interrupted`]).
    Interrupted,
}

impl Error {
    /// The process exit status for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Input(_) | Error::Puzzle(_) => 2,
            Error::Run(_) => 1,
            Error::Reported(code) => *code,
            Error::Interrupted => atomic::INTERRUPTED_EXIT,
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Input(m) | Error::Run(m) => f.write_str(m),
            Error::Puzzle(e) => e.fmt(f),
            Error::Reported(_) => f.write_str("a process of the MPI job failed and said why"),
            Error::Interrupted => f.write_str("interrupted"),
        }
    }
}

/// What to run.
#[derive(Clone, Debug, Default)]
pub struct Job {
    /// The puzzle and its size.
    pub puzzle: Request,
    /// Output folder; `None` for `runs/<slug>/` (e.g. `runs/turnstyle-n12-lrf/`).
    pub out: Option<PathBuf>,
    /// Worker threads; `None` for all cores.
    pub threads: Option<usize>,
    /// No progress bar.
    pub quiet: bool,
    /// Where the passes run.
    pub backend: Backend,
    /// Largest GPU window in bytes (smaller than the adapter allows only to test windowing).
    pub gpu_window_bytes: Option<u64>,
    /// The GPU memory to plan for: the device's own where there is one (at most this), and what
    /// `--dry-run` plans with where there is none.
    pub gpu_memory: Option<u64>,
    /// Go on from the checkpoint in the output folder.
    pub resume: bool,
    /// Seconds between checkpoints (0: after every level); `None` scales them to their cost.
    pub checkpoint_every: Option<f64>,
    /// Memory budget in bytes; `None` for the memory available now.
    pub memory: Option<u64>,
    /// The strategy asked for; `None` for the fastest that fits the budget.
    pub footprint: Option<Footprint>,
    /// With `--dry-run`: also the plan of each process of an MPI job of this many.
    pub processes: Option<usize>,
    /// Where the table's slabs go if it is searched from disk; `None` for the output folder's
    /// `slabs`.
    pub slab_folder: Option<PathBuf>,
    /// The largest slab's table in bytes (smaller than the budget allows only to test the
    /// slabs on disk): the table is then searched from disk whatever the budget.
    pub slab_bytes: Option<u64>,
    /// Replace the result in the output folder even where it is another puzzle's.
    pub force: bool,
    /// Write the report alone: no distances file and no checkpoints (for a table whose file
    /// the disk cannot hold).
    pub report_only: bool,
}

/// The folder runs write into unless `--out` says otherwise: `runs/` is not tracked, so a run
/// never changes the published tables (only `gpusearch tables` writes `results/`).
pub const RUNS_FOLDER: &str = "runs";

/// What a finished run produced.
pub struct Finished {
    /// The report, as written.
    pub report: Report,
    /// The output folder.
    pub out: PathBuf,
    /// A drawing of the space, where the family has one (also written to the folder).
    pub picture: Option<String>,
}

/// Runs a job: every check first, then the search, then the output files (each complete or
/// absent).
pub fn run(job: &Job) -> Result<Finished, Error> {
    run_in(job, None).map(|f| f.expect("a single process writes its files"))
}

/// [`run`] as one of the processes of `cluster` where given: process 0 writes the files and
/// returns what it wrote, the others `None`.
pub fn run_in(job: &Job, cluster: Option<&MpiJob>) -> Result<Option<Finished>, Error> {
    let space = registry::space(&job.puzzle).map_err(Error::Puzzle)?;
    with_space!(&space, s => run_space(s, job, cluster))
}

/// What a search found, wherever it ran.
pub(super) struct Found {
    /// The count of each level.
    pub(super) levels: Levels,
    /// The last level's smallest ranks.
    pub(super) antipodes: Vec<u64>,
    /// The distances file it wrote (process 0's; the other processes of an MPI job write none).
    pub(super) distances: Option<PendingDistances>,
    /// A drawing of the space where the family has one: its file name and text.
    pub(super) picture: Option<(&'static str, String)>,
    /// What the slabs read and wrote, where the table was searched in slabs.
    pub(super) disk: Option<DiskReport>,
}

/// The output folder of a job.
pub fn output_folder<S: StateSpace>(space: &S, job: &Job) -> PathBuf {
    job.out
        .clone()
        .unwrap_or_else(|| PathBuf::from(RUNS_FOLDER).join(space.slug()))
}

/// [`run`] on one space.
fn run_space<S: StateSpace>(
    space: &S,
    job: &Job,
    cluster: Option<&MpiJob>,
) -> Result<Option<Finished>, Error> {
    let out = output_folder(space, job);
    let threads = thread_count(job.threads)?;
    // Across the processes of an MPI job, the first process's failure ends them all alike.
    let setup = setup(space, job, cluster, &out, threads);
    let Setup {
        placement,
        plan,
        tier,
        resume,
    } = match cluster {
        Some(c) => first_failure_ends_all(c, setup)?,
        None => setup?,
    };
    // The workers start once every check has passed.
    let pool = pool(Some(threads))?;
    let root = cluster.is_none_or(|c| c.rank() == 0);
    if root
        && !job.quiet
        && let Some(note) = cluster.and_then(|c| c.cores_note())
    {
        eprintln!("gpusearch: note: {note}");
    }
    if !job.quiet && root && space.size() >= NOTE_PLAN_ENTRIES {
        note_plan(space, job, &plan, tier, threads);
    }
    // Seconds of search before this run, when it goes on from a checkpoint.
    let (resume, earlier) = match resume {
        Some((r, seconds)) => (Some(r), seconds),
        None => (None, 0.0),
    };
    say_how_to_go_on(space, &out, resume.as_ref(), earlier, root && !job.quiet);
    let started = Instant::now();
    let saver = FileCheckpoints {
        folder: out.clone(),
        info: space.info(),
        slab: placement.slab().cloned(),
        entries: placement.slab().map_or(space.size(), |s| s.entries()),
        cluster,
        every: plan.disk.every,
        since: Mutex::new(Instant::now()),
        earlier,
        started,
    };

    let bar = LevelBar::new(
        space.entries_to_reach(),
        crate::progress::unit(space),
        job.quiet || !root,
    );
    let writer = DistancesWriter {
        gsd: out.join(DISTANCES_FILE),
        info: space.info(),
        starts: space.starts(),
        frame_memory: plan.memory.frame_memory,
        bar: &bar,
        earlier,
        started,
        report_only: job.report_only,
    };
    let searched =
        pool.install(|| search_placed(space, &placement, (&plan, tier), &saver, &writer, resume));
    let Found {
        levels,
        antipodes,
        distances,
        picture,
        disk,
    } = searched.map_err(|e| match e {
        // Once there is room: from the checkpoint, or the same command again.
        SearchError::DiskFull(e) => Error::Run(format!(
            "{e}; {}",
            atomic::resume_hint().unwrap_or_default()
        )),
        SearchError::Other(e) => Error::Run(e),
        SearchError::Interrupted => Error::Interrupted,
    })?;
    let finished = match distances {
        Some(PendingDistances { file, sha, seconds }) => {
            let device = placement.device().filter(|_| tier.on_gpu());
            let backend = match (device, cluster) {
                (Some(_), Some(c)) => format!("gpu, {} MPI processes", c.size()),
                (Some(_), None) => "gpu".into(),
                (None, Some(c)) => format!("cpu, {} MPI processes", c.size()),
                (None, None) => "cpu".into(),
            };
            let adapter = device.map(|(g, _)| g.adapter().clone());
            let searched = Searched {
                levels: &levels,
                antipodes: &antipodes,
                backend,
                adapter,
                threads,
                seconds,
                sha,
                disk,
            };
            let report = report_of(space, searched);
            let notation = |position: &[u32]| space.format_position(position);
            let done = write_files(&out, file, &report, &notation, picture.as_ref());
            Some(done.map(|()| Finished {
                report,
                out: out.clone(),
                picture: picture.map(|(_, text)| text),
            }))
        }
        None => None,
    };
    if let Some(c) = cluster {
        // The others wait for process 0's files before their checkpoints go.
        let failed = finished.as_ref().and_then(|f| f.as_ref().err());
        c.everywhere(failed.map_or(Ok(()), |e| Err(e.to_string())));
    }
    let finished = finished.transpose()?;
    // The run is complete: nothing to resume any more.
    saver.remove_all().map_err(Error::Run)?;
    Ok(finished)
}

/// Says on stderr what the run's plan chose (its strategy, checkpoints, the disk and the time
/// it expects), before a search of a space large enough to take a while.
fn note_plan<S: StateSpace>(space: &S, job: &Job, plan: &Plan, tier: Tier, threads: usize) {
    let checkpoints = match &plan.slab_plan {
        Some(slabs) if !slabs.in_memory => format!(
            "the slabs are the checkpoint, after every level; up to {} of disk",
            bytes(slabs.disk().max(slabs.generation + plan.disk.needed(0)))
        ),
        _ if job.report_only => "the report alone, no checkpoints".into(),
        _ => format!(
            "a checkpoint every {:.0} s (~{:.0} s each); up to {} of disk",
            plan.disk.every,
            plan.disk.checkpoint_seconds,
            bytes(plan.disk.needed(0))
        ),
    };
    let time = Estimate::of(space.size(), space.measured_rate(), threads, tier);
    eprintln!(
        "gpusearch: {} strategy: {}; {checkpoints}; about {} of search expected (an estimate)",
        plan::footprint_name(plan.memory.footprint),
        plan.memory.why,
        plan::duration(time.seconds),
    );
}

/// Says on stderr where a run goes on from (`resume`, searched for `earlier` seconds before),
/// where it `say`s anything, and sets what an interrupt says about going on.
fn say_how_to_go_on<S: StateSpace>(
    space: &S,
    out: &Path,
    resume: Option<&Resume>,
    earlier: f64,
    say: bool,
) {
    match resume {
        Some(r) => {
            let level = r.levels.len() - 1;
            let percent = (r.pass.as_ref()).map(|p| p.percent(space.size().div_ceil(32)));
            if say {
                let within = match (&r.pass, percent) {
                    (Some(p), Some(percent)) => format!(
                        ", {percent:.0}% into level {}'s scan ({} entries set)",
                        level + 1,
                        p.found
                    ),
                    _ => String::new(),
                };
                eprintln!(
                    "gpusearch: going on from the checkpoint after level {level}{within} ({} states found, {earlier:.0} s searched)",
                    r.levels.total()
                );
            }
            atomic::set_resume_hint(saved_hint(out, level, percent));
        }
        None => atomic::set_resume_hint(
            "no checkpoint was saved yet: run the same command again to start over".into(),
        ),
    }
}

/// The search where `placement` puts it, on the plan's tier, and its distances file written:
/// the tier builds its engine here (or, for an MPI job, in [`cluster`]), and every tier's run
/// goes the one way ([`tier::search_on`]).
fn search_placed<S: StateSpace>(
    space: &S,
    placement: &Placement,
    (plan, tier): (&Plan, Tier),
    saver: &FileCheckpoints,
    writer: &DistancesWriter,
    resume: Option<Resume>,
) -> Result<Found, SearchError> {
    let options = &Options {
        footprint: plan.memory.footprint,
        ..Options::default()
    };
    // The plan's tier decides; the placement holds what was opened for it (the GPU, this
    // process's slab of an MPI job).
    let unopened = |what: &str| {
        format!(
            "the plan's tier ({}) needs {what}, which was not opened",
            tier.name()
        )
    };
    match tier {
        Tier::Processes { .. } | Tier::ProcessDisks => {
            let Placement::Slab { mpi, slab, device } = placement else {
                return Err(unopened("an MPI job").into());
            };
            let disk = plan.slab_plan.as_ref();
            let on = (*mpi, slab, disk, device.as_ref());
            search_across(space, on, options, saver, writer, resume)
        }
        Tier::HostSlabs | Tier::DiskSlabs { .. } => {
            let slabs = (plan.slab_plan.as_ref()).ok_or_else(|| unopened("slabs"))?;
            let (cut, limit) = (slabs.cut(), options.antipode_limit);
            let mut engine = DiskEngine::new(space, cut, &slabs.folder, limit)?;
            // A GPU that cannot hold the table sweeps each slab's block moves, in windows of at
            // most the whole table's (as the plan lays a slab out).
            if let Some((gpu, table)) = placement.device().filter(|_| tier.on_gpu()) {
                let window = Some(table.window_bytes(0));
                let sweeper = GpuSweeper::new(gpu, window, table.readback_blocks);
                engine = engine.sweeping_with(Box::new(sweeper));
            }
            let slabs = tier::Slabs {
                engine,
                plan: slabs,
            };
            search_on(space, slabs, options, saver, writer, resume)
        }
        Tier::Device => {
            let Placement::Gpu(gpu, layout) = placement else {
                return Err(unopened("a GPU").into());
            };
            // The file is written from the table where it lies: a host copy, or the
            // device's table read back chunk by chunk.
            let engine = gpu.engine(space, layout, plan.memory.host_table)?;
            search_on(space, engine, options, saver, writer, resume)
        }
        Tier::Memory => {
            let engine = CpuEngine::new(space, options.footprint, options.antipode_limit);
            search_on(space, engine, options, saver, writer, resume)
        }
    }
}

/// Tables of this many entries say which strategy they run with.
const NOTE_PLAN_ENTRIES: u64 = 1 << 30;
