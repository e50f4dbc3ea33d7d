//! The pancake cursor: a stack decoded from the last one, each flip's neighbour from independent
//! terms.

use super::{MAX_PANCAKES, Pancake};
use crate::puzzle::{Cursor, StateSpace};
use crate::rank::nth_set_bit;

/// Walks the stacks: each flip's offset, kept for the run of ranks that share the digits it
/// changes, found again from the stack's top digits when the cursor leaves that run.
///
/// After flipping the top `k`, pancake `p` from position `j < k` has below it the smaller
/// pancakes that were above it and the smaller ones under the flip: its digit is `a_j + b_j`,
/// `a_j` kept per position as the cursor decodes (it depends on the pancakes above alone) and
/// `b_j` one popcount against the sizes under the flip. The terms do not depend on each other.
pub struct PancakeCursor<'a> {
    stack: &'a Pancake,
    rank: u64,
    /// For each move, the run its offset holds for (`start..end`) and the offset (wrapping).
    runs: Vec<(u64, u64, u64)>,
    /// The digits of rank `decoded`, top first.
    digits: [u64; MAX_PANCAKES],
    /// The sizes smaller than each position's pancake, as a mask.
    below: [u32; MAX_PANCAKES],
    /// Each position's part of its pancake's digit after a flip that moves it: the smaller
    /// pancakes above it (burnt: twice that, plus 1 where its burnt side is down, to be up).
    above: [u64; MAX_PANCAKES],
    /// The digits above each position, weighted as in the rank: `sum_{j < i} d_j W_j`.
    prefix: [u64; MAX_PANCAKES + 1],
    /// The sizes not among the top `i` pancakes, for each `i`.
    unused: [u32; MAX_PANCAKES + 1],
    decoded: u64,
}

impl<'a> PancakeCursor<'a> {
    /// A cursor over `stack`'s ranks.
    pub(super) fn new(stack: &'a Pancake) -> PancakeCursor<'a> {
        PancakeCursor {
            stack,
            rank: 0,
            runs: vec![(1, 0, 0); stack.move_count()],
            digits: [0; MAX_PANCAKES],
            below: [0; MAX_PANCAKES],
            above: [0; MAX_PANCAKES],
            prefix: [0; MAX_PANCAKES + 1],
            unused: [(1 << stack.n) - 1; MAX_PANCAKES + 1],
            decoded: u64::MAX,
        }
    }

    /// The stack of the cursor's rank, decoded: from the last one decoded by adding the gap to
    /// its digits (the few lowest change), else afresh; the pancakes from the first digit that
    /// changed.
    fn decode(&mut self) {
        let s = self.stack;
        let n = s.n;
        let mut first = 0;
        if self.decoded < self.rank && self.rank - self.decoded < 1 << 31 {
            // Below 2^32 (the gap, and every digit plus its carry), 32-bit divisions do, and
            // none where a digit takes the carry whole.
            let mut carry = (self.rank - self.decoded) as u32;
            let mut i = n;
            while carry > 0 {
                i -= 1;
                let r = s.radix[i] as u32;
                let v = self.digits[i] as u32 + carry;
                if v < r {
                    self.digits[i] = u64::from(v);
                    break;
                }
                self.digits[i] = u64::from(v % r);
                carry = v / r;
            }
            first = i;
        } else {
            s.digits(self.rank, &mut self.digits);
        }
        let all = (1u32 << n) - 1;
        for i in first..n {
            let unused = self.unused[i];
            let digit = self.digits[i];
            let (lehmer, up) = match s.burnt {
                true => (digit / 2, digit % 2),
                false => (digit, 0),
            };
            let p = nth_set_bit(unused, lehmer as u32);
            self.unused[i + 1] = unused & !(1 << p);
            let below = (1 << p) - 1;
            self.below[i] = below;
            let above = u64::from((all & !unused & below).count_ones());
            self.above[i] = match s.burnt {
                true => 2 * above + (up ^ 1),
                false => above,
            };
            self.prefix[i + 1] = self.prefix[i] + digit * s.weight[i];
        }
        self.decoded = self.rank;
    }
}

impl Cursor for PancakeCursor<'_> {
    fn seek(&mut self, rank: u64) {
        self.rank = rank;
    }

    fn neighbour(&mut self, mv: usize) -> u64 {
        let (start, end, offset) = self.runs[mv];
        if (start..end).contains(&self.rank) {
            return self.rank.wrapping_add(offset);
        }
        if self.decoded != self.rank {
            self.decode();
        }
        let s = self.stack;
        let k = mv + s.first_flip();
        // The sizes under the flip, and what each smaller one adds to a digit.
        let under = self.unused[k];
        let step = if s.burnt { 2 } else { 1 };
        let mut after = 0;
        for j in 0..k {
            let smaller = u64::from((under & self.below[j]).count_ones());
            after += (self.above[j] + step * smaller) * s.weight[k - 1 - j];
        }
        let run = s.weight[k - 1];
        let start = self.rank - self.rank % run;
        let offset = after.wrapping_sub(self.prefix[k]);
        self.runs[mv] = (start, start + run, offset);
        self.rank.wrapping_add(offset)
    }
}
