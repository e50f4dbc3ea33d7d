// Tables reduced by symmetry, one entry per class of positions (the host's
// src/puzzle/symmetry/gpu.rs writes the tables this reads and says what they hold): entry =
// block * FIBRE + r, r the rest of the position's order of K pieces (its lexicographic rank,
// halved where HALVED: of orders 2r and 2r + 1, the one of the block's parity). A move takes an
// entry to the block of its route, the neighbour's order read from slots of the entry's and
// relabelled; where symmetries keep that block, the neighbour's entry is the least rest of the
// images of its order under them. An entry that is not the least of its class is its own only
// neighbour, so no pass reaches it (as on the CPU).
//
// Orders are kept as nibbles (rank.wgsl): piece at slot j in nibble j.

override MOVES: u32;
// Pieces an order holds (at most 16), entries a block, and whether rests are halved.
override K: u32;
override FIBRE: u32;
override HALVED: bool;
// Where each part of the tables begins, in words: the symmetries' relabellings (two words
// each), the blocks' records (`odd | stabilizer count << 1`, first stabilizer record), the
// routes (block, symmetry, slots in two words; MOVES a block) and the stabilizers' records
// (symmetry, slots in two words).
override RELABELS: u32;
override INFO: u32;
override ROUTES: u32;
override STABILIZERS: u32;
// Words of a route's record and of a stabilizer's.
const ROUTE_WORDS: u32 = 4u;
const STABILIZER_WORDS: u32 = 3u;

@group(0) @binding(6) var<storage, read> puzzle_tables: array<u32>;

// Two words of the tables as one u64 (nibbles).
fn table_nibbles(at: u32) -> u64 {
    return u64(puzzle_tables[at]) | (u64(puzzle_tables[at + 1u]) << 32u);
}

// The loaded entry, its block and order, and whether it holds no class.
var<private> loaded_rank: u64;
var<private> loaded_block: u32;
var<private> loaded_order: u64;
var<private> loaded_unused: bool;

// The rest of `order`.
fn rest_of_order(order: u64) -> u64 {
    var unused = (1u << K) - 1u;
    var lex = 0lu;
    for (var i = 0u; i < K; i++) {
        let piece = nibble(order, i);
        lex = lex * u64(K - i) + u64(lehmer_digit(unused, piece));
        unused &= ~(1u << piece);
    }
    if HALVED {
        return lex >> 1u;
    }
    return lex;
}

// The order of rest `r` in a block of odd orders (`odd` 1) or of even ones.
fn order_of_rest(r: u64, odd: u32) -> u64 {
    var lex = r;
    if HALVED {
        lex = r * 2lu;
    }
    let digits = lehmer_nibbles(lex, K);
    var order = unrank_nibbles(digits, K);
    if HALVED && nibble_sum_parity(digits) != odd {
        // The other order of the pair: its last two pieces swapped.
        let a = nibble(order, K - 2u);
        let b = nibble(order, K - 1u);
        order &= ~(0xfflu << (4u * (K - 2u)));
        order |= (u64(b) << (4u * (K - 2u))) | (u64(a) << (4u * (K - 1u)));
    }
    return order;
}

// The order whose slot j holds relabel[order[slots[j]]].
fn carry(order: u64, slots: u64, relabel: u64) -> u64 {
    var next = 0lu;
    for (var j = 0u; j < K; j++) {
        next |= u64(nibble(relabel, nibble(order, nibble(slots, j)))) << (4u * j);
    }
    return next;
}

// The least rest of the class of `order` in `block`: its own where no symmetry keeps the block.
fn least_rest(block: u32, order: u64) -> u64 {
    var r = rest_of_order(order);
    let count = puzzle_tables[INFO + 2u * block] >> 1u;
    let first = STABILIZERS + STABILIZER_WORDS * puzzle_tables[INFO + 2u * block + 1u];
    for (var i = 0u; i < count; i++) {
        let at = first + STABILIZER_WORDS * i;
        let relabel = table_nibbles(RELABELS + 2u * puzzle_tables[at]);
        r = min(r, rest_of_order(carry(order, table_nibbles(at + 1u), relabel)));
    }
    return r;
}

// Loads the entry with this rank.
fn load_state(rank: u64) {
    let block = div_small(rank, FIBRE);
    let r = rank - block * u64(FIBRE);
    loaded_rank = rank;
    loaded_block = u32(block);
    let info = puzzle_tables[INFO + 2u * loaded_block];
    loaded_order = order_of_rest(r, info & 1u);
    loaded_unused = (info >> 1u) != 0u && least_rest(loaded_block, loaded_order) < r;
}

// The entry after move `m` from the loaded entry.
fn neighbour(m: u32) -> u64 {
    if loaded_unused {
        return loaded_rank;
    }
    let at = ROUTES + ROUTE_WORDS * (loaded_block * MOVES + m);
    let block = puzzle_tables[at];
    let relabel = table_nibbles(RELABELS + 2u * puzzle_tables[at + 1u]);
    let next = carry(loaded_order, table_nibbles(at + 2u), relabel);
    return u64(block) * u64(FIBRE) + least_rest(block, next);
}
