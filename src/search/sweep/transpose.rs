//! Residual moves that transpose tiles ([`StateSpace::transposition`]), pulled a tile at a time:
//! 64 rows by 64 columns of frontier bits read as 64 words, transposed in registers, and each
//! word then claims 64 consecutive neighbours. A move that sends states all over the table
//! (flipping a whole stack of pancakes) costs a few passes over it instead of a scattered
//! read per state.

use super::frontier::{Frontier, claim_unit};
use crate::puzzle::{Cursor, StateSpace};
use crate::search::smallest::Smallest;
use crate::table::{DistanceTable, UNREACHED};

/// Rows of a tile walked together along the columns: their neighbours, 256 consecutive
/// entries of each target row, stay in cache until every column has been through.
const ROW_GROUP: usize = 256;

/// A tile as a pass walks it: rank `j` of row `sources[c]` sends to rank `c` of row
/// `targets[j]` (both rows of consecutive ranks).
pub(super) struct Tile {
    sources: Vec<u64>,
    targets: Vec<u64>,
}

impl Tile {
    /// Tile `t` of move `mv` of `space`, with `cols` ranks a row: its rows ordered by where
    /// their first column goes. Panics where the space's tile is not a transposition.
    pub(super) fn new<S: StateSpace>(
        space: &S,
        cursor: &mut S::Cursor<'_>,
        mv: usize,
        t: usize,
        cols: u64,
    ) -> Tile {
        let mut rows = Vec::new();
        space.tile_rows(mv, t, &mut rows);
        let mut keyed: Vec<(u64, u64)> = (rows.iter())
            .map(|&row| {
                cursor.seek(row);
                (cursor.neighbour(mv), row)
            })
            .collect();
        keyed.sort_unstable();
        let first = keyed[0].0;
        assert!(
            (keyed.iter().enumerate()).all(|(c, &(n, _))| n == first + c as u64),
            "tile {t} of move {mv}: the first column's neighbours are not consecutive"
        );
        let top = keyed[0].1;
        let targets = (0..cols)
            .map(|j| {
                cursor.seek(top + j);
                cursor.neighbour(mv)
            })
            .collect();
        Tile {
            sources: keyed.into_iter().map(|(_, row)| row).collect(),
            targets,
        }
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
                        *word = frontier.bits_at(row + j0 as u64, width as u64);
                        any |= *word;
                    }
                    if any == 0 {
                        continue;
                    }
                    bits[height..].fill(0);
                    transpose(&mut bits);
                    for (&word, &target) in bits[..width].iter().zip(&self.targets[j0..]) {
                        if word != 0 {
                            claim_at(table, target + c0 as u64, word, next, count, smallest);
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
    for (unit, bits) in [(unit, bits << shift), (unit + 1, high)] {
        if bits == 0 {
            continue;
        }
        // Only entries unreached (or just set to `next`) may be claimed.
        let open = bits & table.value_bits(unit as usize, UNREACHED);
        if open == 0 {
            continue;
        }
        let mut new = claim_unit(table, unit, open, next);
        *count += new.count_ones() as u64;
        while new != 0 {
            smallest.push(unit * 64 + new.trailing_zeros() as u64);
            new &= new - 1;
        }
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
