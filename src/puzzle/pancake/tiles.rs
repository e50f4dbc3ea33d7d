//! The flips whose blocks are too large for block moves, as transpositions
//! ([`Tiles`]). Flip `k` moves the ranks within each block of `W_k` (the
//! stacks that share the pancakes below the top `k`), the same way in every block: the flip of a
//! whole stack of `k`. In a block, the stacks whose bottom `m = k / 2` of the top `k` are one set
//! `U` form a tile: its rows are the orders of `U` there (burnt: and which way up each lies),
//! each row the consecutive ranks that share those digits, one per order of the `k - m` above.
//! The flip puts `U` on top, its order reversed: a column's stacks (one order above, every
//! order of `U`) go to the ranks that share the new digits below `U`, consecutive, one per row.

use super::{MAX_PANCAKES, Pancake};
use crate::puzzle::{Tiles, Transposition};

impl Pancake {
    /// Flip `k`'s tiles: one per set of `m = k / 2` of the top `k` lying lowest among them, in
    /// each block of `W_k` ranks.
    pub(super) fn flip_transposition(&self, k: usize) -> Transposition {
        let m = k / 2;
        Transposition {
            tiles: binomial(k, m) as usize,
            cols: self.weight[k - m],
            period: self.weight[k],
        }
    }

    /// The first ranks of the rows of tile `t` of flip `k` in the first block: every order of
    /// its set of `m = k / 2` below the other `k - m` (burnt: every way up), those in the order
    /// of the first column (the smallest on top, burnt sides down).
    pub(super) fn tile_orders(&self, k: usize, t: usize, rows: &mut Vec<u64>) {
        let m = k / 2;
        let set = nth_subset(k, m, t as u64);
        let mut stack = [0u8; MAX_PANCAKES];
        let mut above = 0;
        for p in (0..k as u8).filter(|&p| !set[..m].contains(&(p as usize))) {
            stack[above] = p;
            above += 1;
        }
        let ups = if self.burnt { 1u32 << m } else { 1 };
        let orders: u64 = (1..=m as u64).product();
        rows.clear();
        for order in 0..orders {
            // The order's pancakes: its factorial digits pick among the set's left.
            let mut left = set[..m].to_vec();
            let mut rest = order;
            for i in 0..m {
                let place = orders_below(m, i);
                stack[above + i] = left.remove((rest / place) as usize) as u8;
                rest %= place;
            }
            for up in 0..ups {
                let mut turned = stack;
                for (i, p) in turned[above..k].iter_mut().enumerate() {
                    *p |= ((up >> i & 1) as u8) << 5;
                }
                rows.push(self.rank_of(&turned[..k]));
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

/// The flips of more than the block moves transpose tiles.
impl Tiles for Pancake {
    fn transposition(&self, mv: usize) -> Option<Transposition> {
        let k = mv + self.first_flip();
        (!self.in_bulk(k)).then(|| self.flip_transposition(k))
    }

    fn tile_rows(&self, mv: usize, t: usize, rows: &mut Vec<u64>) {
        self.tile_orders(mv + self.first_flip(), t, rows);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::{Cursor, StateSpace};

    #[test]
    fn the_flips_with_tiles_send_each_tile_to_its_transpose_in_every_block() {
        for (n, burnt) in [(2, false), (5, false), (7, false), (3, true), (5, true)] {
            let stack = Pancake::new(n, burnt).unwrap();
            for mv in 0..stack.move_count() {
                let k = mv + stack.first_flip();
                // Every flip, as the tiles would take it were its blocks too large.
                the_transposition_holds(&stack, mv, stack.flip_transposition(k));
                assert_eq!(stack.transposition(mv).is_some(), !stack.in_bulk(k));
            }
        }
        let large = Pancake::new(10, false).unwrap();
        assert_eq!(large.capabilities().structure().unwrap().residual.len(), 1);
        assert_eq!(large.transposition(8), Some(large.flip_transposition(10)));
    }

    /// Checks the contract of [`StateSpace::transposition`] for move `mv` neighbour by
    /// neighbour in every block, and that its tiles cover every rank once.
    fn the_transposition_holds(stack: &Pancake, mv: usize, shape: Transposition) {
        let what = format!("{} {} {mv}", stack.n, stack.burnt);
        let mut cursor = stack.cursor();
        let mut neighbour = |rank| {
            cursor.seek(rank);
            cursor.neighbour(mv)
        };
        assert_eq!(stack.size() % shape.period, 0, "{what}");
        let mut covered = vec![false; stack.size() as usize];
        let mut rows = Vec::new();
        for t in 0..shape.tiles {
            stack.tile_rows(mv, t, &mut rows);
            // The order p: by where column 0 goes.
            rows.sort_by_key(|&r| neighbour(r));
            for block in (0..stack.size()).step_by(shape.period as usize) {
                for j in 0..shape.cols {
                    let s = neighbour(block + rows[0] + j);
                    for (i, &row) in rows.iter().enumerate() {
                        let rank = block + row + j;
                        assert!(rank < block + shape.period, "{what}");
                        assert!(!std::mem::replace(&mut covered[rank as usize], true));
                        assert_eq!(neighbour(rank), s + i as u64, "{what}");
                    }
                }
            }
        }
        assert!(covered.iter().all(|&c| c), "{what}: tiles cover every rank");
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
