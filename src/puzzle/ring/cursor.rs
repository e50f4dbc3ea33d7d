//! The walker over a ring puzzle's ranks: Lehmer digits kept in registers, planes by a
//! multiplication.

use super::*;
use crate::puzzle::Cursor;

/// How many arrangements ahead a seek adds rather than unranks.
const ADVANCE_LIMIT: u64 = 64;
/// `ceil(2^16 / r)` for radices `r` up to 16: `s / r == (s * SMALL_RECIPROCALS[r]) >> 16` for
/// the sums `s < 2^8` that [`RingCursor::advance`] divides.
const SMALL_RECIPROCALS: [u32; 17] = {
    let mut r = [0u32; 17];
    let mut d = 1;
    while d <= 16 {
        r[d] = 65536u32.div_ceil(d as u32);
        d += 1;
    }
    r
};

/// Walks ring-puzzle ranks. It keeps the Lehmer digits of the current arrangement (four bits
/// each), so stepping to the next arrangement is a few word operations and a window that misses
/// piece 1 is one table lookup; the labels are decoded only for windows through piece 1.
pub struct RingCursor<'a> {
    pub(super) space: &'a Ring,
    /// Lehmer digits of the labels after piece 1: digit `t` in bits `4t..4t+4`.
    pub(super) digits: u64,
    /// Even arrangements only: the digits of lexicographic rank `2 * index`, of which the
    /// arrangement is the even one of the pair `2 * index`, `2 * index + 1`.
    pub(super) pair: u64,
    /// The labels after piece 1, four bits each, kept up to date with the digits.
    pub(super) labels: u64,
    /// `unused[t]`: the labels not used before tail position `t`, one bit each.
    pub(super) unused: [u16; MAX_PIECES],
    /// Arrangement index.
    pub(super) index: u64,
    /// The offset of piece 1 (lrf; 0 for flips).
    pub(super) plane: u64,
    /// `plane * A`.
    pub(super) base: u64,
}

impl RingCursor<'_> {
    fn m(&self) -> usize {
        self.space.n - 1
    }

    pub(super) fn load(&mut self, index: u64) {
        let lex = if self.space.even { index << 1 } else { index };
        let packed = self.space.digit_table.digits(lex);
        self.set(index, packed, 0);
    }

    /// Makes the arrangement with this index current, from the digits of lexicographic rank
    /// `index` (or `2 * index` for even arrangements); the labels before tail position `from`
    /// stay as they are.
    #[inline]
    fn set(&mut self, index: u64, packed: u64, from: usize) {
        let digits = if self.space.even {
            // Lexicographic ranks 2i and 2i+1 differ in digit m-2 (0 or 1): a digit sum of odd
            // parity means the arrangement is the other one.
            let odd = (packed & NIBBLE_LOW_BITS).count_ones() as u64 & 1;
            self.pair = packed;
            packed ^ (odd << (4 * (self.m() - 2)))
        } else {
            packed
        };
        // Labels change from the first digit that changed on.
        let changed = ((self.digits ^ digits).trailing_zeros() / 4) as usize;
        self.digits = digits;
        self.index = index;
        self.decode(from.min(changed));
    }

    /// Decodes the labels from tail position `from` on: label t is the d(t)-th value not used
    /// before it.
    #[inline]
    fn decode(&mut self, from: usize) {
        let m = self.m();
        if from >= m {
            return;
        }
        if from == 0 {
            self.unused[0] = ((1u32 << m) - 1) as u16;
        }
        let mut labels = self.labels & ((1u64 << (4 * from)) - 1);
        // The mask stays in a register; the array only keeps it for later partial decodes.
        let mut unused = self.unused[from] as u32;
        for t in from..m - 1 {
            let d = ((self.digits >> (4 * t)) & 15) as u32;
            let x = rank::nth_set_bit(unused, d);
            labels |= (x as u64) << (4 * t);
            unused &= !(1 << x);
            self.unused[t + 1] = unused as u16;
        }
        // The last label is the one left.
        labels |= (unused.trailing_zeros() as u64) << (4 * (m - 1));
        self.labels = labels;
    }

    /// The digits of the lexicographic rank `g` (less than 256) further on: a factorial-base
    /// addition from the last digit that counts (digit m - 1 is always 0).
    #[inline]
    fn advance(&self, mut digits: u64, g: u64) -> u64 {
        let m = self.m();
        let mut carry = g as u32;
        let mut t = m - 1;
        while carry != 0 && t > 0 {
            t -= 1;
            let radix = (m - t) as u32;
            let sum = ((digits >> (4 * t)) & 15) as u32 + carry;
            // sum / radix by a multiplication (exact for these small sums).
            carry = (sum * SMALL_RECIPROCALS[radix as usize]) >> 16;
            let digit = sum - carry * radix;
            digits = (digits & !(15 << (4 * t))) | (digit as u64) << (4 * t);
        }
        digits
    }

    /// The digits of the lexicographically next permutation: factorial-base increment.
    #[inline]
    fn increment(&self, digits: u64) -> u64 {
        // Digits never exceed their maximum, so this subtraction borrows across no nibble; the
        // highest nonzero nibble is the last digit below its maximum.
        let room = self.space.max_digits - digits;
        let t = (63 - room.leading_zeros()) / 4;
        (digits + (1 << (4 * t))) & ((1u64 << (4 * t + 4)) - 1)
    }

    /// Makes arrangement `index` current: by a factorial-base increment or addition when it lies
    /// a little ahead, else by unranking.
    #[inline]
    fn go_to(&mut self, index: u64) {
        let ahead = index.wrapping_sub(self.index);
        if ahead == 0 {
        } else if ahead == 1 {
            if self.space.even {
                let pair = self.increment(self.increment(self.pair));
                self.set(index, pair, MAX_PIECES);
            } else {
                let digits = self.increment(self.digits);
                self.set(index, digits, MAX_PIECES);
            }
        } else if ahead < ADVANCE_LIMIT {
            if self.space.even {
                let pair = self.advance(self.pair, 2 * ahead);
                self.set(index, pair, MAX_PIECES);
            } else {
                let digits = self.advance(self.digits, ahead);
                self.set(index, digits, MAX_PIECES);
            }
        } else {
            self.load(index);
        }
    }

    /// The window at arrangement position `w` applied: the new arrangement's index and how many
    /// places piece 1 moved along the ring.
    #[inline]
    fn window(&mut self, w: usize) -> (u64, usize) {
        match &self.space.moves[w] {
            WindowAt::Interior(i) => {
                let x = i
                    .weights
                    .iter()
                    .enumerate()
                    .map(|(t, &weight)| ((self.digits >> (4 * (i.j + t))) & 15) * weight)
                    .sum::<u64>();
                let parity = ((self.digits & i.prefix_low).count_ones() & 1) as usize;
                let index = self.index.wrapping_add(i.delta[parity][x as usize] as u64);
                (index, 0)
            }
            WindowAt::Rotation(r) => {
                let lex = self.space.ranker.rank_of_nibbles(self.labels, &r.tail_from);
                let index = if self.space.even { lex >> 1 } else { lex };
                (index, r.shift)
            }
        }
    }
}

impl Cursor for RingCursor<'_> {
    fn seek(&mut self, rank: u64) {
        let a = self.space.arrangements;
        let index = rank.wrapping_sub(self.base);
        if index < a {
            self.go_to(index);
        } else {
            // The quotient by a multiplication: at most one short.
            let mut plane = ((rank as u128 * self.space.reciprocal as u128) >> 64) as u64;
            if rank - plane * a >= a {
                plane += 1;
            }
            self.plane = plane;
            self.base = plane * a;
            self.go_to(rank - self.base);
        }
    }

    fn neighbour(&mut self, mv: usize) -> u64 {
        let n = self.space.n as u64;
        let a = self.space.arrangements;
        match self.space.metric {
            Metric::Flips => self.window(mv).0,
            Metric::Lrf => match mv {
                // L: every piece one place left, so piece 1 too.
                0 => {
                    let plane = if self.plane == 0 {
                        n - 1
                    } else {
                        self.plane - 1
                    };
                    plane * a + self.index
                }
                1 => {
                    let plane = if self.plane == n - 1 {
                        0
                    } else {
                        self.plane + 1
                    };
                    plane * a + self.index
                }
                _ => {
                    // F acts on ring positions 0..k, which start at arrangement position -offset.
                    let w = if self.plane == 0 { 0 } else { n - self.plane };
                    let (index, shift) = self.window(w as usize);
                    let plane = self.plane + shift as u64;
                    let plane = if plane >= n { plane - n } else { plane };
                    plane * a + index
                }
            },
        }
    }
}
