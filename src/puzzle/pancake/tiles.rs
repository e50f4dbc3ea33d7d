//! Flipping the whole stack as a transposition ([`StateSpace::transposition`]). The stacks whose
//! top `m = n / 2` pancakes are one set `U` form a tile: its rows are the orders of `U` on top
//! (burnt: and which way up each lies), each row the consecutive ranks that share those top
//! digits, one per order of the pancakes below. The whole flip puts the pancakes below on top
//! and `U` below, each order reversed: a column's stacks (one order below, every order of `U`)
//! go to the ranks that share the new top digits, consecutive, one per row.
//!
//! [`StateSpace::transposition`]: crate::puzzle::StateSpace::transposition

use super::{MAX_PANCAKES, Pancake};
use crate::puzzle::Transposition;

impl Pancake {
    /// The pancakes on top in a tile's rows.
    fn tile_top(&self) -> usize {
        self.n / 2
    }

    /// The whole flip's tiles: one per set of `n / 2` pancakes on top.
    pub(super) fn whole_flip_transposition(&self) -> Transposition {
        let m = self.tile_top();
        Transposition {
            tiles: binomial(self.n, m) as usize,
            cols: self.weight[m - 1],
        }
    }

    /// The first ranks of tile `t`'s rows: every order of its set on top (burnt: every way up).
    pub(super) fn whole_flip_rows(&self, t: usize, rows: &mut Vec<u64>) {
        let m = self.tile_top();
        let set = nth_subset(self.n, m, t as u64);
        let ups = if self.burnt { 1u64 << m } else { 1 };
        rows.clear();
        let orders: u64 = (1..=m as u64).product();
        let mut top = [0usize; MAX_PANCAKES];
        for order in 0..orders {
            // The order's pancakes: its factorial digits pick among the set's left.
            let mut left = set[..m].to_vec();
            let mut rest = order;
            for (i, slot) in top[..m].iter_mut().enumerate() {
                let radix = (m - i) as u64;
                let place = orders_below(m, i);
                *slot = left.remove((rest / place % radix) as usize);
                rest %= place;
            }
            for up in 0..ups {
                let mut rank = 0;
                for i in 0..m {
                    let above_smaller = top[..i].iter().filter(|&&p| p < top[i]).count();
                    let lehmer = (top[i] - above_smaller) as u64;
                    let digit = match self.burnt {
                        true => 2 * lehmer + (up >> i & 1),
                        false => lehmer,
                    };
                    rank += digit * self.weight[i];
                }
                rows.push(rank);
            }
        }
    }
}

/// The orders of the `m - i - 1` places after place `i` of `m`: `(m - i - 1)!`.
fn orders_below(m: usize, i: usize) -> u64 {
    (1..(m - i) as u64).product()
}

/// `n` choose `k`.
fn binomial(n: usize, k: usize) -> u64 {
    (0..k as u64).fold(1, |c, i| c * (n as u64 - i) / (i + 1))
}

/// The `t`-th set of `k` of `0..n` in lexicographic order, ascending.
fn nth_subset(n: usize, k: usize, mut t: u64) -> [usize; MAX_PANCAKES] {
    let mut set = [0; MAX_PANCAKES];
    let mut next = 0;
    for (i, slot) in set[..k].iter_mut().enumerate() {
        // Skip the first elements whose sets with the smallest members chosen come before t.
        loop {
            let with = binomial(n - next - 1, k - i - 1);
            if t < with {
                break;
            }
            t -= with;
            next += 1;
        }
        *slot = next;
        next += 1;
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::{Cursor, StateSpace};

    #[test]
    fn the_whole_flip_sends_each_tile_to_its_transpose() {
        for (n, burnt) in [
            (2, false),
            (5, false),
            (6, false),
            (7, false),
            (3, true),
            (4, true),
        ] {
            let stack = Pancake::new(n, burnt).unwrap();
            let mv = stack.move_count() - 1;
            let shape = stack.transposition(mv).unwrap();
            assert_eq!(stack.transposition(0).filter(|_| mv > 0), None);
            let mut cursor = stack.cursor();
            let mut covered = vec![false; stack.size() as usize];
            let mut rows = Vec::new();
            for t in 0..shape.tiles {
                stack.tile_rows(mv, t, &mut rows);
                // Row i's column j goes to s_j + p(i): p from column 0, s_j from row p = 0.
                let first: Vec<u64> = (rows.iter())
                    .map(|&r| {
                        cursor.seek(r);
                        cursor.neighbour(mv)
                    })
                    .collect();
                let base = *first.iter().min().unwrap();
                let mut order: Vec<u64> = first.iter().map(|&x| x - base).collect();
                order.sort_unstable();
                assert!(
                    order.iter().copied().eq(0..rows.len() as u64),
                    "{n} {burnt} {t}"
                );
                let zero = rows[first.iter().position(|&x| x == base).unwrap()];
                for (&row, &f) in rows.iter().zip(&first) {
                    for j in 0..shape.cols {
                        assert!(!std::mem::replace(&mut covered[(row + j) as usize], true));
                        cursor.seek(zero + j);
                        let column = cursor.neighbour(mv);
                        cursor.seek(row + j);
                        assert_eq!(cursor.neighbour(mv), column + (f - base), "{n} {burnt}");
                    }
                }
            }
            assert!(
                covered.iter().all(|&c| c),
                "{n} {burnt}: tiles cover every rank"
            );
        }
    }

    #[test]
    fn subsets_come_in_lexicographic_order() {
        let all: Vec<Vec<usize>> = (0..binomial(5, 3))
            .map(|t| nth_subset(5, 3, t)[..3].to_vec())
            .collect();
        assert_eq!(all.len(), 10);
        assert_eq!(all[0], [0, 1, 2]);
        assert_eq!(all[9], [2, 3, 4]);
        assert!(all.windows(2).all(|w| w[0] < w[1]));
    }
}
