// Sliding-tile puzzles' ranks and moves, the same rank order as the host's
// (src/puzzle/sliding.rs): rank = blank * HALF + lex / 2, `blank` the blank's cell in reading
// order and `lex` the lexicographic rank of the tiles' order (the blank left out), of each pair
// 2k, 2k + 1 the one of the blank's row's parity. Moves U, D, L, R (the way the tile moves);
// where there is no tile to move the position stays.
//
// The puzzle data `puzzle_data` holds HALF = (ROWS * COLS - 1)! / 2 as two words (low, high).

override ROWS: u32;
override COLS: u32;
override MOVES: u32 = 4u;

@group(0) @binding(2) var<uniform> puzzle_words: array<vec4<u32>, 4096>;

fn puzzle_data(i: u32) -> u32 {
    return puzzle_words[i >> 2u][i & 3u];
}

fn half() -> u64 {
    return u64(puzzle_data(0u)) | (u64(puzzle_data(1u)) << 32u);
}

// The loaded position: its rank, the blank's cell and the tiles' order (0-based tiles).
var<private> loaded: u64;
var<private> blank: u32;
var<private> order: array<u32, MAX_LEN>;

// Loads the position with this rank.
fn load_state(rank: u64) {
    let tiles = ROWS * COLS - 1u;
    let h = half();
    loaded = rank;
    blank = u32(div64(rank, h));
    let lex = (rank - u64(blank) * h) * 2lu;
    var digits: array<u32, MAX_LEN>;
    let parity = lehmer_digits(lex, tiles, &digits);
    let odd = ((COLS - 1u) * (blank / COLS)) & 1u;
    if parity != odd {
        // The other order of the pair 2k, 2k + 1.
        digits[tiles - 2u] = 1u;
    }
    var unused = (1u << tiles) - 1u;
    for (var i = 0u; i < tiles; i++) {
        let tile = nth_unused(unused, digits[i]);
        unused &= ~(1u << tile);
        order[i] = tile;
    }
}

// The rank of `moved` (the tiles' order) with the blank in `cell`.
fn rank_of(cell: u32, moved: ptr<function, array<u32, MAX_LEN>>) -> u64 {
    let tiles = ROWS * COLS - 1u;
    var unused = (1u << tiles) - 1u;
    var lex = 0lu;
    for (var i = 0u; i < tiles; i++) {
        let tile = (*moved)[i];
        let digit = lehmer_digit(unused, tile);
        unused &= ~(1u << tile);
        lex = lex * u64(tiles - i) + u64(digit);
    }
    return u64(cell) * half() + (lex >> 1u);
}

// The rank after move `m` from the loaded position (which stays loaded).
fn neighbour(m: u32) -> u64 {
    let row = blank / COLS;
    let col = blank % COLS;
    var moved = order;
    if m == 0u && row + 1u < ROWS {
        // U: the tile below passes the COLS - 1 tiles after the blank (last to first).
        let last = moved[blank + COLS - 1u];
        for (var i = blank + COLS - 1u; i > blank; i--) {
            moved[i] = moved[i - 1u];
        }
        moved[blank] = last;
        return rank_of(blank + COLS, &moved);
    }
    if m == 1u && row > 0u {
        // D: the tile above passes the COLS - 1 tiles before the blank (first to last).
        let at = blank - COLS;
        let first = moved[at];
        for (var i = at; i + 1u < blank; i++) {
            moved[i] = moved[i + 1u];
        }
        moved[blank - 1u] = first;
        return rank_of(at, &moved);
    }
    if m == 2u && col + 1u < COLS {
        return loaded + half();
    }
    if m == 3u && col > 0u {
        return loaded - half();
    }
    return loaded;
}
