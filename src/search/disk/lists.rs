//! The first levels of a search from disk, while they are few: lists of their states in
//! memory, with no slab laid out yet, so that the thin levels of a search cost no pass over the
//! disk. Once the next level's list would not fit, the slabs are laid out from the lists.

use crate::puzzle::StateSpace;
use crate::search::slab::Slab;
use crate::search::{Silent, list};
use crate::table::UNREACHED;
use rayon::prelude::*;
use std::ops::Range;

/// Every level found so far, each as its states, ascending.
pub(super) struct Lists {
    pub(super) levels: Vec<Vec<u64>>,
    /// The bytes the lists may take, with the neighbours of a pass.
    bytes: u64,
}

impl Lists {
    /// Level 0 as `starts`, the lists within `bytes`.
    pub(super) fn new(starts: &[u64], bytes: u64) -> Lists {
        let mut first = starts.to_vec();
        first.sort_unstable();
        first.dedup();
        Lists {
            levels: vec![first],
            bytes,
        }
    }

    /// Whether the lists and the neighbours of the last level (8 bytes each, twice: found and
    /// sorted) fit their bytes, and the lists with the next level (at most those neighbours)
    /// 2/7 of them: the slabs are laid out from the lists, a slab at a time, in the rest (a
    /// slab's table, its last and next levels and a spare bitmap: 5 of the 7 bits an entry a
    /// loaded slab takes in a pass).
    pub(super) fn room_for_next(&self, moves: usize) -> bool {
        let listed: u64 = self.levels.iter().map(|l| l.len() as u64).sum();
        let last = self.levels.last().map_or(0, |l| l.len() as u64);
        let moves = moves as u64;
        8 * (listed + 2 * moves * last) <= self.bytes
            && 8 * (listed + moves * last) <= self.bytes / 7 * 2
    }

    /// Finds the next level from the last: the successors of its states in no level yet, which
    /// in an undirected graph means neither it nor the level before (no other level holds a
    /// neighbour); in a directed one any level may hold one. Keeps it unless empty; returns how
    /// many states it has.
    pub(super) fn pass<S: StateSpace>(&mut self, space: &S) -> u64 {
        let depth = self.levels.len() - 1;
        let last = &self.levels[depth];
        let first = match space.directed() {
            true => 0,
            false => depth.saturating_sub(1),
        };
        let near = &self.levels[first..];
        let seen = |r: &u64| near.iter().any(|l| l.binary_search(r).is_ok());
        let mut next = list::expand(space, last, |r| !seen(&r), &Silent);
        next.par_sort_unstable();
        next.dedup();
        let count = next.len() as u64;
        if count > 0 {
            self.levels.push(next);
        }
        count
    }

    /// The value entry `rank` holds: its level's (mod 3), or unreached.
    pub(super) fn value(&self, rank: u64) -> u8 {
        (self
            .levels
            .iter()
            .position(|l| l.binary_search(&rank).is_ok()))
        .map_or(UNREACHED, |depth| (depth % 3) as u8)
    }

    /// How many entries of `ranks` hold `value`.
    pub(super) fn count_holding(&self, ranks: &Range<u64>, value: u8) -> u64 {
        let within = |l: &Vec<u64>| {
            (l.partition_point(|&r| r < ranks.end) - l.partition_point(|&r| r < ranks.start)) as u64
        };
        (self.levels.iter().enumerate())
            .filter(|(depth, _)| (depth % 3) as u8 == value)
            .map(|(_, l)| within(l))
            .sum()
    }

    /// The smallest `limit` states of the last level.
    pub(super) fn smallest(&self, limit: usize) -> Vec<u64> {
        let last = self.levels.last().map_or(&[][..], |l| &l[..]);
        last[..limit.min(last.len())].to_vec()
    }

    /// The entries of `slab` that level `depth` holds.
    pub(super) fn in_slab(&self, depth: usize, slab: &Slab) -> Vec<u64> {
        (self.levels[depth].par_iter())
            .filter(|&&r| slab.contains(r))
            .map(|&r| slab.local(r))
            .collect()
    }
}
