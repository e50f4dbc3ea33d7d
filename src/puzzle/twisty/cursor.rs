//! The walker over a twisty puzzle's ranks.

use super::*;

/// Walks the ranks of a twisty puzzle: the coordinates of the rank, moved one by one.
///
/// Ranks in a row differ in the last digit alone (the last block's, or without blocks the last
/// set's orientations), so the cursor keeps, for each move, what every other digit of the
/// neighbour adds up to, and a step to the next rank only looks up that digit's move.
pub struct TwistyCursor<'a> {
    pub(super) space: &'a Twisty,
    /// Per set outside the blocks, the pieces' full coordinate (not halved) and the
    /// orientations' coordinate.
    pub(super) pieces: Vec<u64>,
    pub(super) twists: Vec<u64>,
    /// Per block, its position.
    pub(super) blocks: Vec<u64>,
    pub(super) vector: u32,
    /// The ranks whose moves `base` holds: those that differ from the loaded one in the last
    /// digit alone.
    pub(super) run: std::ops::Range<u64>,
    /// Per move, the neighbour's rank but for the last digit, less the start of the last
    /// digit's class after the move (modulo 2^64), which its table entry adds back.
    pub(super) base: Vec<u64>,
    /// How many values the last digit has, and its move table, where it has one.
    pub(super) low: u64,
    pub(super) low_table: Option<&'a [u32]>,
    pub(super) low_by_move: Option<&'a [u32]>,
    /// Where the last digit's class starts in its table: the last block's class, or the last
    /// set's sum part of its orientations' coordinate.
    pub(super) low_start: u64,
    /// The last digit's table row for the rank sought.
    pub(super) row: u64,
    pub(super) scratch: [u8; 2 * MAX_PIECES],
}

impl TwistyCursor<'_> {
    /// The coordinates of `rank`, and each move's `base`.
    pub(super) fn load(&mut self, rank: u64) {
        let space = self.space;
        self.vector = space.parities[(rank / space.parity_weight) as usize];
        for (s, (c, &(wp, wo))) in space.coords.iter().zip(&space.weights).enumerate() {
            let (p, q) = space.digits(c, rank, wp, wo);
            if !c.pieces_in_block {
                self.pieces[s] = match c.parity_bit {
                    Some(b) => c.lex_of(p, (self.vector >> b) & 1 == 1),
                    None => p,
                };
            }
            self.twists[s] = q + c.sum_part(self.vector);
        }
        for (i, (b, &w)) in space.blocks.iter().zip(&space.block_weights).enumerate() {
            self.blocks[i] = space.block_position(b, self.vector, rank / w % b.class_size);
        }
        let m = space.moves.len();
        let last = space.coords.len() - 1;
        let low_block = space.blocks.len().checked_sub(1);
        self.low_start = match low_block {
            Some(l) => self.blocks[l] - rank % self.low,
            None => space.coords[last].sum_part(self.vector),
        };
        for mv in 0..m {
            let parts = &space.moves[mv].1;
            let vector = self.vector ^ space.move_parity[mv];
            // A move keeps the parities reachable.
            let mut r = u64::from(space.parity_index[vector as usize]) * space.parity_weight;
            for (s, (c, &(wp, wo))) in space.coords.iter().zip(&space.weights).enumerate() {
                if !c.pieces_in_block {
                    let p = c.move_pieces(self.pieces[s], mv, m, &parts[s], &mut self.scratch);
                    r += if c.parity_bit.is_some() { p / 2 } else { p } * wp;
                }
                if !c.twists_in_block && (s != last || low_block.is_some()) {
                    let q = c.move_twists(self.twists[s], mv, m, &parts[s], &mut self.scratch);
                    r += q % c.ori_size * wo;
                }
            }
            // The last digit's table entry holds its start after the move besides the digit.
            let mut after = space.coords[last].sum_part(vector);
            for (i, (b, &w)) in space.blocks.iter().zip(&space.block_weights).enumerate() {
                if Some(i) == low_block {
                    after = space.block_position(b, vector, 0);
                } else {
                    r += b.next(self.blocks[i], mv) % b.class_size * w;
                }
            }
            self.base[mv] = r.wrapping_sub(after);
        }
    }
}

impl Cursor for TwistyCursor<'_> {
    fn seek(&mut self, rank: u64) {
        if !self.run.contains(&rank) {
            let start = rank - rank % self.low;
            self.run = start..start + self.low;
            self.load(rank);
        }
        self.row = self.low_start + rank - self.run.start;
    }

    fn neighbour(&mut self, mv: usize) -> u64 {
        self.neighbour_at(self.row, mv)
    }

    fn seek_run(&mut self, rank: u64) -> u64 {
        self.seek(rank);
        self.run.end
    }

    fn each_neighbour_in_run(&mut self, ranks: &[u64], mv: usize, mut f: impl FnMut(u64, u64)) {
        // Row `low_start + rank - run.start` of the last digit's table.
        let first = self.low_start.wrapping_sub(self.run.start);
        match self.low_by_move {
            Some(t) => {
                let rows = t.len() / self.base.len();
                let column = &t[mv * rows..(mv + 1) * rows];
                let base = self.base[mv];
                for &rank in ranks {
                    let row = first.wrapping_add(rank) as usize;
                    f(rank, base.wrapping_add(u64::from(column[row])));
                }
            }
            None => {
                for &rank in ranks {
                    f(rank, self.neighbour_at(first.wrapping_add(rank), mv));
                }
            }
        }
    }
}

impl TwistyCursor<'_> {
    /// The neighbour by `mv` of the rank in the loaded run whose last digit has table row `row`.
    #[inline]
    pub(super) fn neighbour_at(&mut self, row: u64, mv: usize) -> u64 {
        let space = self.space;
        let m = space.moves.len();
        let after = match self.low_table {
            Some(t) => u64::from(t[row as usize * m + mv]),
            None => {
                let last = space.coords.len() - 1;
                let part = &space.moves[mv].1[last];
                space.coords[last].move_twists(row, mv, m, part, &mut self.scratch)
            }
        };
        self.base[mv].wrapping_add(after)
    }
}
