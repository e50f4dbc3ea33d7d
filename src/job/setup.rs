//! Every check of a run before its search (the GPU and its layout, the memory plan, the
//! checkpoints, the disk, the output folder), and the plan `--dry-run` prints.

use super::checkpoints::{Saved, resume_from};
use super::engine::{Backend, Placement, choose, gpu_refusal, thread_count};
use super::{CHECKPOINT, Error, Job, MpiJob};
use crate::gpu::layout::{ASSUMED_BINDING_BYTES, Layout};
use crate::gpu::{Adapters, Gpu};
use crate::plan::{self, Budget, DiskPlan, Estimate, Inputs, Plan, Shape, SlabPlan, Tier};
use crate::puzzle::family::one_line;
use crate::puzzle::registry;
use crate::puzzle::with_space;
use crate::puzzle::{PuzzleInfo, StateSpace};
use crate::search::disk::SlabsState;
use crate::search::slab::Slab;
use crate::search::{Resume, Saved as Table};
use crate::setting::Setting;
use crate::store::{Distances, atomic};
use crate::units::bytes;
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// What `--dry-run` finds: the plan as text, and why the run would be refused where it would.
pub struct DryRun {
    /// The plan, as text.
    pub plan: String,
    /// Why the run itself would be refused (the first budget it exceeds), if it would.
    pub refusal: Option<String>,
}

/// The plan of a job without searching (`--dry-run`).
pub fn dry_run(job: &Job) -> Result<DryRun, Error> {
    let space = registry::space(&job.puzzle).map_err(Error::Puzzle)?;
    with_space!(&space, s => {
        let threads = thread_count(job.threads)?;
        // With processes, what a process plans for its slab decides, not one process's plan.
        let mut process_plan = None;
        let across = match job.processes {
            None => String::new(),
            Some(0) => {
                return Err(Error::Input(format!(
                    "{}: give the number of processes the MPI job will have, 1 or more",
                    Setting::Processes.to(0)
                )))
            }
            Some(p) => {
                let memory = budget(job).bytes;
                let mut text = plan::describe_slabs(s.size(), s.capabilities().slab_planes(), p, memory);
                // A slab beyond a process's budget: the table on the processes' disks.
                let slab = plan::largest_slab(s.size(), s.capabilities().slab_planes(), p);
                let slab_plan = plan_of(s, job, threads, None, Some(&slab));
                if let Some(slabs) = &slab_plan.slab_plan {
                    let most = slabs.count.div_ceil(p);
                    text += &format!(
                        "  the table on the processes' disks: {} slabs of at most {} entries, each process searching a run of {} to {most} of them in {}: up to {} of its disk (and the batches it sends to other processes' slabs, until a pass ends)\n",
                        slabs.count,
                        slabs.entries,
                        slabs.count / p,
                        slabs.folder.join("process-P").display(),
                        bytes(slabs.disk() / slabs.count as u64 * most as u64),
                    );
                }
                process_plan = Some((slab_plan, p));
                text
            }
        };
        let device = planned_device(s, job)?;
        let device = device.as_ref().map(|(layout, budget)| (layout, budget.clone()));
        let plan = plan_of(s, job, threads, device, None);
        // Every process's threads search the table together.
        let (decides, all_threads) = match &process_plan {
            Some((slab_plan, p)) => (slab_plan, threads * p),
            None => (&plan, threads),
        };
        let time = (decides.tier).map(|t| Estimate::of(s.size(), s.measured_rate(), all_threads, t));
        let refusal = (decides.refusal.clone()).or_else(|| gpu_refusal(job, s));
        Ok(DryRun {
            plan: format!(
                "{} ({}): {} entries\n{}{}{across}",
                s.slug(),
                job.backend.name(),
                s.size(),
                plan.describe(),
                time.map(|t| t.describe()).unwrap_or_default(),
            ),
            refusal,
        })
    })
}

/// The device a dry run plans for: a GPU of the job's GPU memory where it gives one (no device
/// is opened), else the device found under the GPU backend; none under the CPU backend.
fn planned_device<S: StateSpace>(
    space: &S,
    job: &Job,
) -> Result<Option<(Layout, Option<Budget>)>, Error> {
    let Some(shader) = space.gpu_shader() else {
        return Ok(None);
    };
    let puzzle_bytes = 4 * shader.tables.len() as u64;
    drop(shader);
    let window = job.gpu_window_bytes;
    Ok(match (job.gpu_memory, job.backend) {
        (_, Backend::Cpu) => None,
        (Some(memory), _) => {
            let window = window.map_or(ASSUMED_BINDING_BYTES, |w| w.min(ASSUMED_BINDING_BYTES));
            let layout = Layout {
                puzzle_bytes,
                ..Layout::plan(space.size(), window).map_err(Error::Input)?
            };
            Some((layout.fit(Some(memory), window), device_budget(job, None)))
        }
        (None, Backend::Gpu) => match Gpu::open(Adapters::Any).map_err(Error::Input)? {
            Some(gpu) => Some((
                gpu.plan_with_tables(space.size(), puzzle_bytes, window, gpu.memory())
                    .map_err(Error::Input)?,
                device_budget(job, Some(&gpu)),
            )),
            None => None,
        },
        _ => None,
    })
}

/// The GPU memory a run plans for: the job's, else the device's own where it is known.
fn device_budget(job: &Job, gpu: Option<&Gpu>) -> Option<Budget> {
    match (job.gpu_memory, gpu) {
        (Some(bytes), _) => Some(Budget {
            bytes,
            source: Setting::GpuMemory.to_string(),
        }),
        (None, Some(gpu)) => gpu.memory().map(|bytes| Budget {
            bytes,
            source: format!("'{}'", gpu.adapter().name),
        }),
        (None, None) => None,
    }
}

/// A job's memory budget: its own, or the memory available now.
fn budget(job: &Job) -> Budget {
    match job.memory {
        Some(bytes) => Budget {
            bytes,
            source: Setting::Memory.to_string(),
        },
        None => Budget {
            bytes: plan::available_memory().unwrap_or(u64::MAX),
            source: "the memory available now".to_string(),
        },
    }
}

/// The one plan of a job on `space`: searched on `device` where there is one, or as this
/// process's `slab` of an MPI job; its slabs on disk, where it comes to that, in the job's slab
/// folder or the output folder's `slabs`.
fn plan_of<S: StateSpace>(
    space: &S,
    job: &Job,
    threads: usize,
    device: Option<(&Layout, Option<Budget>)>,
    slab: Option<&Slab>,
) -> Plan {
    let shape = Shape {
        entries: space.size(),
        planes: space.capabilities().slab_planes(),
        moves: space.move_count(),
        swept: space.capabilities().sweeps(),
        structure_bytes: space.capabilities().structure_bytes(),
        gpu: device.is_some(),
        host_copy: device.as_ref().is_some_and(|(layout, _)| !layout.seen),
        threads,
        forced: job.footprint,
    };
    Plan::make(
        &shape,
        Inputs {
            memory: budget(job),
            device,
            gpu_sweeps_slabs: job.backend == Backend::Gpu,
            gpu_sweeps_blocks: space.weights().is_none(),
            slab,
            checkpoint_every: job.checkpoint_every,
            report_only: job.report_only,
            slab_folder: slab_folder(space, job),
            slab_units: crate::search::disk::slab_units(space),
            slab_bytes: job.slab_bytes,
        },
    )
}

/// Where a job's slabs go if its table is searched from disk.
fn slab_folder<S: StateSpace>(space: &S, job: &Job) -> PathBuf {
    (job.slab_folder.clone()).unwrap_or_else(|| super::output_folder(space, job).join("slabs"))
}

/// What a run settled before its search.
pub(super) struct Setup<'m> {
    /// Where the search goes.
    pub(super) placement: Placement<'m>,
    /// The plan it follows.
    pub(super) plan: Plan,
    /// The plan's tier, which runs the search.
    pub(super) tier: Tier,
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
        && !(every.is_finite() && every >= 0.0)
    {
        return Err(Error::Input(format!(
            "{}: give a number of seconds, 0 or more",
            Setting::CheckpointEvery.to(every)
        )));
    }
    if job.report_only && cluster.is_some() {
        return Err(Error::Input(format!(
            "{}: an MPI job writes its distances file from its processes' slabs; leave it out",
            Setting::ReportOnly
        )));
    }
    let placement = choose(space, job, cluster, threads)?;
    let slab = placement.slab();
    let device = (placement.device()).map(|(gpu, layout)| (layout, device_budget(job, Some(gpu))));
    let plan = plan_of(space, job, threads, device, slab);
    if let Some(why) = &plan.refusal {
        return Err(Error::Input(why.clone()));
    }
    let tier = (plan.tier).ok_or_else(|| Error::Run("the plan chose no tier".into()))?;
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
        if !job.force {
            check_result_held(out, &space.info())?;
        }
        // The folder is the job's: process 0 checks its disk for every slab and makes it.
        // The folder first, so that one that cannot be made is named as such.
        let made = !out.exists();
        prepare_output(out)?;
        // The slab folder too (named as such if it cannot be made); what was made for a run
        // that is refused goes again.
        let slab_folder = (plan.slab_plan.as_ref())
            .filter(|slabs| !slabs.in_memory)
            .map(|slabs| &slabs.folder);
        let made_slabs = slab_folder.filter(|f| !f.exists());
        let undo = || {
            if let Some(folder) = made_slabs {
                let _ = std::fs::remove_dir(folder);
            }
            if made {
                let _ = std::fs::remove_dir(out);
            }
        };
        if let Some(folder) = made_slabs
            && let Err(e) = std::fs::create_dir_all(folder)
        {
            undo();
            return Err(Error::Input(format!(
                "cannot make the slab folder {}: {e}; choose another with {}",
                folder.display(),
                Setting::SlabFolder
            )));
        }
        match check_disk(
            out,
            &plan.disk,
            plan.slab_plan.as_ref(),
            job.resume.then_some(&checkpoint),
        ) {
            Err(e) => {
                undo();
                return Err(e);
            }
            Ok(Some(note)) if !job.quiet => eprintln!("gpusearch: note: {note}"),
            Ok(_) => {}
        }
    }
    let resume = if job.resume {
        Some(resume_from(space, slab, &checkpoint)?)
    } else {
        None
    };
    // A checkpoint of slabs on disk goes on only in the same slabs.
    if let Some((
        Resume {
            table: Table::InPlace(state),
            ..
        },
        _,
    )) = &resume
    {
        let state = SlabsState::of(state.clone()).map_err(|e| {
            Error::Input(format!(
                "{}: {e}; delete it to start again",
                Setting::Resume
            ))
        })?;
        let planned = (plan.slab_plan.as_ref()).map(|s| (s.count, s.unit));
        if planned != Some((state.slabs, state.unit)) {
            return Err(Error::Input(format!(
                "{}: the checkpoint's table is in {} slabs on disk and this run plans {}: go on with the {} of the run that saved it",
                Setting::Resume,
                state.slabs,
                planned.map_or("none".into(), |(count, _)| format!("{count}")),
                Setting::Memory
            )));
        }
    }
    Ok(Setup {
        placement,
        plan,
        tier,
        resume,
    })
}

/// Refuses a run into `out` where the folder holds the result of another puzzle than `info`
/// (or of another definition, or one that cannot be read): a run would replace it without a
/// word. The distances file says whose it is, else the report.
fn check_result_held(out: &Path, info: &PuzzleInfo) -> Result<(), Error> {
    let (gsd, report) = (out.join("distances.gsd"), out.join("report.json"));
    let held = if gsd.exists() {
        Distances::open(&gsd).map(|file| file.header.puzzle)
    } else if report.exists() {
        (std::fs::read(&report).map_err(|e| e.to_string()))
            .and_then(|text| serde_json::from_slice::<PuzzleInfo>(&text).map_err(|e| e.to_string()))
    } else {
        return Ok(());
    };
    let what = match held {
        Ok(held) if same_puzzle(&held, info) => return Ok(()),
        Ok(held) => format!(
            "the result of another puzzle ({})",
            one_line(&held.describe())
        ),
        Err(e) => format!("a result that cannot be read ({})", one_line(&e)),
    };
    Err(Error::Input(format!(
        "{} holds {what}; this run is of {}: choose another {}, or add {} to replace it",
        out.display(),
        one_line(&info.describe()),
        Setting::Out,
        Setting::Force
    )))
}

/// Whether `held` and `info` describe one puzzle: the family, its parameters, its metric and
/// whether its table is reduced by symmetry, whatever path its definition file was given by, and
/// whatever rank order or move names an earlier version wrote (a run of the puzzle replaces its
/// own result).
fn same_puzzle(held: &PuzzleInfo, info: &PuzzleInfo) -> bool {
    let params = |p: &PuzzleInfo| {
        let mut params = p.params.clone();
        params.remove("definition");
        params
    };
    (held.puzzle == info.puzzle && held.metric == info.metric)
        && params(held) == params(info)
        && held.symmetry.is_some() == info.symmetry.is_some()
}

/// Refuses a run whose distances file and checkpoints would not fit on the disk of `out`, or
/// whose slabs (where its table is searched from disk) would not fit on theirs, with those files
/// where the two folders share a disk; returns a note where the slabs' inboxes may not.
fn check_disk(
    out: &Path,
    disk: &DiskPlan,
    slabs: Option<&SlabPlan>,
    resume: Option<&PathBuf>,
) -> Result<Option<String>, Error> {
    let existing = resume
        .and_then(|c| std::fs::metadata(c).ok())
        .map_or(0, |m| m.len());
    let at = nearest_folder(out);
    let needed = disk.needed(existing);
    if let Some(free) = plan::free_disk(&at).filter(|&free| free < needed) {
        return Err(Error::Input(format!(
            "the output folder {} needs {} of free disk (the distances file and a checkpoint at most) but its disk has {}: free some space, or choose another {}",
            out.display(),
            bytes(needed),
            bytes(free),
            Setting::Out
        )));
    }
    let Some(slabs) = slabs else {
        return Ok(None);
    };
    let there = nearest_folder(&slabs.folder);
    let device = |p: &Path| std::fs::metadata(p).map(|m| m.dev()).ok();
    let shared = device(&at).is_some() && device(&at) == device(&there);
    // A run that goes on finds its slabs there already.
    let there_already: u64 = match resume {
        Some(_) => (std::fs::read_dir(&slabs.folder)
            .into_iter()
            .flatten()
            .flatten())
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum(),
        None => 0,
    };
    // Both generations of the slabs while the search runs; once it is over, one of them and
    // the distances file. The inboxes beside them may take up to their plan's bytes: a disk
    // that falls short of that is named, not refused (a run whose disk fills stops, and goes
    // on once there is room).
    let needed = match shared {
        true => (2 * slabs.generation).max(slabs.generation + needed),
        false => 2 * slabs.generation,
    }
    .saturating_sub(there_already);
    match plan::free_disk(&there) {
        Some(free) if free < needed + slabs.inboxes && free >= needed => Ok(Some(format!(
            "the slab folder {} has {} of free disk: the slabs take {} and their inboxes up to {} more where levels are dense; should the disk fill, the run stops and goes on from its last level once there is room",
            slabs.folder.display(),
            bytes(free),
            bytes(needed),
            bytes(slabs.inboxes)
        ))),
        Some(free) if free < needed => Err(Error::Input(format!(
            "the slab folder {} needs {} of free disk (the table's slabs in two generations{}) but its disk has {}: free some space, or choose another {}",
            slabs.folder.display(),
            bytes(needed),
            if shared {
                ", or one and the distances file"
            } else {
                ""
            },
            bytes(free),
            Setting::SlabFolder
        ))),
        _ => Ok(None),
    }
}

/// The nearest folder of `path` that exists (`path` itself may not yet).
fn nearest_folder(path: &Path) -> PathBuf {
    let mut at = path.to_path_buf();
    while !at.exists() {
        match at.parent() {
            Some(p) if !p.as_os_str().is_empty() => at = p.to_path_buf(),
            _ => return PathBuf::from("."),
        }
    }
    at
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
