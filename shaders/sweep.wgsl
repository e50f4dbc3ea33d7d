// Sweep passes on the device (see src/gpu/sweep.rs for the host side and src/search/sweep.rs for
// the CPU's): block moves pulled 32 entries at a time, the residual moves state by state.
//
// `sweep_data` (bound by the host) holds a header [block moves, residual ranges, offset of the
// residual records, domains, offset of the domain records, 3 unused], then one record of
// MOVE_WORDS words per block move, grouped by domain:
//   from, to, len, block, run (u64 each, low word first), map offset (in `sweep_maps`), window
//   values, whether the map depends on the prefix parity, prefix radices offset, prefix radices
//   count, runs per block;
// then RESIDUAL_WORDS words per residual range: start, end (u64 each), move, unused;
// then DOMAIN_WORDS words per domain (the ranges the moves pull into, disjoint, ascending):
//   from, len (u64 each), first move, moves, unused. No domains: every move is tried.
// Maps (in `sweep_maps`): 2 x values words (for an even and an odd prefix); radices: most
// significant first.
//
// A block move sends rank `from + i` to `to + b * block + map[x] * run + s`, where
// i = b * block + x * run + s: target ranks pull their frontier bit from there (the moves are
// closed under inverses, so pulling through a move is pushing through its inverse).

// The sweep data, four words a vector (a uniform buffer: src/gpu/device.rs).
@group(0) @binding(3) var<uniform> sweep_words: array<vec4<u32>, 4096>;

fn sweep_data(i: u32) -> u32 {
    return sweep_words[i >> 2u][i & 3u];
}

// The block moves' maps (a storage buffer: each invocation reads its own entries).
@group(0) @binding(5) var<storage, read> sweep_maps: array<u32>;

const SWEEP_HEADER: u32 = 8u;
const DOMAIN_WORDS: u32 = 8u;
const MOVE_WORDS: u32 = 16u;
const RESIDUAL_WORDS: u32 = 8u;

fn sweep_u64(i: u32) -> u64 {
    return u64(sweep_data(i)) | (u64(sweep_data(i + 1u)) << 32u);
}

// The frontier (level d: holding `cur`, not seen) in block `block`, one bit per entry; 0 past
// the table. Entries holding `prev` may be marked seen while this runs: they never hold `cur`.
fn frontier32(block: u64) -> u32 {
    let first = block << 5u;
    if first >= table_entries() {
        return 0u;
    }
    let window = u32(block >> params.window_shift);
    let base = u32(block & ((1lu << params.window_shift) - 1lu)) * 3u;
    let lo = word_load(window, base);
    let hi = word_load(window, base + 1u);
    let seen = word_load(window, base + 2u);
    return matches32(lo, hi, params.cur) & ~seen & valid_mask(first);
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

// Most prefix digits a block move has (src/gpu/sweep.rs refuses more).
const MAX_PREFIX: u32 = 24u;

// Writes into `digits` the digits of `value` in the `count` mixed radices at `at` (most
// significant first); returns the parity of their sum.
fn prefix_digits(value: u64, at: u32, count: u32, digits: ptr<function, array<u32, 24>>) -> u32 {
    var rest = value;
    var parity = 0u;
    for (var i = count; i > 0u; i--) {
        let r = sweep_data(at + i - 1u);
        var q: u64;
        if (rest >> 32u) == 0lu {
            q = u64(u32(rest) / r);
        } else {
            q = div_small(rest, r);
        }
        let d = u32(rest - q * u64(r));
        (*digits)[i - 1u] = d;
        parity ^= d & 1u;
        rest = q;
    }
    return parity;
}

// Adds 1 to the `digits` in the `count` mixed radices at `at`; returns the change in the parity
// of their sum (no division: the next block's parity from the last one's).
fn prefix_step(at: u32, count: u32, digits: ptr<function, array<u32, 24>>) -> u32 {
    var flip = 0u;
    for (var i = count; i > 0u; i--) {
        let r = sweep_data(at + i - 1u);
        if (*digits)[i - 1u] + 1u < r {
            (*digits)[i - 1u] += 1u;
            return flip ^ 1u;
        }
        // Wraps from r - 1 to 0.
        (*digits)[i - 1u] = 0u;
        flip ^= (r - 1u) & 1u;
    }
    return flip;
}

// The frontier bits block move `m` brings to the 32 ranks from `first` (bit e: rank first + e).
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
    let block = sweep_u64(at + 6u);
    let run = sweep_u64(at + 8u);
    let map_at = sweep_data(at + 10u);
    let values = sweep_data(at + 11u);
    let dependent = sweep_data(at + 12u) != 0u;
    let prefix_at = sweep_data(at + 13u);
    let prefix_count = sweep_data(at + 14u);
    let runs = u64(sweep_data(at + 15u));
    var i = lo - origin;
    let end = hi - origin;
    // Divisions only where there is more than one block, or run (identity moves have neither).
    var b = 0lu;
    var within = i;
    if block != len {
        b = div64(i, block);
        within = i - b * block;
    }
    var x = 0lu;
    var s = within;
    if runs != 1lu {
        x = div64(within, run);
        s = within - x * run;
    }
    var parity = 0u;
    var digits: array<u32, 24>;
    if dependent {
        parity = prefix_digits(b, prefix_at, prefix_count, &digits);
    }
    var found = 0u;
    var cache = Cached(~0lu, 0u);
    loop {
        if i >= end {
            break;
        }
        let take = min(run - s, end - i);
        let mapped = u64(sweep_maps[map_at + parity * values + u32(x)]);
        let source = to + b * block + mapped * run + s;
        found |= frontier_bits(&cache, source, u32(take)) << u32(origin + i - first);
        i += take;
        s = 0lu;
        x += 1lu;
        if x == runs {
            x = 0lu;
            b += 1lu;
            if dependent {
                parity ^= prefix_step(prefix_at, prefix_count, &digits);
            }
        }
    }
    return found;
}

// Phase 1: each block pulls the frontier through every block move that lands in it. The domains
// and moves are looked up for the workgroup's ranks, not the block's: the same for all its
// invocations, so that their records are read once for all of them.
@compute @workgroup_size(64)
fn sweep_blocks(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
    @builtin(workgroup_id) group: vec3<u32>,
) {
    let group_first = block_rank(params.window, params.first_block + group.x * 64u);
    let group_end = group_first + 64lu * 32lu;
    var joined = 0u;
    if id.x < params.blocks {
        let b = load_block(id.x);
        _ = settle(b);
        let open = matches32(b.lo, b.hi, UNREACHED) & valid_mask(b.first);
        if open != 0u {
            var found = 0u;
            let domains = sweep_data(3);
            if domains == 0u {
                for (var m = 0u; m < sweep_data(0); m++) {
                    found |= pull_move(m, b.first);
                }
            } else {
                // The domains from the last one that starts at or before the workgroup.
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
                for (var d = max(low, 1u) - 1u; d < domains; d++) {
                    let rec = at + d * DOMAIN_WORDS;
                    if sweep_u64(rec) >= group_end {
                        break;
                    }
                    let first = sweep_data(rec + 4u);
                    for (var m = first; m < first + sweep_data(rec + 5u); m++) {
                        found |= pull_move(m, b.first);
                    }
                }
            }
            joined = found & open;
            if joined != 0u {
                set_own(b, joined);
            }
        }
    }
    add_to_count(lane, countOneBits(joined));
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

// Of the residual records `meeting`, those that hold `rank`, one bit each.
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
    let first = block_rank(params.window, params.first_block + group * 64u);
    return residual_meeting(first, first + 64lu * 32lu);
}

// Phase 2, pulled: each unreached entry in a residual range joins level d + 1 if a residual
// move leads into the frontier (an unreached entry's neighbours holding `cur` are at level d).
@compute @workgroup_size(64)
fn sweep_pull(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
    @builtin(workgroup_id) group: vec3<u32>,
) {
    var joined = 0u;
    let meeting = group_residual(group.x);
    if id.x < params.blocks && meeting != 0u {
        let b = load_block(id.x);
        var open = matches32(b.lo, b.hi, UNREACHED) & valid_mask(b.first);
        while open != 0u {
            let e = countTrailingZeros(open);
            open &= open - 1u;
            let rank = b.first + u64(e);
            var records = residual_records(meeting, rank);
            if records == 0u {
                continue;
            }
            load_state(rank);
            while records != 0u {
                let r = countTrailingZeros(records);
                records &= records - 1u;
                if entry(neighbour(residual_move(r))) == params.cur {
                    joined |= 1u << e;
                    break;
                }
            }
        }
        if joined != 0u {
            set_own(b, joined);
        }
    }
    add_to_count(lane, countOneBits(joined));
}

// Phase 2, pushed: each frontier entry in a residual range claims its residual neighbours.
@compute @workgroup_size(64)
fn sweep_push(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
    @builtin(workgroup_id) group: vec3<u32>,
) {
    var claimed = 0u;
    let meeting = group_residual(group.x);
    if id.x < params.blocks && meeting != 0u {
        let b = load_block(id.x);
        let seen = word_load(params.window, b.base + 2u);
        var frontier = matches32(b.lo, b.hi, params.cur) & ~seen & valid_mask(b.first);
        while frontier != 0u {
            let e = countTrailingZeros(frontier);
            frontier &= frontier - 1u;
            let rank = b.first + u64(e);
            var records = residual_records(meeting, rank);
            if records == 0u {
                continue;
            }
            load_state(rank);
            while records != 0u {
                let r = countTrailingZeros(records);
                records &= records - 1u;
                if claim(neighbour(residual_move(r)), params.next) {
                    claimed += 1u;
                }
            }
        }
    }
    add_to_count(lane, claimed);
}
