// Permutation puzzles' ranks and moves, the same rank order as the permutation puzzles: the
// lexicographic rank of the pieces by position, halved where only one parity is reachable.
//
// The constants are overridden by the host (the permutation puzzles) when it builds the
// pipelines. The puzzle data `puzzle_data` holds MOVES rows of POINTS entries, row m
// holding move m's from array (after the move, position i holds what position from[i] held).

// Points permuted (n).
override POINTS: u32;
override MOVES: u32;
// How ranks are numbered: LEX, EVEN or ODD.
override RANKING: u32;

// The moves' rows, four words a vector (a uniform buffer: the device module).
@group(0) @binding(2) var<uniform> puzzle_words: array<vec4<u32>, 4096>;

fn puzzle_data(i: u32) -> u32 {
    return puzzle_words[i >> 2u][i & 3u];
}

const LEX: u32 = 0u;
const EVEN: u32 = 1u;
const ODD: u32 = 2u;

// The loaded position: the piece (0-based) at each position.
var<private> pieces: array<u32, MAX_LEN>;

// Loads the position with this rank.
fn load_state(rank: u64) {
    var lex = rank;
    if RANKING != LEX {
        lex = rank * 2lu;
    }
    var digits: array<u32, MAX_LEN>;
    let parity = lehmer_digits(lex, POINTS, &digits);
    if RANKING != LEX && parity != select(0u, 1u, RANKING == ODD) {
        // The other permutation of the pair 2 * rank, 2 * rank + 1.
        digits[POINTS - 2u] = 1u;
    }
    var unused = (1u << POINTS) - 1u;
    for (var i = 0u; i < POINTS; i++) {
        let piece = nth_unused(unused, digits[i]);
        unused &= ~(1u << piece);
        pieces[i] = piece;
    }
}

// The rank after move `m` from the loaded position (which stays loaded).
fn neighbour(m: u32) -> u64 {
    var unused = (1u << POINTS) - 1u;
    var lex = 0lu;
    let row = m * POINTS;
    for (var i = 0u; i < POINTS; i++) {
        let piece = pieces[puzzle_data(row + i)];
        let digit = lehmer_digit(unused, piece);
        unused &= ~(1u << piece);
        lex = lex * u64(POINTS - i) + u64(digit);
    }
    if RANKING != LEX {
        return lex >> 1u;
    }
    return lex;
}
