//! What the CPU engine holds beside its table, by part: the plan ([`crate::plan::MemoryPlan`])
//! chooses a footprint that fits a budget from these, beside the process's fixed room and the
//! distances file's writer, which it adds itself.

use crate::search::{Footprint, list_limit};
use crate::table::DistanceTable;

/// The CPU engine's structures beside the table of a space of `entries` entries and `moves`
/// moves under `footprint`, by part; `swept`: whether its passes are sweeps (the space has
/// structure) rather than scans.
pub fn parts(entries: u64, moves: usize, swept: bool, footprint: Footprint) -> Vec<(String, u64)> {
    let table = DistanceTable::bytes_for(entries);
    let bitmap = entries.div_ceil(64) * 8;
    let limit = list_limit(entries, moves, footprint);
    // A list, its successor and the parts it is joined from.
    let lists = (limit.saturating_mul(8 * (1 + 2 * moves as u64))).min(table * 4);
    match footprint {
        Footprint::Full => larger_moment(swept, bitmap, lists, limit.saturating_mul(8)),
        Footprint::Lean => vec![("frontier lists (capped)".to_string(), lists)],
    }
}

/// The larger of the engine's two moments under the full footprint: while it runs frontier
/// lists (`lists` bytes at most; scans keep the unseen entries' bitmap of `bitmap` bytes beside
/// the thin levels' lists, sweeps nothing), and the first scan or sweep after them, which makes
/// its two bitmaps while the last level's list (at most `list` bytes: the level loop lets longer
/// ones go) is still held.
fn larger_moment(swept: bool, bitmap: u64, lists: u64, list: u64) -> Vec<(String, u64)> {
    let with_lists = match swept {
        true => vec![("frontier lists".to_string(), lists)],
        false => vec![
            ("unseen bitmap".to_string(), bitmap),
            ("frontier lists".to_string(), lists),
        ],
    };
    let second = match swept {
        true => "next-level bitmap",
        false => "unseen bitmap",
    };
    let after_lists = vec![
        ("last-level bitmap".to_string(), bitmap),
        (second.to_string(), bitmap),
        ("the last level's list".to_string(), list),
    ];
    let bytes = |parts: &[(String, u64)]| parts.iter().map(|(_, b)| b).sum::<u64>();
    match bytes(&with_lists) >= bytes(&after_lists) {
        true => with_lists,
        false => after_lists,
    }
}
