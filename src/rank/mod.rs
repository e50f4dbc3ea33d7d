//! Permutation ranking: dense indices for permutations of `0..m`.
//!
//! The rank of a permutation is its position in lexicographic order (its Lehmer code read as a
//! factorial-base number). Each Lehmer digit is "how many unused values are smaller than this
//! one", computed in O(1) with a bit mask of used values and a popcount.
//!
//! Even permutations get their own dense index, `lex_rank / 2`: in lexicographic order the
//! permutations `2k` and `2k + 1` differ by swapping the last two entries, so exactly one of them
//! is even.

/// The largest permutation length whose ranks fit in a `u64` (20! < 2^64 < 21!).
pub const MAX_LEN: usize = 20;

/// `FACTORIALS[k] = k!` for `k <= MAX_LEN`.
pub const FACTORIALS: [u64; MAX_LEN + 1] = {
    let mut f = [1u64; MAX_LEN + 1];
    let mut k = 1;
    while k <= MAX_LEN {
        f[k] = f[k - 1] * k as u64;
        k += 1;
    }
    f
};

/// `m!`, for `m <= MAX_LEN`.
pub fn factorial(m: usize) -> u64 {
    FACTORIALS[m]
}

/// Lexicographic rank of `perm`, a permutation of `0..perm.len()`.
pub fn lex_rank(perm: &[u8]) -> u64 {
    let m = perm.len();
    let mut used: u32 = 0;
    let mut rank = 0u64;
    for (i, &x) in perm.iter().enumerate() {
        let below = (1u32 << x) - 1;
        let digit = x as u32 - (used & below).count_ones();
        rank = rank * (m - i) as u64 + digit as u64;
        used |= 1 << x;
    }
    rank
}

/// The Lehmer digits of the permutation with lexicographic rank `rank`: `digits[i]` is the number
/// of entries after position `i` that are smaller than entry `i`.
pub fn lex_digits(mut rank: u64, digits: &mut [u8]) {
    let m = digits.len();
    let mut i = m;
    // Hardware 64-bit division is slow; below 2^32 a multiplication by a reciprocal is exact.
    while i > 0 && rank > u32::MAX as u64 {
        i -= 1;
        let base = (m - i) as u64;
        digits[i] = (rank % base) as u8;
        rank /= base;
    }
    while i > 0 {
        i -= 1;
        let base = m - i;
        if base == 1 {
            digits[i] = 0;
            continue;
        }
        let quotient = ((rank as u128 * RECIPROCALS[base] as u128) >> 64) as u64;
        digits[i] = (rank - quotient * base as u64) as u8;
        rank = quotient;
    }
}

/// `RECIPROCALS[d] = floor(2^64 / d) + 1` for `d >= 2`: for `x < 2^32`, `x / d` is the high
/// half of `x * RECIPROCALS[d]` (the error term stays below `1 / d`).
const RECIPROCALS: [u64; MAX_LEN + 1] = {
    let mut r = [0u64; MAX_LEN + 1];
    let mut d = 2;
    while d <= MAX_LEN {
        r[d] = u64::MAX / d as u64 + 1;
        d += 1;
    }
    r
};

/// Writes into `perm` the permutation of `0..perm.len()` whose Lehmer digits are `digits`.
fn perm_from_digits(digits: &[u8], perm: &mut [u8]) {
    let mut unused: u32 = if digits.len() == 32 {
        u32::MAX
    } else {
        (1u32 << digits.len()) - 1
    };
    for (slot, &d) in perm.iter_mut().zip(digits) {
        let x = nth_set_bit(unused, d as u32);
        *slot = x as u8;
        unused &= !(1 << x);
    }
}

/// The position of the `k`-th (0-based) set bit of `bits`.
#[inline]
pub fn nth_set_bit(bits: u32, k: u32) -> u32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        // SAFETY: the bmi2 target feature is enabled for this build.
        unsafe { std::arch::x86_64::_pdep_u32(1 << k, bits) }.trailing_zeros()
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        let mut bits = bits;
        for _ in 0..k {
            bits &= bits - 1;
        }
        bits.trailing_zeros()
    }
}

/// Writes into `perm` the permutation of `0..perm.len()` with lexicographic rank `rank`.
pub fn lex_unrank(rank: u64, perm: &mut [u8]) {
    let mut digits = [0u8; MAX_LEN];
    let digits = &mut digits[..perm.len()];
    lex_digits(rank, digits);
    perm_from_digits(digits, perm);
}

/// True when `perm` is an odd permutation (its inversion count, the sum of its Lehmer digits, is
/// odd).
pub fn is_odd(perm: &[u8]) -> bool {
    let mut used: u32 = 0;
    let mut inversions = 0u32;
    for &x in perm {
        let below = (1u32 << x) - 1;
        inversions += x as u32 - (used & below).count_ones();
        used |= 1 << x;
    }
    inversions & 1 == 1
}

/// True when `values` holds each of `0..values.len()` exactly once.
pub fn is_permutation(values: &[u8]) -> bool {
    let mut seen: u32 = 0;
    values.len() <= 32
        && values.iter().all(|&x| {
            let fresh = (x as usize) < values.len() && seen & (1 << x) == 0;
            seen |= 1u32.checked_shl(x as u32).unwrap_or(0);
            fresh
        })
}

/// Dense index of an even permutation among the even permutations of its length, in
/// lexicographic order. `perm` must be even and of length at least 2.
pub fn even_rank(perm: &[u8]) -> u64 {
    lex_rank(perm) >> 1
}

/// Writes into `perm` the even permutation with dense index `index` (inverse of [`even_rank`]).
pub fn even_unrank(index: u64, perm: &mut [u8]) {
    lex_unrank(index << 1, perm);
    if is_odd(perm) {
        let m = perm.len();
        perm.swap(m - 2, m - 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lex_rank_round_trips_and_orders() {
        for m in 1..=7 {
            let mut prev: Option<Vec<u8>> = None;
            for r in 0..factorial(m) {
                let mut p = vec![0u8; m];
                lex_unrank(r, &mut p);
                assert!(is_permutation(&p));
                assert_eq!(lex_rank(&p), r);
                if let Some(q) = prev {
                    assert!(q < p, "lexicographic order");
                }
                prev = Some(p);
            }
        }
    }

    #[test]
    fn digits_agree_with_plain_division() {
        let mut x = 7u64;
        for _ in 0..10_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            for m in [1, 2, 12, 13, 16, MAX_LEN] {
                let rank = x % factorial(m);
                let mut digits = vec![0u8; m];
                lex_digits(rank, &mut digits);
                let mut r = rank;
                for i in (0..m).rev() {
                    assert_eq!(digits[i] as u64, r % (m - i) as u64);
                    r /= (m - i) as u64;
                }
            }
        }
    }

    #[test]
    fn even_rank_is_dense_over_even_permutations() {
        for m in 2..=7 {
            let mut seen = vec![false; (factorial(m) / 2) as usize];
            for r in 0..factorial(m) {
                let mut p = vec![0u8; m];
                lex_unrank(r, &mut p);
                if is_odd(&p) {
                    continue;
                }
                let e = even_rank(&p);
                assert!(!seen[e as usize]);
                seen[e as usize] = true;
                let mut q = vec![0u8; m];
                even_unrank(e, &mut q);
                assert_eq!(p, q);
            }
            assert!(seen.iter().all(|&s| s));
        }
    }

    #[test]
    fn parity_matches_transposition_count() {
        assert!(!is_odd(&[0, 1, 2, 3]));
        assert!(is_odd(&[1, 0, 2, 3]));
        assert!(!is_odd(&[1, 0, 3, 2]));
        assert!(!is_odd(&[1, 2, 0]));
    }

    #[test]
    fn permutation_check() {
        assert!(is_permutation(&[2, 0, 1]));
        assert!(!is_permutation(&[2, 0, 0]));
        assert!(!is_permutation(&[3, 0, 1]));
    }
}
