// The Towers of Hanoi's ranks and moves, the same rank order as the host's (src/puzzle/hanoi.rs):
// rank = sum over discs d of (peg of d) * PEGS^d, disc 0 the smallest. Move m joins two pegs:
// the smaller of their top discs moves onto the other; where both are empty the position stays.
//
// The puzzle data `puzzle_data` holds MOVES words, each a move's pegs (a | b << 8), then
// DISCS + 1 powers PEGS^d, two words each (low, high).

override PEGS: u32;
override DISCS: u32;
override MOVES: u32;

@group(0) @binding(2) var<uniform> puzzle_words: array<vec4<u32>, 4096>;

fn puzzle_data(i: u32) -> u32 {
    return puzzle_words[i >> 2u][i & 3u];
}

// PEGS^d.
fn power(d: u32) -> u64 {
    let at = MOVES + 2u * d;
    return u64(puzzle_data(at)) | (u64(puzzle_data(at + 1u)) << 32u);
}

// No disc: the top of an empty peg.
const NONE: u32 = 255u;

// The loaded position: its rank and the top disc of each peg.
var<private> loaded: u64;
var<private> tops: array<u32, 8>;

// Loads the position with this rank.
fn load_state(rank: u64) {
    loaded = rank;
    for (var p = 0u; p < 8u; p++) {
        tops[p] = NONE;
    }
    // The lowest digit is the smallest disc's: the first disc found on a peg is its top.
    var rest = rank;
    for (var d = 0u; d < DISCS; d++) {
        let q = div_small(rest, PEGS);
        let peg = u32(rest - q * u64(PEGS));
        rest = q;
        if tops[peg] == NONE {
            tops[peg] = d;
        }
    }
}

// The rank after move `m` from the loaded position (which stays loaded).
fn neighbour(m: u32) -> u64 {
    let pair = puzzle_data(m);
    let a = pair & 255u;
    let b = pair >> 8u;
    let ta = tops[a];
    let tb = tops[b];
    if ta == NONE && tb == NONE {
        return loaded;
    }
    var disc = tb;
    var off_peg = b;
    var onto_peg = a;
    if ta < tb {
        disc = ta;
        off_peg = a;
        onto_peg = b;
    }
    let step = power(disc);
    return loaded + u64(onto_peg) * step - u64(off_peg) * step;
}
