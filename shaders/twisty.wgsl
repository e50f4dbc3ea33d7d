// Twisty puzzles' ranks and moves, the same rank order as the twisty puzzles: a
// mixed-radix number whose most significant digit is the parity vector's index, then per-set
// coordinates (pieces, orientations) and blocks' positions within their parity class.
//
// Everything about the puzzle is in `puzzle_tables`, written by the twisty puzzles' shader data: a
// record per set, per block and per digit (least significant digit first), the move tables
// they point to, and the parity vectors. The constants give the counts and where each region
// starts.

override MOVES: u32;
override SETS: u32;
override BLOCKS: u32;
override DIGITS: u32;
// Offsets (in words) of: each parity vector's index (NONE: unreachable), the reachable vectors
// by index, each move's parity vector, the set records, block records and digit records.
override PARITY_INDEX: u32;
override PARITIES: u32;
override MOVE_PARITY: u32;
override SET_RECORDS: u32;
override BLOCK_RECORDS: u32;
override DIGIT_RECORDS: u32;
// The weight of the parity vector's index (the most significant digit).
override PARITY_WEIGHT_LO: u32;
override PARITY_WEIGHT_HI: u32;

@group(0) @binding(6) var<storage, read> puzzle_tables: array<u32>;

const NONE: u32 = 0xffffffffu;

// A set record's words (SET_WORDS in the twisty puzzles' shader data).
const SET_WORDS: u32 = 17u;
const S_COUNT: u32 = 0u;
const S_ORIENTATIONS: u32 = 1u;
// DISTINCT, MULTISET or FOLLOWS (its pieces follow an earlier set's: coordinate 0).
const S_KIND: u32 = 2u;
const S_PARITY_BIT: u32 = 3u;
const S_SUM_BIT: u32 = 4u;
const S_ORI_DIGITS: u32 = 5u;
const S_ORI_SUM: u32 = 6u;
// Two words each: the orientations' digit's values, the pieces' coordinate's values.
const S_ORI_SIZE: u32 = 7u;
const S_PERM_SIZE: u32 = 9u;
// Offsets of the pieces' and orientations' move tables ([coordinate * MOVES + move]), the odd
// lexicographic ranks' bits, the multiplicities (their count, then one a label) and the moves
// (per move, the from array then the twists), NONE where there are none.
const S_PERM_TABLE: u32 = 11u;
const S_ORI_TABLE: u32 = 12u;
const S_ODD: u32 = 13u;
const S_MULTIPLICITY: u32 = 14u;
const S_MOVES: u32 = 15u;
// Where the set's pieces and orientations are unpacked in `labels` and `turns`, where a
// coordinate has no table.
const S_UNPACKED: u32 = 16u;

const DISTINCT: u32 = 0u;
const MULTISET: u32 = 1u;
const FOLLOWS: u32 = 2u;

// A block record's words: its positions per class, its move table, and where each reachable
// parity vector's class starts (by the vector's index).
const BLOCK_WORDS: u32 = 3u;
const B_CLASS_SIZE: u32 = 0u;
const B_TABLE: u32 = 1u;
const B_STARTS: u32 = 2u;

// A digit record's words: what it numbers (a block, a set's pieces or orientations), which,
// and its radix (two words).
const DIGIT_WORDS: u32 = 4u;
const D_BLOCK: u32 = 0u;
const D_PIECES: u32 = 1u;
const D_TWISTS: u32 = 2u;

// The loaded position: its parity vector and the vector's index, per set the pieces' (full) and orientations'
// coordinates, per block its position, and the pieces and orientations of the sets whose
// coordinates have no table.
const MAX_SETS: u32 = 16u;
const MAX_BLOCKS: u32 = 16u;
const MAX_UNPACKED: u32 = 64u;
var<private> vector: u32;
var<private> vector_index: u32;
var<private> piece_coords: array<u64, MAX_SETS>;
var<private> twist_coords: array<u64, MAX_SETS>;
var<private> positions: array<u32, MAX_BLOCKS>;
var<private> labels: array<u32, MAX_UNPACKED>;
var<private> turns: array<u32, MAX_UNPACKED>;

fn word(at: u32) -> u32 {
    return puzzle_tables[at];
}

fn word64(at: u32) -> u64 {
    return u64(word(at)) | (u64(word(at + 1u)) << 32u);
}

fn set_word(s: u32, field: u32) -> u32 {
    return word(SET_RECORDS + s * SET_WORDS + field);
}

fn set_word64(s: u32, field: u32) -> u64 {
    return word64(SET_RECORDS + s * SET_WORDS + field);
}

fn block_word(b: u32, field: u32) -> u32 {
    return word(BLOCK_RECORDS + b * BLOCK_WORDS + field);
}

// `n / d` for d > 0 and n < 2^62: by `div_small` where d fits 32 bits, else the quotient is
// below 2^30 (ranks are below 2^62) and `div64` holds.
fn div_any(n: u64, d: u64) -> u64 {
    if (d >> 32u) == 0lu {
        return div_small(n, u32(d));
    }
    return div64(n, d);
}

// The first position in block `b` of the class of the parity vector of index `index`.
fn class_start(b: u32, index: u32) -> u32 {
    return word(block_word(b, B_STARTS) + index);
}

// Whether the lexicographic rank `lex` of set `s`'s pieces is an odd permutation (1) or not.
fn odd_rank(s: u32, lex: u64) -> u32 {
    let bits = set_word(s, S_ODD);
    if bits != NONE {
        let r = u32(lex);
        return (word(bits + (r >> 5u)) >> (r & 31u)) & 1u;
    }
    var digits: array<u32, 20>;
    return lehmer_digits(lex, set_word(s, S_COUNT), &digits);
}

// Writes set `s`'s multiplicities (how many pieces have each label) into `left`; returns how many
// labels there are.
fn multiplicities(s: u32, left: ptr<function, array<u32, 20>>) -> u32 {
    let at = set_word(s, S_MULTIPLICITY);
    let kinds = word(at);
    for (var y = 0u; y < kinds; y++) {
        (*left)[y] = word(at + 1u + y);
    }
    return kinds;
}

// Unpacks set `s`'s pieces of coordinate `coordinate` into `labels`.
fn unpack_pieces(s: u32, coordinate: u64) {
    let n = set_word(s, S_COUNT);
    let at = set_word(s, S_UNPACKED);
    if set_word(s, S_KIND) == DISTINCT {
        var digits: array<u32, 20>;
        lehmer_digits(coordinate, n, &digits);
        var unused = (1u << n) - 1u;
        for (var i = 0u; i < n; i++) {
            let piece = nth_unused(unused, digits[i]);
            unused &= ~(1u << piece);
            labels[at + i] = piece;
        }
        return;
    }
    // A multiset: the arrangements starting with label y number multinomial(rest) * left[y] /
    // (items left), out of `total`.
    var left: array<u32, 20>;
    let kinds = multiplicities(s, &left);
    var total = set_word64(s, S_PERM_SIZE);
    var r = coordinate;
    for (var i = 0u; i < n; i++) {
        for (var y = 0u; y < kinds; y++) {
            if left[y] == 0u {
                continue;
            }
            let starting = div_small(total * u64(left[y]), n - i);
            if r < starting {
                labels[at + i] = y;
                left[y] -= 1u;
                total = starting;
                break;
            }
            r -= starting;
        }
    }
}

// The coordinate of set `s`'s pieces `pieces` (labels).
fn pack_pieces(s: u32, pieces: ptr<function, array<u32, 20>>) -> u64 {
    let n = set_word(s, S_COUNT);
    var r = 0lu;
    if set_word(s, S_KIND) == DISTINCT {
        var unused = (1u << n) - 1u;
        for (var i = 0u; i < n; i++) {
            let piece = (*pieces)[i];
            r = r * u64(n - i) + u64(lehmer_digit(unused, piece));
            unused &= ~(1u << piece);
        }
        return r;
    }
    var left: array<u32, 20>;
    let kinds = multiplicities(s, &left);
    var total = set_word64(s, S_PERM_SIZE);
    for (var i = 0u; i < n; i++) {
        let x = (*pieces)[i];
        for (var y = 0u; y < x; y++) {
            if left[y] != 0u {
                r += div_small(total * u64(left[y]), n - i);
            }
        }
        total = div_small(total * u64(left[x]), n - i);
        left[x] -= 1u;
    }
    return r;
}

// Unpacks set `s`'s orientations of coordinate `coordinate` into `turns`.
fn unpack_twists(s: u32, coordinate: u64) {
    let n = set_word(s, S_COUNT);
    let o = set_word(s, S_ORIENTATIONS);
    let at = set_word(s, S_UNPACKED);
    let digits = set_word(s, S_ORI_DIGITS);
    let size = set_word64(s, S_ORI_SIZE);
    var total = set_word(s, S_ORI_SUM);
    var r = coordinate;
    if r >= size {
        // The vector holds the sum: the coordinate's high part.
        r -= size;
        total = 1u;
    } else if set_word(s, S_SUM_BIT) != NONE {
        total = 0u;
    }
    var sum = 0u;
    for (var k = 0u; k < digits; k++) {
        let i = digits - 1u - k;
        let q = div_small(r, o);
        let t = u32(r - q * u64(o));
        turns[at + i] = t;
        sum += t;
        r = q;
    }
    if digits < n {
        turns[at + n - 1u] = (total + o * 256u - sum) % o;
    }
}

// The coordinate of set `s`'s orientations `twists`.
fn pack_twists(s: u32, twists: ptr<function, array<u32, 20>>) -> u64 {
    let n = set_word(s, S_COUNT);
    let o = u64(set_word(s, S_ORIENTATIONS));
    let digits = set_word(s, S_ORI_DIGITS);
    var r = 0lu;
    var sum = 0u;
    for (var i = 0u; i < n; i++) {
        if i < digits {
            r = r * o + u64((*twists)[i]);
        }
        sum += (*twists)[i];
    }
    if set_word(s, S_SUM_BIT) != NONE {
        r += u64(sum & 1u) * set_word64(s, S_ORI_SIZE);
    }
    return r;
}

// Set `s`'s pieces' coordinate after move `m`.
fn move_pieces(s: u32, m: u32) -> u64 {
    let table = set_word(s, S_PERM_TABLE);
    if table != NONE {
        return u64(word(table + u32(piece_coords[s]) * MOVES + m));
    }
    if set_word(s, S_KIND) == FOLLOWS {
        return 0lu;
    }
    let n = set_word(s, S_COUNT);
    let row = set_word(s, S_MOVES) + m * 2u * n;
    let at = set_word(s, S_UNPACKED);
    var moved: array<u32, 20>;
    for (var i = 0u; i < n; i++) {
        moved[i] = labels[at + word(row + i)];
    }
    return pack_pieces(s, &moved);
}

// Set `s`'s orientations' coordinate after move `m`.
fn move_twists(s: u32, m: u32) -> u64 {
    let table = set_word(s, S_ORI_TABLE);
    if table != NONE {
        return u64(word(table + u32(twist_coords[s]) * MOVES + m));
    }
    let n = set_word(s, S_COUNT);
    let o = set_word(s, S_ORIENTATIONS);
    let row = set_word(s, S_MOVES) + m * 2u * n;
    let at = set_word(s, S_UNPACKED);
    var moved: array<u32, 20>;
    for (var i = 0u; i < n; i++) {
        moved[i] = (turns[at + word(row + i)] + word(row + n + i)) % o;
    }
    return pack_twists(s, &moved);
}

fn parity_weight() -> u64 {
    return u64(PARITY_WEIGHT_LO) | (u64(PARITY_WEIGHT_HI) << 32u);
}

// Loads the position with this rank: its digits, least significant first, into coordinates.
fn load_state(rank: u64) {
    let index = div_any(rank, parity_weight());
    vector_index = u32(index);
    vector = word(PARITIES + vector_index);
    var rest = rank - index * parity_weight();
    for (var k = 0u; k < DIGITS; k++) {
        let record = DIGIT_RECORDS + k * DIGIT_WORDS;
        let radix = word64(record + 2u);
        let q = div_any(rest, radix);
        let digit = rest - q * radix;
        rest = q;
        let i = word(record + 1u);
        let part = word(record);
        if part == D_BLOCK {
            positions[i] = class_start(i, vector_index) + u32(digit);
        } else if part == D_PIECES {
            var coordinate = digit;
            let bit = set_word(i, S_PARITY_BIT);
            if bit != NONE {
                // The ranks 2p and 2p + 1 have opposite parities: the vector's is the one.
                let lex = 2lu * digit;
                coordinate = lex + u64(odd_rank(i, lex) != ((vector >> bit) & 1u));
            }
            piece_coords[i] = coordinate;
            if set_word(i, S_PERM_TABLE) == NONE && set_word(i, S_KIND) != FOLLOWS {
                unpack_pieces(i, coordinate);
            }
        } else {
            var coordinate = digit;
            let bit = set_word(i, S_SUM_BIT);
            if bit != NONE {
                coordinate += u64((vector >> bit) & 1u)
                    * set_word64(i, S_ORI_SIZE);
            }
            twist_coords[i] = coordinate;
            if set_word(i, S_ORI_TABLE) == NONE {
                unpack_twists(i, coordinate);
            }
        }
    }
}

// The rank after move `m` from the loaded position (which stays loaded).
fn neighbour(m: u32) -> u64 {
    let index = word(PARITY_INDEX + (vector ^ word(MOVE_PARITY + m)));
    var rank = u64(index) * parity_weight();
    var weight = 1lu;
    for (var k = 0u; k < DIGITS; k++) {
        let record = DIGIT_RECORDS + k * DIGIT_WORDS;
        let i = word(record + 1u);
        let part = word(record);
        var digit = 0lu;
        if part == D_BLOCK {
            let moved = word(block_word(i, B_TABLE) + positions[i] * MOVES + m);
            digit = u64(moved - class_start(i, index));
        } else if part == D_PIECES {
            digit = move_pieces(i, m);
            if set_word(i, S_PARITY_BIT) != NONE {
                digit >>= 1u;
            }
        } else {
            digit = move_twists(i, m);
            let size = set_word64(i, S_ORI_SIZE);
            if digit >= size {
                digit -= size;
            }
        }
        rank += digit * weight;
        weight *= word64(record + 2u);
    }
    return rank;
}
