//! The plan of a run, made once before it starts from the space and the budgets: the host
//! memory of its table (or of this process's slab) and the strategy that fits, the table's
//! layout on a GPU and whether the device holds it, the disk its files need and how often it
//! saves a checkpoint; and, where the run fits nowhere, why. The run follows the plan, and
//! `--dry-run` prints it.

mod disk;
mod memory;
mod slab;
mod tiers;
mod time;

pub use disk::{DiskPlan, free_disk};
pub use memory::{FIXED_BYTES, MemoryPlan, Shape, available_memory, footprint_name};
pub use slab::{describe_slabs, largest_slab};
pub use tiers::SlabPlan;
pub use time::{Estimate, SPREAD, duration};

use crate::gpu::layout::{Layout, READBACK_BLOCKS, SLAB_READBACK_BLOCKS};
use crate::puzzle::MAX_ENTRIES;
use crate::search::slab::Slab;
use crate::setting::Setting;
use crate::table::DistanceTable;
use crate::units::bytes;
use std::path::PathBuf;

/// A memory figure and where it comes from (a setting, a device, the memory available now), as
/// messages name it.
#[derive(Clone, Debug)]
pub struct Budget {
    /// Bytes.
    pub bytes: u64,
    /// Where the figure comes from.
    pub source: String,
}

/// What a plan is made from, beside the space's [`Shape`] (of the whole table).
pub struct Inputs<'a> {
    /// The host memory budget (of one process, in an MPI job).
    pub memory: Budget,
    /// The table's layout on the GPU that searches it, and that GPU's memory where it is known.
    pub device: Option<(&'a Layout, Option<Budget>)>,
    /// Whether that GPU, where it cannot hold the table, sweeps its slabs on disk (the GPU
    /// backend asked for), rather than the run being refused.
    pub gpu_sweeps_slabs: bool,
    /// Whether the GPU's sweep kernels can take the space's block moves. A table reduced by
    /// symmetry has a block move for each block of its classes, more than the kernels' records
    /// hold, so its slabs are never the GPU's to sweep.
    pub gpu_sweeps_blocks: bool,
    /// This process's slab, in an MPI job.
    pub slab: Option<&'a Slab>,
    /// Seconds between checkpoints asked for; `None` scales them to their cost.
    pub checkpoint_every: Option<f64>,
    /// The report alone: no distances file, no checkpoints.
    pub report_only: bool,
    /// Where the table's slabs go if it is searched from disk.
    pub slab_folder: PathBuf,
    /// The columns the table may be cut at into slabs on disk, best first
    /// ([`crate::search::disk::slab_units`]).
    pub slab_units: Vec<u64>,
    /// The largest slab's table in bytes, where asked for (a smaller one than the budget
    /// allows: to test the slabs); the table is then searched from disk whatever the budget.
    pub slab_bytes: Option<u64>,
}

/// What runs a search, chosen once by [`Plan::make`]: the candidates the job's backend allows,
/// in order of preference (the whole table on a GPU, then in host memory: on the CPU, or in
/// slabs a GPU sweeps; then slabs on disk), the first that fits winning. The run builds its
/// engine from it, and `--dry-run` names it with each better tier refused and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    /// The GPU engine, the whole table on the device.
    Device,
    /// The CPU engine, the table in host memory.
    Memory,
    /// The table in slabs held in host memory, a GPU sweeping one at a time.
    HostSlabs,
    /// The table in slabs on disk, one in memory at a time, swept by the CPU or by a GPU.
    DiskSlabs {
        /// Whether a GPU sweeps them.
        gpu: bool,
    },
    /// This process's slab of an MPI job, in its memory, searched by its CPU or its GPU.
    Processes {
        /// Whether its GPU searches it.
        gpu: bool,
    },
    /// The table in slabs on the disks of an MPI job's processes, each searching a run of them.
    ProcessDisks,
}

impl Tier {
    /// The tiers a run may take, best first: on `mpi` processes each holding a slab, or in one
    /// process; with a `device` or not; `gpu_sweeps_slabs`, a GPU that cannot hold the table
    /// sweeps its slabs (the GPU backend asked for) rather than the CPU searching it.
    fn candidates(mpi: bool, device: bool, gpu_sweeps_slabs: bool) -> &'static [Tier] {
        match (mpi, device, gpu_sweeps_slabs) {
            (true, true, _) => &[Tier::Processes { gpu: true }],
            (true, false, _) => &[Tier::Processes { gpu: false }, Tier::ProcessDisks],
            (false, true, true) => &[Tier::Device, Tier::HostSlabs, Tier::DiskSlabs { gpu: true }],
            (false, true, false) => &[Tier::Device, Tier::Memory, Tier::DiskSlabs { gpu: false }],
            (false, false, _) => &[Tier::Memory, Tier::DiskSlabs { gpu: false }],
        }
    }

    /// Whether a GPU searches or sweeps the table.
    pub fn on_gpu(self) -> bool {
        matches!(
            self,
            Tier::Device
                | Tier::HostSlabs
                | Tier::DiskSlabs { gpu: true }
                | Tier::Processes { gpu: true }
        )
    }

    /// What it is, as the plan names it.
    pub fn name(self) -> &'static str {
        match self {
            Tier::Device => "the GPU engine, the whole table on the device",
            Tier::Memory => "the CPU engine, the table in host memory",
            Tier::HostSlabs => "slabs in host memory, a GPU sweeping one at a time",
            Tier::DiskSlabs { gpu: false } => "slabs on disk, the CPU sweeping one at a time",
            Tier::DiskSlabs { gpu: true } => "slabs on disk, a GPU sweeping one at a time",
            Tier::Processes { gpu: false } => "a slab in each MPI process's memory, on its CPU",
            Tier::Processes { gpu: true } => "a slab in each MPI process's memory, on its GPU",
            Tier::ProcessDisks => "slabs on the MPI processes' disks, on their CPUs",
        }
    }
}

/// Why a table of `entries` entries is refused whatever the budgets: more than any plan holds.
fn too_large(entries: u64) -> Option<String> {
    (entries > MAX_ENTRIES).then(|| {
        format!(
            "the table of {} entries would take {} at 2 bits an entry, more than any plan holds ({} entries, {}): choose a smaller puzzle",
            entries,
            bytes(DistanceTable::bytes_for(entries)),
            MAX_ENTRIES,
            bytes(DistanceTable::bytes_for(MAX_ENTRIES)),
        )
    })
}

/// The slabs of a table searched in slabs, among `processes` (an MPI job's; 1 alone): held in
/// host memory where a GPU `sweeps` them and they fit there (unless `--slab-bytes` asks for
/// slabs on disk, to test them), else on disk; `None` where not even one slab fits. `gpu_bytes`:
/// the device memory of a GPU that sweeps them, where known.
fn fit_slabs(
    shape: &Shape,
    inputs: &Inputs,
    processes: usize,
    (sweeps, gpu_bytes): (bool, Option<u64>),
) -> Option<SlabPlan> {
    // A GPU that sweeps the slabs holds one at 2 bits an entry and its frontier lists: its
    // table at most half the GPU's memory.
    let gpu_most = gpu_bytes.filter(|_| sweeps).map(|b| b / 2);
    let most = match (inputs.slab_bytes, gpu_most) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let fit = |in_memory| {
        SlabPlan::fit(
            (shape.entries, shape.planes, &inputs.slab_units),
            (shape.threads, processes),
            (inputs.memory.bytes, most),
            shape.structure_bytes,
            inputs.slab_folder.clone(),
            in_memory,
        )
    };
    let in_memory = sweeps && inputs.slab_bytes.is_none();
    (in_memory.then(|| fit(true)).flatten()).or_else(|| fit(false))
}

/// What the output folder takes on disk for a search of `shape` holding `held` entries, with
/// its slabs on disk or not (`slabs_on_disk`). Slabs held in host memory save the whole table,
/// as the in-memory engines do.
fn disk_plan(shape: &Shape, inputs: &Inputs, held: u64, slabs_on_disk: bool) -> DiskPlan {
    match slabs_on_disk {
        // The slabs are the checkpoint; the report alone writes no file beside them.
        true if inputs.report_only => DiskPlan {
            file_bytes: 0,
            ..DiskPlan::in_slabs(shape.entries)
        },
        true => DiskPlan::in_slabs(shape.entries),
        false if inputs.report_only => DiskPlan::report_only(),
        false => DiskPlan::new(shape.entries, held, shape.threads, inputs.checkpoint_every),
    }
}

/// The whole plan of a run ([`Plan::make`]).
#[derive(Clone, Debug)]
pub struct Plan {
    /// What runs the search: the first of the candidates that fits (`None`: none does, and
    /// [`Plan::refusal`] says why the run cannot go ahead).
    pub tier: Option<Tier>,
    /// The candidates preferred to it that were refused, each with why, best first (every
    /// candidate, where none fits).
    pub refused: Vec<(Tier, String)>,
    /// The host memory of the table this process searches (the whole, or its slab).
    pub memory: MemoryPlan,
    /// The table's layout on the GPU and the device memory it is held against (a slab's, where
    /// the GPU sweeps slabs).
    pub device: Option<(Layout, Option<Budget>)>,
    /// This process's slab in an MPI job, and the memory of its parts.
    pub slab: Option<(Slab, Vec<(&'static str, u64)>)>,
    /// The table's slabs, on disk (where the host cannot hold the table) or in host memory
    /// (where a GPU that cannot hold it sweeps them), in the slab tiers.
    pub slab_plan: Option<SlabPlan>,
    /// What the output folder takes on disk, and how often a checkpoint is saved.
    pub disk: DiskPlan,
    /// Why the run cannot go ahead, if it cannot: the first budget it exceeds.
    pub refusal: Option<String>,
}

impl Plan {
    /// The plan of a search of `shape` (the whole table) with `inputs`: every memory checked
    /// against its budget, the refusal naming the first that does not hold its part.
    pub fn make(shape: &Shape, inputs: Inputs) -> Plan {
        let held = inputs.slab.map_or(shape.entries, Slab::entries);
        let device = (inputs.device.as_ref()).map(|(layout, budget)| (**layout, budget.clone()));
        let device_refusal = device.as_ref().and_then(|(layout, budget)| {
            (budget.as_ref()).and_then(|b| layout.memory_refusal(b.bytes, &b.source))
        });
        let sketch = |gpu: bool, host_copy: bool| {
            MemoryPlan::sketch(
                &Shape {
                    entries: held,
                    gpu,
                    host_copy,
                    ..*shape
                },
                &inputs.memory,
            )
        };
        // The slab engines keep their own structures ([`Slab::memory`]); a table the GPU cannot
        // hold cannot stay there alone.
        let on_gpu = shape.gpu && inputs.slab.is_none();
        let mut memory = sketch(on_gpu, shape.host_copy || device_refusal.is_some());
        let slab = inputs.slab.map(|slab| (slab.clone(), slab.memory()));
        let host_refusal_of = |memory: &MemoryPlan| match &slab {
            Some((slab, parts)) => {
                let needed: u64 = parts.iter().map(|(_, b)| b).sum();
                (needed > inputs.memory.bytes).then(|| {
                    format!(
                        "a process's slab of {} entries needs {} (table, levels, exchange rounds) but {} has {}: run more processes, or on machines with more memory",
                        slab.entries(),
                        bytes(needed),
                        inputs.memory.source,
                        bytes(inputs.memory.bytes)
                    )
                })
            }
            None => memory.refusal.clone(),
        };
        let mut host_refusal = host_refusal_of(&memory);
        // A GPU that cannot hold the table, or whose 2 bits an entry need a copy on the host that
        // the budget cannot hold, searches no whole table: with `--backend gpu` it sweeps the
        // slabs of the table on disk (where the space has block moves to sweep); under `--backend
        // auto` the CPU searches and the GPU is only described.
        let unusable = on_gpu
            && (device_refusal.is_some()
                || (device.as_ref().is_some_and(|(l, _)| !l.seen) && host_refusal.is_some()));
        // Why the GPU holds no table, for the plan's refused tiers.
        let device_refused = unusable.then(|| match &device_refusal {
            Some(why) => why.clone(),
            None => format!(
                "its table at 2 bits an entry needs a copy in host memory: {}",
                host_refusal.clone().unwrap_or_default()
            ),
        });
        let sweeps = unusable && inputs.gpu_sweeps_slabs && inputs.gpu_sweeps_blocks && shape.swept;
        let unused = unusable && !inputs.gpu_sweeps_slabs;
        if unused {
            memory = sketch(false, false);
            host_refusal = host_refusal_of(&memory);
        }
        let device_refusal = device_refusal.filter(|_| !unused);
        // Why the host holds no table, for the plan's refused tiers.
        let host_refused = host_refusal.clone();
        // A table beyond any plan is refused before slabs are fitted to it.
        let too_large = too_large(shape.entries);
        if too_large.is_some() {
            memory.refusal.clone_from(&too_large);
        }
        // In one process, a table the budget cannot hold is searched from disk: on the CPU, or
        // with a GPU that sweeps a slab at a time. One the GPU sweeps but the host holds, slabs
        // and all, is searched in slabs in host memory.
        // So is a process's slab of an MPI job that its budget cannot hold (on the CPU): the
        // table is cut into slabs on disk, each process searching a run of them.
        // A strategy asked for (`--strategy full` or `lean`) insists on the table in one piece
        // in memory: refused rather than searched in slabs, unless slabs are asked for too.
        let in_slabs = too_large.is_none()
            && (device.is_none() || sweeps || unused)
            && (slab.is_none() || device.is_none())
            && (shape.forced.is_none() || inputs.slab_bytes.is_some())
            && (host_refusal.is_some() || inputs.slab_bytes.is_some() || sweeps);
        let slab_plan = in_slabs.then(|| {
            let processes = slab.as_ref().map_or(1, |(s, _)| s.count);
            let gpu = device
                .as_ref()
                .and_then(|(_, b)| b.as_ref())
                .map(|b| b.bytes);
            fit_slabs(shape, &inputs, processes, (sweeps, gpu))
        });
        let nor = "; with the table on disk, not even one slab of it fits";
        let host_refusal = match slab_plan {
            Some(None) => {
                memory.refusal = memory.refusal.map(|why| format!("{why}{nor}"));
                host_refusal.map(|why| format!("{why}{nor}"))
            }
            Some(Some(_)) => None,
            None => host_refusal,
        };
        if let Some(Some(slabs)) = &slab_plan {
            memory.in_slabs(slabs.in_memory);
        }
        let on_disk = (slab_plan.as_ref().and_then(Option::as_ref)).is_some_and(|s| !s.in_memory);
        let disk = disk_plan(shape, &inputs, held, on_disk);
        // A GPU that sweeps slabs holds one slab at a time (2 bits an entry), not the table.
        let sweeping = slab_plan
            .as_ref()
            .and_then(Option::as_ref)
            .filter(|_| sweeps);
        // A table the GPU cannot hold but sweeps in slabs is refused only where no slab fits
        // (the slabs' plan speaks for the GPU then).
        let device_refusal = device_refusal.filter(|_| sweeping.is_none());
        let (device, device_refusal) = match (device, sweeping) {
            (Some((layout, budget)), Some(slabs)) => slab_device(&layout, budget, slabs),
            (device, _) => (device, device_refusal),
        };
        let refusal = too_large.clone().or(device_refusal).or(host_refusal);
        let fits = Fits {
            too_large,
            device: device_refused,
            host: host_refused,
            slabs: &slab_plan,
            sweeps,
            slab_device: refusal.clone().filter(|_| sweeping.is_some()),
            slab_bytes: inputs.slab_bytes,
            memory: &inputs.memory,
        };
        let candidates =
            Tier::candidates(slab.is_some(), device.is_some(), inputs.gpu_sweeps_slabs);
        let (tier, refused) = fits.choose(candidates);
        debug_assert_eq!(tier.is_none(), refusal.is_some(), "{tier:?} {refusal:?}");
        let slabs = slab_plan.flatten();
        Plan {
            tier,
            refused,
            disk,
            device,
            refusal,
            memory,
            slab,
            slab_plan: slabs,
        }
    }

    /// The plan as text, as `--dry-run` prints it: host memory, disk, then the device.
    pub fn describe(&self) -> String {
        let mut out = match self.tier {
            Some(tier) => format!("tier: {}\n", tier.name()),
            None => "tier: none fits\n".to_string(),
        };
        for (tier, why) in &self.refused {
            out += &format!("  not {}: {why}\n", tier.name());
        }
        out += &match &self.slab_plan {
            Some(slabs) => slabs.describe(self.memory.budget),
            None => self.memory.describe(),
        };
        out += &self.disk.describe();
        if let Some((layout, budget)) = &self.device {
            match self.tier {
                Some(Tier::HostSlabs | Tier::DiskSlabs { gpu: true }) => {
                    out += "the GPU sweeps each slab's block moves, a slab at a time:\n"
                }
                Some(tier) if !tier.on_gpu() => {
                    out += "the GPU cannot hold the table: the CPU searches it\n"
                }
                _ => {}
            }
            out += &layout.describe(budget.as_ref().map(|b| (b.bytes, b.source.as_str())));
        }
        out
    }
}

/// The GPU's layout for sweeping `slabs` a slab at a time (at 2 bits an entry, in pieces of
/// [`READBACK_BLOCKS`] from host memory or [`SLAB_READBACK_BLOCKS`] from disk), from the
/// whole table's `layout`, and why a GPU of `budget` cannot hold one, if it cannot.
fn slab_device(
    layout: &Layout,
    budget: Option<Budget>,
    slabs: &SlabPlan,
) -> (Option<(Layout, Option<Budget>)>, Option<String>) {
    let readback_blocks = match slabs.in_memory {
        true => READBACK_BLOCKS,
        false => SLAB_READBACK_BLOCKS,
    };
    let slab = Layout::slab(slabs.entries, layout.window_bytes(0), readback_blocks);
    let refusal = match &slab {
        Ok(slab) => (budget.as_ref())
            .filter(|b| slab.device_bytes() > b.bytes)
            .map(|b| {
                format!(
                    "a slab of {} entries needs {} of GPU memory (2 bits an entry and the frontier lists), but {} gives {}: use a GPU with more memory, or {}",
                    slab.entries,
                    bytes(slab.device_bytes()),
                    b.source,
                    bytes(b.bytes),
                    Setting::Backend.to("cpu")
                )
            }),
        Err(why) => Some(why.clone()),
    };
    (slab.ok().map(|slab| (slab, budget)), refusal)
}

/// Why a GPU sweeps no slabs of a space.
const UNSWEPT: &str =
    "the GPU sweeps no slabs of this space (none of its block moves are the kernels' to take)";

/// What decides whether each candidate tier fits ([`Fits::why_not`]).
struct Fits<'a> {
    /// Why no plan holds the table, where none does.
    too_large: Option<String>,
    /// Why the GPU holds no table, where it cannot.
    device: Option<String>,
    /// Why the host (or an MPI process) holds no table (or slab), where it cannot.
    host: Option<String>,
    /// The table's slabs: `None` where it is not cut into slabs, `Some(None)` where no cut fits.
    slabs: &'a Option<Option<SlabPlan>>,
    /// Whether a GPU that cannot hold the table sweeps its slabs.
    sweeps: bool,
    /// Why the GPU that sweeps the slabs cannot hold one, where it cannot.
    slab_device: Option<String>,
    /// The largest slab asked for (`--slab-bytes`: slabs on disk, to test them).
    slab_bytes: Option<u64>,
    /// The host memory budget.
    memory: &'a Budget,
}

impl Fits<'_> {
    /// The first of `candidates` that fits, if any, and those before it, each with why not.
    fn choose(&self, candidates: &[Tier]) -> (Option<Tier>, Vec<(Tier, String)>) {
        let mut refused = Vec::new();
        for &candidate in candidates {
            match self.why_not(candidate) {
                Some(why) => refused.push((candidate, why)),
                None => return (Some(candidate), refused),
            }
        }
        (None, refused)
    }

    /// Why `tier` cannot run the search, or `None` where it can.
    fn why_not(&self, tier: Tier) -> Option<String> {
        if let Some(why) = &self.too_large {
            return Some(why.clone());
        }
        let asked = || "slabs on disk are asked for (--slab-bytes)".to_string();
        let slabs = self.slabs.as_ref().map(Option::as_ref);
        let no_cut = || {
            format!(
                "no cut into slabs holds every slab's table and bits within {} ({})",
                bytes(self.memory.bytes),
                self.memory.source
            )
        };
        // Why the table is not in slabs held in host memory (`held`) or on disk, swept by a GPU
        // (`gpu`) or by the CPU; `None` where it is.
        let in_slabs = |held: bool, gpu: bool| match slabs {
            Some(Some(s)) if s.in_memory == held => None,
            Some(Some(_)) if held => Some(no_cut()),
            Some(Some(_)) => Some(self.slab_device.clone().unwrap_or_else(no_cut)),
            Some(None) => Some(no_cut()),
            None if gpu && !self.sweeps => Some(UNSWEPT.into()),
            None => Some(format!(
                "a strategy asked for ({}) keeps the table whole in host memory, unless slabs are asked for too",
                Setting::Footprint
            )),
        };
        let asked_for = || self.slab_bytes.map(|_| asked());
        match tier {
            Tier::Device | Tier::Processes { gpu: true } => {
                self.device.clone().or_else(|| self.host.clone())
            }
            Tier::Memory | Tier::Processes { gpu: false } => self.host.clone().or_else(asked_for),
            Tier::HostSlabs => asked_for()
                .or_else(|| in_slabs(true, true))
                .or_else(|| self.slab_device.clone()),
            Tier::DiskSlabs { gpu } => {
                in_slabs(false, gpu).or_else(|| self.slab_device.clone().filter(|_| gpu))
            }
            Tier::ProcessDisks => in_slabs(false, false),
        }
    }
}
