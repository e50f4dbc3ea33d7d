//! What the slabs' engine holds in memory and on disk, by part: the plan
//! ([`crate::plan::SlabPlan`]) fits a cut of the table into a budget from these, beside the
//! process's fixed room and the distances file's writer, which it adds itself.

use super::{IO_BYTES, SHIP_BYTES, bits_disk_bytes, inbox_disk_bytes};
use crate::search::slab::ROUND_BYTES;
use crate::table::DistanceTable;

/// Bytes of a round's neighbours for other slabs under a `budget`: a 32nd of it, from 1 MiB to
/// [`ROUND_BYTES`] (smaller rounds only append to the inboxes more often).
pub fn round_bytes(budget: u64) -> u64 {
    (budget / 32).clamp(1 << 20, ROUND_BYTES)
}

/// What a slab of `entries` entries loaded from disk holds in memory, by part: first the three
/// that grow with it (what the first and last levels may take as lists instead), then those of
/// its rounds of `round_bytes` and of the slabs' I/O; with other `processes` of an MPI job, the
/// batches exchanged with them last.
pub fn slab_parts(entries: u64, processes: usize, round_bytes: u64) -> Vec<(&'static str, u64)> {
    let mut parts = vec![
        (
            "a slab's table (2 bits an entry)",
            DistanceTable::bytes_for(entries),
        ),
        (
            "its last and next levels (1 bit an entry each)",
            2 * entries.div_ceil(64) * 8,
        ),
        (
            "the one before written, the next read (3 bits)",
            DistanceTable::bytes_for(entries) + entries.div_ceil(64) * 8,
        ),
        // A round's neighbours for other slabs, and their sorted copy.
        ("neighbours for other slabs (a round)", 2 * round_bytes),
        ("slab reads and writes (three buffers)", 3 * IO_BYTES as u64),
        ("an inbox batch (its bytes and ranks)", 2 * IO_BYTES as u64),
        (
            "an inbox merged into bits (1 bit an entry)",
            entries.div_ceil(64) * 8 + IO_BYTES as u64,
        ),
    ];
    if processes > 1 {
        // Sent and received: up to two pieces a process each way.
        let exchange = 4 * processes as u64 * SHIP_BYTES as u64;
        parts.push(("batches to and from other processes", exchange));
    }
    parts
}

/// What the slabs of a table of `whole` bytes held in host memory, `count` slabs of at most
/// `largest` entries, take with rounds of `round_bytes`, by part: first what the first and last
/// levels may take as lists instead.
pub fn held_parts(
    (whole, count, largest): (u64, u64, u64),
    round_bytes: u64,
) -> Vec<(&'static str, u64)> {
    let bitmap = largest.div_ceil(64) * 8;
    vec![
        ("a slab's next level and a spare (1 bit each)", 2 * bitmap),
        (
            "every slab's table and level (3 bits an entry)",
            whole + count * bitmap,
        ),
        (
            "their inboxes (2 bits an entry at most)",
            2 * count * bitmap,
        ),
        ("neighbours for other slabs (a round)", 2 * round_bytes),
    ]
}

/// Bytes on disk of one generation of `count` slabs of at most `largest` entries, of a table of
/// `whole` bytes: their tables and the bits of a level.
pub fn generation_bytes((whole, count, largest): (u64, u64, u64)) -> u64 {
    whole + count * bits_disk_bytes(largest)
}

/// The most bytes on disk of the inboxes of `count` slabs of at most `largest` entries, whose
/// rounds send `round_bytes` to other slabs: each slab's for two levels, and an inbox's bits
/// being merged.
pub fn inboxes_bytes(count: u64, largest: u64, round_bytes: u64) -> u64 {
    2 * count * inbox_disk_bytes(largest, round_bytes) + bits_disk_bytes(largest)
}
