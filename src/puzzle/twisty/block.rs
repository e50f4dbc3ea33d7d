//! Blocks: parts of a twisty puzzle whose reachable positions are listed and numbered together.
//!
//! A *part* is a set's pieces or a set's orientations (indexed by position, they move on their
//! own). Per-part coordinates count every combination of their values, but the moves may tie
//! them: twists to permutations within a set (the skewb diamond's corners), twists to each other
//! (TurnFour's tiles), or one set's position to another's beyond the parity vector (the skewb's
//! two orbits of corners). A block lists the positions its parts reach — the projection of the
//! puzzle's group onto them, found by a search over those parts alone — and numbers them within
//! their parity class: one digit, with a move table. Parts join a block only where that shrinks
//! the table, or to give the last digit a long run.

/// The most positions a block may have (the rows of its move table).
const BLOCK_LIMIT: usize = 1 << 20;
/// The largest space of values searched for a block's positions (a bit each).
const SEARCH_LIMIT: u64 = 1 << 28;

/// Parts numbered together: the positions they reach, by class, then key.
#[derive(Clone, Debug)]
pub struct Block {
    /// The member parts (as the caller numbers them), in the order of their digits in the key
    /// (most significant first).
    pub members: Vec<usize>,
    /// Per member, how many values it has (the key is mixed radix over the members' values).
    radices: Vec<u64>,
    /// The bits of the parity vector the members hold.
    pub mask: u32,
    /// The positions' keys, class by class, ascending in each.
    keys: Vec<u64>,
    /// The parity vectors (masked) of the positions, ascending; each has `class_size` positions.
    classes: Vec<u32>,
    /// Positions per class: the block's digit is a position's index in its class.
    pub class_size: u64,
    /// `[position * moves + move]`: the position after the move.
    pub table: Vec<u32>,
    moves: usize,
    /// The solved position.
    solved: u64,
}

/// One part's values, for a search: how many, the solved one, the value after each move and
/// the parity vector (bits) of each.
pub struct Values<N, C> {
    pub member: usize,
    pub count: u64,
    pub solved: u64,
    pub mask: u32,
    pub next: N,
    pub class: C,
}

impl Block {
    /// The positions a single part reaches, or `None` where they are too many to list.
    pub fn single<N, C>(values: Values<N, C>, moves: usize) -> Option<Block>
    where
        N: FnMut(u64, usize) -> u64,
        C: Fn(u64) -> u32,
    {
        let Values {
            member,
            count,
            solved,
            mask,
            next,
            class,
        } = values;
        if count > SEARCH_LIMIT {
            return None;
        }
        let listing = enumerate(count, solved, moves, next, |v| v, class)?;
        Some(Block::new(vec![member], vec![count], mask, listing, moves))
    }

    /// The positions the parts of `a` and `b` reach together, or `None` where they are too many.
    pub fn merge(a: &Block, b: &Block) -> Option<Block> {
        let (na, nb) = (a.len(), b.len());
        let radix_b: u64 = b.radices.iter().product();
        let keys = u128::from(a.radices.iter().product::<u64>()) * u128::from(radix_b);
        if na * nb > SEARCH_LIMIT || keys > u128::from(u64::MAX) {
            return None;
        }
        let m = a.moves;
        let listing = enumerate(
            na * nb,
            a.solved * nb + b.solved,
            m,
            |v, mv| a.next(v / nb, mv) * nb + b.next(v % nb, mv),
            |v| a.keys[(v / nb) as usize] * radix_b + b.keys[(v % nb) as usize],
            |v| a.class(v / nb) | b.class(v % nb),
        )?;
        Some(Block::new(
            a.members.iter().chain(&b.members).copied().collect(),
            a.radices.iter().chain(&b.radices).copied().collect(),
            a.mask | b.mask,
            listing,
            m,
        ))
    }

    fn new(
        members: Vec<usize>,
        radices: Vec<u64>,
        mask: u32,
        listing: Listing,
        moves: usize,
    ) -> Block {
        Block {
            members,
            radices,
            mask,
            keys: listing.keys,
            classes: listing.classes,
            class_size: listing.class_size,
            table: listing.table,
            moves,
            solved: listing.start,
        }
    }

    /// How many positions the block lists.
    pub fn len(&self) -> u64 {
        self.keys.len() as u64
    }

    /// Whether the moves tie its parts: it lists fewer positions than its parts' values make
    /// together, or splits them by parities. A block that ties nothing was made only for a long
    /// last digit, and its parts take their values as freely as parts outside a block.
    pub fn ties(&self) -> bool {
        self.mask != 0 || self.len() < self.radices.iter().product::<u64>()
    }

    /// The position after move `mv`.
    pub fn next(&self, position: u64, mv: usize) -> u64 {
        u64::from(self.table[position as usize * self.moves + mv])
    }

    /// The parity vector (masked) of a position.
    fn class(&self, position: u64) -> u32 {
        self.classes[(position / self.class_size) as usize]
    }

    /// The first position of the class of the parity vector `vector`, where the block has it.
    pub fn class_start(&self, vector: u32) -> Option<u64> {
        (self.classes.binary_search(&(vector & self.mask)).ok()).map(|c| c as u64 * self.class_size)
    }

    /// The position whose members have these values, where the block lists it.
    pub fn position(&self, vector: u32, values: &[u64]) -> Option<u64> {
        let key = (values.iter().zip(&self.radices)).fold(0, |k, (&v, &r)| k * r + v);
        let start = self.class_start(vector)?;
        let class = &self.keys[start as usize..(start + self.class_size) as usize];
        class.binary_search(&key).ok().map(|i| start + i as u64)
    }

    /// The members' values at a position, in the order of `members`.
    pub fn values(&self, position: u64) -> Vec<u64> {
        let mut key = self.keys[position as usize];
        let mut out = vec![0; self.radices.len()];
        for (v, &r) in out.iter_mut().zip(&self.radices).rev() {
            *v = key % r;
            key /= r;
        }
        out
    }
}

/// What a search lists: the positions' keys by class, the classes, and the move table.
struct Listing {
    keys: Vec<u64>,
    classes: Vec<u32>,
    class_size: u64,
    table: Vec<u32>,
    /// The position the search started from.
    start: u64,
}

/// The values reachable from `start` among `space` (`next`: the value after a move), numbered
/// by class, then key; `None` where they are more than [`BLOCK_LIMIT`] or their classes are
/// not all alike in size.
fn enumerate(
    space: u64,
    start: u64,
    moves: usize,
    mut next: impl FnMut(u64, usize) -> u64,
    key: impl Fn(u64) -> u64,
    class: impl Fn(u64) -> u32,
) -> Option<Listing> {
    let mut seen = vec![0u64; space.div_ceil(64) as usize];
    seen[(start / 64) as usize] |= 1 << (start % 64);
    let mut found = vec![start];
    let mut i = 0;
    while i < found.len() {
        let v = found[i];
        for mv in 0..moves {
            let w = next(v, mv);
            let word = &mut seen[(w / 64) as usize];
            if *word & (1 << (w % 64)) == 0 {
                *word |= 1 << (w % 64);
                found.push(w);
                if found.len() > BLOCK_LIMIT {
                    return None;
                }
            }
        }
        i += 1;
    }
    let mut order: Vec<(u32, u64, u64)> = found.iter().map(|&v| (class(v), key(v), v)).collect();
    order.sort_unstable();
    let mut classes: Vec<u32> = order.iter().map(|o| o.0).collect();
    classes.dedup();
    let class_size = (order.len() / classes.len()) as u64;
    // The parity vector is a homomorphism's image, so its classes are cosets, alike in size.
    let alike = classes.iter().enumerate().all(|(c, &v)| {
        let first = c * class_size as usize;
        order[first].0 == v && order[first + class_size as usize - 1].0 == v
    });
    if !alike || classes.len() as u64 * class_size != order.len() as u64 {
        return None;
    }
    let keys: Vec<u64> = order.iter().map(|o| o.1).collect();
    let index = |v: u64| -> u64 {
        let c = classes.binary_search(&class(v)).expect("a listed class");
        let first = c * class_size as usize;
        let within = keys[first..first + class_size as usize]
            .binary_search(&key(v))
            .expect("a listed position");
        (first + within) as u64
    };
    let mut table = Vec::with_capacity(order.len() * moves);
    for &(_, _, v) in &order {
        for mv in 0..moves {
            table.push(index(next(v, mv)) as u32);
        }
    }
    let start = index(start);
    Some(Listing {
        keys,
        classes,
        class_size,
        table,
        start,
    })
}

/// The cursor reloads every digit but the last each time the last one wraps, so the last block
/// should have at least this many positions a class.
const LOW_RUN: u64 = 1024;

/// The blocks worth having, from the single parts' listings (`units`; `unblocked` gives a part's
/// digit's size outside a block): the two that shrink most merged, while a merge shrinks the
/// table, and the single parts that are smaller listed than as coordinates. Where the last
/// digit would have fewer than [`LOW_RUN`] values (`low` without blocks), the largest listings
/// are merged into a last block that has that many (the table stays the same size).
pub fn plan(mut units: Vec<Block>, unblocked: impl Fn(usize) -> u64, low: u64) -> Vec<Block> {
    // Each pair's gain, by members: a merge changes only the pairs it takes part in.
    let mut gains: std::collections::HashMap<(Vec<usize>, Vec<usize>), f64> = Default::default();
    loop {
        let mut best: Option<(f64, usize, usize)> = None;
        for i in 0..units.len() {
            for j in i + 1..units.len() {
                let (a, b) = (&units[i], &units[j]);
                let gain = *gains
                    .entry((a.members.clone(), b.members.clone()))
                    .or_insert_with(|| {
                        Block::merge(a, b).map_or(1.0, |ab| {
                            a.class_size as f64 * b.class_size as f64 / ab.class_size as f64
                        })
                    });
                if gain > 1.0 && best.is_none_or(|(g, _, _)| gain > g) {
                    best = Some((gain, i, j));
                }
            }
        }
        let Some((_, i, j)) = best else { break };
        let merged = Block::merge(&units[i], &units[j]).expect("merged before");
        units.remove(j);
        units[i] = merged;
    }
    let shrinks = |u: &Block| u.members.len() > 1 || u.class_size < unblocked(u.members[0]);
    let (mut blocks, mut rest): (Vec<Block>, Vec<Block>) = units.into_iter().partition(shrinks);
    let low = blocks.last().map_or(low, |b| b.class_size);
    if low < LOW_RUN {
        rest.append(&mut blocks);
        // Largest first: the fewest merges to a long last digit.
        rest.sort_by_key(|u| std::cmp::Reverse(u.class_size));
        let mut candidates = rest.into_iter();
        if let Some(mut last) = candidates.next() {
            for unit in candidates {
                if last.class_size < LOW_RUN
                    && let Some(merged) = Block::merge(&last, &unit)
                {
                    last = merged;
                } else if shrinks(&unit) {
                    blocks.push(unit);
                }
            }
            if shrinks(&last) || last.class_size > low {
                blocks.push(last);
            }
        }
    }
    blocks
}
