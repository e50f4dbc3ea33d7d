// The Towers of Hanoi's moves, which both its shaders take (hanoi.wgsl for positions,
// hanoi_classes.wgsl for classes under --symmetry; the host puts this file before either).
// Move m joins two pegs: the smaller of their top discs moves onto the other; where both are
// empty there is no disc to move. `puzzle_data` begins with MOVES words, each a move's pegs
// (a | b << 8); what follows is the shader's own.

override PEGS: u32;
override DISCS: u32;
override MOVES: u32;

@group(0) @binding(2) var<uniform> puzzle_words: array<vec4<u32>, 4096>;

fn puzzle_data(i: u32) -> u32 {
    return puzzle_words[i >> 2u][i & 3u];
}

// No disc: the top of an empty peg.
const NONE: u32 = 255u;

// The top disc of each peg of the loaded position (the shader's load_state sets them).
var<private> tops: array<u32, 8>;

// Move m from the loaded position: the disc that moves, the peg it leaves and the peg it goes
// onto; the disc is NONE where both pegs are empty.
fn moving(m: u32) -> vec3<u32> {
    let pair = puzzle_data(m);
    let a = pair & 255u;
    let b = pair >> 8u;
    // An empty peg's NONE is larger than any disc.
    if tops[a] < tops[b] {
        return vec3<u32>(tops[a], a, b);
    }
    return vec3<u32>(tops[b], b, a);
}
