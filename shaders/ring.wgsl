// Ring puzzles' ranks and moves (Turnstyle, TopSpin), the same rank order as src/puzzle/ring.rs.
//
// The puzzle's constants are overridden by the host (src/puzzle/ring.rs) when it builds the
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
//
// The loaded position is kept as its arrangement (the ring read from piece 1, 0-based labels,
// `arrangement[0] == 0`), the position of piece 1 (lrf) and the arrangement's index.

var<private> arrangement: array<u32, 16>;
var<private> offset: u32;
var<private> index: u64;

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
    // Lehmer digits of the lexicographic rank of the n - 1 labels after piece 1, last first.
    let m = PIECES - 1u;
    var lex = index;
    if EVEN {
        lex = index * 2lu;
    }
    var digits: array<u32, 20>;
    let parity = lehmer_digits(lex, m, &digits);
    if EVEN && parity == 1u {
        // The odd permutation of the pair `2 * index, 2 * index + 1`: the other one.
        digits[m - 2u] = 1u;
    }
    arrangement[0] = 0u;
    var unused = (1u << m) - 1u;
    for (var i = 0u; i < m; i++) {
        let label = nth_unused(unused, digits[i]);
        unused &= ~(1u << label);
        arrangement[i + 1u] = label + 1u;
    }
}

// The index of the ring `ring` read from the position of piece 1 (`start`).
fn index_of(ring: ptr<function, array<u32, 16>>, start: u32) -> u64 {
    let m = PIECES - 1u;
    var unused = (1u << m) - 1u;
    var lex = 0lu;
    var at = start;
    for (var i = 0u; i < m; i++) {
        at += 1u;
        if at == PIECES {
            at = 0u;
        }
        let label = (*ring)[at] - 1u;
        let digit = lehmer_digit(unused, label);
        unused &= ~(1u << label);
        lex = lex * u64(m - i) + u64(digit);
    }
    if EVEN {
        return lex >> 1u;
    }
    return lex;
}

// Permutes the window at ring positions i..i + WINDOW (mod n).
fn permute_window(ring: ptr<function, array<u32, 16>>, i: u32) {
    var source = array<u32, 16>(
        FROM_0, FROM_1, FROM_2, FROM_3, FROM_4, FROM_5, FROM_6, FROM_7,
        FROM_8, FROM_9, FROM_10, FROM_11, FROM_12, FROM_13, FROM_14, FROM_15,
    );
    var old: array<u32, 16>;
    for (var t = 0u; t < WINDOW; t++) {
        old[t] = (*ring)[(i + t) % PIECES];
    }
    for (var t = 0u; t < WINDOW; t++) {
        (*ring)[(i + t) % PIECES] = old[source[t]];
    }
}

// The rank after move `m` from the loaded position (which stays loaded).
fn neighbour(m: u32) -> u64 {
    var ring: array<u32, 16>;
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
        for (var j = 0u; j < PIECES; j++) {
            ring[(offset + j) % PIECES] = arrangement[j];
        }
        permute_window(&ring, 0u);
    } else {
        ring = arrangement;
        permute_window(&ring, m);
    }
    var start = 0u;
    for (var j = 0u; j < PIECES; j++) {
        if ring[j] == 0u {
            start = j;
        }
    }
    let found = index_of(&ring, start);
    if LRF {
        return u64(start) * arrangements() + found;
    }
    return found;
}
