//! Ranks of the arrangements of a multiset (pieces some of which are identical), in
//! lexicographic order.
//!
//! Both directions walk the positions once. With `m` items left, of which `left[y]` have label
//! `y`, `total` arrangements remain, and `total * left[y] / m` of them start with `y` (an exact
//! division: that count is itself a multinomial).

/// The number of arrangements of a multiset of `n` items with these multiplicities, or
/// `u64::MAX` where it exceeds 64 bits.
pub fn multinomial(n: usize, multiplicity: &[u8]) -> u64 {
    // The product of binomials C(k_1, k_1) C(k_1 + k_2, k_2) ..., each step exact.
    let mut total: u128 = 1;
    let mut placed: u128 = 0;
    for &c in multiplicity {
        for j in 1..=u128::from(c) {
            placed += 1;
            total = match total.checked_mul(placed) {
                Some(t) if t / j <= u128::from(u64::MAX) => t / j,
                _ => return u64::MAX,
            };
        }
    }
    debug_assert_eq!(placed, n as u128, "the multiplicities add up to the items");
    total as u64
}

/// The rank of `labels` among the arrangements of its multiset (multiplicities `multiplicity`,
/// labels `0..multiplicity.len()`), in lexicographic order.
pub fn multiset_rank(labels: &[u8], multiplicity: &[u8]) -> u64 {
    let mut left = multiplicity.to_vec();
    let mut total = u128::from(multinomial(labels.len(), multiplicity));
    let mut r: u128 = 0;
    for (i, &x) in labels.iter().enumerate() {
        let m = (labels.len() - i) as u128;
        let below: u128 = left[..x as usize].iter().map(|&c| u128::from(c)).sum();
        r += total * below / m;
        total = total * u128::from(left[x as usize]) / m;
        left[x as usize] -= 1;
    }
    r as u64
}

/// The arrangement of rank `r` (see [`multiset_rank`]).
pub fn multiset_unrank(r: u64, multiplicity: &[u8], labels: &mut [u8]) {
    let mut left = multiplicity.to_vec();
    let mut total = u128::from(multinomial(labels.len(), multiplicity));
    let mut r = u128::from(r);
    let n = labels.len();
    for (i, label) in labels.iter_mut().enumerate() {
        let m = (n - i) as u128;
        for (y, count) in left.iter_mut().enumerate() {
            let starting = total * u128::from(*count) / m;
            if r < starting {
                *label = y as u8;
                *count -= 1;
                total = starting;
                break;
            }
            r -= starting;
        }
    }
}

/// Steps `labels` to the next arrangement of its multiset in lexicographic order (the rank one
/// higher); `false`, leaving it as it is, where it is the last.
pub fn next_arrangement(labels: &mut [u8]) -> bool {
    let Some(i) = (1..labels.len()).rev().find(|&i| labels[i - 1] < labels[i]) else {
        return false;
    };
    let pivot = labels[i - 1];
    // The rightmost label above the pivot: the tail after `i - 1` descends.
    let j = (i..labels.len())
        .rev()
        .find(|&j| labels[j] > pivot)
        .unwrap();
    labels.swap(i - 1, j);
    labels[i..].reverse();
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multinomials_are_exact_and_saturate() {
        assert_eq!(multinomial(4, &[2, 2]), 6);
        assert_eq!(multinomial(20, &[1; 20]), 2_432_902_008_176_640_000);
        assert_eq!(multinomial(40, &[20, 20]), 137_846_528_820);
        assert_eq!(multinomial(64, &[32, 32]), 1_832_624_140_942_590_534);
        assert_eq!(multinomial(30, &[1; 30]), u64::MAX);
    }

    /// Ranks count the arrangements in lexicographic order, wherever the multiset's size puts
    /// the arithmetic: small ones enumerated, and 40 items, half of each, checked at the ends.
    #[test]
    fn ranks_number_the_arrangements_in_order() {
        for multiplicity in [&[2u8, 1, 2][..], &[3, 3], &[1, 1, 1, 1], &[4, 1]] {
            let n: usize = multiplicity.iter().map(|&c| c as usize).sum();
            let mut labels: Vec<u8> = (0..multiplicity.len())
                .flat_map(|y| std::iter::repeat_n(y as u8, multiplicity[y] as usize))
                .collect();
            let mut r = 0;
            loop {
                assert_eq!(multiset_rank(&labels, multiplicity), r, "{labels:?}");
                let mut back = vec![0; n];
                multiset_unrank(r, multiplicity, &mut back);
                assert_eq!(back, labels);
                r += 1;
                if !next_arrangement(&mut labels) {
                    break;
                }
            }
            assert_eq!(r, multinomial(n, multiplicity), "{multiplicity:?}");
        }
        let mut last = vec![1u8; 20];
        last.extend([0; 20]);
        assert_eq!(multiset_rank(&last, &[20, 20]), 137_846_528_819);
        let mut labels = vec![0; 40];
        multiset_unrank(137_846_528_819, &[20, 20], &mut labels);
        assert_eq!(labels, last);
    }
}
