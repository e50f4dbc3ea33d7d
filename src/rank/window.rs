//! How permuting a few consecutive entries of a permutation changes its lexicographic rank.
//!
//! Entry `i` of a permutation of length `m` has the Lehmer digit `d_i`: how many later entries
//! are smaller. Permuting the entries at positions `j..j + k` among themselves changes only the
//! digits `d_j..d_{j+k}`: an earlier digit counts the same set of later entries, a later digit
//! sees none of them move. And the new window digits depend on the old window digits alone (they
//! say where each window entry ranks among the entries from position `j` on). So in the rank, a
//! mixed-radix number, the move replaces the *window value* `x` (the window digits read as a
//! mixed-radix number) by `map[x]` and keeps the *prefix* (digits before `j`) and the *suffix*
//! (digits after the window).
//!
//! Ranks that share a prefix form a *block* of consecutive ranks; inside it, ranks that also
//! share the window value form a *run*. The move sends every run to a whole run of the same block,
//! in order: rank `b * block + x * run + s` goes to `b * block + map[x] * run + s`. The level loop
//! applies such moves to 64 table entries at a time.
//!
//! Even permutations have their own dense index, `lex_rank / 2` (see [`crate::rank`]): its digits
//! are `d_0..d_{m-3}`; `d_{m-1}` is always 0 and `d_{m-2}` is whatever makes the digit sum even.
//! A window that reaches digit `m - 2` therefore depends on the parity of the prefix digits, and
//! has one map for an even prefix sum and one for an odd one.

use super::{FACTORIALS, MAX_LEN, nth_set_bit};
use rayon::prelude::*;

/// Window values per parallel chunk of a map.
const MAP_CHUNK: usize = 1 << 14;

/// A permutation of `k` consecutive entries, as it acts on (even-permutation) indices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowMove {
    /// Consecutive indices sharing the prefix digits.
    pub block: u64,
    /// Consecutive indices sharing the prefix and window digits (`block` is a multiple).
    pub run: u64,
    /// The window value after the move, for each window value `0..block / run`: one map, or
    /// where the window reaches the digit that parity decides, one for prefix digits that sum
    /// to an even number and one for an odd sum (read through [`WindowMove::map`]).
    maps: std::sync::Arc<[Vec<u32>]>,
    /// Radices of the prefix digits, most significant first.
    pub prefix: Vec<u32>,
}

impl WindowMove {
    /// The move that keeps every index of a block of `len` in place (a plain shift, once the
    /// source range is placed elsewhere).
    pub fn identity(len: u64) -> WindowMove {
        WindowMove {
            block: len,
            run: len,
            maps: vec![vec![0]].into(),
            prefix: Vec::new(),
        }
    }

    /// The move that sends window value `x` to `map[x]` in blocks of `map.len() * run`
    /// consecutive indices, whatever the prefix (a family's own window, not a permutation of
    /// consecutive entries: a burnt pancake's flip also turns its pancakes).
    pub fn of_map(run: u64, map: Vec<u32>) -> WindowMove {
        WindowMove {
            block: map.len() as u64 * run,
            run,
            maps: vec![map].into(),
            prefix: Vec::new(),
        }
    }

    /// Where its maps are kept: the same for this move's clones, which share them, so that
    /// what is made from the maps can be made once for them all.
    pub fn maps_id(&self) -> (usize, u64, u64) {
        (self.maps.as_ptr() as usize, self.block, self.run)
    }

    /// The move that undoes this one (its maps inverted: a move keeps the prefix, so the parity
    /// that picks a map is the same before and after).
    pub fn inverse(&self) -> WindowMove {
        let invert = |map: &Vec<u32>| {
            let mut inverse = vec![0u32; map.len()];
            for (x, &y) in map.iter().enumerate() {
                inverse[y as usize] = x as u32;
            }
            inverse
        };
        WindowMove {
            maps: self.maps.iter().map(invert).collect::<Vec<_>>().into(),
            prefix: self.prefix.clone(),
            ..*self
        }
    }

    /// True when every index stays where it is.
    pub fn is_identity(&self) -> bool {
        (self.maps.iter()).all(|map| map.iter().enumerate().all(|(x, &y)| x as u32 == y))
    }

    /// True when the map depends on the parity of the prefix.
    pub fn parity_dependent(&self) -> bool {
        self.maps.len() == 2
    }

    /// The window value after the move for each window value, where the prefix digits sum to an
    /// odd number (`odd`) or an even one.
    pub fn map(&self, odd: bool) -> &[u32] {
        &self.maps[odd as usize % self.maps.len()]
    }

    /// The distinct maps: one, or where the prefix parity matters, the even and the odd one.
    pub fn maps(&self) -> &[Vec<u32>] {
        &self.maps
    }

    /// The index reached from `index` (which must lie inside the moved range's first `block *
    /// product(prefix)` indices): for tests and per-state use.
    pub fn apply(&self, index: u64) -> u64 {
        let b = index / self.block;
        let within = index % self.block;
        let (x, s) = (within / self.run, within % self.run);
        let parity = prefix_parity(b, &self.prefix);
        b * self.block + self.map(parity)[x as usize] as u64 * self.run + s
    }
}

/// The parity of the digit sum of `value` written in mixed radix `radices` (most significant
/// first).
pub fn prefix_parity(mut value: u64, radices: &[u32]) -> bool {
    let mut parity = false;
    for &r in radices.iter().rev() {
        parity ^= (value % r as u64) & 1 == 1;
        value /= r as u64;
    }
    parity
}

/// The move that permutes positions `j..j + perm.len()` of permutations of length `m`:
/// afterwards position `j + i` holds what position `j + perm[i]` held. `even`: indices of even
/// permutations (`perm` must then be even), else lexicographic ranks.
pub fn window_move(m: usize, j: usize, perm: &[usize], even: bool) -> WindowMove {
    let k = perm.len();
    assert!(j + k <= m && m <= super::MAX_LEN, "window {j}+{k} in {m}");
    // The index digits: all of them, or for even permutations all but the last two.
    let digits = if even { m.saturating_sub(2) } else { m };
    let window_end = (j + k).min(digits);
    let window_radices: Vec<u32> = (j..window_end).map(|i| (m - i) as u32).collect();
    let values: u64 = window_radices.iter().map(|&r| r as u64).product();
    let run = if even {
        // The suffix index digits run up to m - 3: (m - j - k)! / 2 values, or 1 if none.
        if j + k < digits {
            FACTORIALS[m - j - k] / 2
        } else {
            1
        }
    } else {
        FACTORIALS[m - j - k]
    };
    let prefix: Vec<u32> = (0..j.min(digits)).map(|i| (m - i) as u32).collect();
    // Past the index digits the window's implied digits depend on the prefix's parity.
    let parity_matters = even && j + k > digits;
    let len = window_end - j;
    // The window value `x`'s digits in `d` (its first `len`): where it goes.
    let moved_value = |d: &[u32; MAX_LEN], odd_prefix: bool| -> u32 {
        let mut d = *d;
        let mut all = len;
        if parity_matters {
            // The implied digits: d_{m-2} makes the digit sum even, d_{m-1} = 0.
            let sum: u32 = d[..len].iter().sum::<u32>() + odd_prefix as u32;
            for i in digits.max(j)..m {
                d[all] = if i == m - 2 { sum & 1 } else { 0 };
                all += 1;
            }
        }
        // d holds digits j..j + all; the window is the first k of them, and only they change.
        let mut moved = d;
        permute_digits(&d[..k.min(all)], perm, m - j, &mut moved);
        if parity_matters {
            let sum: u32 = moved[..len].iter().sum::<u32>() + odd_prefix as u32;
            debug_assert_eq!(moved[m - 2 - j], sum & 1, "an even move keeps parity");
        }
        mixed_value(&moved[..len], &window_radices) as u32
    };
    let map_for = |odd_prefix: bool| -> Vec<u32> {
        let mut map = vec![0u32; values as usize];
        // Chunk by chunk; inside one the digits count up like an odometer (no division).
        map.par_chunks_mut(MAP_CHUNK)
            .enumerate()
            .for_each(|(c, out)| {
                let mut d = [0u32; MAX_LEN];
                mixed_digits((c * MAP_CHUNK) as u64, &window_radices, &mut d[..len]);
                for slot in out {
                    *slot = moved_value(&d, odd_prefix);
                    for (digit, &r) in d[..len].iter_mut().zip(&window_radices).rev() {
                        *digit += 1;
                        if *digit < r {
                            break;
                        }
                        *digit = 0;
                    }
                }
            });
        map
    };
    let mut maps = vec![map_for(false)];
    if parity_matters {
        let odd = map_for(true);
        if odd != maps[0] {
            maps.push(odd);
        }
    }
    let block = values * run;
    WindowMove {
        block,
        run,
        maps: maps.into(),
        prefix,
    }
}

/// Writes into `d` the digits of `x` in mixed radix `radices` (most significant first).
fn mixed_digits(mut x: u64, radices: &[u32], d: &mut [u32]) {
    for (slot, &r) in d.iter_mut().zip(radices).rev() {
        *slot = (x % r as u64) as u32;
        x /= r as u64;
    }
}

/// The value of `digits` in mixed radix `radices`.
fn mixed_value(digits: &[u32], radices: &[u32]) -> u64 {
    digits
        .iter()
        .zip(radices)
        .fold(0, |acc, (&d, &r)| acc * r as u64 + d as u64)
}

/// Writes into `moved` the Lehmer digits of a window after permuting its entries: `digits` are
/// the digits of the window's entries among the `rest` entries from the window's start on.
fn permute_digits(digits: &[u32], perm: &[usize], rest: usize, moved: &mut [u32]) {
    let all = if rest == 32 {
        u32::MAX
    } else {
        (1 << rest) - 1
    };
    // Each window entry as its rank among the entries from the window's start on.
    let mut entries = [0u32; MAX_LEN];
    let mut unused = all;
    for (e, &d) in entries.iter_mut().zip(digits) {
        *e = nth_set_bit(unused, d);
        unused &= !(1 << *e);
    }
    let mut unused = all;
    for (digit, &p) in moved.iter_mut().zip(perm) {
        let e = entries[p];
        *digit = (unused & ((1 << e) - 1)).count_ones();
        unused &= !(1 << e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rank::{even_rank, even_unrank, lex_rank, lex_unrank};

    /// Every index of every window position against permuting the entries directly.
    fn check(m: usize, perm: &[usize], even: bool) {
        let k = perm.len();
        let count = if even {
            FACTORIALS[m] / 2
        } else {
            FACTORIALS[m]
        };
        for j in 0..=m - k {
            let w = window_move(m, j, perm, even);
            assert_eq!(count % w.block, 0, "m={m} j={j}");
            assert_eq!(w.block % w.run, 0);
            assert_eq!(
                count / w.block,
                w.prefix.iter().map(|&r| r as u64).product::<u64>().max(1),
                "m={m} j={j}: prefix radices count the blocks"
            );
            let mut p = vec![0u8; m];
            for index in 0..count {
                if even {
                    even_unrank(index, &mut p);
                } else {
                    lex_unrank(index, &mut p);
                }
                let q: Vec<u8> = (0..m)
                    .map(|i| {
                        if (j..j + k).contains(&i) {
                            p[j + perm[i - j]]
                        } else {
                            p[i]
                        }
                    })
                    .collect();
                let want = if even { even_rank(&q) } else { lex_rank(&q) };
                assert_eq!(
                    w.apply(index),
                    want,
                    "m={m} j={j} even={even} index={index}"
                );
            }
        }
    }

    #[test]
    fn flips_match_permuting_entries() {
        for m in 4..=8 {
            check(m, &[1, 0, 3, 2], false);
            check(m, &[1, 0, 3, 2], true);
        }
    }

    #[test]
    fn reversals_match_permuting_entries() {
        for m in 3..=7 {
            for k in 2..=m.min(5) {
                let reversal: Vec<usize> = (0..k).rev().collect();
                check(m, &reversal, false);
                if k % 4 <= 1 {
                    // Even reversals only.
                    check(m, &reversal, true);
                }
            }
        }
    }

    #[test]
    fn windows_before_the_parity_digit_ignore_parity() {
        let w = window_move(11, 2, &[1, 0, 3, 2], true);
        assert!(!w.parity_dependent());
        assert_eq!(w.run, FACTORIALS[5] / 2);
        let w = window_move(11, 6, &[1, 0, 3, 2], true);
        assert!(w.parity_dependent());
        assert_eq!((w.block, w.run), (60, 1));
    }

    #[test]
    fn prefix_parity_sums_digits() {
        // 7 in radices (3, 4): digits 1, 3.
        assert!(!prefix_parity(7, &[3, 4]));
        assert!(prefix_parity(6, &[3, 4]));
        assert!(!prefix_parity(0, &[]));
    }
}
