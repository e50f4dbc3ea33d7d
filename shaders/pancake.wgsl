// Pancake stacks' ranks and moves, the same rank order as the host's (src/puzzle/pancake.rs): the
// stack from the top as a mixed-radix number, position i a digit of radix PANCAKES - i (burnt:
// twice that, the Lehmer digit doubled plus 1 where the burnt side is up). Move m flips the top
// m + 2 pancakes (burnt: m + 1, and turns them).
//
// The puzzle data `puzzle_data` holds each position's weight (the product of the radices below
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
    return (PANCAKES - i) << BURNT;
}

// The loaded stack from the top: each pancake's size (0-based), plus 32 where turned up.
var<private> loaded: u64;
var<private> stack: array<u32, 20>;

// Loads the stack with this rank.
fn load_state(rank: u64) {
    loaded = rank;
    var digits: array<u32, 20>;
    var rest = rank;
    for (var i = PANCAKES; i > 0u; i--) {
        let r = radix(i - 1u);
        let q = div_small(rest, r);
        digits[i - 1u] = u32(rest - q * u64(r));
        rest = q;
    }
    var unused = (1u << PANCAKES) - 1u;
    for (var i = 0u; i < PANCAKES; i++) {
        let size = nth_unused(unused, digits[i] >> BURNT);
        unused &= ~(1u << size);
        stack[i] = size | ((digits[i] & BURNT) << 5u);
    }
}

// The rank after move `m` from the loaded stack (which stays loaded).
fn neighbour(m: u32) -> u64 {
    let k = m + 2u - BURNT;
    var unused = (1u << PANCAKES) - 1u;
    var rank = 0lu;
    for (var i = 0u; i < PANCAKES; i++) {
        var p = stack[i];
        if i < k {
            p = stack[k - 1u - i] ^ (BURNT << 5u);
        }
        let size = p & 31u;
        let digit = (lehmer_digit(unused, size) << BURNT) | (p >> 5u);
        unused &= ~(1u << size);
        rank += u64(digit) * weight(i);
    }
    return rank;
}
