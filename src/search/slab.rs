//! Slabs: the parts of the rank space that the processes of an MPI job own, one each
//! ([`crate::search::cluster`]), and how a process's part of a checkpoint is named.
//!
//! A slab is a range of ranks in whole table words (the last ends with the table), so that a
//! process's table words are the whole table's words from its first on.

use super::table::ENTRIES_PER_WORD;
use serde::{Deserialize, Serialize};

/// One process's slab in a job of `processes`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slab {
    /// The process that owns it, 0 to `processes - 1`.
    pub process: usize,
    /// How many processes the job has.
    pub processes: usize,
    /// Its first rank.
    pub first: u64,
    /// The rank after its last.
    pub end: u64,
}

impl Slab {
    /// Process `process`'s slab of a table of `entries` in a job of `processes`.
    pub fn of(entries: u64, process: usize, processes: usize) -> Slab {
        let bounds = bounds(entries, processes);
        Slab {
            process,
            processes,
            first: bounds[process],
            end: bounds[process + 1],
        }
    }

    /// Its number of entries.
    pub fn entries(&self) -> u64 {
        self.end - self.first
    }

    /// The table word holding its first rank.
    pub fn first_word(&self) -> usize {
        (self.first / ENTRIES_PER_WORD) as usize
    }

    /// The name of its checkpoint after level `level`.
    pub fn checkpoint_name(&self, level: u64) -> String {
        format!(
            "checkpoint.process-{}-of-{}.level-{level}.gsc",
            self.process, self.processes
        )
    }
}

/// The first rank of each process's slab, and the end: `processes + 1` bounds at table words.
pub fn bounds(entries: u64, processes: usize) -> Vec<u64> {
    let words = entries.div_ceil(ENTRIES_PER_WORD);
    (0..=processes as u64)
        .map(|p| (words * p / processes as u64 * ENTRIES_PER_WORD).min(entries))
        .collect()
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
    fn checkpoint_names_give_back_their_slab_and_level() {
        let slab = Slab::of(1000, 2, 3);
        let name = slab.checkpoint_name(17);
        assert_eq!(parse_checkpoint_name(&name), Some((2, 3, 17)));
        assert_eq!(parse_checkpoint_name("checkpoint.gsc"), None);
        assert_eq!(
            parse_checkpoint_name(".checkpoint.process-1-of-2.level-3.gsc.9.tmp"),
            None
        );
    }
}
