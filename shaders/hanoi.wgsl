// The Towers of Hanoi's ranks, the same rank order as the host's (src/puzzle/hanoi/mod.rs):
// rank = sum over discs d of (peg of d) * PEGS^d, disc 0 the smallest; the moves are
// hanoi_moves.wgsl's, and where a move has no disc the position stays.
//
// The puzzle data `puzzle_data` holds MOVES words, each a move's pegs (a | b << 8), then
// DISCS + 1 powers PEGS^d, two words each (low, high).

// PEGS^d.
fn power(d: u32) -> u64 {
    let at = MOVES + 2u * d;
    return u64(puzzle_data(at)) | (u64(puzzle_data(at + 1u)) << 32u);
}

// The loaded position's rank.
var<private> loaded: u64;

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
    let mv = moving(m);
    if mv.x == NONE {
        return loaded;
    }
    let step = power(mv.x);
    return loaded + u64(mv.z) * step - u64(mv.y) * step;
}
