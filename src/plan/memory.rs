//! The host memory a search needs: the strategy that fits a budget.
//!
//! A search holds its 2-bit table and, depending on the [`Footprint`], structures beside it.
//! The plan lists each and picks the fastest footprint whose total fits the memory budget.

use super::Budget;
use crate::gpu::layout::host_staging_bytes;
use crate::search::{Footprint, cpu};
use crate::setting::Setting;
use crate::store;
use crate::table::DistanceTable;
use crate::units::bytes;
use std::fmt::Write;

/// Fixed room for everything that does not grow with the table or the workers: the process,
/// task lists, position tables (a search of Turnstyle 8 peaks at 7 MB; every buffer that grows
/// with a run is planned on its own).
pub const FIXED_BYTES: u64 = 32 << 20;

/// The host memory a search of one space (or one process's slab of it) needs.
#[derive(Clone, Debug)]
pub struct MemoryPlan {
    /// Table entries.
    pub entries: u64,
    /// Bytes of the 2-bit table.
    pub table: u64,
    /// The footprint chosen.
    pub footprint: Footprint,
    /// Why that one.
    pub why: String,
    /// Every structure beside the table under the footprint chosen: (what, bytes).
    pub extras: Vec<(String, u64)>,
    /// Peak resident bytes: the table (where the host holds it) and the extras.
    pub total: u64,
    /// Whether the host holds a copy of the table: always on the CPU; on a GPU unless the
    /// budget does not allow one (the file and checkpoints then read it from the device chunk
    /// by chunk).
    pub host_table: bool,
    /// The leanest footprint's total: below it nothing runs.
    pub leanest: u64,
    /// Why the run cannot go ahead within the budget, if it cannot.
    pub refusal: Option<String>,
    /// The budget planned for.
    pub budget: u64,
    /// Compressed frames the distances file's writer may hold.
    pub frame_memory: u64,
}

/// The space a plan is for: its size, its moves, and how it is searched.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// Table entries.
    pub entries: u64,
    /// The planes its ranks are cut in for slabs ([`crate::puzzle::Capabilities::planes`]).
    pub planes: u64,
    /// Moves per state.
    pub moves: usize,
    /// Whether sweeps run (the space has structure) or scans.
    pub swept: bool,
    /// The bytes the space's block moves keep beside the table
    /// ([`crate::puzzle::Blocks::bytes`]).
    pub structure_bytes: u64,
    /// Whether a GPU searches (the table on the device, read back through staging buffers).
    pub gpu: bool,
    /// Whether the host must keep a copy of the table: a GPU that holds 2 bits an entry finds
    /// the last level's states on it.
    pub host_copy: bool,
    /// Worker threads.
    pub threads: usize,
    /// The footprint asked for; `None` for the fastest that fits.
    pub forced: Option<Footprint>,
}

impl MemoryPlan {
    /// The plan where the table is searched in slabs, held in host memory (`in_memory`) or on
    /// disk: the slabs' plan speaks for the memory, and the table is written to the distances
    /// file chunk by chunk from the slabs, with no frames held.
    pub fn in_slabs(&mut self, in_memory: bool) {
        self.frame_memory = 0;
        self.refusal = None;
        self.why = match in_memory {
            true => {
                "the table is searched in slabs held in host memory, the GPU sweeping one at a time"
            }
            false => "the table is searched from disk, a slab at a time",
        }
        .into();
    }

    /// The plan for `shape` under a budget of `budget` bytes: the fastest footprint that fits,
    /// or an error naming both numbers when not even the leanest does.
    pub fn new(shape: &Shape, budget: u64) -> Result<MemoryPlan, String> {
        let budget = Budget {
            bytes: budget,
            source: Setting::Memory.to_string(),
        };
        let plan = MemoryPlan::sketch(shape, &budget);
        match plan.refusal {
            Some(why) => Err(why),
            None => Ok(plan),
        }
    }

    /// The plan for `shape` under `budget` whether or not it fits (`refusal` says why not; the
    /// leanest footprint the shape allows is then shown), the refusal naming where the
    /// budget comes from.
    pub fn sketch(shape: &Shape, within: &Budget) -> MemoryPlan {
        let budget = within.bytes;
        let table = DistanceTable::bytes_for(shape.entries);
        let full = extras(shape, Footprint::Full, table);
        let lean = extras(shape, Footprint::Lean, table);
        let sum = |e: &[(String, u64)]| table + e.iter().map(|(_, b)| b).sum::<u64>();
        let (full_total, lean_total) = (sum(&full), sum(&lean));
        // A GPU's table may stay on the device alone: the host then holds only the extras.
        let device =
            (shape.gpu && !shape.host_copy).then(|| lean.iter().map(|(_, b)| b).sum::<u64>());
        let device_ok = device.is_some_and(|d| d <= budget) && shape.forced.is_none();
        let (full_fits, lean_fits) = (full_total <= budget, lean_total <= budget);
        let (full_ok, lean_ok) = match shape.forced {
            None => (full_fits, lean_fits),
            Some(Footprint::Full) => (full_fits, false),
            Some(Footprint::Lean) => (false, lean_fits),
        };
        let mut refusal = None;
        let mut host_table = true;
        let (footprint, extras, total, why) = if full_ok {
            (
                Footprint::Full,
                full,
                full_total,
                format!(
                    "the full strategy, the fastest, fits: {} of a {} budget",
                    bytes(full_total),
                    bytes(budget)
                ),
            )
        } else if lean_ok {
            let why = if shape.forced.is_some() {
                format!(
                    "asked for with {}; {}",
                    Setting::Footprint,
                    bytes(lean_total)
                )
            } else {
                format!(
                    "the full strategy needs {}, more than the {} budget; the lean one needs {}",
                    bytes(full_total),
                    bytes(budget),
                    bytes(lean_total)
                )
            };
            (Footprint::Lean, lean, lean_total, why)
        } else if let Some(device_total) = device.filter(|_| device_ok) {
            host_table = false;
            let why = format!(
                "the table stays on the GPU, read back chunk by chunk for the file and checkpoints: the lean strategy with a host copy needs {}, more than the {} budget; without one {}",
                bytes(lean_total),
                bytes(budget),
                bytes(device_total)
            );
            (Footprint::Lean, lean, device_total, why)
        } else {
            let (what, least) = if shape.forced == Some(Footprint::Full) {
                ("the full strategy", full_total)
            } else {
                ("even the leanest strategy", device.unwrap_or(lean_total))
            };
            // The budget's source where it is not the setting the advice names.
            let source = match within.source == Setting::Memory.to_string() {
                true => String::new(),
                false => format!(" ({})", within.source),
            };
            let otherwise = match shape.forced {
                Some(_) => format!(
                    ", leave the strategy to the plan ({}: from disk where memory falls short)",
                    Setting::Footprint.to("auto")
                ),
                None => String::new(),
            };
            refusal = Some(format!(
                "{what} needs {} of memory ({} table of {} entries) but the budget is {}{source}: give a larger {}{otherwise}, or choose a smaller puzzle",
                bytes(least),
                bytes(table),
                shape.entries,
                bytes(budget),
                Setting::Memory
            ));
            let why = "does not fit: the run would be refused".to_string();
            if shape.forced == Some(Footprint::Full) {
                (Footprint::Full, full, full_total, why)
            } else {
                (Footprint::Lean, lean, lean_total, why)
            }
        };
        MemoryPlan {
            entries: shape.entries,
            table,
            footprint,
            why,
            extras,
            total,
            leanest: device.unwrap_or(lean_total),
            host_table,
            refusal,
            budget,
            frame_memory: match footprint {
                Footprint::Full => table + table / 64,
                // None held: every chunk is compressed again as it is written.
                Footprint::Lean => 0,
            },
        }
    }

    /// The plan as text, one line each.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "memory plan: {} entries", self.entries);
        let _ = writeln!(
            out,
            "  {:<32} {}{}",
            "table (2 bits an entry)",
            bytes(self.table),
            if self.host_table {
                ""
            } else {
                " on the GPU only"
            }
        );
        for (what, b) in &self.extras {
            let _ = writeln!(out, "  {what:<32} {}", bytes(*b));
        }
        let _ = writeln!(out, "  {:<32} {}", "total", bytes(self.total));
        let _ = writeln!(out, "  {:<32} {}", "budget", bytes(self.budget));
        let _ = writeln!(
            out,
            "  strategy: {} ({})",
            footprint_name(self.footprint),
            self.why
        );
        if let Some(why) = &self.refusal {
            let _ = writeln!(out, "  refused: {why}");
        }
        out
    }
}

/// The name of a footprint in messages.
pub fn footprint_name(footprint: Footprint) -> &'static str {
    match footprint {
        Footprint::Full => "full",
        Footprint::Lean => "lean",
    }
}

/// The structures beside a table of `table` bytes under `footprint`.
fn extras(shape: &Shape, footprint: Footprint, table: u64) -> Vec<(String, u64)> {
    // What the engine holds beside the table, as its own module says.
    let search = match shape.gpu {
        // The GPU keeps its lists on the device (as scans): only the read-back's buffers.
        true => vec![("read-back staging".to_string(), host_staging_bytes(table))],
        false => cpu::footprint::parts(shape.entries, shape.moves, shape.swept, footprint),
    };
    let mut out = Vec::new();
    match footprint {
        Footprint::Full => {
            // The search's structures and the writer's frames never live at once: the frames
            // come after the search. The larger of the two counts.
            let frames = table + table / 64;
            let searching: u64 = search.iter().map(|(_, b)| b).sum();
            if frames > searching {
                out.push(("compressed frames (writing)".to_string(), frames));
            } else {
                out.extend(search);
            }
        }
        Footprint::Lean => out.extend(search),
    }
    if shape.structure_bytes > 0 {
        out.push(("block moves' maps".to_string(), shape.structure_bytes));
    }
    out.push(("fixed (process, tasks)".to_string(), FIXED_BYTES));
    out.push((
        format!(
            "chunks in flight ({})",
            crate::units::count(shape.threads, "thread")
        ),
        store::batch_bytes(shape.threads),
    ));
    out
}

/// The memory the kernel says is available (`MemAvailable`), where it says.
pub fn available_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(entries: u64) -> Shape {
        Shape {
            entries,
            planes: 1,
            moves: 3,
            swept: true,
            structure_bytes: 0,
            gpu: false,
            host_copy: false,
            threads: 2,
            forced: None,
        }
    }

    #[test]
    fn a_gpu_table_stays_on_the_device_where_the_host_cannot_hold_a_copy() {
        let n14 = 87_178_291_200;
        let gpu = Shape {
            gpu: true,
            ..shape(n14)
        };
        // 64 GiB: full, with a host copy; 24 GiB: lean, with a host copy; 2 GiB: none.
        let full = MemoryPlan::new(&gpu, 64 << 30).unwrap();
        assert!(full.footprint == Footprint::Full && full.host_table);
        let lean = MemoryPlan::new(&gpu, 24 << 30).unwrap();
        assert!(lean.footprint == Footprint::Lean && lean.host_table);
        let device = MemoryPlan::new(&gpu, 2 << 30).unwrap();
        assert!(!device.host_table, "{}", device.why);
        assert!(device.total < 1 << 30, "{}", device.total);
        assert_eq!(device.frame_memory, 0, "chunks compressed again as written");
        // Below even that, refused; on the CPU the table is always on the host.
        assert!(MemoryPlan::new(&gpu, 256 << 20).is_err());
        assert!(MemoryPlan::new(&shape(n14), 2 << 30).is_err());
        // A GPU of 2 bits an entry needs the host's copy.
        let two_bits = Shape {
            host_copy: true,
            ..gpu
        };
        assert!(MemoryPlan::new(&two_bits, 24 << 30).unwrap().host_table);
        assert!(MemoryPlan::new(&two_bits, 2 << 30).is_err());
    }

    #[test]
    fn the_fastest_footprint_that_fits_is_chosen() {
        let n14 = 87_178_291_200;
        let table = DistanceTable::bytes_for(n14);
        let full = MemoryPlan::new(&shape(n14), 64 << 30).unwrap();
        assert_eq!(full.footprint, Footprint::Full);
        let lean = MemoryPlan::new(&shape(n14), 22 << 30).unwrap();
        assert_eq!(lean.footprint, Footprint::Lean);
        // The lean promise: at most the table + 3% + 256 MiB.
        assert!(lean.total <= table + table * 3 / 100 + (256 << 20));
        let refused = MemoryPlan::new(&shape(n14), 20 << 30).unwrap_err();
        assert!(
            refused.contains("needs") && refused.contains("budget"),
            "{refused}"
        );
        // n = 13: the lean strategy within 1,100 MiB.
        let n13 = MemoryPlan::new(&shape(3_113_510_400), 1100 << 20).unwrap();
        assert_eq!(n13.footprint, Footprint::Lean);
        // Block moves' maps count beside the table, in every footprint.
        let mapped = Shape {
            structure_bytes: 100 << 20,
            ..shape(n14)
        };
        let with = MemoryPlan::new(&mapped, 22 << 30).unwrap();
        assert_eq!(with.total, lean.total + (100 << 20));
    }
}
