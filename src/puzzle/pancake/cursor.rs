//! The pancake cursor: a stack decoded from the last one, each flip's neighbour from the top
//! `k` pancakes' digits.

use super::{MAX_PANCAKES, Pancake};
use crate::puzzle::Cursor;
use crate::rank::nth_set_bit;

/// Walks the stacks. A flip of `k` changes only the top `k` digits: after it, the pancake from
/// position `i < k` has above it the larger pancakes that were below it among the top `k`, the
/// larger ones among all `k` less those that were above it (its digit's count).
pub struct PancakeCursor<'a> {
    stack: &'a Pancake,
    rank: u64,
    /// The digits of rank `decoded`, top first.
    digits: [u64; MAX_PANCAKES],
    /// The pancakes from the top (sizes, `+ 32` turned up).
    pancakes: [u8; MAX_PANCAKES],
    /// The sizes among the top `i` pancakes, for each `i`, as a mask.
    top: [u32; MAX_PANCAKES + 1],
    /// The top `i` digits weighted as in the rank: `sum_{j < i} d_j W_j`.
    prefix: [u64; MAX_PANCAKES + 1],
    decoded: u64,
}

impl<'a> PancakeCursor<'a> {
    /// A cursor over `stack`'s ranks.
    pub(super) fn new(stack: &'a Pancake) -> PancakeCursor<'a> {
        PancakeCursor {
            stack,
            rank: 0,
            digits: [0; MAX_PANCAKES],
            pancakes: [0; MAX_PANCAKES],
            top: [0; MAX_PANCAKES + 1],
            prefix: [0; MAX_PANCAKES + 1],
            decoded: u64::MAX,
        }
    }

    /// The stack of the cursor's rank, decoded: from the last one decoded by adding the gap to
    /// its digits (the few lowest change), else afresh; the pancakes from the lowest digit that
    /// changed up.
    fn decode(&mut self) {
        let s = self.stack;
        let n = s.n;
        // The positions whose digits may have changed: 0..changed.
        let mut changed = n;
        if self.decoded < self.rank && self.rank - self.decoded < 1 << 31 {
            let mut carry = self.rank - self.decoded;
            let mut i = 0;
            while carry > 0 {
                let v = self.digits[i] + carry;
                self.digits[i] = v % s.radix[i];
                carry = v / s.radix[i];
                i += 1;
            }
            changed = i;
        } else {
            s.digits(self.rank, &mut self.digits[..n]);
            self.top[n] = (1 << n) - 1;
        }
        // From the bottom of the change up: each pancake the one left with its count larger.
        let mut left = self.top[changed];
        for i in (0..changed).rev() {
            let (larger, up) = s.split(self.digits[i]);
            let p = nth_set_bit(left, i as u32 - larger as u32);
            left &= !(1 << p);
            self.top[i] = left;
            self.pancakes[i] = p as u8 | (up as u8) << 5;
        }
        for i in 0..n {
            self.prefix[i + 1] = self.prefix[i] + self.digits[i] * s.weight[i];
        }
        self.decoded = self.rank;
    }
}

impl Cursor for PancakeCursor<'_> {
    fn seek(&mut self, rank: u64) {
        self.rank = rank;
    }

    fn neighbour(&mut self, mv: usize) -> u64 {
        if self.decoded != self.rank {
            self.decode();
        }
        let s = self.stack;
        let k = mv + s.first_flip();
        let within = self.top[k];
        let mut after = 0;
        for i in 0..k {
            let p = self.pancakes[i];
            let larger = within & !((2 << (p & 31)) - 1);
            let (above, _) = s.split(self.digits[i]);
            let below = larger.count_ones() - above as u32;
            after += s.digit(p ^ (u8::from(s.burnt) << 5), below) * s.weight[k - 1 - i];
        }
        self.rank - self.prefix[k] + after
    }
}
