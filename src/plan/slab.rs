//! The memory of one process of an MPI job: its slab of the table, its levels and its exchange
//! rounds.

use crate::search::slab::{ROUND_BYTES, Slab};
use crate::table::DistanceTable;
use crate::units::bytes;
use std::fmt::Write;

/// A round's buffers, in [`ROUND_BYTES`]: the workers' outboxes and their merge, what arrives,
/// decoded, and the round's new states.
const ROUND_BUFFERS: u64 = 4;

/// What a process holds beside the program for `slab`, by part: (what, bytes).
pub fn slab_memory(slab: &Slab) -> Vec<(&'static str, u64)> {
    let entries = slab.entries();
    vec![
        ("table (2 bits an entry)", DistanceTable::bytes_for(entries)),
        // The last level and the next as bits, and a list as large while one is short.
        (
            "levels (1 bit an entry, 3 at most)",
            3 * entries.div_ceil(64) * 8,
        ),
        ("exchange rounds (at most)", ROUND_BUFFERS * ROUND_BYTES),
    ]
}

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
    let parts = slab_memory(&slab);
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
