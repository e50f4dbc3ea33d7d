// Lexicographic ranks of permutations (Lehmer codes), shared by the puzzle shaders: the same
// order as src/rank/mod.rs. Items are numbered from 0; a set of items is a bit mask.
//
// The shaders never divide 64-bit integers with `/`: GPUs emulate it, slowly, and an NVIDIA
// driver (580.159, H100) compiled one such division in the sweep kernel wrongly (Turnstyle 14
// flips, results/hardware.md). They use `div_small` and `div64`, built on 32-bit division.

// `n / d` for 0 < d < 2^16: three 32-bit divisions, 16 bits of the quotient at a time below the
// top word.
fn div_small(n: u64, d: u32) -> u64 {
    let hi = u32(n >> 32u);
    let lo = u32(n & 0xfffffffflu);
    let q_hi = hi / d;
    let mid = ((hi - q_hi * d) << 16u) | (lo >> 16u);
    let q_mid = mid / d;
    let low = ((mid - q_mid * d) << 16u) | (lo & 0xffffu);
    return (u64(q_hi) << 32u) | (u64(q_mid) << 16u) | u64(low / d);
}

// `n / d` for d > 0: one 32-bit division where both fit, else shifts and subtractions over the
// bits of `n`.
fn div64(n: u64, d: u64) -> u64 {
    if (n >> 32u) == 0lu && (d >> 32u) == 0lu {
        return u64(u32(n) / u32(d));
    }
    var q = 0lu;
    var r = 0lu;
    for (var k = 63i - i32(countLeadingZeros(u32(n >> 32u))); k >= 0i; k--) {
        r = (r << 1u) | ((n >> u32(k)) & 1lu);
        if r >= d {
            r -= d;
            q |= 1lu << u32(k);
        }
    }
    return q;
}

// Writes into `digits` the Lehmer digits of `lex`, a rank among the permutations of `count`
// items (at most 20), most significant first; returns the parity of their sum.
fn lehmer_digits(lex: u64, count: u32, digits: ptr<function, array<u32, 20>>) -> u32 {
    var rest = lex;
    var parity = 0u;
    var i = 0u;
    // Three 32-bit divisions a digit while the rest needs 64 bits, one after.
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
