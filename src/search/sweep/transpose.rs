//! Residual moves that transpose tiles ([`StateSpace::transposition`]), pulled a tile at a time:
//! 64 rows by 64 columns of frontier bits read as 64 words, transposed in registers, and each
//! word then claims 64 consecutive neighbours, or where the rows the other way are spread out,
//! its neighbours a unit of 64 ranks at a time. A move that sends states all over the table
//! (flipping most of a stack of pancakes) costs a few passes over it instead of a scattered
//! read per state.

use super::frontier::{Frontier, claim_unit};
use crate::puzzle::{Cursor, StateSpace, Transposition};
use crate::search::smallest::Smallest;
use crate::table::{DistanceTable, UNREACHED};

/// Rows of a tile walked together along the columns: their neighbours, 256 consecutive
/// entries of each target row, stay in cache until every column has been through.
const ROW_GROUP: usize = 256;

/// The table's entries in a cache line of 64 bytes.
const LINE_RANKS: u64 = 256;

/// How far along its row a row's reads are prefetched: a cache line of the table on.
const AHEAD: usize = LINE_RANKS as usize;

/// A tile as a pass walks it: rank `j` of row `sources[x]` sends to rank `targets[j] + x`, or
/// where the rows the other way are spread out, `targets[j] + spread[classes[j]][x]` (all rows
/// of consecutive ranks).
pub(super) struct Tile {
    sources: Vec<u64>,
    targets: Vec<u64>,
    /// The class of each column; empty where the rows the other way are consecutive.
    classes: Vec<u16>,
    /// Each class's offsets of the rows the other way.
    spread: Vec<Vec<u32>>,
}

impl Tile {
    /// Tile `t` of move `mv` of `space` shaped `shape`: its rows ordered by where their first
    /// column goes. Panics where the space's tile is not a transposition.
    pub(super) fn new<S: StateSpace>(
        space: &S,
        cursor: &mut S::Cursor<'_>,
        mv: usize,
        t: usize,
        shape: Transposition,
    ) -> Tile {
        let mut rows = Vec::new();
        space.tile_rows(mv, t, &mut rows);
        let mut neighbour = |rank| {
            cursor.seek(rank);
            cursor.neighbour(mv)
        };
        let mut keyed: Vec<(u64, u64)> = rows.iter().map(|&row| (neighbour(row), row)).collect();
        keyed.sort_unstable();
        let sources: Vec<u64> = keyed.iter().map(|&(_, row)| row).collect();
        assert_eq!(shape.cols % shape.run, 0, "move {mv}: runs that cut a row");
        let targets: Vec<u64> = (0..shape.cols).map(|j| neighbour(sources[0] + j)).collect();
        let mut classes = Vec::new();
        let mut spread = vec![Vec::new(); shape.classes];
        if shape.classes == 1 {
            let first = keyed[0].0;
            assert!(
                (keyed.iter().enumerate()).all(|(c, &(n, _))| n == first + c as u64),
                "tile {t} of move {mv}: the first column's neighbours are not consecutive"
            );
        } else {
            // A class for each run of columns, the same for each of its columns.
            space.tile_classes(mv, t, &mut classes);
            let run = shape.run as usize;
            classes = (0..shape.cols as usize).map(|j| classes[j / run]).collect();
            for (j, &class) in classes.iter().enumerate().step_by(run) {
                let offsets = &mut spread[class as usize];
                if offsets.is_empty() {
                    let s = targets[j];
                    offsets.extend((sources.iter()).map(|&r| (neighbour(r + j as u64) - s) as u32));
                    assert!(
                        offsets.windows(2).all(|w| w[0] < w[1]),
                        "tile {t} of move {mv}: class {class}'s rows are out of order"
                    );
                }
            }
        }
        Tile {
            sources,
            targets,
            classes,
            spread,
        }
    }

    /// Where the rows the other way are spread out: the offsets of column `j`'s neighbours
    /// from row `c0` on.
    #[inline]
    fn spread_of(&self, j: usize, c0: usize) -> Option<&[u32]> {
        let class = *self.classes.get(j)?;
        Some(&self.spread[class as usize][c0..])
    }

    /// Sets the unreached neighbours of the tile's frontier states to `next`; adds them to
    /// `count` and `smallest`.
    pub(super) fn pull<F: Frontier>(
        &self,
        frontier: &F,
        table: &DistanceTable,
        next: u8,
        count: &mut u64,
        smallest: &mut Smallest,
    ) {
        let rows = self.sources.len();
        let cols = self.targets.len();
        let mut bits = [0u64; 64];
        for group in (0..rows).step_by(ROW_GROUP) {
            let group_end = (group + ROW_GROUP).min(rows);
            for j0 in (0..cols).step_by(64) {
                let width = (cols - j0).min(64);
                for c0 in (group..group_end).step_by(64) {
                    let height = (rows - c0).min(64);
                    let mut any = 0;
                    for (word, &row) in bits.iter_mut().zip(&self.sources[c0..c0 + height]) {
                        // The rows' next cache lines, read a few columns of 64 on.
                        if j0 + AHEAD < cols {
                            frontier.prefetch(row + (j0 + AHEAD) as u64);
                        }
                        *word = frontier.bits_at(row + j0 as u64, width as u64);
                        any |= *word;
                    }
                    if any == 0 {
                        continue;
                    }
                    bits[height..].fill(0);
                    transpose(&mut bits);
                    // Each word's neighbours lie in another row the other way: all fetched
                    // together before any is claimed.
                    for (j, &word) in (j0..).zip(&bits[..width]) {
                        if word != 0 {
                            let target = self.targets[j];
                            match self.spread_of(j, c0) {
                                None => table.prefetch(target + c0 as u64),
                                Some(offsets) => prefetch_spread(table, target, offsets, word),
                            }
                        }
                    }
                    for (j, &word) in (j0..).zip(&bits[..width]) {
                        if word == 0 {
                            continue;
                        }
                        let target = self.targets[j];
                        match self.spread_of(j, c0) {
                            None => {
                                claim_at(table, target + c0 as u64, word, next, count, smallest)
                            }
                            Some(offsets) => {
                                claim_spread(table, target, offsets, word, next, count, smallest)
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Asks for each cache line of the table that holds one of the ranks `target + offsets[x]`
/// whose bit `x` is set in `bits` (the offsets ascend).
fn prefetch_spread(table: &DistanceTable, target: u64, offsets: &[u32], mut bits: u64) {
    let mut line = u64::MAX;
    while bits != 0 {
        let rank = target + u64::from(offsets[bits.trailing_zeros() as usize]);
        bits &= bits - 1;
        if rank / LINE_RANKS != line {
            line = rank / LINE_RANKS;
            table.prefetch(rank);
        }
    }
}

/// Sets those of the ranks `target + offsets[x]` whose bit `x` is set in `bits` and that are
/// unreached to `next`, a unit of 64 ranks at a time (the offsets ascend); adds them to `count`
/// and `smallest`.
fn claim_spread(
    table: &DistanceTable,
    target: u64,
    offsets: &[u32],
    mut bits: u64,
    next: u8,
    count: &mut u64,
    smallest: &mut Smallest,
) {
    let (mut unit, mut found) = (u64::MAX, 0);
    while bits != 0 {
        let rank = target + u64::from(offsets[bits.trailing_zeros() as usize]);
        bits &= bits - 1;
        if rank / 64 != unit {
            claim_open(table, unit, found, next, count, smallest);
            (unit, found) = (rank / 64, 0);
        }
        found |= 1 << (rank % 64);
    }
    claim_open(table, unit, found, next, count, smallest);
}

/// Sets those of the 64 ranks from `start` whose bits are set in `bits` (none past the table's
/// end) and are unreached to `next`; adds them to `count` and `smallest`.
fn claim_at(
    table: &DistanceTable,
    start: u64,
    bits: u64,
    next: u8,
    count: &mut u64,
    smallest: &mut Smallest,
) {
    let (unit, shift) = (start / 64, start % 64);
    let high = if shift == 0 { 0 } else { bits >> (64 - shift) };
    claim_open(table, unit, bits << shift, next, count, smallest);
    claim_open(table, unit + 1, high, next, count, smallest);
}

/// Sets those entries of unit `unit` whose bits are set in `bits` and that are unreached to
/// `next`; adds them to `count` and `smallest`.
fn claim_open(
    table: &DistanceTable,
    unit: u64,
    bits: u64,
    next: u8,
    count: &mut u64,
    smallest: &mut Smallest,
) {
    if bits == 0 {
        return;
    }
    // Only entries unreached (or just set to `next`) may be claimed.
    let open = bits & table.value_bits(unit as usize, UNREACHED);
    if open == 0 {
        return;
    }
    let mut new = claim_unit(table, unit, open, next);
    *count += new.count_ones() as u64;
    while new != 0 {
        smallest.push(unit * 64 + new.trailing_zeros() as u64);
        new &= new - 1;
    }
}

/// Transposes a 64 by 64 matrix of bits: bit `c` of word `r` goes to bit `r` of word `c`.
fn transpose(m: &mut [u64; 64]) {
    let mut width = 32;
    let mut mask: u64 = 0x0000_0000_ffff_ffff;
    while width != 0 {
        for k in 0..64 {
            if k & width == 0 {
                let t = ((m[k] >> width) ^ m[k + width]) & mask;
                m[k] ^= t << width;
                m[k + width] ^= t;
            }
        }
        width >>= 1;
        mask ^= mask << width;
    }
}

#[cfg(test)]
mod tests {
    use super::transpose;

    #[test]
    fn a_transposed_matrix_has_each_bit_across_the_diagonal() {
        let mut m = [0u64; 64];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for word in &mut m {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            *word = x;
        }
        let before = m;
        transpose(&mut m);
        for (r, row) in before.iter().enumerate() {
            for (c, column) in m.iter().enumerate() {
                assert_eq!(column >> r & 1, row >> c & 1, "{r} {c}");
            }
        }
    }
}
