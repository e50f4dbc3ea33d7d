// Sweep passes on the device (see the GPU sweeps for the host side and the CPU sweeps for
// the CPU's): block moves 32 entries at a time (plain shifts, moves of long runs, moves of
// short runs), the residual moves state by state.
//
// `sweep_data` (bound by the host) holds a header [block moves, residual ranges, offset of the
// residual records, domains, offset of the domain records, 3 unused], then one record of
// MOVE_WORDS words per block move, grouped by domain and in each domain by kind:
//   from, to, len, block, run (u64 each, low word first), map offset (in `sweep_maps`), window
//   values, whether the map depends on the prefix parity, prefix radices offset, prefix radices
//   count, kind (SHIFT, RUNS or SHORT), the window's block the range starts at (u64: 0 for a
//   whole move, further on for a slab's part of one; its prefix digits give the parities);
// then RESIDUAL_WORDS words per residual range: start, end (u64 each), move, unused;
// then DOMAIN_WORDS words per domain (the ranges the moves pull into, disjoint, ascending):
//   from, len (u64 each), first move, moves, plain shifts, moves of long runs. No domains:
//   every move is tried.
// Maps (in `sweep_maps`): values words, or where the map depends on the prefix parity 2 x values
// (for an even and an odd prefix), then as many inverses;
// radices: most significant first.
//
// A block move sends rank `from + i` to `to + b * block + map[x] * run + s`, where
// i = b * block + x * run + s: target ranks pull their frontier bit from there (the moves are
// closed under inverses, so pulling through a move is pushing through its inverse).
//
// Each kind of move has kernels of its own, dispatched only over the blocks its moves land in:
// lavapipe runs every branch of a loop's body for all the lanes of a vector, whichever they
// take (measured: a loop that also passed over the shifts ran the window moves 1.7 times as
// long).

// The sweep data, four words a vector (a uniform buffer: the device module).
@group(0) @binding(3) var<uniform> sweep_words: array<vec4<u32>, 4096>;

fn sweep_data(i: u32) -> u32 {
    return sweep_words[i >> 2u][i & 3u];
}

// The block moves' maps (a storage buffer: each invocation reads its own entries).
@group(0) @binding(5) var<storage, read> sweep_maps: array<u32>;

const SWEEP_HEADER: u32 = 8u;
const DOMAIN_WORDS: u32 = 8u;
const MOVE_WORDS: u32 = 18u;
const RESIDUAL_WORDS: u32 = 8u;

fn sweep_u64(i: u32) -> u64 {
    return u64(sweep_data(i)) | (u64(sweep_data(i + 1u)) << 32u);
}

// The entries holding `cur` in block `block`, one bit per entry; 0 past the table. Pulls read
// the frontier (level d) so, with levels d - 3, d - 6, ... (no `seen` word to read): an
// unreached entry has no neighbour there (it would have been reached), so pulling from them sets
// nothing more.
fn frontier32(block: u64) -> u32 {
    let first = block << 5u;
    if first >= table_entries() {
        return 0u;
    }
    let window = u32(block >> params.window_shift);
    let base = u32(block & ((1lu << params.window_shift) - 1lu)) * TABLE_WORDS;
    let lo = word_load(window, base);
    let hi = word_load(window, base + 1u);
    return matches32(lo, hi, params.cur) & valid_mask(first);
}

// The last frontier block read, and its frontier bits: short runs read the same block again
// and again.
struct Cached {
    block: u64,
    bits: u32,
}

// `frontier32(block)`, read again only for a block other than the last.
fn cached_frontier32(cache: ptr<function, Cached>, block: u64) -> u32 {
    if (*cache).block != block {
        (*cache).block = block;
        (*cache).bits = frontier32(block);
    }
    return (*cache).bits;
}

// The frontier bits of ranks `start .. start + len` (len 1 to 32), as the low bits.
fn frontier_bits(cache: ptr<function, Cached>, start: u64, len: u32) -> u32 {
    let block = start >> 5u;
    let shift = u32(start & 31lu);
    var bits = cached_frontier32(cache, block) >> shift;
    if shift + len > 32u {
        bits |= cached_frontier32(cache, block + 1lu) << (32u - shift);
    }
    if len < 32u {
        bits &= (1u << len) - 1u;
    }
    return bits;
}

// The parity of the digit sum of `value` in the `count` mixed radices at `at` (most significant
// first). (Keeping every digit to step them block by block would need an array, which lavapipe
// indexes invocation by invocation: slower.)
fn prefix_parity(value: u64, at: u32, count: u32) -> u32 {
    // Below 2^32: the GPU sweeps keeps the blocks of a move fewer.
    var rest = u32(value);
    var parity = 0u;
    for (var i = count; i > 0u; i--) {
        let r = sweep_data(at + i - 1u);
        let q = div32(rest, r);
        parity ^= (rest - q * r) & 1u;
        rest = q;
    }
    return parity;
}

// The frontier bits plain shift `m` (one run a block, the map [0]) brings to the 32 ranks from
// `first` (bit e: rank first + e): one string of bits.
fn pull_shift(m: u32, first: u64) -> u32 {
    let at = SWEEP_HEADER + m * MOVE_WORDS;
    let origin = sweep_u64(at); // the move's `from`
    let lo = max(first, origin);
    let hi = min(first + 32lu, origin + sweep_u64(at + 4u));
    if lo >= hi {
        return 0u;
    }
    var cache = Cached(~0lu, 0u);
    let source = sweep_u64(at + 2u) + (lo - origin);
    return frontier_bits(&cache, source, u32(hi - lo)) << u32(lo - first);
}

// `pull_shift` where the shift's `from`, `to` and `len` are multiples of 32: one whole block.
fn pull_aligned_shift(m: u32, first: u64) -> u32 {
    let at = SWEEP_HEADER + m * MOVE_WORDS;
    let origin = sweep_u64(at); // the move's `from`
    if first < origin || first >= origin + sweep_u64(at + 4u) {
        return 0u;
    }
    return frontier32((sweep_u64(at + 2u) + (first - origin)) >> 5u);
}

// The prefix parity of block `b` of move record `at` (0 where the map does not depend on it),
// and the last prefix digit (radix `radix`): stepped block by block, the parity found again only
// when that digit wraps.
struct Parity {
    odd: u32,
    digit: u64,
    radix: u64,
}

fn start_parity(at: u32, b: u64) -> Parity {
    var p = Parity(0u, 0lu, 1lu);
    if sweep_data(at + 12u) != 0u {
        let prefix_at = sweep_data(at + 13u);
        let count = sweep_data(at + 14u);
        let block = b + sweep_u64(at + 16u);
        p.odd = prefix_parity(block, prefix_at, count);
        p.radix = u64(sweep_data(prefix_at + count - 1u));
        p.digit = block - div64(block, p.radix) * p.radix;
    }
    return p;
}

// The parity of block `b`, after `p`'s of block b - 1.
fn step_parity(p: ptr<function, Parity>, at: u32, b: u64) {
    if sweep_data(at + 12u) != 0u {
        (*p).digit += 1lu;
        if (*p).digit < (*p).radix {
            (*p).odd ^= 1u;
        } else {
            (*p).digit = 0lu;
            let block = b + sweep_u64(at + 16u);
            (*p).odd = prefix_parity(block, sweep_data(at + 13u), sweep_data(at + 14u));
        }
    }
}

// The frontier bits block move `m` brings to the 32 ranks from `first`, run by run.
fn pull_move(m: u32, first: u64) -> u32 {
    let at = SWEEP_HEADER + m * MOVE_WORDS;
    let origin = sweep_u64(at); // the move's `from`
    let len = sweep_u64(at + 4u);
    let lo = max(first, origin);
    let hi = min(first + 32lu, origin + len);
    if lo >= hi {
        return 0u;
    }
    let to = sweep_u64(at + 2u);
    var cache = Cached(~0lu, 0u);
    let block = sweep_u64(at + 6u);
    let run = sweep_u64(at + 8u);
    let map_at = sweep_data(at + 10u);
    let values = sweep_data(at + 11u);
    let i = lo - origin;
    // Where rank i sits: block b, run x of the block, s ranks into the run.
    var b = 0lu;
    var within = i;
    if block != len {
        b = div64(i, block);
        within = i - b * block;
    }
    let x0 = div64(within, run);
    var x = u32(x0);
    var s = within - x0 * run;
    var parity = start_parity(at, b);
    // The source block's first rank.
    var base = to + b * block;
    var found = 0u;
    // Bit e of `found` is rank first + e; the loop walks e over the ranks from `lo` on, run by
    // run (32-bit counters: at most 32 ranks are left, and the GPU sweeps keeps runs of moves
    // with more than one run a block below 2^32).
    var e = u32(lo - first);
    let stop = u32(hi - first);
    let run32 = u32(run);
    var s32 = u32(s);
    while e < stop {
        let take = min(run32 - s32, stop - e);
        let mapped = sweep_maps[map_at + parity.odd * values + x];
        found |= frontier_bits(&cache, base + u64(mapped) * run + u64(s32), take) << e;
        e += take;
        s32 = 0u;
        x += 1u;
        if x == values {
            x = 0u;
            b += 1lu;
            base += block;
            step_parity(&parity, at, b);
        }
    }
    return found;
}

// Pushes the frontier entries `frontier` of the 32 ranks from `first`, as sources of block move
// `m` (of short runs), to their targets (through the inverse map), claiming the unreached ones;
// returns how many it claimed. While the frontier is small, this reads a map entry per frontier
// entry rather than one per run of the targets.
fn push_move(m: u32, first: u64, frontier: u32) -> u32 {
    let at = SWEEP_HEADER + m * MOVE_WORDS;
    let to = sweep_u64(at + 2u);
    let lo = max(first, to);
    let hi = min(first + 32lu, to + sweep_u64(at + 4u));
    if lo >= hi {
        return 0u;
    }
    var bits = frontier & ((~0u >> (32u - u32(hi - lo))) << u32(lo - first));
    if bits == 0u {
        return 0u;
    }
    let origin = sweep_u64(at); // the move's `from`
    let block = sweep_u64(at + 6u);
    let run = sweep_data(at + 8u);
    let values = sweep_data(at + 11u);
    // One map, or two where the prefix parity matters; then as many inverses.
    let inverse = sweep_data(at + 10u) + (1u + sweep_data(at + 12u)) * values;
    // The block b of the sources, from its first rank on (as an offset from `to`).
    var b = div64(lo - to, block);
    var start = b * block;
    var parity = start_parity(at, b);
    var claimed = 0u;
    while bits != 0u {
        let i = first + u64(countTrailingZeros(bits)) - to;
        bits &= bits - 1u;
        while i >= start + block {
            b += 1lu;
            start += block;
            step_parity(&parity, at, b);
        }
        // Run y of the source block, s ranks into it.
        let within = u32(i - start);
        let y = div32(within, run);
        let x = sweep_maps[inverse + parity.odd * values + y];
        if claim(origin + start + u64(x * run + within - y * run), params.next) {
            claimed += 1u;
        }
    }
    return claimed;
}

// The entries among `want` of the 32 ranks from `first` that block move `m` (of short runs)
// pulls from the frontier, entry by entry: a map entry and a table word for each wanted entry
// rather than for each run of the 32 (lavapipe runs a loop as long as its longest lane, so a
// loop over runs costs 32 turns however few entries are wanted).
fn pull_entries(m: u32, first: u64, want: u32) -> u32 {
    let at = SWEEP_HEADER + m * MOVE_WORDS;
    let origin = sweep_u64(at); // the move's `from`
    let lo = max(first, origin);
    let hi = min(first + 32lu, origin + sweep_u64(at + 4u));
    if lo >= hi {
        return 0u;
    }
    var bits = want & ((~0u >> (32u - u32(hi - lo))) << u32(lo - first));
    if bits == 0u {
        return 0u;
    }
    let to = sweep_u64(at + 2u);
    let block = sweep_u64(at + 6u);
    let run = sweep_data(at + 8u);
    let values = sweep_data(at + 11u);
    let map_at = sweep_data(at + 10u);
    // The block b of the targets, from its first rank on (as an offset from `from`).
    var b = div64(lo - origin, block);
    var start = b * block;
    var parity = start_parity(at, b);
    var found = 0u;
    while bits != 0u {
        let e = countTrailingZeros(bits);
        bits &= bits - 1u;
        let i = first + u64(e) - origin;
        while i >= start + block {
            b += 1lu;
            start += block;
            step_parity(&parity, at, b);
        }
        // Run x of the target block, s ranks into it.
        let within = u32(i - start);
        let x = div32(within, run);
        let y = sweep_maps[map_at + parity.odd * values + x];
        if entry(to + start + u64(y * run + within - x * run)) == params.cur {
            found |= 1u << e;
        }
    }
    return found;
}

// The first rank of workgroup `group` of this dispatch (64 blocks a workgroup).
fn group_rank(group: u32) -> u64 {
    return block_rank(params.window, params.first_block + group * 64u);
}

// Kinds of block moves: plain shifts (one run a block, map [0]), moves of long runs (pulled
// run by run), moves of short runs (pushed or pulled entry by entry).
const SHIFT: u32 = 0u;
const RUNS: u32 = 1u;
const SHORT: u32 = 2u;

fn move_kind(m: u32) -> u32 {
    return sweep_data(SWEEP_HEADER + m * MOVE_WORDS + 15u);
}

// The block moves of kind `kind` that land in the ranks of workgroup `group`: the moves are
// grouped by domain, domains by rank, each domain's moves by kind, so those are one range of
// moves `x .. y`. Where the workgroup meets several domains (or there are none), the range holds
// them all: the kernels check each move's kind. The same for all the workgroup's invocations:
// their records are read once for all of them.
fn group_moves(group: u32, kind: u32) -> vec2<u32> {
    let group_first = group_rank(group);
    let domains = sweep_data(3);
    if domains == 0u {
        return vec2<u32>(0u, sweep_data(0));
    }
    // The last domain that starts at or before the workgroup, and those after it that start
    // inside it.
    let at = sweep_data(4);
    var low = 0u;
    var high = domains;
    while low < high {
        let mid = (low + high) / 2u;
        if sweep_u64(at + mid * DOMAIN_WORDS) <= group_first {
            low = mid + 1u;
        } else {
            high = mid;
        }
    }
    let first = max(low, 1u) - 1u;
    var last = first;
    while last + 1u < domains
        && sweep_u64(at + (last + 1u) * DOMAIN_WORDS) < group_first + 64lu * 32lu {
        last++;
    }
    let opening = at + first * DOMAIN_WORDS;
    let closing = at + last * DOMAIN_WORDS;
    let start = sweep_data(opening + 4u);
    if first != last {
        return vec2<u32>(start, sweep_data(closing + 4u) + sweep_data(closing + 5u));
    }
    // Where each kind's moves begin, and the end.
    let bounds = vec4<u32>(
        start,
        start + sweep_data(opening + 6u),
        start + sweep_data(opening + 6u) + sweep_data(opening + 7u),
        start + sweep_data(opening + 5u),
    );
    return vec2<u32>(bounds[kind], bounds[kind + 1u]);
}

// Phase 1a: each block pulls the frontier through the plain shifts that land in it (over every
// block: its `settle` marks the level before the frontier as seen). With `aligned` (every shift's
// `from`, `to` and `len` multiples of 32, as in the ring puzzles), a shift pulls one block.
fn shifts(id: u32, lane: u32, group: u32, aligned: bool) {
    let moves = group_moves(group, SHIFT);
    var joined = 0u;
    if id < params.blocks {
        let b = load_block(id);
        _ = settle(b);
        let open = matches32(b.lo, b.hi, UNREACHED) & valid_mask(b.first);
        if open != 0u {
            var found = 0u;
            for (var m = moves.x; m < moves.y; m++) {
                if move_kind(m) == SHIFT {
                    if aligned {
                        found |= pull_aligned_shift(m, b.first);
                    } else {
                        found |= pull_shift(m, b.first);
                    }
                }
            }
            joined = set_open(b, found & open);
        }
    }
    add_to_count(lane, countOneBits(joined));
}

@compute @workgroup_size(64)
fn sweep_shifts(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
    @builtin(workgroup_id) group: vec3<u32>,
) {
    shifts(id.x, lane, group.x, false);
}

@compute @workgroup_size(64)
fn sweep_aligned_shifts(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
    @builtin(workgroup_id) group: vec3<u32>,
) {
    shifts(id.x, lane, group.x, true);
}

// Phase 1b: each block pulls the frontier through the moves of long runs that land in it, run by
// run, into its unreached entries (nothing else writes the table meanwhile).
@compute @workgroup_size(64)
fn sweep_runs(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
    @builtin(workgroup_id) group: vec3<u32>,
) {
    let moves = group_moves(group.x, RUNS);
    var joined = 0u;
    if id.x < params.blocks {
        let b = load_block(id.x);
        let open = matches32(b.lo, b.hi, UNREACHED) & valid_mask(b.first);
        if open != 0u {
            var found = 0u;
            for (var m = moves.x; m < moves.y; m++) {
                if move_kind(m) == RUNS {
                    found |= pull_move(m, b.first);
                }
            }
            joined = set_open(b, found & open);
        }
    }
    add_to_count(lane, countOneBits(joined));
}

// Phase 1c: the moves of short runs (a pull would read a map entry for each run of its 32
// targets), entry by entry: pushed from each block's frontier entries to their unreached targets
// while the frontier is smaller than the unreached (`push`), else pulled into each block's
// unreached entries. A kernel per mode: with `push` a constant, the compiler drops the other
// mode's code (one kernel for both measured slower in each mode).
fn short_runs(id: u32, lane: u32, group: u32, push: bool) {
    let moves = group_moves(group, SHORT);
    var count = 0u;
    if id < params.blocks {
        let b = load_block(id);
        let valid = valid_mask(b.first);
        if push {
            let frontier = matches32(b.lo, b.hi, params.cur) & unseen(b) & valid;
            for (var m = moves.x; m < moves.y; m++) {
                if move_kind(m) == SHORT {
                    count += push_move(m, b.first, frontier);
                }
            }
        } else {
            let open = matches32(b.lo, b.hi, UNREACHED) & valid;
            var found = 0u;
            for (var m = moves.x; m < moves.y; m++) {
                if move_kind(m) == SHORT {
                    found |= pull_entries(m, b.first, open & ~found);
                }
            }
            count = countOneBits(set_open(b, found & open));
        }
    }
    add_to_count(lane, count);
}

@compute @workgroup_size(64)
fn sweep_short_push(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
    @builtin(workgroup_id) group: vec3<u32>,
) {
    short_runs(id.x, lane, group.x, true);
}

@compute @workgroup_size(64)
fn sweep_short_pull(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
    @builtin(workgroup_id) group: vec3<u32>,
) {
    short_runs(id.x, lane, group.x, false);
}

// The residual records whose ranges meet the ranks `first .. end`, one bit each.
fn residual_meeting(first: u64, end: u64) -> u32 {
    var records = 0u;
    let at = sweep_data(2);
    for (var r = 0u; r < sweep_data(1); r++) {
        let rec = at + r * RESIDUAL_WORDS;
        if first < sweep_u64(rec + 2u) && sweep_u64(rec) < end {
            records |= 1u << r;
        }
    }
    return records;
}

// Of the residual records `meeting`, those that hold the rank module, one bit each.
fn residual_records(meeting: u32, rank: u64) -> u32 {
    var records = 0u;
    var rest = meeting;
    while rest != 0u {
        let r = countTrailingZeros(rest);
        rest &= rest - 1u;
        let rec = sweep_data(2) + r * RESIDUAL_WORDS;
        if rank >= sweep_u64(rec) && rank < sweep_u64(rec + 2u) {
            records |= 1u << r;
        }
    }
    return records;
}

fn residual_move(record: u32) -> u32 {
    return sweep_data(sweep_data(2) + record * RESIDUAL_WORDS + 4u);
}

// The residual records that meet the ranks of workgroup `group`: the same for all its
// invocations (their records are read once for all of them).
fn group_residual(group: u32) -> u32 {
    let first = group_rank(group);
    return residual_meeting(first, first + 64lu * 32lu);
}

// The entries of the block of 32 ranks from `first` that lie in the residual ranges of the
// records `meeting`, one bit each.
fn residual_mask(meeting: u32, first: u64) -> u32 {
    var mask = 0u;
    var rest = meeting;
    while rest != 0u {
        let rec = sweep_data(2) + countTrailingZeros(rest) * RESIDUAL_WORDS;
        rest &= rest - 1u;
        let lo = max(sweep_u64(rec), first);
        let hi = min(sweep_u64(rec + 2u), first + 32lu);
        if lo < hi {
            mask |= (~0u >> (32u - u32(hi - lo))) << u32(lo - first);
        }
    }
    return mask;
}

// The residual work of a workgroup, spread over its invocations: an invocation's entries of its
// own block would leave the others idle while the busiest finishes (on lavapipe's lanes, and on
// a GPU's warps). Each entry is queued as its rank less the workgroup's first (below 2048).
var<workgroup> queue: array<u32, 2048>;
var<workgroup> queued: atomic<u32>;

// Queues the entries `bits` of the block `offset` ranks into the workgroup's.
fn enqueue(offset: u32, bits: u32) {
    var rest = bits;
    var slot = atomicAdd(&queued, countOneBits(rest));
    while rest != 0u {
        queue[slot] = offset + countTrailingZeros(rest);
        rest &= rest - 1u;
        slot++;
    }
}

// Phase 2: the residual moves, state by state. Pushed (`push`, while the frontier is smaller
// than the unreached entries): each frontier entry in a residual range claims its residual
// neighbours. Pulled: each unreached entry in a residual range joins level d + 1 if a residual
// move leads into the frontier (an unreached entry's neighbours holding `cur` are at level d),
// set with `claim` (the invocation that takes an entry need not own its block). A kernel per
// mode, as for the window moves.
fn residual(id: u32, lane: u32, group: u32, push: bool) {
    let group_first = group_rank(group);
    let meeting = group_residual(group);
    if id < params.blocks && meeting != 0u {
        let b = load_block(id);
        var states = matches32(b.lo, b.hi, UNREACHED);
        if push {
            states = matches32(b.lo, b.hi, params.cur) & unseen(b);
        }
        enqueue(lane * 32u, states & valid_mask(b.first) & residual_mask(meeting, b.first));
    }
    workgroupBarrier();
    var found = 0u;
    let total = atomicLoad(&queued);
    for (var k = lane; k < total; k += 64u) {
        let rank = group_first + u64(queue[k]);
        var records = residual_records(meeting, rank);
        load_state(rank);
        while records != 0u {
            let r = countTrailingZeros(records);
            records &= records - 1u;
            let n = neighbour(residual_move(r));
            if push {
                if claim(n, params.next) {
                    found += 1u;
                }
            } else if entry(n) == params.cur {
                if claim(rank, params.next) {
                    found += 1u;
                }
                break;
            }
        }
    }
    add_to_count(lane, found);
}

@compute @workgroup_size(64)
fn sweep_residual_push(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
    @builtin(workgroup_id) group: vec3<u32>,
) {
    residual(id.x, lane, group.x, true);
}

@compute @workgroup_size(64)
fn sweep_residual_pull(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
    @builtin(workgroup_id) group: vec3<u32>,
) {
    residual(id.x, lane, group.x, false);
}
