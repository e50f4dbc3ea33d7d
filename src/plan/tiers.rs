//! The table in slabs ([`crate::search::disk`]): on disk, where host memory cannot hold it whole,
//! cut so that one slab and what its passes hold beside it fit the budget; or in host memory,
//! where a GPU that cannot hold the table sweeps them, cut so that one fits the GPU.

use super::FIXED_BYTES;
use crate::gpu::layout::SWEEP_PIECE_BYTES;
use crate::search::disk::{Cut, footprint};
use crate::search::slab;
use crate::store;
use crate::table::DistanceTable;
use crate::units::bytes;
use std::fmt::Write;
use std::path::PathBuf;

/// The table's slabs, on disk or in host memory.
#[derive(Clone, Debug)]
pub struct SlabPlan {
    /// Whether the slabs' tables and bits live in host memory (the host tier), not on disk.
    pub in_memory: bool,
    /// How many slabs the table is cut into.
    pub count: usize,
    /// The columns the cuts are multiples of.
    pub unit: u64,
    /// The entries of the largest.
    pub entries: u64,
    /// What a loaded slab holds in memory, by part: (what, bytes); the last two, the fixed
    /// room and the distances file's chunks, are not held during the search ([`SlabPlan::total`]).
    pub memory: Vec<(&'static str, u64)>,
    /// Bytes of the neighbours a round sends to other slabs.
    pub round_bytes: u64,
    /// Bytes on disk of one generation of the slabs' tables and bits: what a pass reads and
    /// writes at most, and what is left once the search is over. Two are kept while it runs
    /// (the last checkpoint's, and the one a pass writes). None in host memory.
    pub generation: u64,
    /// The most bytes on disk of the slabs' inboxes for two levels, and of an inbox's bits
    /// being merged: dense levels come near it, sparse ones take a fraction.
    pub inboxes: u64,
    /// The folder they are kept in, on disk (none is made for slabs in host memory).
    pub folder: PathBuf,
}

impl SlabPlan {
    /// The fewest slabs of a space of `entries` ranks in `planes` planes, cut at multiples of
    /// the first of `units` (columns) that fits, whose largest, with what its passes hold
    /// beside it on `threads` workers (`in_memory`: and every slab's table and bits) and the
    /// space's `structure` bytes (the block moves' maps of a table reduced by symmetry,
    /// [`crate::puzzle::Blocks::bytes`]), fits `budget` bytes, and whose table is
    /// at most `most` bytes, where given; at least one for each of `processes` (an MPI job's,
    /// each searching a run of them); `None` where no cut fits.
    pub fn fit(
        (entries, planes, units): (u64, u64, &[u64]),
        (threads, processes): (usize, usize),
        (budget, most): (u64, Option<u64>),
        structure: u64,
        folder: PathBuf,
        in_memory: bool,
    ) -> Option<SlabPlan> {
        (units.iter()).find_map(|&unit| {
            let cut = (entries, planes, unit);
            SlabPlan::fit_unit(
                cut,
                (threads, processes),
                (budget, most),
                structure,
                &folder,
                in_memory,
            )
        })
    }

    /// [`SlabPlan::fit`], cut at multiples of `unit` columns.
    fn fit_unit(
        (entries, planes, unit): (u64, u64, u64),
        (threads, processes): (usize, usize),
        (budget, most): (u64, Option<u64>),
        structure: u64,
        folder: &std::path::Path,
        in_memory: bool,
    ) -> Option<SlabPlan> {
        let width = entries / planes;
        let whole = DistanceTable::bytes_for(entries);
        // Every slab holds at least one unit of each plane.
        let most_slabs = width.div_ceil(unit).max(1) as usize;
        // Beside its fixed parts a slab takes 8 bits an entry (2 of table, 2 of levels, 3 of
        // the one before being written and then the next read into its memory, 1 to merge an
        // inbox): the fewest slabs that may fit, then a few more where the cut is uneven.
        let round_bytes = footprint::round_bytes(budget);
        let memory_of = |count: u64, largest: u64| {
            let cut = (whole, count, largest);
            let mut parts = memory(in_memory, cut, (threads, processes), round_bytes);
            if structure > 0 {
                // Held all through the search, beside the fixed room (the last two parts).
                parts.insert(parts.len() - 2, ("block moves' maps", structure));
            }
            parts
        };
        // The distances file's chunks (last) do not take room from the search.
        let parts = memory_of(0, 0);
        let fixed: u64 = parts[..parts.len() - 1].iter().map(|(_, b)| b).sum();
        let room = budget.checked_sub(fixed).filter(|&r| r > 0)?;
        let by_memory = match in_memory {
            true => 1,
            false => entries.div_ceil(room),
        };
        let by_most = most.map_or(1, |m| whole.div_ceil(m.max(8)));
        let first = by_memory.max(by_most).max(processes as u64).max(1);
        let first = usize::try_from(first).ok()?;
        (first..=most_slabs.min(first.saturating_add(64))).find_map(|count| {
            let largest = slab::widest_in(width, count, unit).saturating_mul(planes);
            let memory = memory_of(count as u64, largest);
            let small_enough = most.is_none_or(|m| DistanceTable::bytes_for(largest) <= m);
            (total(&memory, in_memory) <= budget && small_enough).then(|| SlabPlan {
                in_memory,
                count,
                unit,
                entries: largest,
                memory,
                round_bytes,
                generation: match in_memory {
                    true => 0,
                    false => footprint::generation_bytes((whole, count as u64, largest)),
                },
                inboxes: match in_memory {
                    true => 0,
                    false => footprint::inboxes_bytes(count as u64, largest, round_bytes),
                },
                folder: folder.to_path_buf(),
            })
        })
    }

    /// The most bytes on disk while the search runs: two generations of the slabs, and their
    /// inboxes at most.
    pub fn disk(&self) -> u64 {
        2 * self.generation + self.inboxes
    }

    /// The most memory the plan takes: the fixed room, and the larger of the search's parts and
    /// the distances file's chunks (written after the search, its slabs let go).
    pub fn total(&self) -> u64 {
        total(&self.memory, self.in_memory)
    }

    /// How the disk engine cuts the table ([`Cut`]), as this plan places it.
    pub fn cut(&self) -> Cut {
        Cut {
            slabs: self.count,
            unit: self.unit,
            list_bytes: self.loaded_bytes(),
            round_bytes: self.round_bytes,
            in_memory: self.in_memory,
        }
    }

    /// The bytes a loaded slab and what its passes hold beside it take, except the fixed parts
    /// (and the slabs held in host memory): what the first levels may take as lists, before
    /// the slabs are laid out, and the last ones after them.
    pub fn loaded_bytes(&self) -> u64 {
        let parts = if self.in_memory { 1 } else { 3 };
        self.memory.iter().take(parts).map(|(_, b)| b).sum()
    }

    /// The plan as text, as `--dry-run` prints it.
    pub fn describe(&self, budget: u64) -> String {
        let mut out = String::new();
        let _ = match self.in_memory {
            true => writeln!(
                out,
                "host tier: the table in {} slabs of at most {} entries in host memory, the GPU sweeping one at a time",
                self.count, self.entries,
            ),
            false => writeln!(
                out,
                "disk tier: the table in {} slabs of at most {} entries in {}, one in memory at a time",
                self.count,
                self.entries,
                self.folder.display()
            ),
        };
        for (what, b) in &self.memory {
            let _ = writeln!(out, "  {what:<46} {}", bytes(*b));
        }
        let _ = writeln!(
            out,
            "  {:<46} {}",
            match self.in_memory {
                true => "total (the search, the writing and the fixed)",
                false => "total (the search or the writing, and the fixed)",
            },
            bytes(self.total())
        );
        let _ = writeln!(out, "  {:<46} {}", "budget", bytes(budget));
        if self.in_memory {
            let _ = writeln!(
                out,
                "  on disk: the distances file and checkpoints of the whole table at its last whole level (below)"
            );
            let _ = writeln!(
                out,
                "  a pass sends each slab that has states of the level to the GPU and back: at most {} each way (2 bits an entry)",
                bytes(self.count as u64 * DistanceTable::bytes_for(self.entries))
            );
            let _ = writeln!(
                out,
                "  the first levels run as lists in memory, the last ones among a list of the unreached states"
            );
            return out;
        }
        let _ = writeln!(
            out,
            "  on disk: {} (the slabs' tables and the bits of a level, in two generations: the last checkpoint's and the one being written)",
            bytes(2 * self.generation)
        );
        let _ = writeln!(
            out,
            "  and their inboxes of two levels: at most {} (near it where levels are dense; an inbox's batches are merged into bits once they take a bitmap's bytes)",
            bytes(self.inboxes)
        );
        let _ = writeln!(
            out,
            "  a pass reads and writes each slab that has states of the level once: at most {} each way, and the inboxes",
            bytes(self.generation)
        );
        let _ = writeln!(
            out,
            "  the first levels run as lists in memory, the last ones among a list of the unreached states, with no pass over the slabs"
        );
        out
    }
}

/// What a slab plan holds in memory, by part: first the engine's own parts
/// ([`footprint::slab_parts`] for slabs loaded from disk, [`footprint::held_parts`] and the GPU
/// sweeping them for slabs held in host memory), then the fixed room, and last the distances
/// file's chunks, written after the search.
fn memory(
    in_memory: bool,
    (whole, count, largest): (u64, u64, u64),
    (threads, processes): (usize, usize),
    round_bytes: u64,
) -> Vec<(&'static str, u64)> {
    let mut parts = match in_memory {
        true => {
            let mut parts = footprint::held_parts((whole, count, largest), round_bytes);
            parts.push(("pieces to and from the GPU", SWEEP_PIECE_BYTES));
            parts
        }
        false => footprint::slab_parts(largest, processes, round_bytes),
    };
    parts.push(("fixed (process, tasks)", FIXED_BYTES));
    parts.push((
        "chunks in flight (writing, after the search)",
        store::batch_bytes(threads),
    ));
    parts
}

/// The most of `parts` ([`memory`]) held at once: the fixed room, and the
/// search's parts or the writing's chunks; both where the slabs stay `in_memory` while
/// checkpoints and the distances file are written.
fn total(parts: &[(&'static str, u64)], in_memory: bool) -> u64 {
    let (search, rest) = parts.split_at(parts.len() - 2);
    let search: u64 = search.iter().map(|(_, b)| b).sum();
    match in_memory {
        true => rest[0].1 + search + rest[1].1,
        false => rest[0].1 + search.max(rest[1].1),
    }
}
