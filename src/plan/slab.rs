//! The slabs of an MPI job's processes as `--dry-run` describes them: the largest, and the memory
//! its process holds (as [`Slab::memory`] states it).

use crate::search::slab::Slab;
use crate::units::bytes;
use std::fmt::Write;

/// The largest slab of a space of `entries` ranks in `planes` planes across `processes`.
pub fn largest_slab(entries: u64, planes: u64, processes: usize) -> Slab {
    (0..processes)
        .map(|p| Slab::of(entries, planes, p, processes))
        .max_by_key(|s| (s.entries(), std::cmp::Reverse(s.index)))
        .expect("at least one process")
}

/// The plan of the processes of an MPI job, as text (`--dry-run --processes P`): the slabs, the
/// memory of the largest against `budget` (one process's), and the memory all take together.
pub fn describe_slabs(entries: u64, planes: u64, processes: usize, budget: u64) -> String {
    let slab = largest_slab(entries, planes, processes);
    let mut out = String::new();
    let kind = if planes > 1 {
        format!(
            "columns of {planes} planes of {} ranks (a ring puzzle's arrangements with all their offsets)",
            slab.width
        )
    } else {
        "ranges of ranks".to_string()
    };
    let _ = writeln!(
        out,
        "across {processes} MPI processes: slabs of {kind}; the largest, process {}'s, holds {} entries",
        slab.index,
        slab.entries()
    );
    let _ = writeln!(out, "memory plan a process (the largest slab):");
    let parts = slab.memory();
    for (what, b) in &parts {
        let _ = writeln!(out, "  {what:<36} {}", bytes(*b));
    }
    let total: u64 = parts.iter().map(|(_, b)| b).sum();
    let _ = writeln!(out, "  {:<36} {}", "total", bytes(total));
    let verdict = if total <= budget {
        "fits"
    } else {
        "does not fit"
    };
    let _ = writeln!(
        out,
        "  {:<36} {} ({verdict})",
        "budget a process",
        bytes(budget)
    );
    out
}
