//! Residual moves that transpose tiles ([`crate::puzzle::Tiles`]), pulled a tile at a time:
//! 64 rows by 64 columns of frontier bits read as 64 words, transposed in registers, and each
//! word then claims 64 consecutive neighbours. A move that sends states all over a block of the
//! table (flipping most of a stack of pancakes) costs a pass over it instead of a scattered read
//! per state.

use super::frontier::{Frontier, claim_unit};
use crate::puzzle::{Cursor, StateSpace, Transposition};
use crate::search::smallest::Smallest;
use crate::table::{DistanceTable, UNREACHED};

/// Rows of a tile walked together along the columns: their neighbours, 256 consecutive
/// entries of each target row, stay in cache until every column has been through.
const ROW_GROUP: usize = 256;

/// How far along its row a row's reads are prefetched: a cache line of the table on (256
/// entries of 2 bits).
const AHEAD: usize = 256;

/// A tile as a pass walks it: rank `j` of row `sources[x]` sends to rank `targets[j] + x`.
pub(super) struct Tile {
    sources: Vec<u64>,
    targets: Vec<u64>,
}

impl Tile {
    /// Tile `t` of move `mv` of `space` shaped `shape`, in the first block: its rows ordered by
    /// where their first column goes. Panics where the space's tile is not a transposition.
    pub(super) fn new<S: StateSpace>(
        space: &S,
        cursor: &mut S::Cursor<'_>,
        mv: usize,
        t: usize,
        shape: Transposition,
    ) -> Tile {
        let mut rows = Vec::new();
        let tiles = space.capabilities().tiles;
        (tiles.expect("a move that transposes tiles")).tile_rows(mv, t, &mut rows);
        let mut neighbour = |rank| {
            cursor.seek(rank);
            cursor.neighbour(mv)
        };
        let mut keyed: Vec<(u64, u64)> = rows.iter().map(|&row| (neighbour(row), row)).collect();
        keyed.sort_unstable();
        let first = keyed[0].0;
        assert!(
            (keyed.iter().enumerate()).all(|(c, &(n, _))| n == first + c as u64),
            "tile {t} of move {mv}: the first column's neighbours are not consecutive"
        );
        let sources: Vec<u64> = keyed.iter().map(|&(_, row)| row).collect();
        let targets: Vec<u64> = (0..shape.cols).map(|j| neighbour(sources[0] + j)).collect();
        Tile { sources, targets }
    }

    /// Sets the unreached neighbours of the frontier states of the tile shifted by `offset` (a
    /// block's first rank) to `next`; adds them to `count` and `smallest`.
    pub(super) fn pull<F: Frontier>(
        &self,
        frontier: &F,
        table: &DistanceTable,
        offset: u64,
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
                        let row = offset + row;
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
                            table.prefetch(offset + self.targets[j] + c0 as u64);
                        }
                    }
                    for (j, &word) in (j0..).zip(&bits[..width]) {
                        if word != 0 {
                            let target = offset + self.targets[j] + c0 as u64;
                            claim_at(table, target, word, next, count, smallest);
                        }
                    }
                }
            }
        }
    }
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
/// Six rounds swap ever smaller blocks across the diagonal; each round's inner loop runs over
/// consecutive words, which the compiler turns into vector instructions.
pub(super) fn transpose(m: &mut [u64; 64]) {
    #[inline(always)]
    fn round<const W: usize>(m: &mut [u64; 64], mask: u64) {
        for k in (0..64).step_by(2 * W) {
            let (low, high) = m[k..k + 2 * W].split_at_mut(W);
            for (a, b) in low.iter_mut().zip(high.iter_mut()) {
                let t = ((*a >> W) ^ *b) & mask;
                *a ^= t << W;
                *b ^= t;
            }
        }
    }
    round::<32>(m, 0x0000_0000_ffff_ffff);
    round::<16>(m, 0x0000_ffff_0000_ffff);
    round::<8>(m, 0x00ff_00ff_00ff_00ff);
    round::<4>(m, 0x0f0f_0f0f_0f0f_0f0f);
    round::<2>(m, 0x3333_3333_3333_3333);
    round::<1>(m, 0x5555_5555_5555_5555);
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
