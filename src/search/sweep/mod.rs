//! Sweep passes, for spaces with [`Structure`]: a level found mostly 64 entries at a time.
//!
//! The frontier is level `d`: a [`Bitmap`] of exactly its states under [`Footprint::Full`], or
//! under [`Footprint::Lean`] the table's entries holding `d mod 3` (levels `d - 3`, `d - 6`, ...
//! too: their neighbours are all reached, so pulling from them sets nothing more). A pass sets
//! every unreached entry with a neighbour in the frontier to the next level, in two phases:
//!
//! 1. **Block moves**, pulled: each task owns a range of target ranks, collects in a local bitmap
//!    the frontier bits its block moves bring there — whole runs of consecutive ranks are copied
//!    as bit strings, then short runs: single ranks moved within blocks kept in place 64 blocks
//!    at a time (`sliced`), the rest bit by bit through tables of positions, pushed from the
//!    frontier states or pulled into the entries still open, whichever are fewer — and sets the
//!    unreached ones. No atomic operation but at the task's edges.
//! 2. **Residual moves** (`residual`), state by state with a cursor, pushed from the frontier
//!    or pulled into the unreached entries, whichever are fewer, and moves that transpose tiles
//!    of ranks (`transpose`) a tile at a time where a pass over the table costs less.
//!
//! Under [`Footprint::Full`] the entries set in the pass form the next frontier bitmap.
//!
//! The pass and phase 1 are this module; phase 2 (`residual`, its tiles `transpose`), what
//! a pass reads (`frontier`), the block moves it prepares (`positions`) and takes sliced
//! (`sliced`) and how its work is split into tasks (`tasks`) stand apart.
//!
//! [`Footprint::Full`]: super::Footprint::Full
//! [`Footprint::Lean`]: super::Footprint::Lean

pub(crate) mod frontier;
mod positions;
mod residual;
mod sliced;
mod tasks;
mod transpose;

use super::Progress;
use super::bitmap::{Bitmap, mask};
use super::smallest::{merge_smallest, push_unit};
use crate::puzzle::{BlockMove, MAX_TABLE_BLOCK, SHORT_RUN, StateSpace, Structure};
use crate::rank::window::{WindowMove, prefix_parity};
use crate::table::{DistanceTable, UNREACHED, holding_bits, matches, spread, squeeze};
use frontier::*;
use positions::*;
use rayon::prelude::*;
use sliced::Slices;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use tasks::*;

/// The most bytes all tables of positions of a search take together (counted in the plan's
/// fixed room); moves past it move run by run.
const MAX_POSITION_BYTES: u64 = 64 << 20;

/// Runs of a block move whose sources are prefetched together before they are read.
const RUN_BATCH: usize = 16;

/// The sweep state of one search: the frontier bitmaps and the work split into tasks.
pub(super) struct Sweep {
    prepared: Vec<Prepared>,
    /// The block moves taken 64 blocks at a time, where some can be.
    slices: Option<Slices>,
    tasks: Vec<Task>,
    /// The residual moves: sets of equally long ranges of ranks, each with the moves to apply
    /// there through a cursor. A residual task walks the same offsets of all ranges of a bundle
    /// together, so that a cursor often meets the same arrangement in several of them.
    bundles: Vec<ResidualRanges>,
    /// The last level and the level being found, as bitmaps; `None` when lean (the last level
    /// is read from the table).
    bitmaps: Option<Bitmaps>,
    /// Which tasks hold the level the last pass found, where it alone set them (no residual
    /// moves): the next pass skips the moves whose sources hold none (a puzzle whose blocks
    /// alternate with the levels, as the sliding puzzles' blank cells do, skips half).
    holding: Option<Holding>,
}

/// What one pass takes besides the frontier.
struct Pass<'a> {
    /// Which tasks hold the last level, where known.
    holding: Option<&'a Holding>,
    /// Where the tasks that set entries are marked, where that is kept.
    found: Option<&'a Bitmap>,
    /// The value the new level's entries get.
    next: u8,
    /// How many of the smallest ranks set the pass keeps.
    limit: usize,
}

/// A sweep's bitmaps under the full footprint.
struct Bitmaps {
    /// The last level.
    frontier: Bitmap,
    /// The level being found.
    next: Bitmap,
}

impl Sweep {
    /// The sweep of `structure` over `size` ranks, starting from the level `last` as a bitmap,
    /// or (`None`) with no bitmaps at all, reading levels from the table.
    pub fn new(structure: Structure, size: u64, last: Option<Bitmap>) -> Sweep {
        let mut room = MAX_POSITION_BYTES;
        // Block moves that share their maps (a table reduced by symmetry, block by block)
        // share their tables of positions.
        let mut made = HashMap::new();
        let prepared: Vec<Prepared> = (structure.blocks.into_iter())
            // A move that leaves every rank where it is (a sliding puzzle's blank at an edge)
            // never finds anything.
            .filter(|mv| mv.from != mv.to || !mv.window.is_identity())
            .map(|mv| Prepared {
                positions: (made.entry(mv.window.maps_id()))
                    .or_insert_with(|| Positions::new(&mv.window, &mut room).map(Arc::new))
                    .clone(),
                mv,
            })
            .collect();
        let slices = Slices::new(&prepared);
        let align = slices.as_ref().map_or(1, |s| 64 * s.block);
        let tasks = block_tasks(&prepared, align);
        let bundles = residual_bundles(structure.residual);
        Sweep {
            prepared,
            slices,
            tasks,
            bundles,
            bitmaps: last.map(|frontier| Bitmaps {
                frontier,
                next: Bitmap::new(size),
            }),
            holding: None,
        }
    }

    /// One pass: level `depth`, whose entries hold `depth mod 3` (and `list`, where it is
    /// listed), to the next; the states set and the smallest `limit` of them.
    pub fn pass<S: StateSpace>(
        &mut self,
        space: &S,
        table: &DistanceTable,
        depth: u64,
        list: Option<&[u64]>,
        limit: usize,
        progress: &dyn Progress,
    ) -> (u64, Vec<u64>) {
        let (current, next) = ((depth % 3) as u8, ((depth + 1) % 3) as u8);
        // Which tasks hold the level, where every move is a block move (each rank a move
        // reaches is then some task's): from the last pass where it was this sweep's, else
        // from the level's list.
        let exact = self.bundles.is_empty();
        let holding = (self.holding.take().filter(|h| h.level == depth))
            .or_else(|| list.map(|ranks| Holding::listed(depth, &self.tasks, ranks)))
            .filter(|_| exact);
        let keep = exact.then(|| Bitmap::new(self.tasks.len() as u64));
        let pass = Pass {
            holding: holding.as_ref(),
            found: keep.as_ref(),
            next,
            limit,
        };
        let found = match &self.bitmaps {
            Some(b) => {
                let bits = Some(&b.next);
                self.pass_from(&b.frontier, bits, space, table, &pass, progress)
            }
            None => {
                let frontier = EntriesHolding {
                    table,
                    value: current,
                };
                self.pass_from(&frontier, None, space, table, &pass, progress)
            }
        };
        self.holding = keep.map(|found| Holding::new(depth + 1, &found));
        if let Some(b) = &mut self.bitmaps {
            std::mem::swap(&mut b.frontier, &mut b.next);
            b.next.clear();
        }
        found
    }

    /// A pass of a sweep with block moves only, from the level `frontier` (in bits): sets its
    /// neighbours still unreached to `next`, and their bits in `found`; returns how many.
    pub fn pass_bits<S: StateSpace>(
        &self,
        space: &S,
        table: &DistanceTable,
        frontier: &Bitmap,
        found: &Bitmap,
        next: u8,
        progress: &dyn Progress,
    ) -> u64 {
        debug_assert!(self.bundles.is_empty() && self.bitmaps.is_none());
        let bits = Some(found);
        let pass = Pass {
            holding: None,
            found: None,
            next,
            limit: 0,
        };
        (self.pass_from(frontier, bits, space, table, &pass, progress)).0
    }

    /// [`Sweep::pass`] from `frontier`, marking the entries set in `next_bits` (where given):
    /// the entries set and the smallest `limit` of them.
    fn pass_from<S: StateSpace, F: Frontier>(
        &self,
        frontier: &F,
        next_bits: Option<&Bitmap>,
        space: &S,
        table: &DistanceTable,
        pass: &Pass,
        progress: &dyn Progress,
    ) -> (u64, Vec<u64>) {
        let (next, limit) = (pass.next, pass.limit);
        // The next level in the residual ranges is found by phase 2's writes into the table; it
        // is taken from there at the end: the bitmap starts as those ranges' unreached entries.
        if let Some(b) = next_bits {
            for (ranks, _) in self.residual_ranges() {
                mark_unreached(b, table, ranks);
            }
        }
        let merge = |(ca, a): (u64, Vec<u64>), (cb, b): (u64, Vec<u64>)| {
            (ca + cb, merge_smallest(a, b, limit))
        };
        let blocks = (self.tasks.par_iter().enumerate())
            .map(|(t, task)| {
                let (count, smallest) = self.pull_blocks(frontier, next_bits, task, table, pass);
                if let Some(found) = pass.found.filter(|_| count > 0) {
                    found.insert(t as u64);
                }
                progress.found(count);
                (count, smallest)
            })
            .reduce(|| (0, Vec::new()), merge);
        let residual = self.residual_pass(frontier, space, table, next, limit, progress);
        if let Some(b) = next_bits {
            for (ranks, _) in self.residual_ranges() {
                keep_set(b, table, ranks, next);
            }
        }
        merge(blocks, residual)
    }

    /// Phase 1 for one task: pulls the frontier through its block moves; returns the number of
    /// entries set and the smallest `limit` of them.
    fn pull_blocks<F: Frontier>(
        &self,
        frontier: &F,
        next_level: Option<&Bitmap>,
        task: &Task,
        table: &DistanceTable,
        pass: &Pass,
    ) -> (u64, Vec<u64>) {
        let (next, limit) = (pass.next, pass.limit);
        // The moves whose sources may hold the level.
        let moves: Vec<usize> = (task.moves.iter().copied())
            .filter(|&i| {
                let span = self.prepared[i].source_span(&task.ranks);
                (pass.holding).is_none_or(|h| h.any_in(&self.tasks, span))
            })
            .collect();
        if moves.is_empty() {
            return (0, Vec::new());
        }
        let Range { start, end } = task.ranks;
        // The task's unreached entries, aligned to whole 64-rank units.
        let first_unit = start / 64;
        let units = ((end - 1) / 64 - first_unit + 1) as usize;
        let origin = first_unit * 64;
        let unreached: Vec<u64> = (0..units)
            .map(|u| {
                let unit = first_unit + u as u64;
                let lo = (unit * 64).max(start) - unit * 64;
                let hi = (unit * 64 + 64).min(end) - unit * 64;
                table.value_bits(unit as usize, UNREACHED) & mask(lo, hi - lo)
            })
            .collect();
        if unreached.iter().all(|&u| u == 0) {
            return (0, Vec::new());
        }
        // The frontier bits the moves bring to each rank of the task; no bit outside the
        // task's ranks is ever set.
        let mut found = vec![0u64; units];
        // The sliced moves first: 64 entries a step.
        let slices = self
            .slices
            .as_ref()
            .filter(|s| moves.iter().any(|&i| s.has(i)));
        if let Some(s) = slices {
            s.pull(
                &self.prepared,
                frontier,
                start..end,
                origin,
                &unreached,
                &mut found,
            );
        }
        for &i in &moves {
            if slices.is_some_and(|s| s.has(i)) {
                continue;
            }
            let p = &self.prepared[i];
            let Some(positions) = &p.positions else {
                pull_runs(frontier, &p.mv, start..end, origin, &mut found);
                continue;
            };
            // Bit by bit: from each frontier state of the source blocks, or into each entry
            // still unreached, whichever are fewer.
            let open: u64 = (unreached.iter().zip(&found))
                .map(|(u, f)| (u & !f).count_ones() as u64)
                .sum();
            if open == 0 {
                break;
            }
            let sources = frontier_count(frontier, p.sources(&task.ranks));
            if sources <= open {
                push_positions(
                    frontier,
                    p,
                    &positions.forward,
                    start..end,
                    origin,
                    &mut found,
                );
            } else {
                pull_positions(
                    frontier,
                    p,
                    &positions.backward,
                    start..end,
                    origin,
                    &unreached,
                    &mut found,
                );
            }
        }
        // Set the unreached ones. Units shared with a neighbouring task change atomically.
        let mut count = 0;
        let mut smallest = Vec::new();
        for (u, &f) in found.iter().enumerate() {
            if f == 0 {
                continue;
            }
            let unit = first_unit + u as u64;
            let owned = unit * 64 >= start && unit * 64 + 64 <= end;
            let new = table.claim_unit(unit, f, next, owned);
            if new == 0 {
                continue;
            }
            count += new.count_ones() as u64;
            push_unit(&mut smallest, unit, new, limit);
            if let Some(n) = next_level {
                match owned {
                    true => n.store_word(unit as usize, n.word(unit as usize) | new),
                    false => n.or_word(unit as usize, new),
                }
            }
        }
        (count, smallest)
    }
}

/// Long runs: each run of the task's ranks pulls the frontier bits of its source run as a bit
/// string.
fn pull_runs<F: Frontier>(
    frontier: &F,
    mv: &BlockMove,
    ranks: Range<u64>,
    origin: u64,
    found: &mut [u64],
) {
    let w = &mv.window;
    let mut i = ranks.start - mv.from;
    let end = ranks.end - mv.from;
    // Where rank i sits: block b, run x of the block, s ranks into the run; stepped along
    // (no division per run).
    let runs = w.block / w.run;
    let (mut b, within) = (i / w.block, i % w.block);
    let (mut x, mut s) = (within / w.run, within % w.run);
    let mut parity = Parity::new(mv.first_block + b, &w.prefix, w.parity_dependent());
    // Short runs land anywhere: their sources are asked for a batch ahead, so that the reads
    // wait on memory together, not one after another.
    let mut batch: Vec<(u64, u64, u64)> = Vec::with_capacity(RUN_BATCH);
    let mut flush = |batch: &mut Vec<(u64, u64, u64)>| {
        for &(at, source, len) in batch.iter() {
            or_run(found, at, frontier, source, len);
        }
        batch.clear();
    };
    while i < end {
        let len = (w.run - s).min(end - i);
        let map = w.map(parity.odd);
        let source = mv.to + b * w.block + map[x as usize] as u64 * w.run + s;
        frontier.prefetch(source);
        batch.push((mv.from + i - origin, source, len));
        if batch.len() == RUN_BATCH {
            flush(&mut batch);
        }
        i += len;
        s = 0;
        x += 1;
        if x == runs {
            x = 0;
            b += 1;
            parity.step();
        }
    }
    flush(&mut batch);
}

/// Short runs, pushed: each frontier bit of a source block goes to its place in the target block.
fn push_positions<F: Frontier>(
    frontier: &F,
    p: &Prepared,
    positions: &[Vec<u32>],
    ranks: Range<u64>,
    origin: u64,
    found: &mut [u64],
) {
    let block = p.mv.window.block;
    p.each_block(&ranks, origin, |target, source, odd| {
        let pos = &positions[odd as usize];
        if block <= 64 {
            // The whole block in one register.
            let mut bits = frontier.bits_at(source, block);
            let mut moved = 0u64;
            while bits != 0 {
                moved |= 1 << pos[bits.trailing_zeros() as usize];
                bits &= bits - 1;
            }
            or_local(found, target, moved);
            return;
        }
        let mut at = 0;
        while at < block {
            let take = (block - at).min(64);
            let mut bits = frontier.bits_at(source + at, take);
            while bits != 0 {
                let t = target + pos[(at + bits.trailing_zeros() as u64) as usize] as u64;
                found[(t / 64) as usize] |= 1 << (t % 64);
                bits &= bits - 1;
            }
            at += take;
        }
    });
}

/// Short runs, pulled: each entry of the target blocks still unreached and not found looks up its
/// source in the frontier.
fn pull_positions<F: Frontier>(
    frontier: &F,
    p: &Prepared,
    positions: &[Vec<u32>],
    ranks: Range<u64>,
    origin: u64,
    unreached: &[u64],
    found: &mut [u64],
) {
    let block = p.mv.window.block;
    p.each_block(&ranks, origin, |target, source, odd| {
        let pos = &positions[odd as usize];
        let mut at = 0;
        while at < block {
            let take = (block - at).min(64);
            let t = target + at;
            let (u, shift) = ((t / 64) as usize, t % 64);
            let mut open = (unreached[u] & !found[u]) >> shift;
            if shift + take > 64 {
                open |= (unreached[u + 1] & !found[u + 1]) << (64 - shift);
            }
            open &= mask(0, take);
            while open != 0 {
                let i = open.trailing_zeros() as u64;
                open &= open - 1;
                let hit = frontier.contains(source + pos[(at + i) as usize] as u64) as u64;
                let t = t + i;
                found[(t / 64) as usize] |= hit << (t % 64);
            }
            at += take;
        }
    });
}

/// The number of frontier states among `ranks`, counted by this thread alone.
fn frontier_count<F: Frontier>(frontier: &F, ranks: Range<u64>) -> u64 {
    if ranks.is_empty() {
        return 0;
    }
    (ranks.start / 64..=(ranks.end - 1) / 64)
        .map(|unit| {
            let lo = (unit * 64).max(ranks.start) - unit * 64;
            let hi = (unit * 64 + 64).min(ranks.end) - unit * 64;
            (frontier.word(unit as i64) & mask(lo, hi - lo)).count_ones() as u64
        })
        .sum()
}

/// Sets the bits of `ranks` in `next` to their unreached entries.
fn mark_unreached(next: &Bitmap, table: &DistanceTable, ranks: Range<u64>) {
    for_units(next, ranks, |unit, m| {
        table.value_bits(unit as usize, UNREACHED) & m
    });
}

/// Keeps, of the bits of `ranks` in `next`, the entries that now hold `value`.
fn keep_set(next: &Bitmap, table: &DistanceTable, ranks: Range<u64>, value: u8) {
    for_units(next, ranks, |unit, m| {
        next.word(unit as usize) & table.value_bits(unit as usize, value) & m
    });
}

/// Replaces, in each 64-rank unit overlapping `ranks`, the bits `m` (those inside `ranks`) of
/// `bitmap` by `f(unit, m)`.
fn for_units(bitmap: &Bitmap, ranks: Range<u64>, f: impl Fn(u64, u64) -> u64 + Sync) {
    if ranks.is_empty() {
        return;
    }
    (ranks.start / 64..=(ranks.end - 1) / 64)
        .into_par_iter()
        .for_each(|unit| {
            let lo = (unit * 64).max(ranks.start);
            let hi = (unit * 64 + 64).min(ranks.end);
            let m = mask(lo - unit * 64, hi - lo);
            let bits = f(unit, m);
            let u = unit as usize;
            if m == u64::MAX {
                bitmap.store_word(u, bits);
            } else {
                // Units shared with another range: only this range's bits change.
                let old = bitmap.word(u);
                bitmap.store_word(u, (old & !m) | bits);
            }
        });
}
