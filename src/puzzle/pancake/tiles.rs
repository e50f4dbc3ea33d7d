//! Flips of the whole stack or of all but its bottom few pancakes as transpositions
//! ([`StateSpace::transposition`]). For flip `k`, the stacks whose top `m = k / 2` pancakes are
//! one set `U` form a tile: its rows are the orders of `U` on top (burnt: and which way up each
//! lies), each row the consecutive ranks that share those top digits, one per order of the
//! pancakes below.
//!
//! The whole flip puts the pancakes below on top and `U` below, each order reversed: a column's
//! stacks (one order below, every order of `U`) go to the ranks that share the new top digits,
//! consecutive, one per row. A flip that leaves the bottom `r` pancakes `C` (at most
//! [`TILED_BELOW`]) puts the rest above `U` and `C`: a column's stacks go to the ranks that
//! share the new top digits and end in `C`, spread out among them. Where they fall depends only
//! on how many of `U` are smaller than each of `C`: the column's class.
//!
//! [`StateSpace::transposition`]: crate::puzzle::StateSpace::transposition

use super::{MAX_PANCAKES, Pancake};
use crate::puzzle::Transposition;
use crate::rank::nth_set_bit;

/// The most pancakes below a flip with tiles: a flip that leaves more has runs of `5!` ranks
/// or longer, and its classes grow as `(m + 1)^r`. Four: the flip of 10 of 14 pancakes, runs
/// of 24 ranks, took 137 s in tiles in the pass from level 12 (24% of the stacks in the
/// frontier), where run by run its 3.6 billion scattered reads took about 425 s a pass.
pub(super) const TILED_BELOW: usize = 4;

impl Pancake {
    /// The pancakes on top in the rows of flip `k`'s tiles, where it has tiles: the whole flip,
    /// and the flips of all but the bottom few where the tiles have rows.
    pub(super) fn tile_top(&self, k: usize) -> Option<usize> {
        let tiled = k >= self.first_flip() && k >= 2 && k + TILED_BELOW >= self.n;
        tiled.then_some(k / 2)
    }

    /// Flip `k`'s tiles: one per set of `m` pancakes on top; `(m + 1)^r` classes of columns
    /// where it leaves `r` below, and runs of columns that differ only in the order of those
    /// (`r!` of them, burnt `2^r r!`): the flip leaves that order, the lowest digits, as it is.
    pub(super) fn flip_transposition(&self, k: usize, m: usize) -> Transposition {
        Transposition {
            tiles: binomial(self.n, m) as usize,
            cols: self.weight[m - 1],
            classes: (m + 1).pow((self.n - k) as u32),
            run: self.weight[k - 1],
        }
    }

    /// The first ranks of tile `t`'s rows: every order of its set of `m` on top (burnt: every
    /// way up).
    pub(super) fn tile_orders(&self, t: usize, m: usize, rows: &mut Vec<u64>) {
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

    /// The class of each run of columns of tile `t` of flip `k` with `m` on top (the columns
    /// that differ only in the order of the pancakes left below): for each of those, from the
    /// bottom, how many of the tile's set are smaller, as the digits of a number in base `m + 1`.
    pub(super) fn bottom_classes(&self, t: usize, k: usize, m: usize, classes: &mut Vec<u16>) {
        let set = nth_subset(self.n, m, t as u64);
        let below: Vec<u16> = (0..self.n as u16)
            .filter(|p| !set[..m].contains(&(*p as usize)))
            .collect();
        let left = self.n - k;
        classes.clear();
        classes.extend(self.bottoms(m, left).iter().map(|bottom| {
            (bottom[..left].iter().rev()).fold(0, |class, &b| {
                class * (m as u16 + 1) + below[b as usize] - u16::from(b)
            })
        }));
    }

    /// For the first column of each run of a tile with `m` on top (the orders of the `n - m`
    /// below, in rank order, in runs of the orders of the bottom `left`), which of those
    /// pancakes, counted from the smallest, lie at the bottom `left` places, from the bottom up.
    /// Made once for each `left`.
    fn bottoms(&self, m: usize, left: usize) -> &[[u8; TILED_BELOW]] {
        self.bottoms[left - 1].get_or_init(|| {
            let below = self.n - m;
            let run = self.weight[self.n - left - 1];
            (0..self.weight[m - 1])
                .step_by(run as usize)
                .map(|column| {
                    let mut unused = (1u32 << below) - 1;
                    let mut order = [0u8; MAX_PANCAKES];
                    for (i, slot) in order[..below].iter_mut().enumerate() {
                        let digit = column / self.weight[m + i] % self.radix[m + i];
                        let lehmer = if self.burnt { digit / 2 } else { digit };
                        let p = nth_set_bit(unused, lehmer as u32);
                        unused &= !(1 << p);
                        *slot = p as u8;
                    }
                    let mut bottom = [0u8; TILED_BELOW];
                    for (b, slot) in bottom[..left].iter_mut().enumerate() {
                        *slot = order[below - 1 - b];
                    }
                    bottom
                })
                .collect()
        })
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
    fn the_flips_with_tiles_send_each_tile_to_its_transpose() {
        for (n, burnt) in [
            (2, false),
            (3, false),
            (5, false),
            (6, false),
            (7, false),
            (8, false),
            (3, true),
            (4, true),
            (5, true),
        ] {
            let stack = Pancake::new(n, burnt).unwrap();
            let whole = stack.move_count() - 1;
            for mv in 0..=whole {
                let k = mv + stack.first_flip();
                let shape = stack.transposition(mv);
                assert_eq!(
                    shape.is_some(),
                    k >= 2 && k + TILED_BELOW >= n,
                    "{n} {burnt} {k}"
                );
                let Some(shape) = shape else { continue };
                assert_eq!(shape.classes == 1, mv == whole, "{n} {burnt} {mv}");
                assert_eq!(shape.run, stack.residual_run(mv), "{n} {burnt} {mv}");
                assert_eq!(shape.cols % shape.run, 0, "{n} {burnt} {mv}");
                the_transposition_holds(&stack, mv, shape);
            }
        }
    }

    /// Checks the contract of [`StateSpace::transposition`] for move `mv` neighbour by
    /// neighbour, and that its tiles cover every rank once.
    fn the_transposition_holds(stack: &Pancake, mv: usize, shape: Transposition) {
        let what = format!("{} {} {mv}", stack.n, stack.burnt);
        let mut cursor = stack.cursor();
        let mut neighbour = |rank| {
            cursor.seek(rank);
            cursor.neighbour(mv)
        };
        let mut covered = vec![false; stack.size() as usize];
        let (mut rows, mut classes) = (Vec::new(), Vec::new());
        for t in 0..shape.tiles {
            stack.tile_rows(mv, t, &mut rows);
            classes.clear();
            classes.resize((shape.cols / shape.run) as usize, 0);
            if shape.classes > 1 {
                stack.tile_classes(mv, t, &mut classes);
            }
            assert_eq!(classes.len() as u64, shape.cols / shape.run, "{what}");
            // The order p: by where column 0 goes.
            rows.sort_by_key(|&r| neighbour(r));
            // q_c(x) from the first column of class c, s_j from row p = 0.
            let mut q: Vec<Option<Vec<u64>>> = vec![None; shape.classes];
            for j in 0..shape.cols {
                let s = neighbour(rows[0] + j);
                let q = q[classes[(j / shape.run) as usize] as usize]
                    .get_or_insert_with(|| (rows.iter()).map(|&r| neighbour(r + j) - s).collect());
                assert!(q.windows(2).all(|w| w[0] < w[1]), "{what}: q ascends");
                if shape.classes == 1 {
                    assert!(q.iter().copied().eq(0..rows.len() as u64), "{what}");
                }
                let (j0, c) = (j / shape.run * shape.run, j % shape.run);
                for (&row, &q) in rows.iter().zip(q.iter()) {
                    assert!(!std::mem::replace(&mut covered[(row + j) as usize], true));
                    assert_eq!(neighbour(row + j), s + q, "{what}");
                    // A run's columns move together.
                    assert_eq!(neighbour(row + j), neighbour(row + j0) + c, "{what} {j}");
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
