//! Permutation ranking: dense indices for permutations of `0..m`.
//!
//! The rank of a permutation is its position in lexicographic order (its Lehmer code read as a
//! factorial-base number). Each Lehmer digit is "how many unused values are smaller than this
//! one", computed in O(1) with a bit mask of used values and a popcount.
//!
//! Even permutations get their own dense index, `lex_rank / 2`: in lexicographic order the
//! permutations `2k` and `2k + 1` differ by swapping the last two entries, so exactly one of them
//! is even.

pub mod multiset;
pub mod window;

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

/// The Lehmer digits of lexicographic ranks of permutations of one length, four bits each
/// (digit `i` in bits `4i..4i+4`), a few digits per table lookup: the digits are cut into groups
/// from the last one on, and each group's digits are read off a table by the rank's remainder
/// modulo the group's radix product.
#[derive(Clone, Debug)]
pub struct DigitTable {
    /// Per group, least significant first: its first digit, its radix product, the quotient's
    /// reciprocal `u64::MAX / product`, and the packed digits of each remainder.
    groups: Vec<(usize, u64, u64, Vec<u16>)>,
}

impl DigitTable {
    /// Largest table of one group.
    const MAX_GROUP: u64 = 4096;

    /// The table for permutations of length `m`.
    pub fn new(m: usize) -> DigitTable {
        let mut groups = Vec::new();
        let mut end = m;
        while end > 0 {
            // Digit i has radix m - i; take digits from the end while the product stays small.
            let mut start = end - 1;
            let mut product = (m - start) as u64;
            while start > 0
                && end - start < 4
                && product * (m - start + 1) as u64 <= Self::MAX_GROUP
            {
                start -= 1;
                product *= (m - start) as u64;
            }
            let table = (0..product)
                .map(|mut r| {
                    let mut packed = 0u16;
                    for i in (start..end).rev() {
                        let radix = (m - i) as u64;
                        packed |= ((r % radix) as u16) << (4 * (i - start));
                        r /= radix;
                    }
                    packed
                })
                .collect();
            groups.push((start, product, u64::MAX / product, table));
            end = start;
        }
        DigitTable { groups }
    }

    /// The packed digits of `rank`.
    #[inline]
    pub fn digits(&self, mut rank: u64) -> u64 {
        let mut packed = 0u64;
        for (start, product, reciprocal, table) in &self.groups {
            // The quotient by a multiplication: at most one short.
            let mut q = ((rank as u128 * *reciprocal as u128) >> 64) as u64;
            let mut r = rank - q * product;
            if r >= *product {
                q += 1;
                r -= product;
            }
            packed |= (table[r as usize] as u64) << (4 * start);
            rank = q;
        }
        packed
    }
}

/// Lexicographic ranks of permutations of one length `m <= 16` given as bytes (entry `i` in
/// byte `i`), all digits at once: where SSE4.1 is available, digit `i` (the entry less the
/// smaller entries before it) is computed in sixteen byte lanes side by side, and the digits'
/// factorial-weighted sum is folded pairwise by multiply-add instructions.
#[derive(Clone, Debug)]
pub struct ByteRanker {
    m: usize,
    /// Per lane pair j: the multiplier of the even lane's digit (its weight over the odd one's).
    pair: [i8; 16],
    /// Per pair pair i: the multiplier of the even pair's value.
    quad: [i16; 8],
    /// Per quad i: its weight in the rank.
    weights: [u64; 4],
    /// 0xff in the lanes below `m`.
    keep: [u8; 16],
}

impl ByteRanker {
    /// The ranker for permutations of length `m` (1 to 16).
    pub fn new(m: usize) -> ByteRanker {
        assert!((1..=16).contains(&m));
        // Weight of digit t: (m - 1 - t)!, 0 past the end.
        let digit = |t: usize| if t < m { FACTORIALS[m - 1 - t] } else { 0 };
        // Two weights a (even lane) and b (odd lane) fold into one: d_a * (a / b) + d_b, weighed
        // by b; where b lies past the end (weight 0; its digit is 0), d_a alone, weighed by a.
        let fold = |a: u64, b: u64| a.checked_div(b).map_or((1, a), |q| (q, b));
        let mut pair = [1i8; 16];
        let mut pair_weight = [0u64; 8];
        for j in 0..8 {
            let (multiplier, weight) = fold(digit(2 * j), digit(2 * j + 1));
            pair[2 * j] = multiplier as i8;
            pair_weight[j] = weight;
        }
        let mut quad = [1i16; 8];
        let mut weights = [0u64; 4];
        for i in 0..4 {
            let (multiplier, weight) = fold(pair_weight[2 * i], pair_weight[2 * i + 1]);
            quad[2 * i] = multiplier as i16;
            weights[i] = weight;
        }
        ByteRanker {
            m,
            pair,
            quad,
            weights,
            keep: std::array::from_fn(|i| if i < m { 0xff } else { 0 }),
        }
    }

    /// The rank of the permutation whose entry `i < m` is byte `i` of `entries` (bytes from `m`
    /// on are ignored).
    #[inline]
    pub fn rank(&self, entries: [u8; 16]) -> u64 {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse4.1"))]
        {
            // SAFETY: the sse4.1 target feature is enabled for this build.
            unsafe {
                self.rank_vector(std::mem::transmute::<[u8; 16], std::arch::x86_64::__m128i>(
                    entries,
                ))
            }
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "sse4.1")))]
        {
            self.rank_scalar(entries)
        }
    }

    /// The rank of the permutation whose entry `i` is nibble `order[i]` of `nibbles` (four bits
    /// per value, value `j` in bits `4j..4j + 4`).
    #[inline]
    pub fn rank_of_nibbles(&self, nibbles: u64, order: &[u8; 16]) -> u64 {
        #[cfg(all(
            target_arch = "x86_64",
            target_feature = "sse4.1",
            target_feature = "bmi2"
        ))]
        {
            use std::arch::x86_64::*;
            // SAFETY: the sse4.1 and bmi2 target features are enabled for this build; the load
            // is an unaligned read of a 16-byte array.
            unsafe {
                let low = _pdep_u64(nibbles, 0x0f0f_0f0f_0f0f_0f0f);
                let high = _pdep_u64(nibbles >> 32, 0x0f0f_0f0f_0f0f_0f0f);
                let x = _mm_set_epi64x(high as i64, low as i64);
                let order = _mm_loadu_si128(order.as_ptr().cast());
                self.rank_vector(_mm_shuffle_epi8(x, order))
            }
        }
        #[cfg(not(all(
            target_arch = "x86_64",
            target_feature = "sse4.1",
            target_feature = "bmi2"
        )))]
        {
            let gathered: [u8; 16] =
                std::array::from_fn(|i| (nibbles >> (4 * (order[i] & 15))) as u8 & 15);
            self.rank(gathered)
        }
    }

    /// [`ByteRanker::rank`] one digit at a time.
    pub fn rank_scalar(&self, entries: [u8; 16]) -> u64 {
        lex_rank(&entries[..self.m])
    }

    /// The rank of the entries in the lanes of `x`.
    ///
    /// # Safety
    /// The processor must have SSE4.1.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse4.1"))]
    #[inline]
    unsafe fn rank_vector(&self, x: std::arch::x86_64::__m128i) -> u64 {
        use std::arch::x86_64::*;
        // SAFETY (whole body): SSE4.1 is present (the caller's promise); the loads are unaligned
        // reads of 16-byte arrays.
        unsafe {
            // Lanes from m on hold 0 and count as nothing.
            let keep = _mm_loadu_si128(self.keep.as_ptr().cast());
            let x = _mm_and_si128(x, keep);
            // counts[t] = -#{s < t : x_s < x_t}.
            let mut counts = _mm_setzero_si128();
            let lanes = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
            for s in 0..self.m.saturating_sub(1) {
                let s = _mm_set1_epi8(s as i8);
                let xs = _mm_shuffle_epi8(x, s);
                let later = _mm_cmpgt_epi8(lanes, s);
                let larger = _mm_cmpgt_epi8(x, xs);
                counts = _mm_add_epi8(counts, _mm_and_si128(larger, later));
            }
            let digits = _mm_and_si128(_mm_add_epi8(x, counts), keep);
            let pairs = _mm_maddubs_epi16(digits, _mm_loadu_si128(self.pair.as_ptr().cast()));
            let quads = _mm_madd_epi16(pairs, _mm_loadu_si128(self.quad.as_ptr().cast()));
            _mm_extract_epi32::<0>(quads) as u32 as u64 * self.weights[0]
                + _mm_extract_epi32::<1>(quads) as u32 as u64 * self.weights[1]
                + _mm_extract_epi32::<2>(quads) as u32 as u64 * self.weights[2]
                + _mm_extract_epi32::<3>(quads) as u32 as u64 * self.weights[3]
        }
    }
}

/// `x / d` and `x % d` for `x < 2^32` and `1 <= d <= MAX_LEN`, by a multiplication (a
/// division by a number not known in advance takes several times as long).
#[inline]
pub fn div_rem_small(x: u64, d: usize) -> (u64, u64) {
    debug_assert!(x <= u64::from(u32::MAX) && (1..=MAX_LEN).contains(&d));
    if d == 1 {
        return (x, 0);
    }
    let q = ((x as u128 * RECIPROCALS[d] as u128) >> 64) as u64;
    (q, x - q * d as u64)
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

/// Makes `perm` the next permutation in lexicographic order (its rank plus one), and says
/// whether that changed its parity; `None` (and `perm` unchanged) where it is the last.
pub fn next_permutation(perm: &mut [u8]) -> Option<bool> {
    let len = perm.len();
    // The last place whose entry is below the next one's; the entries after it descend.
    let i = (0..len.saturating_sub(1))
        .rev()
        .find(|&i| perm[i] < perm[i + 1])?;
    // The last entry after it above it: the least such.
    let j = (i + 1..len).rev().find(|&j| perm[j] > perm[i])?;
    perm.swap(i, j);
    perm[i + 1..].reverse();
    // A swap, then a reversal of `m` entries: m (m - 1) / 2 swaps.
    let m = len - i - 1;
    Some((1 + m * (m - 1) / 2) % 2 == 1)
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
    fn next_permutation_steps_through_the_lexicographic_order() {
        for len in 0..=6 {
            let mut perm: Vec<u8> = (0..len as u8).collect();
            let mut rank = 0u64;
            loop {
                let mut want = vec![0u8; len];
                lex_unrank(rank, &mut want);
                assert_eq!(perm, want);
                let odd = is_odd(&perm);
                match next_permutation(&mut perm) {
                    Some(flipped) => assert_eq!(is_odd(&perm), odd != flipped, "{perm:?}"),
                    None => break,
                }
                rank += 1;
            }
            assert_eq!(rank + 1, factorial(len));
        }
    }

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
    fn byte_ranks_agree_with_lex_rank() {
        for m in 1..=16 {
            let ranker = ByteRanker::new(m);
            let mut x = 5u64;
            for _ in 0..3000 {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let r = x % factorial(m.min(MAX_LEN));
                let mut p = [0u8; 16];
                lex_unrank(r, &mut p[..m]);
                // Garbage past the end must not matter.
                for (i, b) in p.iter_mut().enumerate().skip(m) {
                    *b = (i * 7 % 16) as u8;
                }
                assert_eq!(ranker.rank(p), r, "m={m}");
                assert_eq!(ranker.rank_scalar(p), r, "m={m}");
            }
        }
    }

    #[test]
    fn digit_tables_agree_with_division() {
        for m in [1, 2, 5, 11, 12, 15, 16] {
            let table = DigitTable::new(m);
            let mut x = 99u64;
            for _ in 0..2000 {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let rank = x % factorial(m);
                let mut digits = vec![0u8; m];
                lex_digits(rank, &mut digits);
                let packed = digits
                    .iter()
                    .enumerate()
                    .fold(0u64, |acc, (i, &d)| acc | (d as u64) << (4 * i));
                assert_eq!(table.digits(rank), packed, "m={m} rank={rank}");
            }
            assert_eq!(table.digits(0), 0);
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
