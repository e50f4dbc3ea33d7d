// The level loop's kernels on the 2-bit table (see the GPU backend for the host side).
//
// Memory: the table is cut into blocks of 32 entries, each three u32 words: entries 0..15 (two
// bits each, entry e at bits 2e), entries 16..31, and the block's `seen` word (bit e set once
// entry e's level is older than the one before the frontier); two words where the device holds
// 2 bits an entry (`TABLE_WORDS`). Blocks live in windows of
// 2^window_shift blocks, one storage binding each; `word_load`, `word_store`, `word_or` and
// `word_cas` (shaders/windows.wgsl, one switch arm per window) reach any window.
//
// Prepended by the host: the window bindings and accessors (shaders/windows.wgsl), and the
// puzzle's `MOVES`, `load_state(rank)` and `neighbour(move) -> rank`.
//
// Pass d (the frontier is level d; `cur`, `next`, `prev` are d, d+1, d-1 mod 3): before it,
// `seen` holds the levels below d - 1; the pass adds level d - 1 (each block's owner marks its own
// entries holding `prev`), so the frontier is exactly `cur & !seen`, and after the last pass the
// last level is `last & !seen`. The pass counts the entries it sets (each is set once): the size
// of level d + 1. With 2 bits an entry there are no seen bits: the frontier is every entry
// holding `cur`, levels d - 3, d - 6, ... too, whose neighbours are all reached already (they
// lie in levels d - 4 to d - 2), so expanding them again sets nothing: the same table, more work.

struct Params {
    // Window of this dispatch, its first block in the window, and how many blocks it covers.
    window: u32,
    first_block: u32,
    blocks: u32,
    // Counter slot of this dispatch (a dispatch sets at most 2^27 blocks x 32 entries x 16 moves
    // entries, fewer than 2^32).
    slot: u32,
    cur: u32,
    next: u32,
    prev: u32,
    // The table: log2 of the blocks per window, and its entries (low word first).
    window_shift: u32,
    entries_lo: u32,
    entries_hi: u32,
    // Frontier lists: ranks each list holds at most, which of the three lists holds level d - 1
    // (level d and the next one follow, cyclically), the lengths of the lists of levels d - 1 and
    // d, and whether a scan appends the entries it sets to the next list.
    list_capacity: u32,
    list_rotation: u32,
    list_prev: u32,
    list_cur: u32,
    list_append: u32,
    // Remaining passes: the length of the remaining list (the list two places after level
    // d - 1's).
    remaining: u32,
    // A process's slab in an MPI job (shaders/slab.wgsl): its first column, its columns and the
    // ranks a plane; the whole table as one slab otherwise.
    slab_first_lo: u32,
    slab_first_hi: u32,
    slab_columns_lo: u32,
    slab_columns_hi: u32,
    slab_width_lo: u32,
    slab_width_hi: u32,
    // The tag a remaining pass gives the listed entries it sets: 1 + (d + 1) mod 65535.
    tag: u32,
}

// The moves a push follows (top-down, frontier lists) are 0..PUSH_END, those a pull follows
// (bottom-up, remaining lists) PULL_FIRST..MOVES: every move both ways, but in a directed graph,
// whose moves are its generators and then their inverses (`GpuShader::pushed` on the host).
override PUSH_END: u32 = MOVES;
override PULL_FIRST: u32 = 0u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> counts: array<atomic<u32>>;

const UNREACHED: u32 = 3u;

// Words a block takes: 3 (two table words and the seen word), or 2 (2 bits an entry).
override TABLE_WORDS: u32 = 3u;

// The table's entries.
fn table_entries() -> u64 {
    return u64(params.entries_lo) | (u64(params.entries_hi) << 32u);
}

// Bits 2e of `word` set where entry e equals `value`.
fn matches16(word: u32, value: u32) -> u32 {
    let x = word ^ (value * 0x55555555u);
    return ~(x | (x >> 1u)) & 0x55555555u;
}

// The even bits of `x` packed into its low 16 bits.
fn squeeze(v: u32) -> u32 {
    var x = v & 0x55555555u;
    x = (x | (x >> 1u)) & 0x33333333u;
    x = (x | (x >> 2u)) & 0x0f0f0f0fu;
    x = (x | (x >> 4u)) & 0x00ff00ffu;
    x = (x | (x >> 8u)) & 0x0000ffffu;
    return x;
}

// The low 16 bits of `v` moved to the even bits.
fn spread(v: u32) -> u32 {
    var x = v & 0x0000ffffu;
    x = (x | (x << 8u)) & 0x00ff00ffu;
    x = (x | (x << 4u)) & 0x0f0f0f0fu;
    x = (x | (x << 2u)) & 0x33333333u;
    x = (x | (x << 1u)) & 0x55555555u;
    return x;
}

// Bit e set where entry e of the block (words `lo`, `hi`) equals `value`.
fn matches32(lo: u32, hi: u32, value: u32) -> u32 {
    return squeeze(matches16(lo, value)) | (squeeze(matches16(hi, value)) << 16u);
}

// The rank of entry 0 of block `local` in window `window`.
fn block_rank(window: u32, local: u32) -> u64 {
    return ((u64(window) << params.window_shift) + u64(local)) << 5u;
}

// Bit e set for the entries of the block that lie inside the table.
fn valid_mask(first: u64) -> u32 {
    let entries = table_entries();
    if first + 32lu <= entries {
        return 0xffffffffu;
    }
    return (1u << u32(entries - first)) - 1u;
}

// Where entry the rank module lives: window, word within the window, bit shift.
fn locate(rank: u64) -> vec3<u32> {
    let block = rank >> 5u;
    let window = u32(block >> params.window_shift);
    let local = u32(block & ((1lu << params.window_shift) - 1lu));
    let entry = u32(rank & 31lu);
    return vec3<u32>(window, local * TABLE_WORDS + (entry >> 4u), (entry & 15u) * 2u);
}

// The entry's value.
fn entry(rank: u64) -> u32 {
    let at = locate(rank);
    return (word_load(at.x, at.y) >> at.z) & 3u;
}

// Sets entry the rank module to `value` if it is still unreached; true if this call set it.
fn claim(rank: u64, value: u32) -> bool {
    let at = locate(rank);
    var old = word_load(at.x, at.y);
    loop {
        if ((old >> at.z) & 3u) != UNREACHED {
            return false;
        }
        let swapped = word_cas(at.x, at.y, old, old & ~((UNREACHED ^ value) << at.z));
        if swapped.y != 0u {
            return true;
        }
        old = swapped.x;
    }
    return false;
}

// One block's table words as the pass found them, where they live and its first rank.
struct Block {
    base: u32,
    lo: u32,
    hi: u32,
    first: u64,
}

// The block of invocation `id` of this dispatch.
fn load_block(id: u32) -> Block {
    let local = params.first_block + id;
    let base = local * TABLE_WORDS;
    return Block(
        base,
        word_load(params.window, base),
        word_load(params.window, base + 1u),
        block_rank(params.window, local),
    );
}

// Every block: all entries unreached, nothing seen.
@compute @workgroup_size(64)
fn init(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x >= params.blocks {
        return;
    }
    let base = (params.first_block + id.x) * TABLE_WORDS;
    word_store(params.window, base, 0xffffffffu);
    word_store(params.window, base + 1u, 0xffffffffu);
    if TABLE_WORDS == 3u {
        word_store(params.window, base + 2u, 0u);
    }
}

// The block's entries not yet seen (all of them where the device holds 2 bits an entry).
fn unseen(b: Block) -> u32 {
    if TABLE_WORDS == 2u {
        return 0xffffffffu;
    }
    return ~word_load(params.window, b.base + 2u);
}

// Marks the block's entries of level d - 1 as seen; returns the frontier (level d) mask.
fn settle(b: Block) -> u32 {
    if TABLE_WORDS == 2u {
        return matches32(b.lo, b.hi, params.cur);
    }
    let seen = word_load(params.window, b.base + 2u);
    let older = matches32(b.lo, b.hi, params.prev) & ~seen;
    if older != 0u {
        word_store(params.window, b.base + 2u, seen | older);
    }
    return matches32(b.lo, b.hi, params.cur) & ~seen;
}

// Zero-initialised for each workgroup (WGSL's rule for workgroup variables).
var<workgroup> group_count: atomic<u32>;

// Drivers that bound the loop iterations of an invocation (lavapipe ends every loop once an
// invocation's loops have run 65,535 iterations in all) cut a kernel's work short without a
// word: a loop of two iterations, run last, then runs once. The word after the counters says
// so to the host. The bound is not a constant, so that the loop stays a loop.
fn report_cut_loops() {
    let two = 1u + min(arrayLength(&counts), 1u);
    var runs = 0u;
    loop {
        runs++;
        if runs >= two {
            break;
        }
    }
    if runs < two {
        atomicOr(&counts[arrayLength(&counts) - 1u], 1u);
    }
}

// Adds every invocation's `n` to this dispatch's counter with one global atomic per workgroup,
// and reports loops cut short. It has a barrier: every invocation of the workgroup must call it.
fn add_to_count(lane: u32, n: u32) {
    report_cut_loops();
    if n != 0u {
        atomicAdd(&group_count, n);
    }
    workgroupBarrier();
    if lane == 0u {
        let total = atomicLoad(&group_count);
        if total != 0u {
            atomicAdd(&counts[params.slot], total);
        }
    }
}

// Stores the block's entries `joined` (one bit each) as level d + 1; the block's owner only.
fn set_own(b: Block, joined: u32) {
    let clear = UNREACHED ^ params.next;
    word_store(params.window, b.base, b.lo & ~(spread(joined) * clear));
    word_store(params.window, b.base + 1u, b.hi & ~(spread(joined >> 16u) * clear));
}

// Frontier lists (`lists`, bound by the host): word 0 counts the ranks appended to the next list
// (those beyond its capacity are dropped: the host then knows the list is incomplete); list l's
// rank i is at words 1 + 2 * (l * list_capacity + i), low word first.

// The word of rank `i` of the list `ahead` places after level d - 1's (0: level d - 1, 1: level
// d, 2: level d + 1).
fn list_word(ahead: u32, i: u32) -> u32 {
    return 1u + 2u * (((params.list_rotation + ahead) % 3u) * params.list_capacity + i);
}

// Rank `i` of the list `ahead` places after level d - 1's.
fn list_rank(ahead: u32, i: u32) -> u64 {
    let at = list_word(ahead, i);
    return u64(atomicLoad(&lists[at])) | (u64(atomicLoad(&lists[at + 1u])) << 32u);
}

// Appends the rank module to the next level's list, if it has room.
fn append(rank: u64) {
    list_store(atomicAdd(&lists[0], 1u), rank);
}

// Stores the rank module as rank `i` of the next level's list, if it has room.
fn list_store(i: u32, rank: u64) {
    if i < params.list_capacity {
        let at = list_word(2u, i);
        atomicStore(&lists[at], u32(rank));
        atomicStore(&lists[at + 1u], u32(rank >> 32u));
    }
}

// Marks the entry at `at` (where `locate` puts an entry) as seen.
fn mark_seen(at: vec3<u32>) {
    if TABLE_WORDS == 2u {
        return;
    }
    // The block's seen word follows its two table words.
    word_or(at.x, at.y - (at.y % 3u) + 2u, 1u << (at.z / 2u + 16u * (at.y % 3u)));
}

// Places in the next list reserved by a workgroup: what its invocations asked for so far, and
// where the workgroup's places begin.
var<workgroup> group_listed: atomic<u32>;
var<workgroup> group_list_base: u32;

// Reserves `n` places in the next list for this invocation, with one global atomic for the
// whole workgroup (an atomic for each claim queues them all on the list's counter); the first
// of them. It has barriers: every invocation of the workgroup must call it.
fn reserve(lane: u32, n: u32) -> u32 {
    let offset = atomicAdd(&group_listed, n);
    workgroupBarrier();
    if lane == 0u {
        let total = atomicExchange(&group_listed, 0u);
        if total != 0u {
            group_list_base = atomicAdd(&lists[0], total);
        }
    }
    workgroupBarrier();
    let first = group_list_base + offset;
    // Nobody may change the base before everyone has read it.
    workgroupBarrier();
    return first;
}

// Top-down from the lists: invocation i marks rank i of level d - 1 as seen (what a scan's
// `settle` does) and expands rank i of level d, claiming its neighbours for level d + 1 and
// listing them; then rank i + the dispatch's size, and so on. A workgroup goes round the loop
// (and its moves, 32 at a time) together, so that it reserves its places in the list at once.
@compute @workgroup_size(64)
fn top_down_list(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    var claimed = 0u;
    let longest = max(params.list_prev, params.list_cur);
    for (var start = group.x * 64u; start < longest; start += groups.x * 64u) {
        let i = start + lane;
        if i < params.list_prev {
            mark_seen(locate(list_rank(0u, i)));
        }
        let expands = i < params.list_cur;
        if expands {
            load_state(list_rank(1u, i));
        }
        for (var first_move = 0u; first_move < PUSH_END; first_move += 32u) {
            let moves = min(PUSH_END - first_move, 32u);
            var won = 0u;
            if expands {
                for (var m = 0u; m < moves; m++) {
                    if claim(neighbour(first_move + m), params.next) {
                        won |= 1u << m;
                    }
                }
            }
            claimed += countOneBits(won);
            var at = reserve(lane, countOneBits(won));
            while won != 0u {
                list_store(at, neighbour(first_move + countTrailingZeros(won)));
                won &= won - 1u;
                at++;
            }
        }
    }
    add_to_count(lane, claimed);
}

// Stores `joined` (unreached entries of the block) as level d + 1 where there are any; returns
// them.
fn set_open(b: Block, joined: u32) -> u32 {
    if joined != 0u {
        set_own(b, joined);
    }
    return joined;
}

// Top-down: every frontier entry claims all its neighbours for level d + 1 (and lists them, where
// the host asks).
@compute @workgroup_size(64)
fn top_down(
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
            load_state(b.first + u64(e));
            for (var m = 0u; m < PUSH_END; m++) {
                let n = neighbour(m);
                if claim(n, params.next) {
                    claimed += 1u;
                    if params.list_append != 0u {
                        append(n);
                    }
                }
            }
        }
    }
    add_to_count(lane, claimed);
}

// Appends the ranks of the entries `bits` of the block from rank `first` to the next list, if
// it has room, each with `tag` added (a remaining pass's tag, shifted past the rank's 48 bits).
fn append_bits(first: u64, bits: u32, tag: u64) {
    if bits == 0u {
        return;
    }
    var rest = bits;
    var i = atomicAdd(&lists[0], countOneBits(rest));
    while rest != 0u && i < params.list_capacity {
        list_store(i, (first + u64(countTrailingZeros(rest))) | tag);
        rest &= rest - 1u;
        i++;
    }
}

// Bottom-up: every unreached entry with a neighbour in level d joins level d + 1. Only the
// block's owner writes its table words; the entries it changes never hold `cur`, so readers
// elsewhere are not affected by seeing them before or after. Where the host asks
// (`list_append`), it lists the frontier and the entries it found unreached: the remaining list
// (with 2 bits an entry, those unreached alone, the ones it sets tagged as `remaining_list` tags
// them: the frontier is listed only to be marked seen).
@compute @workgroup_size(64)
fn bottom_up(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    var found = 0u;
    if id.x < params.blocks {
        let b = load_block(id.x);
        let frontier = settle(b);
        let unreached = matches32(b.lo, b.hi, UNREACHED) & valid_mask(b.first);
        var open = unreached;
        while open != 0u {
            let e = countTrailingZeros(open);
            open &= open - 1u;
            load_state(b.first + u64(e));
            for (var m = PULL_FIRST; m < MOVES; m++) {
                if entry(neighbour(m)) == params.cur {
                    found |= 1u << e;
                    break;
                }
            }
        }
        found = set_open(b, found);
        if params.list_append != 0u && TABLE_WORDS == 3u {
            append_bits(b.first, frontier | unreached, 0lu);
        } else if params.list_append != 0u {
            // The entries set here tagged as a remaining pass tags them.
            append_bits(b.first, unreached & ~found, 0lu);
            append_bits(b.first, found, u64(params.tag) << 48u);
        }
    }
    add_to_count(lane, countOneBits(found));
}

// Bottom-up over the remaining list (`remaining` ranks, made by a bottom-up scan: the level it
// expanded and every entry then unreached, so it holds every entry of the levels since). Each
// listed entry of level d - 1 is marked seen, as a scan's `settle` would (the entries holding
// `prev` are level d - 1 or older, and the older ones are already seen); each still unreached
// joins level d + 1 if a neighbour is in level d. With 2 bits an entry it is tagged with its
// level (`tag`, in the top 16 bits of its rank's high word: ranks are below 2^48), so that the
// host can tell the levels of the listed entries apart without seen bits.
@compute @workgroup_size(64)
fn remaining_list(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    var found = 0u;
    for (var i = id.x; i < params.remaining; i += groups.x * 64u) {
        // With 2 bits an entry, the tag's bits off.
        let rank = select(list_rank(2u, i), list_rank(2u, i) & 0xfffffffffffflu, TABLE_WORDS == 2u);
        let at = locate(rank);
        let value = (word_load(at.x, at.y) >> at.z) & 3u;
        if value == params.prev {
            mark_seen(at);
        } else if value == UNREACHED {
            load_state(rank);
            for (var m = PULL_FIRST; m < MOVES; m++) {
                if entry(neighbour(m)) == params.cur {
                    if claim(rank, params.next) {
                        found += 1u;
                        if TABLE_WORDS == 2u {
                            let high = list_word(2u, i) + 1u;
                            atomicStore(&lists[high], (atomicLoad(&lists[high]) & 0xffffu) | (params.tag << 16u));
                        }
                    }
                    break;
                }
            }
        }
    }
    add_to_count(lane, found);
}
