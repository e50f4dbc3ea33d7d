//! The last levels of a search from disk, once few states are left: the unreached states as a
//! list in memory, and the levels found among them, with no pass over the slabs. After level
//! `d`, an unreached state's neighbours lie in level `d` or are unreached themselves (it is at
//! least `d + 1` away), so it joins level `d + 1` exactly when a neighbour is not in the list.

use crate::puzzle::{Cursor, StateSpace, Way};
use crate::search::bitmap::Bitmap;
use crate::search::isolated;
use crate::search::list::STATES_PER_TASK;
use crate::search::slab::Slab;
use crate::table::{DistanceTable, UNREACHED};
use rayon::prelude::*;

/// Table words a task reads when the tail lists a slab's unreached states.
const WORDS_PER_TASK: usize = 1 << 12;

/// The states of `slab` the tail lists, as ranks of the whole space: those `table`
/// holds unreached and those of the level being found (`next`), less those whose only
/// neighbour is themselves ([`isolated`]): no pass reaches them (in a table reduced by
/// symmetry, the entries that hold no class), so the list holds only states still to reach.
pub(super) fn open_ranks<S: StateSpace>(
    space: &S,
    slab: &Slab,
    table: &DistanceTable,
    next: &Bitmap,
) -> Vec<u64> {
    let (words, moves) = (next.word_count(), space.moves_for(Way::Pull));
    let parts: Vec<Vec<u64>> = (0..words.div_ceil(WORDS_PER_TASK))
        .into_par_iter()
        .map_init(
            || space.cursor(),
            |cursor, task| {
                let mut ranks = Vec::new();
                for w in task * WORDS_PER_TASK..((task + 1) * WORDS_PER_TASK).min(words) {
                    let open = table.value_bits(w, UNREACHED) | next.word(w);
                    let open_ranks = (0..64)
                        .filter(|b| open >> b & 1 == 1)
                        .map(|b| slab.global(w as u64 * 64 + b))
                        .filter(|&r| !isolated(cursor, r, moves.clone()));
                    ranks.extend(open_ranks);
                }
                ranks
            },
        )
        .collect();
    parts.concat()
}

/// The unreached states, and the levels found among them (never written to the slabs: the
/// distances file reads them over the slabs' tables, [`super::view::SlabsView`]).
pub(super) struct Tail {
    /// The unreached states, ascending.
    pub(super) remaining: Vec<u64>,
    /// The levels found: (depth, states ascending).
    pub(super) levels: Vec<(u64, Vec<u64>)>,
}

impl Tail {
    /// Whether the tail of `unreached` states in a space of `entries` entries and `moves`
    /// moves fits `bytes` (24 bytes a state: the list, a level as large, the list without it)
    /// and beats a pass over the slabs: a binary search costs about a microsecond once the list
    /// outgrows the caches, a pass over the slabs about a nanosecond an entry.
    pub(super) fn pays(unreached: u64, entries: u64, moves: usize, bytes: u64) -> bool {
        24 * unreached <= bytes && unreached * moves as u64 <= entries / 1024
    }

    /// Finds level `depth` among the unreached states (the last level being `depth - 1`): keeps
    /// it unless empty and takes it from the list; returns how many states it has.
    pub(super) fn pass<S: StateSpace>(&mut self, space: &S, depth: u64) -> u64 {
        let moves = space.moves_for(Way::Pull);
        let remaining = &self.remaining;
        let unreached = |r: &u64| remaining.binary_search(r).is_ok();
        let level: Vec<u64> = (remaining.par_chunks(STATES_PER_TASK))
            .flat_map_iter(|chunk| {
                let mut cursor = space.cursor();
                let mut out = Vec::new();
                for &rank in chunk {
                    cursor.seek(rank);
                    if moves.clone().any(|m| !unreached(&cursor.neighbour(m))) {
                        out.push(rank);
                    }
                }
                out
            })
            .collect();
        let count = level.len() as u64;
        if count > 0 {
            let mut left = Vec::with_capacity(self.remaining.len() - level.len());
            let mut found = level.iter().peekable();
            for &r in &self.remaining {
                if found.next_if_eq(&&r).is_none() {
                    left.push(r);
                }
            }
            self.remaining = left;
            self.levels.push((depth, level));
        }
        count
    }

    /// The smallest `limit` states of the last level found here.
    pub(super) fn smallest(&self, limit: usize) -> Vec<u64> {
        let last = self.levels.last().map_or(&[][..], |(_, l)| &l[..]);
        last[..limit.min(last.len())].to_vec()
    }
}
