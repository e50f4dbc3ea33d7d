//! Phase 2 of a pass: the residual moves. State by state with a cursor, *pushed* from the
//! frontier states (each claims its unreached neighbours atomically) while they are few,
//! *pulled* into the unreached states (each looks for a neighbour in the frontier) once those
//! are fewer. A move over the whole space that transposes tiles of ranks
//! ([`crate::puzzle::Tiles`]: a pancake flip of many) is pulled a tile at a time
//! ([`super::transpose`]) where a pass over the table, a row of 64 ranks at
//! [`TRANSPOSE_COST`] states, costs less than its states (scattered over a block of the table
//! larger than [`NEAR_TABLE_BYTES`], [`FAR_FACTOR`] times as much); those go first.

use super::frontier::{Frontier, unreached_in, unreached_run};
use super::tasks::{RESIDUAL_TASK_RANKS, ResidualRanges};
use super::transpose::Tile;
use super::{Progress, Sweep};
use crate::puzzle::{Cursor, StateSpace, Transposition};
use crate::search::smallest::{Smallest, merge_smallest};
use crate::table::{BATCH, DistanceTable};
use rayon::prelude::*;
use std::ops::Range;

/// Ranks of the blocks of a move's tiles taken together by one task, where its blocks are
/// smaller.
const TILE_TASK_RANKS: u64 = 1 << 24;

/// A pushed state costs about this many pulled ones (an atomic claim on a scattered word
/// against a prefetched read). Measured lean: the 3x4 sliding puzzle took 65.4 s with 3, 73.7 s
/// with 1; 4-peg Hanoi with 15 discs 50.1 s and 54.6 s.
const PUSH_COST: u64 = 3;

/// Transposing a row of 64 ranks of a tile costs about this many states pulled (a word read,
/// its share of a transpose in registers, a word claimed, all near in memory: tiles within
/// blocks of the table). Measured on 13 pancakes, lean, the whole search: 59.2 s with 2, 68.6 s
/// with 3, 73.5 s with 1 and 105.8 s with 6.
const TRANSPOSE_COST: u64 = 2;

/// Tables past this many bytes outgrow what the processor's address translation caches cover
/// (about 2,000 pages of 2 MiB on the machines measured): a scattered access then waits for a
/// walk of the page tables as well as for memory.
const NEAR_TABLE_BYTES: u64 = 4 << 30;

/// Past [`NEAR_TABLE_BYTES`], a scattered access (a state pushed or pulled) costs about this
/// many times what it does within, while tiles, read and claimed along rows, cost about the
/// same. Measured: random reads of 8 bytes, 16 at a time, 10.9 ns each in 1 GiB and 56.8 ns in
/// 16 GiB; a pushed state 5.8 ns on 13 pancakes (1.5 GiB), 35 ns on 14 (20.3 GiB), where a
/// pass of the whole flip in tiles took 27 s.
const FAR_FACTOR: u64 = 4;

/// [`TRANSPOSE_COST`], or in the tests 0 where one forces every tile to be pulled.
fn transpose_cost() -> u64 {
    #[cfg(test)]
    if tests::tiles_forced() {
        return 0;
    }
    TRANSPOSE_COST
}

/// How one pass applies the residual moves.
struct Plan {
    /// Whether the moves taken state by state are pushed from the frontier (else pulled).
    push: bool,
    /// The moves pulled a tile at a time ([`crate::puzzle::Tiles::transposition`]).
    transposed: Vec<(usize, Transposition)>,
}

impl Plan {
    /// Whether move `mv` is pulled a tile at a time.
    fn by_tiles(&self, mv: usize) -> bool {
        self.transposed.iter().any(|&(m, _)| m == mv)
    }

    /// Whether move `mv` is taken state by state.
    fn by_states(&self, mv: usize) -> bool {
        !self.by_tiles(mv)
    }
}

impl Sweep {
    /// Phase 2: the residual moves; returns the number of entries set and the smallest `limit`
    /// of them.
    pub(super) fn residual_pass<S: StateSpace, F: Frontier>(
        &self,
        frontier: &F,
        space: &S,
        table: &DistanceTable,
        next: u8,
        limit: usize,
        progress: &dyn Progress,
    ) -> (u64, Vec<u64>) {
        if self.bundles.is_empty() {
            return (0, Vec::new());
        }
        let plan = self.residual_plan(frontier, space, table);
        let merge = |(ca, a): (u64, Vec<u64>), (cb, b): (u64, Vec<u64>)| {
            (ca + cb, merge_smallest(a, b, limit))
        };
        // The tiles first: each entry they set is one the states need not look for.
        let by_tiles = (plan.transposed.iter())
            .map(|&(mv, shape)| {
                pull_tiles(frontier, space, table, (mv, shape), next, limit, progress)
            })
            .fold((0, Vec::new()), merge);
        let tasks: Vec<(&ResidualRanges, Range<u64>)> = self
            .bundles
            .iter()
            .filter(|b| {
                (b.ranges.iter()).any(|(_, moves)| moves.iter().any(|&mv| !plan.by_tiles(mv)))
            })
            .flat_map(|b| {
                (0..b.len)
                    .step_by(RESIDUAL_TASK_RANKS as usize)
                    .map(move |s| (b, s..(s + RESIDUAL_TASK_RANKS).min(b.len)))
            })
            .collect();
        let by_states = (tasks.par_iter())
            .map(|(bundle, offsets)| {
                let (count, smallest) = residual_task(
                    frontier,
                    space,
                    table,
                    bundle,
                    offsets.clone(),
                    &plan,
                    next,
                    limit,
                );
                progress.found(count);
                (count, smallest)
            })
            .reduce(|| (0, Vec::new()), merge);
        merge(by_tiles, by_states)
    }

    /// The residual ranges, each with its moves.
    pub(super) fn residual_ranges(&self) -> impl Iterator<Item = (Range<u64>, &[usize])> + '_ {
        self.bundles.iter().flat_map(|b| {
            b.ranges
                .iter()
                .map(move |(start, moves)| (*start..*start + b.len, moves.as_slice()))
        })
    }

    /// This pass's way with each residual move, from the frontier and unreached states of each
    /// range. A move goes the same way in every range, so that a move and its inverse (a
    /// pancake's flip is its own) go the same way: a pushed state reaches every neighbour that a
    /// pulled one would find.
    fn residual_plan<S: StateSpace, F: Frontier>(
        &self,
        frontier: &F,
        space: &S,
        table: &DistanceTable,
    ) -> Plan {
        // (ranks, frontier states, unreached states, moves) of each range.
        let ranges: Vec<(u64, u64, u64, &[usize])> = (self.residual_ranges())
            .map(|(ranks, moves)| {
                let open = unreached_in(table, ranks.clone());
                (
                    ranks.end - ranks.start,
                    frontier.count_in(ranks),
                    open,
                    moves,
                )
            })
            .collect();
        // A move over the whole space that transposes tiles costs a pass over it; states
        // scattered over a large block of the table (all of it where there is one) cost more.
        let size = space.size();
        let tiles = space.capabilities().tiles;
        let transposed = (ranges.iter())
            .filter(|&&(len, ..)| len == size)
            .flat_map(|&(len, pushed, open, moves)| {
                moves.iter().filter_map(move |&mv| {
                    let shape = tiles?.transposition(mv)?;
                    let far = match DistanceTable::bytes_for(shape.period) > NEAR_TABLE_BYTES {
                        true => FAR_FACTOR,
                        false => 1,
                    };
                    let tiles = len.div_ceil(64) * transpose_cost();
                    (tiles < (pushed * PUSH_COST).min(open) * far).then_some((mv, shape))
                })
            })
            .collect();
        let mut plan = Plan {
            push: false,
            transposed,
        };
        let (mut pushed, mut pulled) = (0, 0);
        for &(_, frontier, open, moves) in &ranges {
            let moves = moves.iter().filter(|&&mv| plan.by_states(mv)).count() as u64;
            pushed += frontier * moves;
            // A pulled state looks along all its residual moves, as a pushed one does.
            pulled += open * moves;
        }
        plan.push = pushed * PUSH_COST <= pulled;
        plan
    }
}

/// Move `mv` a tile at a time, shaped `shape`: where the space has one block, each tile made
/// where it is pulled; else every tile made once and pulled in each block, a few blocks to a
/// task. Returns the entries set and the smallest `limit` of them.
fn pull_tiles<S: StateSpace, F: Frontier>(
    frontier: &F,
    space: &S,
    table: &DistanceTable,
    (mv, shape): (usize, Transposition),
    next: u8,
    limit: usize,
    progress: &dyn Progress,
) -> (u64, Vec<u64>) {
    let merge =
        |(ca, a): (u64, Vec<u64>), (cb, b): (u64, Vec<u64>)| (ca + cb, merge_smallest(a, b, limit));
    let blocks = space.size() / shape.period;
    if blocks == 1 {
        return (0..shape.tiles)
            .into_par_iter()
            .map_init(
                || space.cursor(),
                |cursor, t| {
                    let (mut count, mut smallest) = (0, Smallest::new(limit));
                    let tile = Tile::new(space, cursor, mv, t, shape);
                    tile.pull(frontier, table, 0, next, &mut count, &mut smallest);
                    progress.found(count);
                    (count, smallest.into_sorted())
                },
            )
            .reduce(|| (0, Vec::new()), merge);
    }
    let tiles: Vec<Tile> = (0..shape.tiles)
        .into_par_iter()
        .map_init(
            || space.cursor(),
            |cursor, t| Tile::new(space, cursor, mv, t, shape),
        )
        .collect();
    let per_task = (TILE_TASK_RANKS / shape.period).max(1);
    (0..blocks.div_ceil(per_task))
        .into_par_iter()
        .map(|task| {
            let (mut count, mut smallest) = (0, Smallest::new(limit));
            for block in task * per_task..((task + 1) * per_task).min(blocks) {
                for tile in &tiles {
                    let offset = block * shape.period;
                    tile.pull(frontier, table, offset, next, &mut count, &mut smallest);
                }
            }
            progress.found(count);
            (count, smallest.into_sorted())
        })
        .reduce(|| (0, Vec::new()), merge)
}

/// The residual moves of `bundle` at `offsets` of its ranges not taken by tiles, state by
/// state. Push: each frontier state claims its unreached neighbours.
/// Pull: each unreached state joins the next level if a neighbour is in the frontier. Returns
/// the entries set and the smallest `limit` of them.
#[allow(clippy::too_many_arguments)]
fn residual_task<S: StateSpace, F: Frontier>(
    frontier: &F,
    space: &S,
    table: &DistanceTable,
    bundle: &ResidualRanges,
    offsets: Range<u64>,
    plan: &Plan,
    next: u8,
    limit: usize,
) -> (u64, Vec<u64>) {
    let push = plan.push;
    let mut cursor = space.cursor();
    let mut count = 0;
    let mut smallest = Smallest::new(limit);
    // Each range's moves taken state by state.
    let state_moves: Vec<Vec<usize>> = (bundle.ranges.iter())
        .map(|(_, moves)| {
            moves
                .iter()
                .copied()
                .filter(|&mv| plan.by_states(mv))
                .collect()
        })
        .collect();
    // (state, neighbour) pairs waiting for their lookups.
    let mut batch: Vec<(u64, u64)> = Vec::with_capacity(BATCH + 16);
    let mut flush = |batch: &mut Vec<(u64, u64)>| {
        for &(rank, n) in batch.iter() {
            let (target, hit) = if push {
                (n, true)
            } else {
                (rank, frontier.contains(n))
            };
            if hit && table.claim(target, next) {
                count += 1;
                smallest.push(target);
            }
        }
        batch.clear();
    };
    let bits = |start: u64, at: u64, take: u64| {
        if push {
            frontier.bits_at(start + at, take)
        } else {
            unreached_run(table, start + at, take)
        }
    };
    // A cursor with runs (a reduced space's blocks) goes range by range, each run of ranks
    // move by move, so that it meets each block once.
    let first = bundle.ranges.first().map_or(0, |r| r.0 + offsets.start);
    if cursor.seek_run(first) > first + 1 {
        let mut ranks = Vec::new();
        for ((start, _), moves) in bundle.ranges.iter().zip(&state_moves) {
            if moves.is_empty() {
                continue;
            }
            ranks.clear();
            for at in offsets.clone().step_by(64) {
                let mut word = bits(*start, at, (offsets.end - at).min(64));
                while word != 0 {
                    ranks.push(start + at + u64::from(word.trailing_zeros()));
                    word &= word - 1;
                }
            }
            let mut i = 0;
            while i < ranks.len() {
                let end = cursor.seek_run(ranks[i]);
                let j = i + ranks[i..].partition_point(|&r| r < end);
                for &mv in moves {
                    cursor.each_neighbour_in_run(&ranks[i..j], mv, |rank, n| {
                        match push {
                            true => table.prefetch(n),
                            false => frontier.prefetch(n),
                        }
                        batch.push((rank, n));
                        if batch.len() >= BATCH {
                            flush(&mut batch);
                        }
                    });
                }
                i = j;
            }
        }
        flush(&mut batch);
        return (count, smallest.into_sorted());
    }
    let mut words = vec![0u64; bundle.ranges.len()];
    let mut at = offsets.start;
    while at < offsets.end {
        let take = (offsets.end - at).min(64);
        for ((word, (start, _)), moves) in words.iter_mut().zip(&bundle.ranges).zip(&state_moves) {
            *word = match moves.is_empty() {
                true => 0,
                false => bits(*start, at, take),
            };
        }
        let mut any = words.iter().fold(0, |a, &w| a | w);
        while any != 0 {
            let i = any.trailing_zeros() as u64;
            any &= any - 1;
            for (((start, _), moves), word) in bundle.ranges.iter().zip(&state_moves).zip(&words) {
                if word >> i & 1 == 0 {
                    continue;
                }
                let rank = start + at + i;
                cursor.seek(rank);
                for &mv in moves {
                    let n = cursor.neighbour(mv);
                    if push {
                        table.prefetch(n);
                    } else {
                        frontier.prefetch(n);
                    }
                    batch.push((rank, n));
                }
            }
            if batch.len() >= BATCH {
                flush(&mut batch);
            }
        }
        at += take;
    }
    flush(&mut batch);
    (count, smallest.into_sorted())
}

#[cfg(test)]
mod tests {
    use crate::puzzle::StateSpace;
    use crate::puzzle::pancake::Pancake;
    use crate::search::cpu::search;
    use crate::search::{Footprint, Options, PassPolicy, Silent};
    use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

    /// Whether every move that transposes tiles is pulled a tile at a time wherever states are
    /// to be found, while a test sets it (other tests' sweeps then too; they find the same
    /// tables, only slower).
    static TILES: AtomicBool = AtomicBool::new(false);

    /// Whether the tests force tiles.
    pub(super) fn tiles_forced() -> bool {
        TILES.load(Relaxed)
    }

    #[test]
    fn pancakes_by_tiles_match_cayleypy_and_the_top_down_scans() {
        // Flip 10 of 10 pancakes transposes tiles in one block; with block moves of blocks up
        // to 720 ranks only (then not sliced), flips 7 to 10 do, in 720, 90, 10 and 1 blocks;
        // with blocks up to 3,840 (sliced), flips 6 to 8 of 8 burnt ones, in 224, 16 and 1.
        // The levels are CayleyPy's (results/published.md).
        let ten: &[u64] = &[
            1, 9, 72, 575, 3963, 22825, 106461, 377863, 919365, 1309756, 814678, 73232,
        ];
        let cases: [(Pancake, usize, &[u64]); 3] = [
            (Pancake::new(10, false).unwrap(), 1, ten),
            (
                Pancake::new(10, false).unwrap().block_moves_up_to(720),
                4,
                ten,
            ),
            (
                Pancake::new(8, true).unwrap().block_moves_up_to(3840),
                3,
                &[
                    1, 8, 56, 392, 2548, 14056, 68656, 276136, 901970, 2195663, 3531887, 2743477,
                    562095, 24627, 347, 1,
                ],
            ),
        ];
        let options = |policy, footprint| Options {
            antipode_limit: 100,
            policy,
            footprint,
        };
        for (space, residual, published) in cases {
            assert_eq!(
                space.capabilities().structure().unwrap().residual.len(),
                residual
            );
            let scanned = search(
                &space,
                &options(PassPolicy::TopDown, Footprint::Lean),
                &Silent,
            );
            // The burnt stacks, 10 million, only lean.
            let footprints = match space.size() > 5_000_000 {
                true => &[Footprint::Lean][..],
                false => &[Footprint::Full, Footprint::Lean][..],
            };
            for &footprint in footprints {
                TILES.store(true, Relaxed);
                let outcome = search(&space, &options(PassPolicy::Sweep, footprint), &Silent);
                assert_eq!(outcome.levels.iter().collect::<Vec<_>>(), published);
                assert_eq!(outcome.antipodes, scanned.antipodes);
                let differ =
                    (0..space.size()).find(|&r| outcome.table.get(r) != scanned.table.get(r));
                assert_eq!(differ, None, "{residual} {footprint:?}");
            }
        }
        TILES.store(false, Relaxed);
    }
}
