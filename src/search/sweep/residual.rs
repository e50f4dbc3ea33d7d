//! Phase 2 of a pass: the residual moves. State by state with a cursor, *pushed* from the
//! frontier states (each claims its unreached neighbours atomically) while they are few,
//! *pulled* into the unreached states (each looks for a neighbour in the frontier) once those
//! are fewer. A move that keeps ranks together in runs ([`StateSpace::residual_run`]) is pulled
//! *run by run* where its runs, read at [`RUN_COST`] states each, cost less than the states
//! either way would take: the unreached entries of a run read the frontier bits of its source
//! run as one bit string (a pancake's middle flips, whose tables of top digits are too large
//! for block moves). A move over the whole space that transposes tiles of ranks
//! ([`StateSpace::transposition`]: a pancake flip of all but a few) is pulled a tile at a time
//! ([`super::transpose`]) where a pass over the table, a row of 64 ranks at
//! [`TRANSPOSE_COST`] states (and [`SPREAD_COST_QUARTERS`] a frontier state where the rows the
//! other way are spread out), costs less than its states (scattered over a table larger than
//! [`NEAR_TABLE_BYTES`], [`FAR_FACTOR`] times as much); those go first.

use super::frontier::{Frontier, claim_unit, or_run, unreached_in, unreached_run};
use super::tasks::{RESIDUAL_TASK_RANKS, ResidualRanges};
use super::transpose::Tile;
use super::{Progress, Sweep};
use crate::puzzle::{Cursor, StateSpace, Transposition};
use crate::search::bitmap::mask;
use crate::search::smallest::{Smallest, merge_smallest};
use crate::table::{BATCH, DistanceTable, UNREACHED};
use rayon::prelude::*;
use std::ops::Range;

/// A pushed state costs about this many pulled ones (an atomic claim on a scattered word
/// against a prefetched read). Measured lean: the 3x4 sliding puzzle took 65.4 s with 3, 73.7 s
/// with 1; 4-peg Hanoi with 15 discs 50.1 s and 54.6 s.
const PUSH_COST: u64 = 3;

/// Units of 64 ranks whose runs are pulled together, their sources prefetched first.
const RUN_UNITS: usize = 256;

/// A run read costs about this many states pushed or pulled (its neighbour found afresh, a
/// scattered read); measured on 13 pancakes.
const RUN_COST: u64 = 4;

/// Transposing a row of 64 ranks of a tile costs about this many states pulled (a word read,
/// its share of a transpose in registers, a word claimed, all near in memory; most words hold
/// a frontier state once 3% of the states do), two pushed. Measured on 13 pancakes: tiles took
/// longer than the states where the frontier held 3% of the space, less at 10% (on 14, whose
/// table is past [`NEAR_TABLE_BYTES`], tiles took less from 3% on).
const TRANSPOSE_COST: u64 = 6;

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

/// Where a tile's rows the other way are spread out, each frontier state costs about this
/// many quarters of a state pulled besides (its share of a claim of the unit of 64 ranks it
/// reaches). Measured on 13 pancakes: flips of 10 to 12 took 14 s in tiles where 35% of the
/// states were in the frontier, 10 s pulled.
const SPREAD_COST_QUARTERS: u64 = 3;

/// [`RUN_COST`], or in the tests 0 where one forces every run to be pulled.
fn run_cost() -> u64 {
    #[cfg(test)]
    if tests::forced(tests::RUNS) {
        return 0;
    }
    RUN_COST
}

/// [`TRANSPOSE_COST`], or in the tests 0 where one forces every tile to be pulled.
fn transpose_cost() -> u64 {
    #[cfg(test)]
    if tests::forced(tests::TILES) {
        return 0;
    }
    TRANSPOSE_COST
}

/// How one pass applies the residual moves.
struct Plan {
    /// Whether the moves taken state by state are pushed from the frontier (else pulled).
    push: bool,
    /// The run lengths ([`StateSpace::residual_run`]) of the moves pulled run by run.
    run_lengths: Vec<u64>,
    /// The moves pulled a tile at a time ([`StateSpace::transposition`]).
    transposed: Vec<(usize, Transposition)>,
}

impl Plan {
    /// Whether move `mv` is pulled a tile at a time.
    fn by_tiles(&self, mv: usize) -> bool {
        self.transposed.iter().any(|&(m, _)| m == mv)
    }

    /// Whether move `mv` is pulled run by run.
    fn by_runs<S: StateSpace>(&self, space: &S, mv: usize) -> bool {
        !self.by_tiles(mv) && self.run_lengths.contains(&space.residual_run(mv))
    }

    /// Whether move `mv` is taken state by state.
    fn by_states<S: StateSpace>(&self, space: &S, mv: usize) -> bool {
        !self.by_tiles(mv) && !self.by_runs(space, mv)
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
        let tiles: Vec<(usize, usize, Transposition)> = (plan.transposed.iter())
            .flat_map(|&(mv, shape)| (0..shape.tiles).map(move |t| (mv, t, shape)))
            .collect();
        let by_tiles = (tiles.par_iter())
            .map_init(
                || space.cursor(),
                |cursor, &(mv, t, shape)| {
                    let (mut count, mut smallest) = (0, Smallest::new(limit));
                    let tile = Tile::new(space, cursor, mv, t, shape);
                    tile.pull(frontier, table, next, &mut count, &mut smallest);
                    progress.found(count);
                    (count, smallest.into_sorted())
                },
            )
            .reduce(|| (0, Vec::new()), merge);
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
    /// range. The choice for a run length holds for every range, so that a move and its inverse
    /// (which has the same runs) go the same way: a pushed state reaches every neighbour that a
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
        // scattered over a large table cost more.
        let size = space.size();
        let far = match DistanceTable::bytes_for(table.entries()) > NEAR_TABLE_BYTES {
            true => FAR_FACTOR,
            false => 1,
        };
        let transposed = (ranges.iter())
            .filter(|&&(len, ..)| len == size)
            .flat_map(|&(len, pushed, open, moves)| {
                moves.iter().filter_map(move |&mv| {
                    let shape = space.transposition(mv)?;
                    // Spread-out rows cost a claim per unit of 64 ranks that a word reaches.
                    let spread = match shape.classes {
                        1 => 0,
                        _ => pushed * SPREAD_COST_QUARTERS / 4,
                    };
                    let tiles = len.div_ceil(64) * transpose_cost() + spread;
                    (tiles < (pushed * PUSH_COST).min(open) * far).then_some((mv, shape))
                })
            })
            .collect();
        let mut plan = Plan {
            push: false,
            run_lengths: Vec::new(),
            transposed,
        };
        let mut lengths: Vec<u64> = (ranges.iter())
            .flat_map(|(_, _, _, moves)| moves.iter().filter(|&&mv| !plan.by_tiles(mv)))
            .map(|&mv| space.residual_run(mv))
            .filter(|&run| run > 1)
            .collect();
        lengths.sort_unstable();
        lengths.dedup();
        // A run read (once per run holding an open entry, and where a group of units cuts
        // one) costs RUN_COST states.
        plan.run_lengths = (lengths.into_iter())
            .filter(|&run| {
                let (mut runs, mut states) = (0, 0);
                for &(len, pushed, open, moves) in &ranges {
                    let with = (moves.iter())
                        .filter(|&&mv| !plan.by_tiles(mv) && space.residual_run(mv) == run);
                    let moves = with.count() as u64;
                    let reads = len.div_ceil(run) + len.div_ceil(64 * RUN_UNITS as u64);
                    runs += reads.min(open) * moves;
                    states += (pushed * PUSH_COST).min(open) * moves;
                }
                runs * run_cost() < states
            })
            .collect();
        let (mut pushed, mut pulled) = (0, 0);
        for &(_, frontier, open, moves) in &ranges {
            let moves = moves
                .iter()
                .filter(|&&mv| plan.by_states(space, mv))
                .count() as u64;
            pushed += frontier * moves;
            // A pulled state looks along all its residual moves, as a pushed one does.
            pulled += open * moves;
        }
        plan.push = pushed * PUSH_COST <= pulled;
        plan
    }
}

/// The residual moves of `bundle` at `offsets` of its ranges: first those pulled run by run,
/// then the rest state by state. Push: each frontier state claims its unreached neighbours.
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
    let mut state_moves = Vec::with_capacity(bundle.ranges.len());
    for (start, moves) in &bundle.ranges {
        let runs: Vec<usize> = (moves.iter().copied())
            .filter(|&mv| plan.by_runs(space, mv))
            .collect();
        let states: Vec<usize> = (moves.iter().copied())
            .filter(|&mv| plan.by_states(space, mv))
            .collect();
        if !runs.is_empty() {
            // Longest runs first: each entry they find is one the others need not look for.
            let mut runs: Vec<(usize, u64)> = (runs.into_iter())
                .map(|mv| (mv, space.residual_run(mv)))
                .collect();
            runs.sort_by_key(|&(_, run)| std::cmp::Reverse(run));
            let ranks = start + offsets.start..start + offsets.end;
            let claims = &mut |unit, bits| {
                let new = claim_unit(table, unit, bits, next);
                count += new.count_ones() as u64;
                let mut bits = new;
                while bits != 0 {
                    smallest.push(unit * 64 + bits.trailing_zeros() as u64);
                    bits &= bits - 1;
                }
            };
            pull_by_runs(frontier, table, &mut cursor, ranks, &runs, claims);
        }
        state_moves.push(states);
    }
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

/// Pulls `moves` (each with its runs' length) run by run into the unreached entries of
/// `ranks`: a group of units at a time, move by move, each run holding an entry still open reads
/// its source run's frontier bits (the first word prefetched) as one bit string. Hands each unit
/// with entries found to `claims`, as (unit, bits), in ascending order.
fn pull_by_runs<F: Frontier, C: Cursor>(
    frontier: &F,
    table: &DistanceTable,
    cursor: &mut C,
    ranks: Range<u64>,
    moves: &[(usize, u64)],
    claims: &mut dyn FnMut(u64, u64),
) {
    let last = (ranks.end - 1) / 64;
    let mut first = ranks.start / 64;
    // (first bit in the group, source rank, bits) of each run read.
    let mut pieces: Vec<(u64, u64, u64)> = Vec::new();
    while first <= last {
        let units = ((last + 1 - first) as usize).min(RUN_UNITS);
        let origin = first * 64;
        let end = ranks.end.min(origin + 64 * units as u64);
        let mut open = [0u64; RUN_UNITS];
        let mut found = [0u64; RUN_UNITS];
        for (i, o) in open[..units].iter_mut().enumerate() {
            let unit = first + i as u64;
            let lo = (unit * 64).max(ranks.start);
            let hi = (unit * 64 + 64).min(ranks.end);
            *o = table.value_bits(unit as usize, UNREACHED) & mask(lo - unit * 64, hi - lo);
        }
        for &(mv, run) in moves {
            let mut want = [0u64; RUN_UNITS];
            for i in 0..units {
                want[i] = open[i] & !found[i];
            }
            pieces.clear();
            let mut from = 0;
            while let Some(bit) = next_bit(&want[..units], from) {
                let at = origin + bit;
                let stop = ((at / run + 1) * run).min(end);
                cursor.seek(at);
                let source = cursor.neighbour(mv);
                frontier.prefetch(source);
                pieces.push((bit, source, stop - at));
                from = stop - origin;
            }
            for &(bit, source, len) in &pieces {
                or_run(&mut found[..units], bit, frontier, source, len);
            }
        }
        for i in 0..units {
            let hits = open[i] & found[i];
            if hits != 0 {
                claims(first + i as u64, hits);
            }
        }
        first += units as u64;
    }
}

/// The first bit set in `bits` at or after bit `from`.
fn next_bit(bits: &[u64], from: u64) -> Option<u64> {
    let mut w = (from / 64) as usize;
    let mut word = bits.get(w)? & (u64::MAX << (from % 64));
    while word == 0 {
        w += 1;
        word = *bits.get(w)?;
    }
    Some(w as u64 * 64 + word.trailing_zeros() as u64)
}

#[cfg(test)]
mod tests {
    use super::pull_by_runs;
    use crate::puzzle::pancake::Pancake;
    use crate::puzzle::{Cursor, StateSpace};
    use crate::search::bitmap::Bitmap;
    use crate::search::{Footprint, Options, PassPolicy, Silent, search};
    use crate::table::{DistanceTable, UNREACHED};
    use std::collections::BTreeMap;
    use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

    /// Moves that send each run of consecutive ranks to another: move `m` has runs of
    /// `moves[m].0` ranks and sends run `x` to run `x * moves[m].1 + 3` (modulo the runs).
    struct Shuffle {
        size: u64,
        moves: Vec<(u64, u64)>,
        rank: u64,
    }

    impl Cursor for Shuffle {
        fn seek(&mut self, rank: u64) {
            self.rank = rank;
        }
        fn neighbour(&mut self, mv: usize) -> u64 {
            let (run, times) = self.moves[mv];
            let x = (self.rank / run * times + 3) % (self.size / run);
            x * run + self.rank % run
        }
    }

    /// A well-mixed function of `x`.
    fn mix(x: u64) -> u64 {
        let x = (x ^ (x >> 31)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (x ^ (x >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9) ^ (x >> 32)
    }

    #[test]
    fn runs_are_pulled_whole_across_units_groups_and_the_edges_of_the_ranks() {
        // Runs within a unit, of a unit exactly, across units, and across groups of units; 13
        // runs of the longer (prime to 7), every length prime to 11 in the shorter.
        for (long, short) in [(64, 1), (200, 5), (3000, 40), (40_000, 8)] {
            let size = 13 * long;
            let moves = vec![(long, 7), (short, 11)];
            let mut cursor = Shuffle {
                size,
                moves: moves.clone(),
                rank: 0,
            };
            let table = DistanceTable::new(size);
            for r in (0..size).filter(|&r| mix(r).is_multiple_of(3)) {
                table.claim(r, 1);
            }
            let frontier = Bitmap::from_fn(size, |w| mix(w as u64 + size));
            let ranks = 1234 % (size / 2)..size - 77;
            let moves: Vec<(usize, u64)> = moves.iter().map(|m| m.0).enumerate().collect();
            let mut got = BTreeMap::new();
            let claims = &mut |unit, bits| assert!(got.insert(unit, bits).is_none());
            pull_by_runs(
                &frontier,
                &table,
                &mut cursor,
                ranks.clone(),
                &moves,
                claims,
            );
            let mut want = BTreeMap::new();
            for r in ranks {
                cursor.seek(r);
                let hit = (0..2).any(|mv| frontier.contains(cursor.neighbour(mv)));
                if hit && table.get(r) == UNREACHED {
                    *want.entry(r / 64).or_insert(0u64) |= 1 << (r % 64);
                }
            }
            assert_eq!(got, want, "runs of {long} and {short}");
        }
    }

    /// Ways every move that has them takes wherever states are to be found, while a test sets
    /// them (other tests' sweeps then too; they find the same tables, only slower): a set of
    /// [`RUNS`] and [`TILES`].
    static FORCED: AtomicU8 = AtomicU8::new(0);
    /// Moves with runs pulled run by run.
    pub(super) const RUNS: u8 = 1;
    /// Moves that transpose tiles pulled a tile at a time.
    pub(super) const TILES: u8 = 2;

    /// Whether the tests force `way`.
    pub(super) fn forced(way: u8) -> bool {
        FORCED.load(Relaxed) & way != 0
    }

    #[test]
    fn pancakes_pulled_run_by_run_and_by_tiles_match_cayleypy_and_the_top_down_scans() {
        // Flips 7 to 10 of 10 pancakes are residual, in runs of 6, 2, 1 and 1 ranks, and
        // flips 6 to 8 of 8 burnt ones, in runs of 8, 2 and 1: all transpose tiles, in classes
        // but the whole flips. The levels are CayleyPy's (results/published.md).
        let cases: [(Pancake, usize, &[u64]); 2] = [
            (
                Pancake::new(10, false).unwrap(),
                4,
                &[
                    1, 9, 72, 575, 3963, 22825, 106461, 377863, 919365, 1309756, 814678, 73232,
                ],
            ),
            (
                Pancake::new(8, true).unwrap(),
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
            assert_eq!(space.structure().unwrap().residual.len(), residual);
            let scanned = search(
                &space,
                &options(PassPolicy::TopDown, Footprint::Lean),
                &Silent,
            );
            let all = [
                (RUNS, Footprint::Full),
                (RUNS, Footprint::Lean),
                (RUNS | TILES, Footprint::Lean),
            ];
            // The burnt stacks, 10 million, only with tiles (the runs as for the others).
            let ways = if space.size() > 5_000_000 {
                &all[2..]
            } else {
                &all[..]
            };
            for &(ways, footprint) in ways {
                FORCED.store(ways, Relaxed);
                let outcome = search(&space, &options(PassPolicy::Sweep, footprint), &Silent);
                assert_eq!(outcome.levels.iter().collect::<Vec<_>>(), published);
                assert_eq!(outcome.antipodes, scanned.antipodes);
                let differ =
                    (0..space.size()).find(|&r| outcome.table.get(r) != scanned.table.get(r));
                assert_eq!(differ, None, "{ways} {footprint:?}");
            }
        }
        FORCED.store(0, Relaxed);
    }
}
