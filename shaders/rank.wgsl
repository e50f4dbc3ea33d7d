// Lexicographic ranks of permutations (Lehmer codes), shared by the puzzle shaders: the same
// order as the rank module. Items are numbered from 0; a set of items is a bit mask.
//
// The shaders never divide with `/` but by constants: GPUs emulate 64-bit division, slowly, and
// an NVIDIA driver (580.159, H100) compiled one such division in the sweep kernel wrongly
// (Turnstyle 14 flips, results/hardware.md); lavapipe divides integers lane by lane, and runs
// both sides of an `if` whose lanes disagree. They use `div64`, `div32` and `div_small`,
// through floating point: vector operations everywhere, no branch but the last correction.

// `n / d` for 0 < d < 2^62, n < 2^62 and a quotient below 2^32: a first quotient from f32 (within
// about 2^-21 of the true one), a second from the remainder (in 64 bits: it may be far beyond
// 2^32), then at most one step either way.
fn div64(n: u64, d: u64) -> u64 {
    let inv = 1.0 / f32(d);
    let wide_n = bitcast<i64>(n);
    let wide_d = bitcast<i64>(d);
    // Through u32 and u64: the estimate is below 2^32 (the f32 just below it at most).
    var q = i64(u64(u32(min(f32(n) * inv, 4294967040.0))));
    q += i64(i32(floor(f32(wide_n - q * wide_d) * inv)));
    let rest = wide_n - q * wide_d;
    if rest < 0li {
        q -= 1li;
    } else if rest >= wide_d {
        q += 1li;
    }
    return u64(q);
}

// `n / d` for d > 0.
fn div32(n: u32, d: u32) -> u32 {
    return u32(div64(u64(n), u64(d)));
}

// `n / d` for 0 < d < 2^32: the top word's quotient, then that of the remainder and the low word
// (below d * 2^32: a quotient below 2^32).
fn div_small(n: u64, d: u32) -> u64 {
    let hi = u32(n >> 32u);
    let q_hi = div32(hi, d);
    let rest = (u64(hi - q_hi * d) << 32u) | (n & 0xfffffffflu);
    return (u64(q_hi) << 32u) | div64(rest, u64(d));
}

// The most pieces a permutation ranks (20! < 2^64 < 21!).
const MAX_LEN: u32 = 20u;

// Writes into `digits` the Lehmer digits of `lex`, a rank among the permutations of `count`
// items (at most MAX_LEN), most significant first; returns the parity of their sum.
fn lehmer_digits(lex: u64, count: u32, digits: ptr<function, array<u32, MAX_LEN>>) -> u32 {
    var rest = lex;
    var parity = 0u;
    var i = 0u;
    // `div_small` while the rest needs 64 bits, a 32-bit division after.
    while i < count && (rest >> 32u) != 0lu {
        let q = div_small(rest, i + 1u);
        let d = u32(rest - q * u64(i + 1u));
        (*digits)[count - 1u - i] = d;
        parity += d;
        rest = q;
        i++;
    }
    var small = u32(rest);
    while i < count {
        let base = i + 1u;
        let q = small / base;
        let d = small - q * base;
        (*digits)[count - 1u - i] = d;
        parity += d;
        small = q;
        i++;
    }
    return parity & 1u;
}

// The item that Lehmer digit `digit` picks from the `unused` ones: the digit-th smallest.
fn nth_unused(unused: u32, digit: u32) -> u32 {
    var rest = unused;
    for (var k = 0u; k < digit; k++) {
        rest &= rest - 1u;
    }
    return countTrailingZeros(rest);
}

// The Lehmer digit of `item` among the `unused` ones: how many smaller ones are unused.
fn lehmer_digit(unused: u32, item: u32) -> u32 {
    return countOneBits(unused & ((1u << item) - 1u));
}

// Permutations of up to 16 items packed as nibbles (nibble p: bits 4p..4p+3 of a u64), as the
// ring shader keeps them: no private arrays, whose per-invocation indexing costs a memory
// access per element on SIMD drivers, and divisions only by constants, which compilers turn
// into multiplications.

// Nibble `p` of `x`.
fn nibble(x: u64, p: u32) -> u32 {
    return u32(x >> (4u * p)) & 15u;
}

// The low `count` nibbles set to 1 each.
fn ones(count: u32) -> u64 {
    return 0x1111111111111111lu & ((1lu << (4u * count)) - 1lu);
}

// The digit of radix `r` (r <= count) of `rest`, put at nibble `count - r`; `rest` becomes the
// quotient. `r` is a constant at every call: the division is a multiplication.
fn take_digit(rest: ptr<function, u32>, r: u32, count: u32, digits: ptr<function, u64>) {
    let q = *rest / r;
    *digits |= u64(*rest - q * r) << (4u * (count - r));
    *rest = q;
}

// The Lehmer digits of `lex`, a rank among the permutations of `count` items (2 to 16), as
// nibbles, most significant (radix `count`) at nibble 0.
fn lehmer_nibbles(lex: u64, count: u32) -> u64 {
    var digits = 0lu;
    var rest = lex;
    // 64-bit divisions while the rest needs them (from 14 items on), one 32-bit one after.
    var r = 2u;
    while (rest >> 32u) != 0lu {
        let q = div_small(rest, r);
        digits |= (rest - q * u64(r)) << (4u * (count - r));
        rest = q;
        r++;
    }
    var small = u32(rest);
    if r <= 2u && count >= 2u { take_digit(&small, 2u, count, &digits); }
    if r <= 3u && count >= 3u { take_digit(&small, 3u, count, &digits); }
    if r <= 4u && count >= 4u { take_digit(&small, 4u, count, &digits); }
    if r <= 5u && count >= 5u { take_digit(&small, 5u, count, &digits); }
    if r <= 6u && count >= 6u { take_digit(&small, 6u, count, &digits); }
    if r <= 7u && count >= 7u { take_digit(&small, 7u, count, &digits); }
    if r <= 8u && count >= 8u { take_digit(&small, 8u, count, &digits); }
    if r <= 9u && count >= 9u { take_digit(&small, 9u, count, &digits); }
    if count >= 10u { take_digit(&small, 10u, count, &digits); }
    if count >= 11u { take_digit(&small, 11u, count, &digits); }
    if count >= 12u { take_digit(&small, 12u, count, &digits); }
    if count >= 13u { take_digit(&small, 13u, count, &digits); }
    if count >= 14u { take_digit(&small, 14u, count, &digits); }
    if count >= 15u { take_digit(&small, 15u, count, &digits); }
    if count >= 16u { take_digit(&small, 16u, count, &digits); }
    return digits;
}

// The parity of the sum of the nibbles of `x`.
fn nibble_sum_parity(x: u64) -> u32 {
    let low = x & 0x1111111111111111lu;
    return (countOneBits(u32(low)) + countOneBits(u32(low >> 32u))) & 1u;
}

// The permutation (item at each position, as nibbles) whose Lehmer digits are `digits`.
fn unrank_nibbles(digits: u64, count: u32) -> u64 {
    // The unused items, ascending, one a nibble.
    var unused = 0xfedcba9876543210lu;
    var items = 0lu;
    for (var p = 0u; p < count; p++) {
        let at = 4u * nibble(digits, p);
        items |= ((unused >> at) & 15lu) << (4u * p);
        unused = (unused & ((1lu << at) - 1lu)) | (((unused >> at) >> 4u) << at);
    }
    return items;
}

// n! for n <= 8.
const FACTORIALS = array<u32, 9>(1u, 1u, 2u, 6u, 24u, 120u, 720u, 5040u, 40320u);

// The lexicographic rank of the permutation `items` (item at each position, as nibbles) of
// `count` items: the first digits in one 32-bit word, the last 8 in another.
fn rank_nibbles(items: u64, count: u32) -> u64 {
    let split = max(count, 8u) - 8u;
    var unused = 0xffffu;
    var high = 0u;
    var low = 0u;
    for (var p = 0u; p < count; p++) {
        let item = nibble(items, p);
        let digit = countOneBits(unused & ((1u << item) - 1u));
        unused &= ~(1u << item);
        if p < split {
            high = high * (count - p) + digit;
        } else {
            low = low * (count - p) + digit;
        }
    }
    return u64(high) * u64(FACTORIALS[min(count, 8u)]) + u64(low);
}
