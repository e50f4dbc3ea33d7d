// The neighbours a puzzle's shader computes (src/gpu/probe.rs), to check its ranks against the
// CPU's. `io` holds for each probed rank its two words (low first), then room for MOVES
// neighbours of two words each, in the shader's move order.
//
// Prepended by the host: the rank functions (shaders/rank.wgsl) and the puzzle's shader.

@group(0) @binding(0) var<storage, read_write> io: array<u32>;
@group(0) @binding(1) var<storage, read> puzzle_data: array<u32>;

@compute @workgroup_size(64)
fn probe(@builtin(global_invocation_id) id: vec3<u32>) {
    let at = id.x * (2u + 2u * MOVES);
    if at >= arrayLength(&io) {
        return;
    }
    load_state(u64(io[at]) | (u64(io[at + 1u]) << 32u));
    for (var m = 0u; m < MOVES; m++) {
        let r = neighbour(m);
        io[at + 2u + 2u * m] = u32(r & 0xfffffffflu);
        io[at + 3u + 2u * m] = u32(r >> 32u);
    }
}
