//! Every check of a run before its search (the GPU and its layout, the memory plan, the
//! checkpoints, the disk, the output folder), and the plan `--dry-run` prints.

use super::checkpoints::{Saved, resume_from};
use super::engine::{Backend, Placement, choose, thread_count};
use super::{CHECKPOINT, Error, Job, MpiJob};
use crate::gpu::layout::{ASSUMED_BINDING_BYTES, Layout};
use crate::gpu::{Adapters, Gpu};
use crate::plan::{self, Plan, Shape};
use crate::puzzle::StateSpace;
use crate::puzzle::registry;
use crate::puzzle::with_space;
use crate::search::Resume;
use crate::setting::Setting;
use crate::store::atomic;
use crate::units::bytes;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The plan of a job, as text, without searching (`--dry-run`).
pub fn dry_run(job: &Job) -> Result<String, Error> {
    let space = registry::space(&job.puzzle).map_err(Error::Puzzle)?;
    with_space!(&space, s => {
        let threads = thread_count(job.threads)?;
        let plan = Plan::sketch(&shape_of(s, s.size(), job, job.backend == Backend::Gpu, threads), budget(job));
        let every = job.checkpoint_every.unwrap_or(plan.checkpoint_every);
        let across = match job.processes {
            None => String::new(),
            Some(0) => {
                return Err(Error::Input(format!(
                    "{}: give the number of processes the MPI job will have, 1 or more",
                    Setting::Processes.to(0)
                )))
            }
            Some(p) => plan::describe_slabs(s.size(), s.slab_planes(), p, budget(job)),
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
            Some((memory, Setting::GpuMemory.to_string())),
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
            Setting::Memory.to_string()
        } else {
            "the memory available now".to_string()
        };
        Error::Input(format!("{e} ({source})"))
    })
}

/// What a run settled before its search.
pub(super) struct Setup<'m> {
    /// Where the search goes.
    pub(super) placement: Placement<'m>,
    pub(super) plan: Plan,
    pub(super) every: f64,
    /// The state to go on from, and the seconds searched up to it.
    pub(super) resume: Option<(Resume, f64)>,
}

/// Every check of a run before its search (of this process's slab in an MPI job): the GPU and
/// its layout, the memory plan, the checkpoints in the output folder, the disk; the folder is
/// then made, and the checkpoint to go on from read.
pub(super) fn setup<'m, S: StateSpace>(
    space: &S,
    job: &Job,
    cluster: Option<&'m MpiJob>,
    out: &Path,
    threads: usize,
) -> Result<Setup<'m>, Error> {
    if let Some(every) = job.checkpoint_every
        && (every.is_nan() || every < 0.0)
    {
        return Err(Error::Input(format!(
            "{}: give a number of seconds, 0 or more",
            Setting::CheckpointEvery.to(every)
        )));
    }
    let placement = choose(space, job, cluster, threads)?;
    let slab = placement.slab();
    let plan = match slab {
        None => plan_for(
            space,
            space.size(),
            job,
            placement.device().is_some(),
            threads,
        )?,
        Some(slab) => {
            // A process holds its slab's table, its levels and a round's buffers.
            let needed: u64 = plan::slab_memory(slab).iter().map(|(_, b)| b).sum();
            if needed > budget(job) {
                return Err(Error::Input(format!(
                    "a process's slab of {} entries needs {} (table, levels, exchange rounds) but {} has {}: run more processes, or on machines with more memory",
                    slab.entries(),
                    bytes(needed),
                    if job.memory.is_some() {
                        Setting::Memory.to_string()
                    } else {
                        "this machine".to_string()
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
    let saved = Saved::find(out, cluster.map_or(1, MpiJob::size))?;
    if job.resume && saved.level.is_none() {
        return Err(Error::Input(format!(
            "{}: there is no checkpoint in {} (the run finished, or never saved one): run without it",
            Setting::Resume,
            out.display()
        )));
    }
    if !job.resume && saved.any {
        return Err(Error::Input(format!(
            "{} holds the checkpoint of an interrupted run: add {} to go on from it, or delete its checkpoint files ({}) to start again",
            out.display(),
            Setting::Resume,
            saved.pattern
        )));
    }
    let checkpoint = match (slab, saved.level) {
        (Some(slab), Some(level)) => out.join(slab.checkpoint_name(level)),
        _ => out.join(CHECKPOINT),
    };
    if cluster.is_none_or(|c| c.rank() == 0) {
        // The folder is the job's: process 0 checks its disk for every slab and makes it.
        let whole;
        let disk = match slab {
            Some(_) => {
                whole = Plan::sketch(&shape_of(space, space.size(), job, false, threads), 0);
                &whole
            }
            None => &plan,
        };
        // The folder first, so that one that cannot be made is named as such.
        let made = !out.exists();
        prepare_output(out)?;
        if let Err(e) = check_disk(out, disk, job.resume.then_some(&checkpoint)) {
            if made {
                let _ = std::fs::remove_dir(out);
            }
            return Err(e);
        }
    }
    let resume = if job.resume {
        Some(resume_from(space, slab, &checkpoint)?)
    } else {
        None
    };
    let every = job.checkpoint_every.unwrap_or(plan.checkpoint_every);
    Ok(Setup {
        placement,
        plan,
        every,
        resume,
    })
}

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
            "the output folder {} needs {} of free disk (the distances file and a checkpoint at most) but its disk has {}: free some space, or choose another {}",
            out.display(),
            bytes(needed),
            bytes(free),
            Setting::Out
        ))),
        _ => Ok(()),
    }
}

/// Creates the output folder and proves it writable before any search starts.
pub(crate) fn prepare_output(out: &Path) -> Result<(), Error> {
    let fail = |e: std::io::Error| {
        Error::Input(format!(
            "cannot write to the output folder {}: {e}; choose another with {}",
            out.display(),
            Setting::Out
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
