//! One run of the tool: check the request, search, and write the output folder.

use crate::gpu::layout::{ASSUMED_BINDING_BYTES, Layout};
use crate::gpu::{self, Adapters, Gpu};
use crate::plan::{self, Plan, Shape};
use crate::progress::LevelBar;
use crate::puzzle::StateSpace;
use crate::puzzle::family::{PuzzleError, Request};
use crate::puzzle::registry;
use crate::puzzle::with_space;
use crate::report::Report;
use crate::search::levels::{Levels, Written};
use crate::search::slab::{self, Slab};
use crate::search::{self, Checkpoints, Footprint, Options, Resume};
use crate::store::{
    self,
    atomic::{self, AtomicFile},
};
use crate::table::TableView;
use crate::units::bytes;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

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
}

impl Error {
    /// The process exit status for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Input(_) | Error::Puzzle(_) => 2,
            Error::Run(_) => 1,
            Error::Reported(code) => *code,
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Input(m) | Error::Run(m) => f.write_str(m),
            Error::Puzzle(e) => e.fmt(f),
            Error::Reported(_) => f.write_str("a process of the MPI job failed and said why"),
        }
    }
}

/// What to run.
#[derive(Clone, Debug)]
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
}

/// Which engine carries out a search's passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Backend {
    /// A hardware GPU through Vulkan where there is one and the table is large enough to gain
    /// from it, else the CPU.
    Auto,
    /// The CPU engine.
    Cpu,
    /// The GPU engine on any Vulkan adapter, software ones such as lavapipe included.
    Gpu,
}

impl Backend {
    /// The name, as `--backend` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Auto => "auto",
            Backend::Cpu => "cpu",
            Backend::Gpu => "gpu",
        }
    }
}

/// The folder runs write into unless `--out` says otherwise: `runs/` is not tracked, so a run
/// never changes the published tables (only `gpusearch tables` writes `results/`).
pub const RUNS_FOLDER: &str = "runs";

/// Seconds a GPU takes to set up a search (shader compilation, the table's allocation), as
/// measured on an H100 (`results/hardware.md`).
const GPU_SETUP_SECONDS: f64 = 0.6;
/// States a GPU searches per second, set-up aside (H100, Turnstyle 13 and 14, the read-back of
/// the table included).
const GPU_STATES_PER_SECOND: f64 = 2e9;
/// States one CPU thread searches per second (Turnstyle 12 on 16 threads of the H100 machine's
/// host and on this project's 2-core machine).
const CPU_THREAD_STATES_PER_SECOND: f64 = 25e6;

/// Whether a search of `entries` entries is expected to end sooner on a GPU than on `threads`
/// CPU threads: small tables stay on the CPU, where setting up the device would take longer than
/// the whole search.
fn gpu_is_faster(entries: u64, threads: usize) -> bool {
    let entries = entries as f64;
    GPU_SETUP_SECONDS + entries / GPU_STATES_PER_SECOND
        < entries / (threads as f64 * CPU_THREAD_STATES_PER_SECOND)
}

/// Opens the GPU the job asks for, for a table of `entries` (the `index`-th of the best kind,
/// counted round: a process's on a node of several): `None` for the CPU backend.
fn open_gpu<S: StateSpace>(
    job: &Job,
    space: &S,
    entries: u64,
    threads: usize,
    index: usize,
) -> Result<Option<Gpu>, Error> {
    match job.backend {
        Backend::Cpu => Ok(None),
        Backend::Gpu if space.gpu_shader().is_none() => Err(Error::Input(format!(
            "--backend gpu: the {} puzzle has no GPU shader; use --backend cpu",
            space.info().puzzle
        ))),
        Backend::Gpu => match Gpu::open_nth(Adapters::Any, index).map_err(Error::Input)? {
            Some(gpu) => Ok(Some(gpu)),
            None => Err(Error::Input(
                "--backend gpu found no Vulkan adapter with 64-bit shader integers: install a Vulkan driver (Debian: apt-get install mesa-vulkan-drivers libvulkan1) or use --backend cpu".into(),
            )),
        },
        Backend::Auto => {
            // The shader last: a twisty puzzle's copies all its move tables.
            if !gpu_is_faster(entries, threads)
                || !gpu::may_have_hardware()
                || space.gpu_shader().is_none()
            {
                return Ok(None);
            }
            // No usable hardware GPU is not an error here: the CPU backend runs instead.
            Ok(Gpu::open_nth(Adapters::Hardware, index).ok().flatten())
        }
    }
}

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

/// The processes of an MPI job ([`crate::search::cluster`]); none in a build without MPI.
#[cfg(feature = "mpi")]
pub use crate::search::cluster::Cluster;
/// The processes of an MPI job: none in a build without the `mpi` feature.
#[cfg(not(feature = "mpi"))]
pub enum Cluster {}

#[cfg(not(feature = "mpi"))]
impl Cluster {
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

/// [`run`] as one of the processes of `cluster` where given: process 0 writes the files and
/// returns what it wrote, the others `None`.
pub fn run_in(job: &Job, cluster: Option<&Cluster>) -> Result<Option<Finished>, Error> {
    let space = registry::space(&job.puzzle).map_err(Error::Puzzle)?;
    with_space!(&space, s => run_space(s, job, cluster))
}

/// What a search wrote: the distances file (to be committed), its SHA-256 and the seconds of
/// search (all runs of it together).
type WrittenFile = (AtomicFile, String, f64);

/// A search across the processes of `cluster`, each writing its part of the distances file
/// `gsd`: the levels, the antipodes and, on process 0, what it wrote.
#[cfg(feature = "mpi")]
fn search_across<S: StateSpace>(
    space: &S,
    cluster: &Cluster,
    gpu: Option<&(Gpu, Layout)>,
    options: &Options,
    run: &RunParts,
    resume: Option<Resume>,
) -> Result<(Levels, Vec<u64>, Option<WrittenFile>), String> {
    use search::cluster::{ClusterEngine, search};
    let (bar, saver) = (run.bar, Some(run.saver as &dyn search::Checkpoints));
    // A slab engine keeps its last level apart from the table (as bits or a list): a top-down
    // pass expands that level alone, as under the full footprint.
    let options = &Options {
        footprint: Footprint::Full,
        ..options.clone()
    };
    // The slab setup planned, which the checkpoints name.
    let slab = (run.saver.slab.clone()).expect("a process of an MPI job has a slab");
    let searched = match (gpu, space.gpu_shader()) {
        (Some((gpu, layout)), Some(shader)) => {
            let moves = space.move_count();
            let device = gpu::GpuEngine::on_slab(gpu, layout, &shader, &slab)?;
            let engine = gpu::cluster::GpuClusterEngine::new(device, cluster, slab, moves);
            search(space, engine, options, bar, saver, resume)?
        }
        _ => search(
            space,
            ClusterEngine::new(space, cluster, slab)?,
            options,
            bar,
            saver,
            resume,
        )?,
    };
    let seconds = run.saver.earlier + run.saver.started.elapsed().as_secs_f64();
    run.bar.finish();
    let exchanged = &searched.exchanged;
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
    let header = |chunks| store::header(&info, &starts, &searched.levels, space.size(), chunks);
    let written = store::cluster::write_distances(
        cluster,
        &searched.slab,
        &searched.table,
        space.size(),
        header,
        run.gsd,
        run.frame_memory,
    )
    .unwrap_or_else(|e| cluster.abort(&format!("cannot write {}: {e}", run.gsd.display()), 1));
    Ok((
        searched.levels,
        searched.antipodes,
        written.map(|(file, sha)| (file, sha, seconds)),
    ))
}

#[cfg(not(feature = "mpi"))]
fn search_across<S: StateSpace>(
    _: &S,
    cluster: &Cluster,
    _: Option<&(Gpu, Layout)>,
    _: &Options,
    _: &RunParts,
    _: Option<Resume>,
) -> Result<(Levels, Vec<u64>, Option<WrittenFile>), String> {
    match *cluster {}
}

/// What a search across processes needs of its run besides the space.
// Read only by the MPI build's search.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
struct RunParts<'a> {
    bar: &'a LevelBar,
    saver: &'a FileCheckpoints<'a>,
    quiet: bool,
    gsd: &'a Path,
    frame_memory: u64,
}

/// `result` where every process of `cluster` succeeded. Otherwise the first failing process
/// prints its error (named where it is not process 0, which speaks for the job) and every
/// process returns [`Error::Reported`] with its exit status, once all are ready to end: mpirun
/// stops the others as soon as one exits with an error, and they then end silently.
fn agree<T>(cluster: &Cluster, result: Result<T, Error>) -> Result<T, Error> {
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

/// The plan of a job, as text, without searching (`--dry-run`).
pub fn dry_run(job: &Job) -> Result<String, Error> {
    let space = registry::space(&job.puzzle).map_err(Error::Puzzle)?;
    with_space!(&space, s => {
        let threads = pool(job.threads)?.current_num_threads();
        let plan = Plan::sketch(&shape_of(s, s.size(), job, job.backend == Backend::Gpu, threads), budget(job));
        let every = job.checkpoint_every.unwrap_or(plan.checkpoint_every);
        let across = match job.processes {
            None => String::new(),
            Some(0) => {
                return Err(Error::Input(
                    "--processes 0: give the number of processes the MPI job will have, 1 or more".into(),
                ))
            }
            Some(p) => slab::describe(s.size(), s.slab_planes(), p, budget(job)),
        };
        Ok(format!(
            "{} ({}): {} entries\n{}{}{across}",
            s.slug(),
            job.backend.name(),
            s.size(),
            plan.describe(every),
            device_plan(s, job)?
        ))
    })
}

/// Bytes of the tables a space's shader reads besides the distance table (its move tables).
fn puzzle_bytes<S: StateSpace>(space: &S) -> u64 {
    space.gpu_shader().map_or(0, |s| 4 * s.tables.len() as u64)
}

/// The device part of a `--dry-run`: with `--gpu-memory`, the table's layout on a GPU of that
/// memory (no device is opened); under `--backend gpu`, on the device found; else nothing.
fn device_plan<S: StateSpace>(space: &S, job: &Job) -> Result<String, Error> {
    let Some(shader) = space.gpu_shader() else {
        return Ok(String::new());
    };
    let puzzle_bytes = 4 * shader.tables.len() as u64;
    drop(shader);
    let window = job.gpu_window_bytes;
    let (layout, memory) = match (job.gpu_memory, job.backend) {
        (Some(memory), _) => (
            Layout {
                puzzle_bytes,
                ..Layout::plan(
                    space.size(),
                    window.map_or(ASSUMED_BINDING_BYTES, |w| w.min(ASSUMED_BINDING_BYTES)),
                )
                .map_err(Error::Input)?
            },
            Some((memory, "--gpu-memory".to_string())),
        ),
        (None, Backend::Gpu) => match Gpu::open(Adapters::Any).map_err(Error::Input)? {
            Some(gpu) => {
                let layout = gpu
                    .plan_with_tables(space.size(), puzzle_bytes, window)
                    .map_err(Error::Input)?;
                let name = format!("'{}'", gpu.adapter().name);
                (layout, gpu.memory().map(|m| (m, name)))
            }
            None => return Ok(String::new()),
        },
        _ => return Ok(String::new()),
    };
    Ok(layout.describe(memory.as_ref().map(|(m, from)| (*m, from.as_str()))))
}

/// The output folder of a job.
pub fn output_folder<S: StateSpace>(space: &S, job: &Job) -> PathBuf {
    job.out
        .clone()
        .unwrap_or_else(|| PathBuf::from(RUNS_FOLDER).join(space.slug()))
}

/// A job's memory budget: `--memory`, or the memory available now.
fn budget(job: &Job) -> u64 {
    match job.memory {
        Some(b) => b,
        None => plan::available_memory().unwrap_or(u64::MAX),
    }
}

/// What the memory plan of a job on `space` depends on, for a table (or a process's slab) of
/// `entries` entries.
fn shape_of<S: StateSpace>(space: &S, entries: u64, job: &Job, gpu: bool, threads: usize) -> Shape {
    Shape {
        entries,
        moves: space.move_count(),
        swept: space.has_structure(),
        gpu,
        threads,
        forced: job.footprint,
    }
}

/// The memory plan of a job on `space` (a table of `entries` entries) under its budget.
fn plan_for<S: StateSpace>(
    space: &S,
    entries: u64,
    job: &Job,
    gpu: bool,
    threads: usize,
) -> Result<Plan, Error> {
    Plan::new(&shape_of(space, entries, job, gpu, threads), budget(job)).map_err(|e| {
        let source = if job.memory.is_some() {
            "--memory"
        } else {
            "the memory available now"
        };
        Error::Input(format!("{e} ({source})"))
    })
}

/// What a run settled before its search.
struct Setup {
    gpu: Option<(Gpu, Layout)>,
    /// This process's slab, in an MPI job.
    slab: Option<Slab>,
    plan: Plan,
    every: f64,
    /// The state to go on from, and the seconds searched up to it.
    resume: Option<(Resume, f64)>,
}

/// Every check of a run before its search (of this process's slab in an MPI job): the GPU and
/// its layout, the memory plan, the checkpoints in the output folder, the disk; the folder is
/// then made, and the checkpoint to go on from read.
fn setup<S: StateSpace>(
    space: &S,
    job: &Job,
    cluster: Option<&Cluster>,
    out: &Path,
    threads: usize,
) -> Result<Setup, Error> {
    if let Some(every) = job.checkpoint_every
        && (every.is_nan() || every < 0.0)
    {
        return Err(Error::Input(format!(
            "--checkpoint-every {every}: give a number of seconds, 0 or more"
        )));
    }
    let slab = cluster.map(|c| Slab::of(space.size(), space.slab_planes(), c.rank(), c.size()));
    // The GPU with the table's layout on it (a process's slab, in an MPI job: the processes of
    // a node take its GPUs in turn), checked against its limits before any output.
    let entries = slab.as_ref().map_or(space.size(), Slab::entries);
    let index = cluster.map_or(0, Cluster::node_rank);
    let gpu = match open_gpu(job, space, entries, threads, index)? {
        Some(gpu) => {
            let planned = gpu
                .plan_with_tables(entries, puzzle_bytes(space), job.gpu_window_bytes)
                .map_err(Error::Input)?;
            let layout = match slab {
                Some(_) => gpu::engine::slab::slab_layout(planned),
                None => planned,
            };
            let memory = (job.gpu_memory.map(|m| (m, "--gpu-memory".to_string()))).or_else(|| {
                gpu.memory()
                    .map(|m| (m, format!("'{}'", gpu.adapter().name)))
            });
            if let Some((memory, source)) = memory
                && let Some(why) = layout.memory_refusal(memory, &source)
            {
                return Err(Error::Input(why));
            }
            Some((gpu, layout))
        }
        None => None,
    };
    let plan = match &slab {
        None => plan_for(space, space.size(), job, gpu.is_some(), threads)?,
        Some(slab) => {
            // A process holds its slab's table, its levels and a round's buffers.
            let needed: u64 = slab::memory(slab).iter().map(|(_, b)| b).sum();
            if needed > budget(job) {
                return Err(Error::Input(format!(
                    "a process's slab of {} entries needs {} (table, levels, exchange rounds) but {} has {}: run more processes, or on machines with more memory",
                    slab.entries(),
                    bytes(needed),
                    if job.memory.is_some() {
                        "--memory"
                    } else {
                        "this machine"
                    },
                    bytes(budget(job))
                )));
            }
            Plan::sketch(
                &shape_of(space, slab.entries(), job, false, threads),
                budget(job),
            )
        }
    };
    let saved = Saved::find(out, cluster.map_or(1, Cluster::size))?;
    if job.resume && saved.level.is_none() {
        return Err(Error::Input(format!(
            "--resume: there is no checkpoint in {} (the run finished, or never saved one): run without --resume",
            out.display()
        )));
    }
    if !job.resume && saved.any {
        return Err(Error::Input(format!(
            "{} holds the checkpoint of an interrupted run: add --resume to go on from it, or delete its checkpoint files ({}) to start again",
            out.display(),
            saved.pattern
        )));
    }
    let checkpoint = match (&slab, saved.level) {
        (Some(slab), Some(level)) => out.join(slab.checkpoint_name(level)),
        _ => out.join(CHECKPOINT),
    };
    if cluster.is_none_or(|c| c.rank() == 0) {
        // The folder is the job's: process 0 checks its disk for every slab and makes it.
        let whole;
        let disk = match &slab {
            Some(_) => {
                whole = Plan::sketch(&shape_of(space, space.size(), job, false, threads), 0);
                &whole
            }
            None => &plan,
        };
        check_disk(out, disk, job.resume.then_some(&checkpoint))?;
        prepare_output(out)?;
    }
    let resume = if job.resume {
        Some(resume_from(space, slab.as_ref(), &checkpoint)?)
    } else {
        None
    };
    let every = job.checkpoint_every.unwrap_or(plan.checkpoint_every);
    Ok(Setup {
        gpu,
        slab,
        plan,
        every,
        resume,
    })
}

/// [`run`] on one space.
fn run_space<S: StateSpace>(
    space: &S,
    job: &Job,
    cluster: Option<&Cluster>,
) -> Result<Option<Finished>, Error> {
    let out = output_folder(space, job);
    let pool = pool(job.threads)?;
    let threads = pool.current_num_threads();
    // Across the processes of an MPI job, the first process's failure ends them all alike.
    let setup = setup(space, job, cluster, &out, threads);
    let Setup {
        gpu,
        slab,
        plan,
        every,
        resume,
    } = match cluster {
        Some(c) => agree(c, setup)?,
        None => setup?,
    };
    let root = cluster.is_none_or(|c| c.rank() == 0);
    if root
        && !job.quiet
        && let Some(note) = cluster.and_then(|c| c.cores_note())
    {
        eprintln!("gpusearch: note: {note}");
    }
    if !job.quiet && root && space.size() >= NOTE_PLAN_ENTRIES {
        eprintln!(
            "gpusearch: {} strategy: {}; a checkpoint every {every:.0} s (~{:.0} s each); up to {} of disk",
            plan::footprint_name(plan.footprint),
            plan.why,
            plan.checkpoint_seconds,
            bytes(plan.disk_needed(0))
        );
    }
    atomic::set_resume_hint(format!(
        "its checkpoint is in {}: to go on, run the same command with --resume",
        out.display()
    ));
    // Seconds of search before this run, when it goes on from a checkpoint.
    let (resume, earlier) = match resume {
        Some((r, seconds)) => (Some(r), seconds),
        None => (None, 0.0),
    };
    let started = Instant::now();
    let saver = FileCheckpoints {
        folder: out.clone(),
        info: space.info(),
        slab,
        cluster,
        every,
        since: Mutex::new(Instant::now()),
        earlier,
        started,
    };

    let bar = LevelBar::new(space.size(), job.quiet || !root);
    let options = Options {
        footprint: plan.footprint,
        ..Options::default()
    };
    let info = space.info();
    let starts = space.starts();
    let gsd = out.join("distances.gsd");
    let write_error =
        |what: &Path, e: std::io::Error| format!("cannot write {}: {e}", what.display());
    // The end of the search: the distances file written from the table where it lies.
    let write = |table: &dyn TableView, levels: &Levels| {
        let seconds = earlier + started.elapsed().as_secs_f64();
        bar.finish();
        let mut file = AtomicFile::create(&gsd).map_err(|e| write_error(&gsd, e))?;
        let sha = store::write(
            file.writer(),
            &info,
            &starts,
            levels,
            table,
            plan.frame_memory,
        )
        .map_err(|e| write_error(&gsd, e))?;
        Ok((file, sha, seconds))
    };
    let (levels, antipodes, written, picture) = pool
        .install(|| match (&gpu, cluster) {
            (_, Some(c)) => {
                let run = RunParts {
                    bar: &bar,
                    saver: &saver,
                    quiet: job.quiet,
                    gsd: &gsd,
                    frame_memory: plan.frame_memory,
                };
                let (levels, antipodes, written) =
                    search_across(space, c, gpu.as_ref(), &options, &run, resume)?;
                Ok((levels, antipodes, written, None))
            }
            (Some((gpu, layout)), None) => {
                let (levels, antipodes, written) = gpu.search_then(
                    space,
                    layout,
                    &options,
                    &bar,
                    Some(&saver),
                    resume,
                    plan.host_table,
                    write,
                )?;
                Ok((levels, antipodes, Some(written), None))
            }
            (None, None) => {
                let outcome = search::search_from(space, &options, &bar, Some(&saver), resume)?;
                let written = write(&outcome.table, &outcome.levels)?;
                let picture = space.picture(&outcome.table);
                Ok((outcome.levels, outcome.antipodes, Some(written), picture))
            }
        })
        .map_err(Error::Run)?;
    let finished = match written {
        Some((file, sha, seconds)) => {
            let report = Report {
                puzzle: info,
                rank_space: space.size(),
                reachable: levels.total(),
                diameter: levels.len() - 1,
                antipode_count: levels.last(),
                antipodes: antipodes.iter().map(|&r| space.state(r)).collect(),
                levels: Written::from(&levels),
                backend: match (&gpu, cluster) {
                    (Some(_), Some(c)) => format!("gpu, {} MPI processes", c.size()),
                    (Some(_), None) => "gpu".into(),
                    (None, Some(c)) => format!("cpu, {} MPI processes", c.size()),
                    (None, None) => "cpu".into(),
                },
                adapter: gpu.as_ref().map(|(g, _)| g.adapter().clone()),
                threads,
                seconds: (seconds * 1000.0).round() / 1000.0,
                states_per_second: (levels.total() as f64 / seconds).round(),
                version: env!("CARGO_PKG_VERSION").into(),
                distances_file: "distances.gsd".into(),
                distances_sha256: sha,
            };
            let done = write_files(&out, file, &report, picture.as_ref());
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

/// Commits the distances file `file` and writes the report's files (and the picture) beside it.
fn write_files(
    out: &Path,
    file: AtomicFile,
    report: &Report,
    picture: Option<&(&'static str, String)>,
) -> Result<(), Error> {
    let write_error = |what: &Path, e: std::io::Error| {
        Error::Run(format!("cannot write {}: {e}", what.display()))
    };
    let gsd = out.join(&report.distances_file);
    file.commit().map_err(|e| write_error(&gsd, e))?;
    let mut files = vec![
        ("levels.csv", report.levels_csv()),
        ("levels.svg", report.levels_svg()),
        ("report.md", report.to_markdown()),
        ("report.json", report.to_json()),
    ];
    if let Some((name, text)) = picture {
        files.push((name, text.clone()));
    }
    for (name, text) in files {
        let path = out.join(name);
        AtomicFile::write_all(&path, text.as_bytes()).map_err(|e| write_error(&path, e))?;
    }
    Ok(())
}

/// The checkpoints an output folder holds, for a job of some number of processes.
struct Saved {
    /// Whether it holds any.
    any: bool,
    /// The last level saved by every process (by the one process of a plain run).
    level: Option<u64>,
    /// The checkpoint files' names, as a pattern (for messages).
    pattern: &'static str,
}

impl Saved {
    /// The checkpoints in `out` for a job of `processes` processes (1: a plain run); those of
    /// a job of another number of processes are refused, naming both.
    fn find(out: &Path, processes: usize) -> Result<Saved, Error> {
        let mut single = None;
        // Each process's levels, and the process counts of the jobs that saved them.
        let mut levels = vec![Vec::new(); processes];
        let mut counts = std::collections::BTreeSet::new();
        let files = (std::fs::read_dir(out).into_iter().flatten().flatten())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()));
        for entry in files {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == CHECKPOINT {
                single = Some(0);
                counts.insert(1);
            } else if let Some((p, of, level)) = slab::parse_checkpoint_name(&name) {
                counts.insert(of);
                if of == processes && p < processes {
                    levels[p].push(level);
                }
            }
        }
        if let Some(&other) = counts.iter().find(|&&c| c != processes) {
            let saved_by = |p: usize| match p {
                1 => "a single process".to_string(),
                p => format!("{p} MPI processes"),
            };
            let how = match other {
                1 => "run it as one process (without mpirun)".to_string(),
                p => format!("run it with mpirun -np {p} (a build with --features mpi)"),
            };
            return Err(Error::Input(format!(
                "{} holds the checkpoint of a run of {} and this run has {}: {how}, or delete its checkpoint files to start again",
                out.display(),
                saved_by(other),
                saved_by(processes)
            )));
        }
        let level = if processes == 1 && single.is_some() {
            single
        } else {
            // The last level every process saved.
            (levels[0].iter().copied())
                .filter(|l| levels.iter().all(|mine| mine.contains(l)))
                .max()
        };
        Ok(Saved {
            any: !counts.is_empty(),
            level,
            pattern: if processes == 1 {
                CHECKPOINT
            } else {
                "checkpoint.process-*.gsc"
            },
        })
    }
}

/// The checkpoint's name in the output folder.
pub const CHECKPOINT: &str = "checkpoint.gsc";

/// A pool of `threads` workers (all cores when `None`).
pub fn pool(threads: Option<usize>) -> Result<rayon::ThreadPool, Error> {
    let threads = match threads {
        Some(0) => {
            return Err(Error::Input(
                "--threads 0 is not allowed: give at least 1, or leave it out for all cores".into(),
            ));
        }
        Some(t) => t,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::Run(format!("cannot start {threads} worker threads: {e}")))
}

/// Checkpoints written into the output folder, atomically, at most every `every` seconds: of
/// the table, or of each process's slab in an MPI job (after the same levels everywhere; a
/// slab's older checkpoints go once every process has saved the new level).
struct FileCheckpoints<'c> {
    folder: PathBuf,
    info: crate::puzzle::PuzzleInfo,
    slab: Option<Slab>,
    cluster: Option<&'c Cluster>,
    every: f64,
    since: Mutex<Instant>,
    /// Seconds searched by the runs before this one.
    earlier: f64,
    /// When this run's search started.
    started: Instant,
}

impl FileCheckpoints<'_> {
    /// The checkpoint after level `level`.
    fn path(&self, level: u64) -> PathBuf {
        match &self.slab {
            None => self.folder.join(CHECKPOINT),
            Some(slab) => self.folder.join(slab.checkpoint_name(level)),
        }
    }

    /// Removes this process's checkpoints of levels below `below` (all with `u64::MAX`).
    fn remove_below(&self, below: u64) -> Result<(), String> {
        let Some(slab) = &self.slab else {
            let path = self.folder.join(CHECKPOINT);
            return match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    Err(format!("cannot remove {}: {e}", path.display()))
                }
                _ => Ok(()),
            };
        };
        for entry in std::fs::read_dir(&self.folder)
            .into_iter()
            .flatten()
            .flatten()
        {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some((p, of, level)) = slab::parse_checkpoint_name(&name)
                && (p, of) == (slab.process, slab.processes)
                && level < below
            {
                std::fs::remove_file(entry.path())
                    .map_err(|e| format!("cannot remove {}: {e}", entry.path().display()))?;
            }
        }
        Ok(())
    }

    /// Removes this process's checkpoints: the run is complete.
    fn remove_all(&self) -> Result<(), String> {
        self.remove_below(u64::MAX)
    }
}

impl Checkpoints for FileCheckpoints<'_> {
    fn due(&self) -> bool {
        let since = self.since.lock().unwrap_or_else(|e| e.into_inner());
        let due = since.elapsed().as_secs_f64() >= self.every;
        self.cluster.map_or(due, |c| c.decide(due))
    }

    fn save(
        &self,
        table: &dyn TableView,
        levels: &Levels,
        antipodes: &[u64],
    ) -> Result<(), String> {
        let level = levels.len() - 1;
        let path = self.path(level);
        let fail =
            |e: std::io::Error| format!("cannot write the checkpoint {}: {e}", path.display());
        let seconds = self.earlier + self.started.elapsed().as_secs_f64();
        let saved = AtomicFile::create(&path).and_then(|mut file| {
            let slab = self.slab.as_ref();
            store::write_checkpoint(
                file.writer(),
                &self.info,
                slab,
                levels,
                seconds,
                antipodes,
                table,
            )?;
            file.commit()
        });
        match self.cluster {
            None => saved.map_err(fail)?,
            Some(c) => {
                c.everywhere(saved.map_err(fail));
                self.remove_below(level)?;
            }
        }
        *self.since.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
        Ok(())
    }
}

/// The state saved in `path` (of this process's `slab` in an MPI job), checked to be a
/// checkpoint of `space` (and of that slab), and the seconds searched up to it.
fn resume_from<S: StateSpace>(
    space: &S,
    slab: Option<&Slab>,
    path: &Path,
) -> Result<(Resume, f64), Error> {
    let other = |header: &store::CheckpointHeader| {
        format!(
            "it is a checkpoint of another puzzle ({} {}): give that puzzle's options, or another --out",
            header.puzzle.puzzle,
            serde_json::Value::Object(header.puzzle.params.clone())
        )
    };
    let entries = slab.map_or(space.size(), Slab::entries);
    let (header, table) = store::open_checkpoint(path, |header| {
        if header.puzzle != space.info() {
            Err(other(header))
        } else if header.entries != entries || header.slab.as_ref() != slab {
            Err("it is not the checkpoint of this process's part of the table".into())
        } else {
            Ok(())
        }
    })
    .map_err(|e| {
        Error::Input(format!(
            "--resume: cannot use {}: {}; delete it to start again",
            path.display(),
            // The header's names are quoted: one line whatever they hold.
            crate::puzzle::family::one_line(&e)
        ))
    })?;
    let resume = Resume {
        table: Box::new(table),
        levels: header.levels.levels(),
        antipodes: header.antipodes,
    };
    Ok((resume, header.seconds))
}

/// Tables of this many entries say which strategy they run with.
const NOTE_PLAN_ENTRIES: u64 = 1 << 30;

/// Refuses a run whose distances file and checkpoints would not fit on the disk of `out`.
fn check_disk(out: &Path, plan: &Plan, resume: Option<&PathBuf>) -> Result<(), Error> {
    // The nearest folder that exists: `out` itself may not yet.
    let mut at = out.to_path_buf();
    while !at.exists() {
        match at.parent() {
            Some(p) if !p.as_os_str().is_empty() => at = p.to_path_buf(),
            _ => {
                at = PathBuf::from(".");
                break;
            }
        }
    }
    let existing = resume
        .and_then(|c| std::fs::metadata(c).ok())
        .map_or(0, |m| m.len());
    let needed = plan.disk_needed(existing);
    match plan::free_disk(&at) {
        Some(free) if free < needed => Err(Error::Input(format!(
            "the output folder {} needs {} of free disk (the distances file and a checkpoint at most) but its disk has {}: free some space, or choose another --out",
            out.display(),
            bytes(needed),
            bytes(free)
        ))),
        _ => Ok(()),
    }
}

/// Creates the output folder and proves it writable before any search starts.
fn prepare_output(out: &Path) -> Result<(), Error> {
    let fail = |e: std::io::Error| {
        Error::Input(format!(
            "cannot write to the output folder {}: {e}; choose another with --out",
            out.display()
        ))
    };
    std::fs::create_dir_all(out).map_err(fail)?;
    // Temporary files that killed runs left behind.
    for stale in atomic::remove_stale(out) {
        eprintln!(
            "gpusearch: removed {}, left by a run that was killed",
            stale.display()
        );
    }
    let probe = out.join(format!(".gpusearch-probe.{}", std::process::id()));
    let result = std::fs::File::create(&probe).and_then(|mut f| f.write_all(b"probe"));
    let _ = std::fs::remove_file(&probe);
    result.map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::gpu_is_faster;

    #[test]
    fn auto_takes_the_gpu_where_it_was_measured_to_finish_first() {
        // H100 machine, 16 threads: the CPU ran Turnstyle 11 (19,958,400 entries) in 0.22 s
        // against the GPU's 0.71 s, and Turnstyle 12 (479,001,600) in 1.21 s against 0.76 s.
        assert!(!gpu_is_faster(19_958_400, 16));
        assert!(gpu_is_faster(479_001_600, 16));
        assert!(gpu_is_faster(87_178_291_200, 16));
        // Fewer threads move the line down, more move it up.
        assert!(gpu_is_faster(39_916_800, 2));
        assert!(!gpu_is_faster(479_001_600, 256));
    }
}
