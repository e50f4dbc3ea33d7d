// Pancake stacks' ranks and moves, the same rank order as the host's (src/puzzle/pancake): the
// stack as a mixed-radix number whose least significant digit is the top's, position i a digit
// of radix i + 1, how many pancakes above it are larger (burnt: twice that, plus 1 where the
// burnt side is up). Move m flips the top m + 2 pancakes (burnt: m + 1, and turns them).
//
// The puzzle data `puzzle_data` holds each position's weight (the product of the radices above
// it), two words each (low, high).

override PANCAKES: u32;
override BURNT: u32;
override MOVES: u32;

@group(0) @binding(2) var<uniform> puzzle_words: array<vec4<u32>, 4096>;

fn puzzle_data(i: u32) -> u32 {
    return puzzle_words[i >> 2u][i & 3u];
}

fn weight(i: u32) -> u64 {
    return u64(puzzle_data(2u * i)) | (u64(puzzle_data(2u * i + 1u)) << 32u);
}

// The radix of position i's digit.
fn radix(i: u32) -> u32 {
    return (i + 1u) << BURNT;
}

// The loaded stack from the top: each pancake's size (0-based), plus 32 where turned up.
var<private> loaded: u64;
var<private> stack: array<u32, MAX_LEN>;

// Loads the stack with this rank: the digits top first, then the pancakes from the bottom, each
// the one left (not below it) with its digit's count larger.
fn load_state(rank: u64) {
    loaded = rank;
    var digits: array<u32, MAX_LEN>;
    var rest = rank;
    for (var i = 0u; i < PANCAKES; i++) {
        let r = radix(i);
        let q = div_small(rest, r);
        digits[i] = u32(rest - q * u64(r));
        rest = q;
    }
    var left = (1u << PANCAKES) - 1u;
    for (var i = PANCAKES; i > 0u; i--) {
        let d = digits[i - 1u];
        let size = nth_unused(left, i - 1u - (d >> BURNT));
        left &= ~(1u << size);
        stack[i - 1u] = size | ((d & BURNT) << 5u);
    }
}

// The rank after move `m` from the loaded stack (which stays loaded).
fn neighbour(m: u32) -> u64 {
    let k = m + 2u - BURNT;
    var above = 0u;
    var rank = 0lu;
    for (var i = 0u; i < PANCAKES; i++) {
        var p = stack[i];
        if i < k {
            p = stack[k - 1u - i] ^ (BURNT << 5u);
        }
        let size = p & 31u;
        let larger = countOneBits(above & ~((2u << size) - 1u));
        let digit = (larger << BURNT) | (p >> 5u);
        above |= 1u << size;
        rank += u64(digit) * weight(i);
    }
    return rank;
}
