// Probes of the shaders (the probes), to check them against the CPU.
//
// Prepended by the host: the rank functions (shaders/rank.wgsl) and a puzzle's shader (MOVES,
// load_state, neighbour).

@group(0) @binding(0) var<storage, read_write> io: array<u32>;

fn io_u64(at: u32) -> u64 {
    return u64(io[at]) | (u64(io[at + 1u]) << 32u);
}

fn set_io_u64(at: u32, value: u64) {
    io[at] = u32(value & 0xfffffffflu);
    io[at + 1u] = u32(value >> 32u);
}

// For each probed rank: its two words (low first), then room for MOVES neighbours of two words
// each, in the shader's move order.
@compute @workgroup_size(64)
fn neighbours(@builtin(global_invocation_id) id: vec3<u32>) {
    let at = id.x * (2u + 2u * MOVES);
    if at >= arrayLength(&io) {
        return;
    }
    load_state(io_u64(at));
    for (var m = 0u; m < MOVES; m++) {
        set_io_u64(at + 2u + 2u * m, neighbour(m));
    }
}

// For each pair: n, d, then room for div64(n, d) (meaningful for quotients below 2^32, n and
// d below 2^62) and div_small(n, d) (0 where d >= 2^32).
@compute @workgroup_size(64)
fn quotients(@builtin(global_invocation_id) id: vec3<u32>) {
    let at = id.x * 8u;
    if at >= arrayLength(&io) {
        return;
    }
    let n = io_u64(at);
    let d = io_u64(at + 2u);
    set_io_u64(at + 4u, div64(n, d));
    var small = 0lu;
    if (d >> 32u) == 0lu {
        small = div_small(n, u32(d));
    }
    set_io_u64(at + 6u, small);
}
