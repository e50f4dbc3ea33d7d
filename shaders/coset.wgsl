// Coset graphs' ranks and moves (generators acting on a start whose labels repeat), the same
// rank order as the coset graphs: the lexicographic rank of the labels by position among the
// arrangements of the start's multiset of labels.
//
// The constants are overridden by the host when it builds the pipelines. The puzzle data
// `puzzle_data` holds MOVES rows of POINTS entries, row m holding move m's from array (after
// the move, position i holds what position from[i] held), then KINDS multiplicities: how many
// positions hold each label. SIZE is the number of arrangements, split into two words.

override POINTS: u32;
override MOVES: u32;
override KINDS: u32;
override SIZE_LO: u32;
override SIZE_HI: u32;

// The moves' rows and the multiplicities, four words a vector (a uniform buffer).
@group(0) @binding(2) var<uniform> puzzle_words: array<vec4<u32>, 4096>;

fn puzzle_data(i: u32) -> u32 {
    return puzzle_words[i >> 2u][i & 3u];
}

// The most positions and labels (MAX_COSET_POINTS on the host).
const MAX_POINTS: u32 = 64u;

// The loaded position: the label (0-based, in increasing order of the numbers) at each
// position.
var<private> labels: array<u32, MAX_POINTS>;

// The arrangements of the whole multiset.
fn arrangements() -> u64 {
    return (u64(SIZE_HI) << 32u) | u64(SIZE_LO);
}

// Writes the multiplicities into `left`.
fn multiplicities(left: ptr<function, array<u32, MAX_POINTS>>) {
    let at = MOVES * POINTS;
    for (var y = 0u; y < KINDS; y++) {
        (*left)[y] = puzzle_data(at + y);
    }
}

// Loads the position with this rank. With m items left, `total` arrangements remain and
// total * left[y] / m of them start with label y.
fn load_state(rank: u64) {
    var left: array<u32, MAX_POINTS>;
    multiplicities(&left);
    var total = arrangements();
    var r = rank;
    for (var i = 0u; i < POINTS; i++) {
        let m = POINTS - i;
        for (var y = 0u; y < KINDS; y++) {
            if left[y] == 0u {
                continue;
            }
            let starting = div_small(total * u64(left[y]), m);
            if r < starting {
                labels[i] = y;
                left[y] -= 1u;
                total = starting;
                break;
            }
            r -= starting;
        }
    }
}

// The rank after move `m` from the loaded position (which stays loaded).
fn neighbour(mv: u32) -> u64 {
    var left: array<u32, MAX_POINTS>;
    multiplicities(&left);
    var total = arrangements();
    var r = 0lu;
    let row = mv * POINTS;
    for (var i = 0u; i < POINTS; i++) {
        let x = labels[puzzle_data(row + i)];
        let m = POINTS - i;
        var below = 0u;
        for (var y = 0u; y < x; y++) {
            below += left[y];
        }
        r += div_small(total * u64(below), m);
        total = div_small(total * u64(left[x]), m);
        left[x] -= 1u;
    }
    return r;
}
