//! Which engine runs a search: the CPU, or a GPU where one is asked for or expected to finish
//! first; and the workers it runs with.

use super::{Error, Job, MpiJob};
use crate::gpu::layout::Layout;
use crate::gpu::{self, Adapters, Gpu};
use crate::puzzle::StateSpace;
use crate::search::slab::Slab;
use crate::setting::Setting;

/// Which engine carries out a search's passes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Backend {
    /// A hardware GPU through Vulkan where there is one and the table is large enough to gain
    /// from it, else the CPU.
    #[default]
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

/// Where a run's search goes, chosen once (`choose`).
pub enum Placement<'m> {
    /// The CPU engine on the whole table.
    Cpu,
    /// The GPU engine on the whole table, laid out on the device.
    Gpu(Gpu, Layout),
    /// This process's slab of an MPI job, on its CPU or (with a device) its GPU.
    Slab {
        /// The job.
        mpi: &'m MpiJob,
        /// This process's slab.
        slab: Slab,
        /// Its GPU and the slab's layout there, where it searches on one.
        device: Option<(Gpu, Layout)>,
    },
}

impl Placement<'_> {
    /// The slab of an MPI job's process.
    pub fn slab(&self) -> Option<&Slab> {
        match self {
            Placement::Slab { slab, .. } => Some(slab),
            _ => None,
        }
    }

    /// The GPU it searches on, with the table's layout there.
    pub fn device(&self) -> Option<(&Gpu, &Layout)> {
        match self {
            Placement::Gpu(gpu, layout) => Some((gpu, layout)),
            Placement::Slab {
                device: Some((gpu, layout)),
                ..
            } => Some((gpu, layout)),
            _ => None,
        }
    }
}

/// The one choice of a run's engine: from the backend asked for, whether this process is one of
/// an MPI job's (`mpi`), the space, and the device's limits (the table's layout on a GPU; the
/// plan checks it against the device's memory).
pub(super) fn choose<'m, S: StateSpace>(
    space: &S,
    job: &Job,
    mpi: Option<&'m MpiJob>,
    threads: usize,
) -> Result<Placement<'m>, Error> {
    let slab = mpi.map(|m| {
        Slab::of(
            space.size(),
            space.capabilities().slab_planes(),
            m.rank(),
            m.size(),
        )
    });
    let entries = slab.as_ref().map_or(space.size(), Slab::entries);
    // The processes of a node take its GPUs in turn.
    let index = mpi.map_or(0, MpiJob::node_rank);
    // An MPI job's processes weigh a reduced table's levels together on their CPUs: no GPU is
    // opened for them (`--backend auto` takes the CPU).
    let cpu_only = space.weights().is_some() && mpi.is_some();
    if cpu_only && job.backend == Backend::Gpu {
        return Err(Error::Input(format!(
            "{}: the processes of an MPI job search a table reduced by symmetry on their CPUs so far; use {}",
            Setting::Backend.to("gpu"),
            Setting::Backend.to("cpu")
        )));
    }
    let opened = match cpu_only {
        true => None,
        false => open_gpu(job, space, entries, threads, index)?,
    };
    let device = match opened {
        Some(gpu) => {
            // The shader's own tables (a twisty puzzle's moves) share the device.
            let tables = space.gpu_shader().map_or(0, |s| 4 * s.tables.len() as u64);
            // 2 bits an entry where 3 do not fit (a slab's kernels need the seen bits).
            let memory = job.gpu_memory.or(gpu.memory());
            let two_bits = memory.filter(|_| slab.is_none());
            let planned = (gpu.plan_with_tables(entries, tables, job.gpu_window_bytes, two_bits))
                .map_err(Error::Input)?;
            let layout = match slab {
                Some(_) => gpu::engine::slab::slab_layout(planned),
                None => planned,
            };
            // `--backend auto` takes the CPU where the table does not fit the GPU.
            let fits = memory.is_none_or(|m| layout.memory_refusal(m, "").is_none());
            (fits || job.backend != Backend::Auto).then_some((gpu, layout))
        }
        None => None,
    };
    Ok(match (mpi, slab, device) {
        (Some(mpi), Some(slab), device) => Placement::Slab { mpi, slab, device },
        (_, _, Some((gpu, layout))) => Placement::Gpu(gpu, layout),
        _ => Placement::Cpu,
    })
}

/// Why `--backend gpu` cannot search `space`, where the job asks for it and it cannot: a puzzle
/// without a GPU shader, or a table reduced by symmetry whose moves the shader cannot route.
pub(super) fn gpu_refusal<S: StateSpace>(job: &Job, space: &S) -> Option<String> {
    if !matches!(job.backend, Backend::Gpu) || space.gpu_shader().is_some() {
        return None;
    }
    let puzzle = space.info().puzzle;
    let why = match space.weights() {
        Some(_) => format!(
            "a table of the {puzzle} puzzle reduced by symmetry is searched on the CPU so far"
        ),
        None => format!("the {puzzle} puzzle has no GPU shader"),
    };
    Some(format!(
        "{}: {why}; use {}",
        Setting::Backend.to("gpu"),
        Setting::Backend.to("cpu")
    ))
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
        Backend::Gpu if let Some(why) = gpu_refusal(job, space) => Err(Error::Input(why)),
        Backend::Gpu => match Gpu::open_nth(Adapters::Any, index).map_err(Error::Input)? {
            Some(gpu) => Ok(Some(gpu)),
            None => Err(Error::Input(format!(
                "{} found no Vulkan adapter with 64-bit shader integers: install a Vulkan driver (Debian: apt-get install mesa-vulkan-drivers libvulkan1) or use {}",
                Setting::Backend.to("gpu"),
                Setting::Backend.to("cpu")
            ))),
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

/// Most worker threads a run starts.
pub const MAX_THREADS: usize = 1024;

/// The number of workers asked for, checked (all cores when `None`), before any starts.
pub fn thread_count(threads: Option<usize>) -> Result<usize, Error> {
    match threads {
        Some(0) => Err(Error::Input(format!(
            "{} is not allowed: give at least 1, or leave it out for all cores",
            Setting::Threads.to(0)
        ))),
        Some(t) if t > MAX_THREADS => Err(Error::Input(format!(
            "{} is more than {MAX_THREADS}: give at most {MAX_THREADS}, or leave it out for all cores",
            Setting::Threads.to(t)
        ))),
        Some(t) => Ok(t),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

/// A pool of `threads` workers (all cores when `None`).
pub fn pool(threads: Option<usize>) -> Result<rayon::ThreadPool, Error> {
    let threads = thread_count(threads)?;
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::Run(format!("cannot start {threads} worker threads: {e}")))
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
