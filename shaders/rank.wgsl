// Lexicographic ranks of permutations (Lehmer codes), shared by the puzzle shaders: the same
// order as src/rank/mod.rs. Items are numbered from 0; a set of items is a bit mask.

// Writes into `digits` the Lehmer digits of `lex`, a rank among the permutations of `count`
// items (at most 20), most significant first; returns the parity of their sum.
fn lehmer_digits(lex: u64, count: u32, digits: ptr<function, array<u32, 20>>) -> u32 {
    var rest = lex;
    var parity = 0u;
    var i = 0u;
    // 64-bit divisions only while the rest needs them: GPUs emulate them, slowly.
    while i < count && (rest >> 32u) != 0lu {
        let base = u64(i + 1u);
        let q = rest / base;
        let d = u32(rest - q * base);
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
