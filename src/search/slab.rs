//! Slabs: the parts of the rank space that the processes of an MPI job own, one each
//! (`crate::search::cluster`), or that the disk engine searches one at a time
//! ([`crate::search::disk`]); and how a process's part of a checkpoint is named.
//!
//! A space's ranks are `planes` planes of `width` ranks each (`rank = plane * width + column`;
//! one plane where the space has no such structure, [`crate::puzzle::Capabilities::planes`]).
//! A slab is a range of columns, the same in every plane, cut at whole table words: for the ring
//! puzzles, whole arrangements with all their offsets, so that `L` and `R` (which change the
//! plane only) never leave it. A process's table holds its slab plane by plane: its entry `i` is
//! column `first + i % w` of plane `i / w`, `w` the slab's width.

pub mod gaps;
pub mod moves;

use crate::table::{DistanceTable, ENTRIES_PER_WORD};
use serde::{Deserialize, Serialize};

/// Bytes of neighbour ranks a process's outboxes hold at most in one exchange round (8 bytes a
/// rank before compression): a round expands at most this over `8 * moves` states.
pub const ROUND_BYTES: u64 = 64 << 20;
/// A round's buffers, in [`ROUND_BYTES`]: the workers' outboxes and their merge, what arrives,
/// decoded, and the round's new states.
const ROUND_BUFFERS: u64 = 4;
/// A process keeps a level as a list (8 bytes a state) while it has at most this share of its
/// slab's entries, where the list is no larger than the bits (1 bit an entry) would be.
pub const LIST_SHARE: u64 = 64;

/// One of the slabs a table is cut into: an MPI process's (numbered as the process), or one of
/// the slabs the disk engine searches one at a time ([`crate::search::disk`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slab {
    /// Its number, 0 to `count - 1`: in an MPI job, the process that owns it.
    pub index: usize,
    /// How many slabs the table is cut into: in an MPI job, its processes.
    pub count: usize,
    /// Its first column.
    pub first: u64,
    /// The column after its last.
    pub end: u64,
    /// The planes of the space.
    pub planes: u64,
    /// Ranks a plane (the space's size divided by `planes`).
    pub width: u64,
}

impl Slab {
    /// What the process of an MPI job that owns this slab holds beside the program, by part:
    /// (what, bytes). The plan fits the job's processes into a budget from these.
    pub fn memory(&self) -> Vec<(&'static str, u64)> {
        let entries = self.entries();
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

    /// Slab `index` of `count` of a space of `entries` ranks in `planes` planes (in an MPI job:
    /// process `index`'s of `count`). With several planes, each plane's width must be a
    /// multiple of a table word.
    pub fn of(entries: u64, planes: u64, index: usize, count: usize) -> Slab {
        Slab::cut(entries, planes, index, count, ENTRIES_PER_WORD)
    }

    /// [`Slab::of`], the slabs cut at multiples of `unit` columns (a multiple of a table word).
    pub fn cut(entries: u64, planes: u64, index: usize, count: usize, unit: u64) -> Slab {
        let width = entries / planes;
        debug_assert!(planes == 1 || width.is_multiple_of(ENTRIES_PER_WORD));
        debug_assert!(unit.is_multiple_of(ENTRIES_PER_WORD));
        Slab {
            index,
            count,
            first: bound_in(width, count, unit, index),
            end: bound_in(width, count, unit, index + 1),
            planes,
            width,
        }
    }

    /// Its number of entries.
    pub fn entries(&self) -> u64 {
        self.planes * self.columns()
    }

    /// Whether a checkpoint of `entries` entries is of a slab like it; if not, why.
    pub fn holds(&self, entries: u64) -> Result<(), String> {
        match entries == self.entries() {
            true => Ok(()),
            false => Err(format!(
                "the checkpoint holds {entries} entries, not the {} of process {}'s slab",
                self.entries(),
                self.index
            )),
        }
    }

    /// Its number of columns.
    pub fn columns(&self) -> u64 {
        self.end - self.first
    }

    /// Whether `rank` is in it.
    pub fn contains(&self, rank: u64) -> bool {
        (self.first..self.end).contains(&(rank % self.width))
    }

    /// The plane and the column of `rank` (one division, for callers that need both: which
    /// slab holds a rank, and where).
    pub fn place(&self, rank: u64) -> (u64, u64) {
        (rank / self.width, rank % self.width)
    }

    /// The entry in its table of the rank at `plane` and `column` (in it).
    pub fn entry(&self, plane: u64, column: u64) -> u64 {
        plane * self.columns() + column - self.first
    }

    /// The entry of `rank` (in it) in its table.
    pub fn local(&self, rank: u64) -> u64 {
        let (plane, column) = self.place(rank);
        self.entry(plane, column)
    }

    /// The rank of entry `local` of its table.
    pub fn global(&self, local: u64) -> u64 {
        let columns = self.columns();
        (local / columns) * self.width + self.first + local % columns
    }

    /// Its table's words as runs of the whole table's words, one a plane: (the whole table's
    /// first word, its table's first word, words), in order.
    pub fn word_runs(&self) -> Vec<(usize, usize, usize)> {
        if self.first == self.end {
            return Vec::new();
        }
        let words = self.columns().div_ceil(ENTRIES_PER_WORD) as usize;
        (0..self.planes as usize)
            .map(|p| {
                let start = (p as u64 * self.width + self.first) / ENTRIES_PER_WORD;
                (start as usize, p * words, words)
            })
            .collect()
    }

    /// The name of its checkpoint after level `level`.
    pub fn checkpoint_name(&self, level: u64) -> String {
        format!(
            "checkpoint.process-{}-of-{}.level-{level}.gsc",
            self.index, self.count
        )
    }
}

/// The first column of each process's slab, and the end: `processes + 1` bounds at table
/// words, over planes of `width` ranks.
pub fn bounds(width: u64, processes: usize) -> Vec<u64> {
    bounds_in(width, processes, ENTRIES_PER_WORD)
}

/// [`bounds`] at multiples of `unit` columns.
pub fn bounds_in(width: u64, processes: usize, unit: u64) -> Vec<u64> {
    (0..=processes)
        .map(|p| bound_in(width, processes, unit, p))
        .collect()
}

/// The first column of slab `p` of [`bounds_in`] (the end, for `p = processes`), without the
/// others: in 128 bits, since `units * p` passes 64 bits for the largest spaces.
fn bound_in(width: u64, processes: usize, unit: u64, p: usize) -> u64 {
    let units = width.div_ceil(unit) as u128;
    let first = units * p as u128 / processes as u128 * unit as u128;
    first.min(width as u128) as u64
}

/// The columns of the widest slab of [`bounds_in`] (`processes` at least 1), in constant time:
/// a plan weighs counts of slabs in the millions. The slabs' units differ by at most one, the
/// last always among the widest; only the last is cut short by the width.
pub fn widest_in(width: u64, processes: usize, unit: u64) -> u64 {
    let (units, count) = (width.div_ceil(unit), processes as u64);
    let last = width - bound_in(width, processes, unit, processes - 1);
    // With one unit over an even share, only the last slab has the extra unit.
    let others = match units % count {
        0 | 1 => units / count,
        _ => units.div_ceil(count),
    };
    last.max(others.saturating_mul(unit).min(width))
}

/// The process, the process count and the level of a checkpoint named by
/// [`Slab::checkpoint_name`], or `None` for any other name.
pub fn parse_checkpoint_name(name: &str) -> Option<(usize, usize, u64)> {
    let rest = name
        .strip_prefix("checkpoint.process-")?
        .strip_suffix(".gsc")?;
    let (process, rest) = rest.split_once("-of-")?;
    let (processes, level) = rest.split_once(".level-")?;
    Some((
        process.parse().ok()?,
        processes.parse().ok()?,
        level.parse().ok()?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slabs_cover_the_table_in_whole_words() {
        for (entries, p) in [(1000, 3), (64, 4), (31, 2), (10_000_019, 7)] {
            let b = bounds(entries, p);
            assert_eq!((b[0], b[p]), (0, entries));
            assert!(b.windows(2).all(|w| w[0] <= w[1]));
            assert!(
                b[..p]
                    .iter()
                    .all(|&x| x % ENTRIES_PER_WORD == 0 || x == entries)
            );
        }
    }

    #[test]
    fn the_widest_slab_is_the_widest_of_the_bounds() {
        for width in [1, 63, 64, 65, 1000, 4096, 10_000_019] {
            for unit in [64, 128, 4096] {
                for count in 1..=40 {
                    let widest = (bounds_in(width, count, unit).windows(2))
                        .map(|b| b[1] - b[0])
                        .max()
                        .unwrap();
                    assert_eq!(
                        widest_in(width, count, unit),
                        widest,
                        "{width} {unit} {count}"
                    );
                }
            }
        }
        // 20 pancakes: 20! ranks in millions of slabs, where `units * p` passes 64 bits.
        let width = 2_432_902_008_176_640_000;
        assert_eq!(widest_in(width, 100_000_000, 64), 24_329_020_096);
        assert_eq!(bound_in(width, 100_000_000, 64, 100_000_000), width);
    }

    #[test]
    fn a_slab_of_columns_numbers_its_ranks_plane_by_plane() {
        // 3 planes of 128 ranks across 3 processes: columns 0..32, 32..64, 64..128.
        let slabs: Vec<Slab> = (0..3).map(|p| Slab::of(384, 3, p, 3)).collect();
        let mut owners = vec![0; 384];
        for slab in &slabs {
            assert_eq!(slab.entries(), 3 * slab.columns());
            for local in 0..slab.entries() {
                let rank = slab.global(local);
                assert!(slab.contains(rank));
                assert_eq!(slab.local(rank), local);
                owners[rank as usize] += 1;
            }
            let runs = slab.word_runs();
            assert_eq!(runs.len(), 3);
            assert_eq!(
                runs[1],
                ((128 + slab.first as usize) / 32, runs[1].2, runs[1].2)
            );
        }
        assert!(owners.iter().all(|&o| o == 1));
        assert_eq!(Slab::of(384, 3, 2, 3).global(0), 64);
        assert_eq!(Slab::of(384, 3, 2, 3).global(64), 128 + 64);
    }

    #[test]
    fn checkpoint_names_give_back_their_slab_and_level() {
        let slab = Slab::of(1000, 1, 2, 3);
        let name = slab.checkpoint_name(17);
        assert_eq!(parse_checkpoint_name(&name), Some((2, 3, 17)));
        assert_eq!(parse_checkpoint_name("checkpoint.gsc"), None);
        assert_eq!(
            parse_checkpoint_name(".checkpoint.process-1-of-2.level-3.gsc.9.tmp"),
            None
        );
    }
}
