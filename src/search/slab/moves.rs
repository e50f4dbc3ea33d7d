//! How the slab engines' passes (an MPI job's on the CPU, the slabs on disk) find a state's
//! neighbours in a slab: from the space's
//! [`Structure`](crate::puzzle::Structure) where it has one, its block moves by arithmetic on the rank (a division or two
//! for each run of ranks that move together, nothing within one) and its residual moves through
//! the cursor; every move through the cursor where it has none. The block moves that take whole
//! planes to whole planes, column by column (a ring puzzle's `L` and `R`), are *plane moves*:
//! from a level in bits the engine applies those a table word at a time instead.

use super::Slab;
use crate::puzzle::{BlockMove, Cursor, StateSpace, Way};
use crate::rank::window::prefix_parity;
use crate::search::bitmap::Bitmap;
use crate::table::{DistanceTable, ENTRIES_PER_WORD, UNREACHED, spread, squeeze};
use rayon::prelude::*;
use std::ops::{ControlFlow, Range};

/// Table words a task of [`plane_pass`] sets (2^18 entries).
const PLANE_TASK_WORDS: usize = 8192;

/// A space's moves, sorted for a slab's passes.
pub struct SlabMoves {
    /// The ranks of the space.
    size: u64,
    /// The first rank of each segment, ascending from 0: ranks where the same moves apply.
    starts: Vec<u64>,
    /// For each segment, its block moves (indices into `blocks`) and its residual moves.
    segments: Vec<(Vec<usize>, Vec<usize>)>,
    blocks: Vec<BlockMove>,
    /// Whether each block move is a plane move.
    plane: Vec<bool>,
    /// For each plane, the planes the plane moves take there; empty where there are none.
    sources: Vec<Vec<u64>>,
}

impl SlabMoves {
    /// The moves of `space` that a pass going `way` follows, for the slabs like `slab`.
    pub fn new<S: StateSpace>(space: &S, slab: &Slab, way: Way) -> SlabMoves {
        let (blocks, residual) = parts(space, way);
        SlabMoves::of(blocks, residual, space.size(), slab)
    }

    /// The moves `blocks` and `residual` (ranges of ranks and the move applied there state by
    /// state) of a space of `size` ranks, for the slabs like `slab`.
    pub fn of(
        blocks: Vec<BlockMove>,
        residual: Vec<(Range<u64>, usize)>,
        size: u64,
        slab: &Slab,
    ) -> SlabMoves {
        let ranges: Vec<Range<u64>> = (blocks.iter())
            .map(|b| b.from..b.from + b.len)
            .chain(residual.iter().map(|(r, _)| r.clone()))
            .collect();
        // The pieces, and the gaps between them, from rank 0 to the end.
        let (mut starts, mut segments) = (Vec::new(), Vec::new());
        let mut at = 0;
        for (piece, holding) in crate::search::segments::segments(&ranges) {
            if piece.start > at {
                starts.push(at);
                segments.push((Vec::new(), Vec::new()));
            }
            let (block_moves, residual_moves): (Vec<usize>, Vec<usize>) =
                holding.into_iter().partition(|&i| i < blocks.len());
            let residual_moves = (residual_moves.into_iter())
                .map(|i| residual[i - blocks.len()].1)
                .collect();
            starts.push(piece.start);
            segments.push((block_moves, residual_moves));
            at = piece.end;
        }
        if at < size || starts.is_empty() {
            starts.push(at);
            segments.push((Vec::new(), Vec::new()));
        }
        let (plane, sources) = plane_moves(&blocks, slab);
        SlabMoves {
            size,
            starts,
            segments,
            blocks,
            plane,
            sources,
        }
    }

    /// The ranges of ranks where some move applies, ascending.
    pub fn ranges(&self) -> Vec<Range<u64>> {
        let mut ranges: Vec<Range<u64>> = Vec::new();
        for (i, (blocks, residual)) in self.segments.iter().enumerate() {
            if blocks.is_empty() && residual.is_empty() {
                continue;
            }
            let end = self.starts.get(i + 1).copied().unwrap_or(self.size);
            match ranges.last_mut() {
                Some(last) if last.end == self.starts[i] => last.end = end,
                _ => ranges.push(self.starts[i]..end),
            }
        }
        ranges
    }

    /// The most neighbours a rank has through these moves.
    pub fn most(&self) -> usize {
        (self.segments.iter())
            .map(|(blocks, residual)| blocks.len() + residual.len())
            .max()
            .unwrap_or(0)
    }

    /// For each plane, the planes the plane moves take there (none where there are no plane
    /// moves).
    pub fn sources(&self) -> &[Vec<u64>] {
        &self.sources
    }

    /// A worker's walk over ascending ranks (others are allowed, only slower).
    pub fn walker<'m, C: Cursor>(&'m self, cursor: C) -> Walker<'m, C> {
        Walker {
            moves: self,
            cursor,
            segment: 0,
            runs: vec![Run::default(); self.blocks.len()],
        }
    }
}

/// The moves of `space` that a pass going `way` follows: its block moves, and ranges of ranks
/// with the move applied there state by state (every move of `way`, everywhere, where it has no
/// structure; a directed space has none).
pub fn parts<S: StateSpace>(space: &S, way: Way) -> (Vec<BlockMove>, Vec<(Range<u64>, usize)>) {
    match space.capabilities().structure() {
        Some(s) => (s.blocks, s.residual),
        None => (
            Vec::new(),
            (space.moves_for(way))
                .map(|m| (0..space.size(), m))
                .collect(),
        ),
    }
}

/// Sets to `next` the unreached entries of `slab`'s `table` that the plane moves of `moves`
/// take the states of `last` (the last level in bits) to, a table word at a time, and adds them
/// to `found`: how many it set. The same whichever way the pass goes, as the plane moves hold
/// their inverses; nothing where the space has no plane moves.
pub fn plane_pass(
    moves: &SlabMoves,
    slab: &Slab,
    table: &DistanceTable,
    last: &Bitmap,
    found: &Bitmap,
    next: u8,
) -> u64 {
    let sources = moves.sources();
    if sources.is_empty() {
        return 0;
    }
    let columns = slab.columns();
    let words = table.word_count();
    let clear = u64::from(UNREACHED ^ next);
    (0..words.div_ceil(PLANE_TASK_WORDS))
        .into_par_iter()
        .map(|b| {
            let mut set = 0;
            for w in b * PLANE_TASK_WORDS..((b + 1) * PLANE_TASK_WORDS).min(words) {
                let first = w as u64 * ENTRIES_PER_WORD;
                let (plane, column) = (first / columns, first % columns);
                let from = (sources[plane as usize].iter()).fold(0, |f, &p| {
                    f | last.bits_at(p * columns + column, ENTRIES_PER_WORD)
                });
                let new = from & u64::from(squeeze(unreached_bits(table, w)));
                if new != 0 {
                    table.clear_bits(w, spread(new as u32) * clear);
                    found.or_word((first / 64) as usize, new << (first % 64));
                    set += u64::from(new.count_ones());
                }
            }
            set
        })
        .sum()
}

/// Word `w` of `table` with the low bit of each unreached entry's two set (entries past the
/// table's end are not entries).
pub fn unreached_bits(table: &DistanceTable, w: usize) -> u64 {
    let word = table.word(w);
    let mut open = word & (word >> 1) & 0x5555_5555_5555_5555;
    let entries = table.entries() - w as u64 * ENTRIES_PER_WORD;
    if entries < ENTRIES_PER_WORD {
        open &= (1 << (2 * entries)) - 1;
    }
    open
}

/// The plane moves among `blocks` for slabs like `slab`, and for each plane the planes they take
/// there: none unless the slabs fill whole table words of several planes and the plane moves
/// hold their inverses (so that a bottom-up pass may push them from the level and pull the others).
fn plane_moves(blocks: &[BlockMove], slab: &Slab) -> (Vec<bool>, Vec<Vec<u64>>) {
    let width = slab.width;
    let shaped = |b: &BlockMove| {
        b.len == width
            && b.window.run == b.len
            && b.from.is_multiple_of(width)
            && b.to.is_multiple_of(width)
    };
    let plane: Vec<bool> = (blocks.iter())
        .map(|b| slab.planes > 1 && b.from != b.to && shaped(b))
        .collect();
    let steps: Vec<(u64, u64)> = (blocks.iter().zip(&plane))
        .filter(|(_, p)| **p)
        .map(|(b, _)| (b.from / width, b.to / width))
        .collect();
    let whole_words = slab.columns().is_multiple_of(ENTRIES_PER_WORD);
    let inverses = steps.iter().all(|&(p, q)| steps.contains(&(q, p)));
    if steps.is_empty() || !whole_words || !inverses {
        return (vec![false; blocks.len()], Vec::new());
    }
    let mut sources = vec![Vec::new(); slab.planes as usize];
    for (p, q) in steps {
        sources[q as usize].push(p);
    }
    (plane, sources)
}

/// Where a block move took the last run of ranks it was asked about.
#[derive(Clone, Default)]
struct Run {
    /// The run's ranks.
    ranks: Range<u64>,
    /// Where its first rank goes.
    to: u64,
    /// The block (of the window move) the parity below is for, and its prefix's parity.
    block: Option<u64>,
    odd: bool,
}

/// A worker's walk: the neighbours of rank after rank.
pub struct Walker<'m, C> {
    moves: &'m SlabMoves,
    cursor: C,
    /// The segment of the last rank.
    segment: usize,
    /// For each block move, its last run.
    runs: Vec<Run>,
}

impl<C: Cursor> Walker<'_, C> {
    /// Calls `f` with each neighbour of `rank` (the plane moves' only unless `planes`) until it
    /// breaks; whether it did.
    pub fn each(
        &mut self,
        rank: u64,
        planes: bool,
        mut f: impl FnMut(u64) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let moves = self.moves;
        let starts = &moves.starts;
        let current =
            starts[self.segment]..starts.get(self.segment + 1).copied().unwrap_or(u64::MAX);
        if !current.contains(&rank) {
            self.segment = starts.partition_point(|&s| s <= rank) - 1;
        }
        let (blocks, residual) = &moves.segments[self.segment];
        for &b in blocks {
            if planes || !moves.plane[b] {
                f(target(&moves.blocks[b], &mut self.runs[b], rank))?;
            }
        }
        if !residual.is_empty() {
            self.cursor.seek(rank);
            for &m in residual {
                f(self.cursor.neighbour(m))?;
            }
        }
        ControlFlow::Continue(())
    }
}

/// Where block move `b` takes `rank` (in its range): [`WindowMove::apply`], through `run`, its
/// last run (nothing to compute within it) and its block's parity (computed once a block).
///
/// [`WindowMove::apply`]: crate::rank::window::WindowMove::apply
#[inline]
fn target(b: &BlockMove, run: &mut Run, rank: u64) -> u64 {
    if !run.ranks.contains(&rank) {
        let w = &b.window;
        let index = rank - b.from;
        let (block, within) = (index / w.block, index % w.block);
        if run.block != Some(block) {
            run.block = Some(block);
            run.odd = w.parity_dependent() && prefix_parity(b.first_block + block, &w.prefix);
        }
        let start = rank - within % w.run;
        let x = (within / w.run) as usize;
        run.ranks = start..start + w.run;
        run.to = b.to + block * w.block + u64::from(w.map(run.odd)[x]) * w.run;
    }
    run.to + (rank - run.ranks.start)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::{Metric, Perm, Ring, perm};

    /// Every rank's neighbours through `space`'s slab moves are the cursor's (the plane moves'
    /// too where `planes`), walking up and then jumping about; returns how many plane moves a
    /// rank has.
    fn check<S: StateSpace>(what: &str, space: &S, processes: usize) -> usize {
        let slab = Slab::of(
            space.size(),
            space.capabilities().slab_planes(),
            0,
            processes,
        );
        let moves = SlabMoves::new(space, &slab, Way::Push);
        let mut walker = moves.walker(space.cursor());
        let mut cursor = space.cursor();
        let ranks = (0..space.size()).chain((0..space.size()).rev().step_by(7));
        let mut plane_moves = 0;
        for rank in ranks {
            cursor.seek(rank);
            let mut want: Vec<u64> = (0..space.move_count())
                .map(|m| cursor.neighbour(m))
                .collect();
            let mut got = Vec::new();
            let _ = walker.each(rank, true, |n| {
                got.push(n);
                ControlFlow::Continue(())
            });
            want.sort_unstable();
            got.sort_unstable();
            assert_eq!(got, want, "{what}: rank {rank}");
            let mut some = 0;
            let _ = walker.each(rank, false, |_| {
                some += 1;
                ControlFlow::Continue(())
            });
            plane_moves = want.len() - some;
        }
        plane_moves
    }

    #[test]
    fn slab_moves_give_the_cursor_s_neighbours() {
        let turnstyle = Ring::turnstyle(9, Metric::Lrf).unwrap();
        // L and R by words where slabs fill whole words of the 9 planes.
        assert_eq!(check("turnstyle 9", &turnstyle, 3), 2);
        assert_eq!(
            check("topspin 9", &Ring::topspin(9, 4, Metric::Lrf).unwrap(), 2),
            2
        );
        // Fewer arrangements than a table word: one plane.
        assert_eq!(
            check("turnstyle 8", &Ring::turnstyle(8, Metric::Lrf).unwrap(), 2),
            0
        );
        let flips = Ring::turnstyle(9, Metric::Flips).unwrap();
        assert_eq!(check("turnstyle 9 flips", &flips, 2), 0);
        let rotation = crate::puzzle::rotation::board(3, 3, 2).unwrap();
        assert_eq!(check("rotation 3x3 k=2", &rotation, 2), 0);
        // A window move and a long cycle (residual).
        let id = perm::Identity {
            family: "perm".into(),
            params: Default::default(),
            metric: "gens".into(),
            slug: "test".into(),
        };
        let def = perm::parse::generators("(2,3)(4,5); (1,2,3,4,5,6,7)").unwrap();
        let gens = Perm::new(id, def, perm::Inverses::Added).unwrap();
        assert_eq!(check("gens S_7", &gens, 2), 0);
    }
}
