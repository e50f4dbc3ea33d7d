// The kernels of one process's slab in an MPI job (the GPU slab engine), after
// shaders/bfs.wgsl. The table holds the slab's entries plane by plane: entry i is column
// `first + i % columns` of plane `i / columns`, and a rank is `plane * width + column`
// (the slabs). A neighbour outside the slab goes to the outbox, the `lists` binding:
// word 0 counts the words appended after it, 2 a rank (low word first) or 4 a question (the
// rank asked, then the entry that asks). What does not fit is dropped but counted: the host then
// runs the round again in parts, which sets nothing twice. What the other processes send comes
// back in the same binding, from word 1: `remaining` entries of the slab, 2 words each.

// No entry of this slab.
const ELSEWHERE: u64 = 0xfffffffffffffffflu;

fn slab_first() -> u64 {
    return u64(params.slab_first_lo) | (u64(params.slab_first_hi) << 32u);
}

fn slab_columns() -> u64 {
    return u64(params.slab_columns_lo) | (u64(params.slab_columns_hi) << 32u);
}

fn slab_width() -> u64 {
    return u64(params.slab_width_lo) | (u64(params.slab_width_hi) << 32u);
}

// The rank of the slab's entry `own` (a plane's number is below 2^32, as `div64` needs; no
// `/`: see shaders/rank.wgsl).
fn slab_rank(own: u64) -> u64 {
    let columns = slab_columns();
    let plane = div64(own, columns);
    return plane * slab_width() + slab_first() + (own - plane * columns);
}

// The slab's entry of the rank module, or ELSEWHERE where another process's slab holds it.
fn slab_entry(rank: u64) -> u64 {
    let width = slab_width();
    let plane = div64(rank, width);
    let column = rank - plane * width;
    let first = slab_first();
    if column < first || column - first >= slab_columns() {
        return ELSEWHERE;
    }
    return plane * slab_columns() + column - first;
}

// Stores `value` at outbox word `at` and the next.
fn outbox_store(at: u32, value: u64) {
    atomicStore(&lists[at], u32(value));
    atomicStore(&lists[at + 1u], u32(value >> 32u));
}

// The outbox's room, in words after the count (the binding's three lists of ranks).
fn outbox_room() -> u32 {
    return 6u * params.list_capacity;
}

// Appends the rank module to the outbox, if it has room (the count goes on: the host sees it overflow).
fn send(rank: u64) {
    let at = atomicAdd(&lists[0], 2u);
    if at + 2u <= outbox_room() {
        outbox_store(1u + at, rank);
    }
}

// Appends the question whether the rank module is in level d, asked by entry `own`, as `send`.
fn ask(rank: u64, own: u64) {
    let at = atomicAdd(&lists[0], 4u);
    if at + 4u <= outbox_room() {
        outbox_store(1u + at, rank);
        outbox_store(3u + at, own);
    }
}

// Entry `i` of what the others sent.
fn inbox(i: u32) -> u64 {
    return u64(atomicLoad(&lists[1u + 2u * i])) | (u64(atomicLoad(&lists[2u + 2u * i])) << 32u);
}

// Top-down over the slab's blocks of this round: each frontier entry claims its neighbours in
// the slab for level d + 1 and sends the others to their owners.
@compute @workgroup_size(64)
fn slab_top_down(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    var claimed = 0u;
    if id.x < params.blocks {
        let b = load_block(id.x);
        var frontier = settle(b);
        while frontier != 0u {
            let e = countTrailingZeros(frontier);
            frontier &= frontier - 1u;
            load_state(slab_rank(b.first + u64(e)));
            for (var m = 0u; m < PUSH_END; m++) {
                let n = neighbour(m);
                let here = slab_entry(n);
                if here == ELSEWHERE {
                    send(n);
                } else if claim(here, params.next) {
                    claimed += 1u;
                }
            }
        }
    }
    add_to_count(lane, claimed);
}

// Bottom-up over the slab's blocks of this round: an unreached entry with a neighbour in level
// d in the slab joins level d + 1; one with none there asks the owners of its other neighbours.
// (An unreached entry's neighbours are at level d or beyond, so `cur` means level d.)
@compute @workgroup_size(64)
fn slab_bottom_up(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    var found = 0u;
    if id.x < params.blocks {
        let b = load_block(id.x);
        _ = settle(b);
        var open = matches32(b.lo, b.hi, UNREACHED) & valid_mask(b.first);
        while open != 0u {
            let e = countTrailingZeros(open);
            open &= open - 1u;
            let own = b.first + u64(e);
            load_state(slab_rank(own));
            var elsewhere = false;
            for (var m = PULL_FIRST; m < MOVES; m++) {
                let here = slab_entry(neighbour(m));
                if here == ELSEWHERE {
                    elsewhere = true;
                } else if entry(here) == params.cur {
                    found |= 1u << e;
                    elsewhere = false;
                    break;
                }
            }
            if elsewhere {
                for (var m = PULL_FIRST; m < MOVES; m++) {
                    let n = neighbour(m);
                    if slab_entry(n) == ELSEWHERE {
                        ask(n, own);
                    }
                }
            }
        }
        found = set_open(b, found);
    }
    add_to_count(lane, countOneBits(found));
}

// Claims the `remaining` entries the others sent for level d + 1.
@compute @workgroup_size(64)
fn slab_claim(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    var claimed = 0u;
    for (var i = id.x; i < params.remaining; i += groups.x * 64u) {
        if claim(inbox(i), params.next) {
            claimed += 1u;
        }
    }
    add_to_count(lane, claimed);
}

// Answers the `remaining` entries the others asked about: bit k of the word `j` after them set
// where entry 32 j + k is in level d (every entry asked is a neighbour of an unreached one).
@compute @workgroup_size(64)
fn slab_answer(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let words = (params.remaining + 31u) / 32u;
    for (var j = id.x; j < words; j += groups.x * 64u) {
        var bits = 0u;
        for (var k = 0u; k < 32u && 32u * j + k < params.remaining; k++) {
            if entry(inbox(32u * j + k)) == params.cur {
                bits |= 1u << k;
            }
        }
        atomicStore(&lists[1u + 2u * params.remaining + j], bits);
    }
    add_to_count(lane, 0u);
}
