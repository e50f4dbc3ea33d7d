//! Ranks of the arrangements of a multiset (pieces some of which are identical).

use super::factorial;

/// The number of arrangements of a multiset of `n` items with these multiplicities.
pub fn multinomial(n: usize, multiplicity: &[u8]) -> u64 {
    // n <= 20: n! fits 64 bits.
    multiplicity
        .iter()
        .fold(factorial(n), |r, &c| r / factorial(c as usize))
}

/// The rank of `labels` among the arrangements of its multiset (multiplicities `multiplicity`,
/// labels `0..multiplicity.len()`), in lexicographic order.
pub fn multiset_rank(labels: &[u8], multiplicity: &[u8]) -> u64 {
    let mut left = multiplicity.to_vec();
    let mut r = 0;
    for (i, &x) in labels.iter().enumerate() {
        let rest = labels.len() - i - 1;
        for y in 0..x as usize {
            if left[y] > 0 {
                left[y] -= 1;
                r += multinomial(rest, &left);
                left[y] += 1;
            }
        }
        left[x as usize] -= 1;
    }
    r
}

/// The arrangement of rank `r` (see [`multiset_rank`]).
pub fn multiset_unrank(mut r: u64, multiplicity: &[u8], labels: &mut [u8]) {
    let mut left = multiplicity.to_vec();
    let n = labels.len();
    for (i, label) in labels.iter_mut().enumerate() {
        for y in 0..left.len() {
            if left[y] == 0 {
                continue;
            }
            left[y] -= 1;
            let m = multinomial(n - i - 1, &left);
            if r < m {
                *label = y as u8;
                break;
            }
            r -= m;
            left[y] += 1;
        }
    }
}
