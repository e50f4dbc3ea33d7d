//! A set's coordinates: the rank of its pieces and of its orientations, and how a move changes
//! them.

use super::*;

/// One set's coordinates.
#[derive(Clone, Debug)]
pub(super) struct Coords {
    pub(super) count: usize,
    pub(super) orientations: u8,
    /// The solved labels' multiplicities (all 1: distinct pieces).
    pub(super) multiplicity: Vec<u8>,
    /// The values of the pieces' coordinate (lexicographic or multiset rank).
    pub(super) perm_size: u64,
    /// Its bit in the parity vector, where the parity is tracked (the rank digit is then the
    /// lexicographic rank halved).
    pub(super) parity_bit: Option<u32>,
    /// Orientation digits in the rank: `count - 1` where the sum is fixed or in the parity
    /// vector, else `count`; 0 without orientations.
    pub(super) ori_digits: usize,
    /// The orientations' sum (mod `orientations`) where it is fixed.
    pub(super) ori_sum: u8,
    /// Its bit in the parity vector, where the set has two orientations and moves change their
    /// sum: the vector then holds the sum (mod 2).
    pub(super) sum_bit: Option<u32>,
    /// `orientations ^ ori_digits`: the values of the orientations' digit.
    pub(super) ori_size: u64,
    /// `[coordinate * moves + move]`: the coordinate after the move, where small enough.
    pub(super) perm_table: Option<Vec<u32>>,
    /// The earlier set of distinct pieces whose pieces this set's always move with (every move
    /// permutes both alike): this set's pieces follow from that set's, and have no digit.
    pub(super) follows: Option<usize>,
    /// Bit `r`: the lexicographic rank `r` is an odd permutation (tracked sets with a table).
    pub(super) odd: Option<Vec<u64>>,
    pub(super) ori_table: Option<Vec<u32>>,
    /// Whether a block numbers this set's pieces, and its orientations (the set then has no
    /// digit of its own for them).
    pub(super) pieces_in_block: bool,
    pub(super) twists_in_block: bool,
}

impl Coords {
    /// Whether the set's pieces are distinct and ranked by their own (lexicographic) digit.
    pub(super) fn distinct(&self) -> bool {
        self.follows.is_none() && self.multiplicity.len() == self.count
    }

    /// Whether the lexicographic rank `r` is an odd permutation.
    pub(super) fn odd_rank(&self, r: u64) -> bool {
        match &self.odd {
            Some(bits) => (bits[(r / 64) as usize] >> (r % 64)) & 1 == 1,
            None => {
                let mut labels = [0u8; MAX_PIECES];
                rank::lex_unrank(r, &mut labels[..self.count]);
                rank::is_odd(&labels[..self.count])
            }
        }
    }

    /// The lexicographic rank of the pieces whose halved digit is `p`, of parity `odd`: the
    /// ranks 2p and 2p + 1 have opposite parities.
    pub(super) fn lex_of(&self, p: u64, odd: bool) -> u64 {
        2 * p + u64::from(self.odd_rank(2 * p) != odd)
    }

    pub(super) fn perm_digits(&self) -> u64 {
        match self.parity_bit {
            Some(_) => self.perm_size / 2,
            None => self.perm_size,
        }
    }

    /// The sizes of the set's pieces digit and orientations digit (1 for a part in a block).
    pub(super) fn sizes(&self) -> (u64, u64) {
        (
            if self.pieces_in_block {
                1
            } else {
                self.perm_digits()
            },
            if self.twists_in_block {
                1
            } else {
                self.ori_size
            },
        )
    }

    pub(super) fn rank_pieces(&self, labels: &[u8]) -> u64 {
        if self.follows.is_some() {
            0
        } else if self.distinct() {
            rank::lex_rank(labels)
        } else {
            multiset_rank(labels, &self.multiplicity)
        }
    }

    pub(super) fn unrank_pieces(&self, r: u64, labels: &mut [u8]) {
        if self.follows.is_some() {
            // Set from the followed set's pieces (Twisty::unrank_parts).
        } else if self.distinct() {
            rank::lex_unrank(r, labels)
        } else {
            multiset_unrank(r, &self.multiplicity, labels)
        }
    }

    /// The values of the orientations' coordinate: the digit's, times the two sums where the
    /// vector holds the sum.
    pub(super) fn ori_values(&self) -> u64 {
        match self.sum_bit {
            Some(_) => 2 * self.ori_size,
            None => self.ori_size,
        }
    }

    /// The orientations' coordinate: their digit, plus their sum times the digit's values
    /// where the vector holds the sum.
    pub(super) fn rank_twists(&self, twists: &[u8]) -> u64 {
        let o = u64::from(self.orientations);
        let digit = (twists[..self.ori_digits].iter()).fold(0, |r, &t| r * o + u64::from(t));
        match self.sum_bit {
            Some(_) => {
                digit
                    + u64::from(twists.iter().map(|&t| u32::from(t)).sum::<u32>() % 2)
                        * self.ori_size
            }
            None => digit,
        }
    }

    pub(super) fn unrank_twists(&self, coordinate: u64, twists: &mut [u8]) {
        let o = u64::from(self.orientations);
        let mut r = coordinate % self.ori_size;
        for t in twists[..self.ori_digits].iter_mut().rev() {
            *t = (r % o) as u8;
            r /= o;
        }
        if self.ori_digits < self.count {
            let total = match self.sum_bit {
                Some(_) => (coordinate / self.ori_size) as u32,
                None => u32::from(self.ori_sum),
            };
            let sum: u32 = twists[..self.ori_digits]
                .iter()
                .map(|&t| u32::from(t))
                .sum();
            let o = u32::from(self.orientations);
            twists[self.count - 1] = ((total + o * 256 - sum) % o) as u8;
        }
    }

    /// The sum part of the orientations' coordinate under the parity vector `vector`.
    pub(super) fn sum_part(&self, vector: u32) -> u64 {
        self.sum_bit
            .map_or(0, |b| u64::from((vector >> b) & 1) * self.ori_size)
    }

    /// The pieces' coordinate after move `mv` (`part`, its `m`-th).
    pub(super) fn move_pieces(
        &self,
        p: u64,
        m: usize,
        moves: usize,
        part: &SetPart,
        scratch: &mut [u8; 2 * MAX_PIECES],
    ) -> u64 {
        if let Some(t) = &self.perm_table {
            return u64::from(t[p as usize * moves + m]);
        }
        if self.follows.is_some() {
            return 0;
        }
        let n = self.count;
        let (old, new) = scratch.split_at_mut(MAX_PIECES);
        self.unrank_pieces(p, &mut old[..n]);
        for (slot, &f) in new[..n].iter_mut().zip(&part.pieces) {
            *slot = old[f as usize];
        }
        self.rank_pieces(&new[..n])
    }

    /// The orientations' coordinate after move `part` (the `m`-th).
    pub(super) fn move_twists(
        &self,
        q: u64,
        m: usize,
        moves: usize,
        part: &SetPart,
        scratch: &mut [u8; 2 * MAX_PIECES],
    ) -> u64 {
        if let Some(t) = &self.ori_table {
            return u64::from(t[q as usize * moves + m]);
        }
        let n = self.count;
        let (old, new) = scratch.split_at_mut(MAX_PIECES);
        self.unrank_twists(q, &mut old[..n]);
        for ((slot, &f), &t) in new[..n].iter_mut().zip(&part.pieces).zip(&part.twists) {
            *slot = (old[f as usize] + t) % self.orientations;
        }
        self.rank_twists(&new[..n])
    }
}
