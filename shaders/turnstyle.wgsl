// Turnstyle's ranks and moves, the same rank order as src/puzzle/turnstyle.rs.
//
// Prepended by the host: PIECES (n), LRF (true: ranks are index * n + offset and the moves are
// L, R, F; false: ranks are arrangement indices and the moves are the flips F0..F(n-1)) and
// EVEN (odd n: only even arrangements exist and the index is the lexicographic rank halved).
//
// The loaded position is kept as its arrangement (the ring read from piece 1, 0-based labels,
// `arrangement[0] == 0`) and, for lrf, the position of piece 1 and the arrangement's index.

var<private> arrangement: array<u32, 16>;
var<private> offset: u32;
var<private> index: u64;

// Loads the position with this rank.
fn load_state(rank: u64) {
    if LRF {
        index = rank / u64(PIECES);
        offset = u32(rank - index * u64(PIECES));
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
    var digits: array<u32, 16>;
    var parity = 0u;
    for (var i = 0u; i < m; i++) {
        let base = u64(i + 1u);
        let q = lex / base;
        digits[m - 1u - i] = u32(lex - q * base);
        parity += digits[m - 1u - i];
        lex = q;
    }
    if EVEN && (parity & 1u) == 1u {
        // The odd permutation of the pair `2 * index, 2 * index + 1`: the other one.
        digits[m - 2u] = 1u;
    }
    arrangement[0] = 0u;
    var unused = (1u << m) - 1u;
    for (var i = 0u; i < m; i++) {
        // The digits[i]-th unused label.
        var rest = unused;
        for (var k = 0u; k < digits[i]; k++) {
            rest &= rest - 1u;
        }
        let label = countTrailingZeros(rest);
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
        let digit = countOneBits(unused & ((1u << label) - 1u));
        unused &= ~(1u << label);
        lex = lex * u64(m - i) + u64(digit);
    }
    if EVEN {
        return lex >> 1u;
    }
    return lex;
}

// Swaps ring positions i, i + 1 and i + 2, i + 3 (mod n).
fn flip(ring: ptr<function, array<u32, 16>>, i: u32) {
    let a = i % PIECES;
    let b = (i + 1u) % PIECES;
    let c = (i + 2u) % PIECES;
    let d = (i + 3u) % PIECES;
    let x = (*ring)[a];
    (*ring)[a] = (*ring)[b];
    (*ring)[b] = x;
    let y = (*ring)[c];
    (*ring)[c] = (*ring)[d];
    (*ring)[d] = y;
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
            return index * u64(PIECES) + u64(moved % PIECES);
        }
        // F: the flip at position 0 of the position itself.
        for (var j = 0u; j < PIECES; j++) {
            ring[(offset + j) % PIECES] = arrangement[j];
        }
        flip(&ring, 0u);
    } else {
        ring = arrangement;
        flip(&ring, m);
    }
    var start = 0u;
    for (var j = 0u; j < PIECES; j++) {
        if ring[j] == 0u {
            start = j;
        }
    }
    let found = index_of(&ring, start);
    if LRF {
        return found * u64(PIECES) + u64(start);
    }
    return found;
}
