// The Towers of Hanoi reduced by the exchanges of the pegs other than the start peg: one entry
// per class, numbered as the host numbers restricted-growth strings
// (src/puzzle/symmetry/relabel.rs). A class is written by naming the pegs in the order they
// first appear from the largest disc, the start peg named 0; its position here puts each disc
// on the peg of its name, so pegs 0 to m hold the discs of a class using m names. A move joins
// two pegs as in hanoi_moves.wgsl; the neighbour's class is its string written again and ranked.
//
// `puzzle_data` holds MOVES words, each a move's pegs (a | b << 8); then for each count of
// names m in 0..PEGS, the first and the end of its entries (two words each, low first); then
// the completions: for each m, disc count `rest` in 0..=DISCS and names used so far `used` in
// 0..PEGS, the strings of `rest` more places that use m names in all (two words).

fn data_u64(at: u32) -> u64 {
    return u64(puzzle_data(at)) | (u64(puzzle_data(at + 1u)) << 32u);
}

// The entries of classes using m names begin at `range_start(m)` and end before `range_end(m)`.
fn range_start(m: u32) -> u64 {
    return data_u64(MOVES + 4u * m);
}

fn range_end(m: u32) -> u64 {
    return data_u64(MOVES + 4u * m + 2u);
}

// The strings of `rest` more places, after places that used `used` names, using m in all.
fn completions(m: u32, rest: u32, used: u32) -> u64 {
    return data_u64(MOVES + 4u * PEGS + 2u * ((m * (DISCS + 1u) + rest) * PEGS + used));
}

// The loaded entry and the peg of each disc of its class's position (hanoi_moves.wgsl keeps
// each peg's top disc).
var<private> loaded: u64;
var<private> peg_of: array<u32, 32>;

// Loads the entry with this rank.
fn load_state(rank: u64) {
    loaded = rank;
    var m = 0u;
    for (var k = 0u; k < PEGS; k++) {
        if rank >= range_start(k) && rank < range_end(k) {
            m = k;
        }
    }
    for (var p = 0u; p < 8u; p++) {
        tops[p] = NONE;
    }
    // From the largest disc: a name already used (or 0) is a multiple of the completions
    // below, the next new name comes after all of those.
    var rest = rank - range_start(m);
    var used = 0u;
    for (var i = 0u; i < DISCS; i++) {
        let d = DISCS - 1u - i;
        let below = completions(m, d, used);
        var name = 0u;
        while name <= used && rest >= below {
            rest -= below;
            name++;
        }
        if name > used {
            used++;
            name = used;
        }
        peg_of[d] = name;
        // The smallest disc on a peg is its top: the last one met from the largest.
        tops[name] = d;
    }
}

// The peg of disc `d` once disc `moved` is on peg `onto`.
fn peg_after(d: u32, moved: u32, onto: u32) -> u32 {
    return select(peg_of[d], onto, d == moved);
}

// The entry of the class of the loaded position with disc `moved` on peg `onto`.
fn entry_with(moved: u32, onto: u32) -> u64 {
    // The names in the order the pegs first appear from the largest disc.
    var name_of = array<u32, 8>(0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
    var m = 0u;
    for (var i = 0u; i < DISCS; i++) {
        let d = DISCS - 1u - i;
        let peg = peg_after(d, moved, onto);
        if peg != 0u && name_of[peg] == 0u {
            m++;
            name_of[peg] = m;
        }
    }
    var rank = range_start(m);
    var used = 0u;
    for (var i = 0u; i < DISCS; i++) {
        let d = DISCS - 1u - i;
        let name = name_of[peg_after(d, moved, onto)];
        let below = completions(m, d, used);
        if name <= used {
            rank += u64(name) * below;
        } else {
            rank += u64(used + 1u) * below;
            used++;
        }
    }
    return rank;
}

// The entry after move `m` from the loaded entry.
fn neighbour(m: u32) -> u64 {
    let mv = moving(m);
    if mv.x == NONE {
        return loaded;
    }
    return entry_with(mv.x, mv.z);
}
