// Ring puzzles' ranks and moves (Turnstyle, TopSpin), the same rank order as the ring puzzles.
//
// The puzzle's constants are overridden by the host (the ring puzzles) when it builds the
// pipelines.

// Pieces on the ring (n).
override PIECES: u32;
// True: ranks are offset * arrangements() + index and the moves are L, R, F; false: ranks are
// arrangement indices and the moves are F0..F(n-1).
override LRF: bool;
// Only even arrangements exist, and the index is the lexicographic rank halved.
override EVEN: bool;
override MOVES: u32;
// The number of arrangements, low and high words.
override ARRANGEMENTS_LO: u32;
override ARRANGEMENTS_HI: u32;
// The window's length (k), and its permutation: window position i receives the piece from window
// position FROM_i (constants, not buffer data, so that the compiler unrolls the window's moves).
override WINDOW: u32;
override FROM_0: u32 = 0u;
override FROM_1: u32 = 0u;
override FROM_2: u32 = 0u;
override FROM_3: u32 = 0u;
override FROM_4: u32 = 0u;
override FROM_5: u32 = 0u;
override FROM_6: u32 = 0u;
override FROM_7: u32 = 0u;
override FROM_8: u32 = 0u;
override FROM_9: u32 = 0u;
override FROM_10: u32 = 0u;
override FROM_11: u32 = 0u;
override FROM_12: u32 = 0u;
override FROM_13: u32 = 0u;
override FROM_14: u32 = 0u;
override FROM_15: u32 = 0u;

fn arrangements() -> u64 {
    return u64(ARRANGEMENTS_LO) | (u64(ARRANGEMENTS_HI) << 32u);
}

// The loaded position: its arrangement (the ring read from piece 1, one label a nibble: nibble j
// holds the 0-based label at arrangement position j, nibble 0 piece 1's 0), the position of
// piece 1 (lrf) and the arrangement's index.
var<private> arrangement: u64;
var<private> offset: u32;
var<private> index: u64;

// The ring's nibbles (a shift by 64 would not compile for 16 pieces: shift the other way).
fn ring_mask() -> u64 {
    return ~0lu >> (64u - 4u * PIECES);
}

// The ring `x` turned by `by` places (0 <= by < PIECES): nibble p moves to p + by (mod n).
fn turn(x: u64, by: u32) -> u64 {
    if by == 0u {
        return x;
    }
    return ((x << (4u * by)) | (x >> (4u * (PIECES - by)))) & ring_mask();
}

// Loads the position with this rank.
fn load_state(rank: u64) {
    if LRF {
        // The offset is below PIECES: subtracting is cheaper than dividing.
        offset = 0u;
        index = rank;
        let arrangements = arrangements();
        while index >= arrangements {
            index -= arrangements;
            offset++;
        }
    } else {
        index = rank;
        offset = 0u;
    }
    // The Lehmer digits of the n - 1 labels after piece 1.
    let m = PIECES - 1u;
    var lex = index;
    if EVEN {
        lex = index * 2lu;
    }
    var digits = lehmer_nibbles(lex, m);
    if EVEN && nibble_sum_parity(digits) == 1u {
        // The odd permutation of the pair `2 * index, 2 * index + 1`: the other one.
        digits |= 1lu << (4u * (m - 2u));
    }
    arrangement = (unrank_nibbles(digits, m) + ones(m)) << 4u;
}

// Window position t receives the piece from window position FROM_t: one line a position, all
// constants.
fn permute_window(ring: u64) -> u64 {
    var out = ring & ~(~0lu >> (64u - 4u * WINDOW));
    if WINDOW > 0u { out |= u64(nibble(ring, FROM_0)) << 0u; }
    if WINDOW > 1u { out |= u64(nibble(ring, FROM_1)) << 4u; }
    if WINDOW > 2u { out |= u64(nibble(ring, FROM_2)) << 8u; }
    if WINDOW > 3u { out |= u64(nibble(ring, FROM_3)) << 12u; }
    if WINDOW > 4u { out |= u64(nibble(ring, FROM_4)) << 16u; }
    if WINDOW > 5u { out |= u64(nibble(ring, FROM_5)) << 20u; }
    if WINDOW > 6u { out |= u64(nibble(ring, FROM_6)) << 24u; }
    if WINDOW > 7u { out |= u64(nibble(ring, FROM_7)) << 28u; }
    if WINDOW > 8u { out |= u64(nibble(ring, FROM_8)) << 32u; }
    if WINDOW > 9u { out |= u64(nibble(ring, FROM_9)) << 36u; }
    if WINDOW > 10u { out |= u64(nibble(ring, FROM_10)) << 40u; }
    if WINDOW > 11u { out |= u64(nibble(ring, FROM_11)) << 44u; }
    if WINDOW > 12u { out |= u64(nibble(ring, FROM_12)) << 48u; }
    if WINDOW > 13u { out |= u64(nibble(ring, FROM_13)) << 52u; }
    if WINDOW > 14u { out |= u64(nibble(ring, FROM_14)) << 56u; }
    if WINDOW > 15u { out |= u64(nibble(ring, FROM_15)) << 60u; }
    return out;
}

// The rank after move `m` from the loaded position (which stays loaded).
fn neighbour(m: u32) -> u64 {
    var ring: u64;
    if LRF {
        if m < 2u {
            // L and R move piece 1 one place; the arrangement stays.
            var moved = offset + PIECES - 1u;
            if m == 1u {
                moved = offset + 1u;
            }
            return u64(moved % PIECES) * arrangements() + index;
        }
        // F: the window at ring position 0 of the position itself.
        ring = turn(arrangement, offset);
    } else {
        // Flip m: the window at arrangement position m, turned to ring position 0.
        ring = turn(arrangement, (PIECES - m) % PIECES);
    }
    ring = permute_window(ring);
    // Piece 1: the ring's one zero nibble (the nibbles past the ring made nonzero).
    let padded = ring | ~ring_mask();
    let zero = (padded - 0x1111111111111111lu) & ~padded & 0x8888888888888888lu;
    var start = countTrailingZeros(u32(zero)) / 4u;
    if u32(zero) == 0u {
        start = 8u + countTrailingZeros(u32(zero >> 32u)) / 4u;
    }
    let m1 = PIECES - 1u;
    let labels = turn(ring, (PIECES - start) % PIECES) >> 4u;
    var found = rank_nibbles(labels - ones(m1), m1);
    if EVEN {
        found = found >> 1u;
    }
    if LRF {
        return u64(start) * arrangements() + found;
    }
    return found;
}
