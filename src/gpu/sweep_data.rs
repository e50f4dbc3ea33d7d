//! The data of the device's sweep passes (`shaders/sweep.wgsl`): a space's
//! [`Structure`] packed into words, the records (read alike by every invocation: a uniform
//! buffer) apart from the block moves' maps (read at each invocation's own place).

use super::layout::BLOCK_ENTRIES;
use crate::puzzle::{BlockMove, SHORT_RUN, Structure};
use std::ops::Range;

/// Words before the block-move records.
pub(crate) const HEADER: usize = 8;
/// Words per block-move record.
pub(crate) const MOVE_WORDS: usize = 18;
/// Words per residual record.
pub(crate) const RESIDUAL_WORDS: usize = 8;
/// Words per domain record.
pub(crate) const DOMAIN_WORDS: usize = 8;
/// The most residual ranges a sweep kernel handles (one bit each in a word).
const MAX_RESIDUAL: usize = 32;

/// The kinds of block moves, each with kernels of its own (`shaders/sweep.wgsl`).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub(crate) enum Kind {
    /// One run a block (the map is `[0]`): pulled as strings of bits.
    Shift = 0,
    /// Runs of [`SHORT_RUN`] ranks or more: pulled run by run.
    Runs = 1,
    /// Shorter runs: pushed or pulled entry by entry.
    Short = 2,
}

impl Kind {
    fn of(b: &BlockMove) -> Kind {
        if b.window.run == b.window.block {
            Kind::Shift
        } else if b.window.run >= SHORT_RUN {
            Kind::Runs
        } else {
            Kind::Short
        }
    }
}

/// The sweep data of `structure` as `shaders/sweep.wgsl` reads it.
pub struct SweepData {
    /// The header, the records and the prefix radices: read alike by every invocation (a
    /// uniform buffer).
    pub records: Vec<u32>,
    /// The block moves' maps: read at each invocation's own place (a storage buffer).
    pub maps: Vec<u32>,
}

/// The words of `structure` as `shaders/sweep.wgsl` reads them, or `None` where the kernels
/// cannot sweep it (more than 32 residual ranges, prefix radices of 2^16 or more, runs of 2^32
/// ranks or more in blocks of several runs): the engine then offers no sweeps, and the level
/// loop weighs top-down against bottom-up scans.
pub fn of(structure: &Structure) -> Option<SweepData> {
    // The kernel's prefix parities divide in 32 bits (radices below 2^16 are plenty), and its
    // block and run indices are below 2^32 (`div64`).
    if structure.residual.len() > MAX_RESIDUAL
        || structure.blocks.iter().any(|b| {
            let w = &b.window;
            w.prefix.iter().any(|&r| r >= 1 << 16)
                || (w.run != w.block && w.run >= 1 << 32)
                || b.len / w.block >= 1 << 32
        })
    {
        return None;
    }
    // The block moves grouped by the range they pull into (their domain), domains by rank,
    // and by kind in each domain: each kind's kernel reads a range of moves.
    let mut blocks: Vec<&BlockMove> = structure.blocks.iter().collect();
    blocks.sort_by_key(|b| (b.from, b.len, Kind::of(b)));
    // (from, len, first move, moves, plain shifts, moves of long runs)
    let mut domains: Vec<(u64, u64, usize, usize, usize, usize)> = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        let kind = Kind::of(b);
        let (shift, runs) = (
            (kind == Kind::Shift) as usize,
            (kind == Kind::Runs) as usize,
        );
        match domains.last_mut() {
            Some(d) if (d.0, d.1) == (b.from, b.len) => {
                d.3 += 1;
                d.4 += shift;
                d.5 += runs;
            }
            _ => domains.push((b.from, b.len, i, 1, shift, runs)),
        }
    }
    // Overlapping domains: the kernel tries every move instead (no domains).
    if domains.windows(2).any(|w| w[0].0 + w[0].1 > w[1].0) {
        domains.clear();
    }
    let moves = blocks.len();
    let residual_at = HEADER + moves * MOVE_WORDS;
    let domain_at = residual_at + structure.residual.len() * RESIDUAL_WORDS;
    let mut words = vec![0u32; domain_at + domains.len() * DOMAIN_WORDS];
    let mut maps = Vec::new();
    words[0] = moves as u32;
    words[1] = structure.residual.len() as u32;
    words[2] = residual_at as u32;
    words[3] = domains.len() as u32;
    words[4] = domain_at as u32;
    let put = |words: &mut Vec<u32>, at: usize, value: u64| {
        words[at] = value as u32;
        words[at + 1] = (value >> 32) as u32;
    };
    for (i, (ranks, mv)) in structure.residual.iter().enumerate() {
        let at = residual_at + i * RESIDUAL_WORDS;
        put(&mut words, at, ranks.start);
        put(&mut words, at + 2, ranks.end);
        words[at + 4] = *mv as u32;
    }
    for (i, &(from, len, first, count, shifts, runs)) in domains.iter().enumerate() {
        let at = domain_at + i * DOMAIN_WORDS;
        put(&mut words, at, from);
        put(&mut words, at + 2, len);
        words[at + 4] = first as u32;
        words[at + 5] = count as u32;
        words[at + 6] = shifts as u32;
        words[at + 7] = runs as u32;
    }
    for (i, b) in blocks.iter().enumerate() {
        let at = HEADER + i * MOVE_WORDS;
        let w = &b.window;
        let prefix_at = words.len();
        words.extend(&w.prefix);
        put(&mut words, at, b.from);
        put(&mut words, at + 2, b.to);
        put(&mut words, at + 4, b.len);
        put(&mut words, at + 6, w.block);
        put(&mut words, at + 8, w.run);
        words[at + 10] = u32::try_from(maps.len()).ok()?;
        // The map, or the even and the odd one where parity matters, then their inverses,
        // for pushing from the sources.
        maps.extend(w.maps().concat());
        for map in w.maps() {
            let mut inverse = vec![0u32; map.len()];
            for (x, &y) in map.iter().enumerate() {
                inverse[y as usize] = x as u32;
            }
            maps.extend(inverse);
        }
        words[at + 11] = w.map(false).len() as u32;
        words[at + 12] = w.parity_dependent() as u32;
        words[at + 13] = u32::try_from(prefix_at).ok()?;
        words[at + 14] = w.prefix.len() as u32;
        words[at + 15] = Kind::of(b) as u32;
        put(&mut words, at + 16, b.first_block);
    }
    Some(SweepData {
        records: words,
        maps,
    })
}

/// The blocks (of 32 ranks) of the ranges of ranks `ranks`, as ascending, disjoint ranges of
/// block indices.
fn block_ranges(mut ranks: Vec<Range<u64>>) -> Vec<Range<u64>> {
    ranks.sort_by_key(|r| r.start);
    let mut blocks: Vec<Range<u64>> = Vec::new();
    for r in ranks.iter().filter(|r| !r.is_empty()) {
        let (first, end) = (r.start / BLOCK_ENTRIES, r.end.div_ceil(BLOCK_ENTRIES));
        match blocks.last_mut() {
            Some(last) if first <= last.end => last.end = last.end.max(end),
            _ => blocks.push(first..end),
        }
    }
    blocks
}

/// The blocks that the block moves of long runs pull into (the dispatches of the `sweep_runs`
/// kernel).
pub fn run_blocks(structure: &Structure) -> Vec<Range<u64>> {
    blocks_of(structure, Kind::Runs)
}

/// The blocks that the block moves of short runs pull into (the dispatches of the
/// `sweep_short_push` and `sweep_short_pull` kernels).
pub fn short_blocks(structure: &Structure) -> Vec<Range<u64>> {
    blocks_of(structure, Kind::Short)
}

/// The blocks that the block moves of kind `kind` pull into.
fn blocks_of(structure: &Structure, kind: Kind) -> Vec<Range<u64>> {
    block_ranges(
        structure
            .blocks
            .iter()
            .filter(|b| Kind::of(b) == kind)
            .map(|b| b.from..b.from + b.len)
            .collect(),
    )
}

/// Whether the sources of every block move of short runs lie in the range it pulls into (its
/// `from` is its `to`, as where a move's inverse works the same range): the push kernel, run
/// over the blocks the moves pull into, then reaches every source. Otherwise those moves are
/// pulled at every level.
pub fn short_pushes_reach(structure: &Structure) -> bool {
    (structure.blocks.iter())
        .filter(|b| Kind::of(b) == Kind::Short)
        .all(|b| b.from == b.to)
}

/// Whether every plain shift of `structure` moves whole blocks of 32 ranks (its `from`, `to` and
/// `len` multiples of 32): the `sweep_aligned_shifts` kernel then runs them.
pub fn aligned_shifts(structure: &Structure) -> bool {
    let whole = BLOCK_ENTRIES - 1;
    (structure.blocks.iter())
        .filter(|b| Kind::of(b) == Kind::Shift)
        .all(|b| (b.from | b.to | b.len) & whole == 0)
}

/// The blocks of the residual ranges (the dispatches of the `sweep_residual_push` and
/// `sweep_residual_pull` kernels).
pub fn residual_blocks(structure: &Structure) -> Vec<Range<u64>> {
    block_ranges(structure.residual.iter().map(|(r, _)| r.clone()).collect())
}

/// The sweep data of a space without block moves: no moves, no residual ranges.
pub fn no_sweep() -> SweepData {
    let mut words = vec![0; HEADER];
    words[2] = HEADER as u32;
    words[4] = HEADER as u32;
    SweepData {
        records: words,
        maps: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::{Metric, Ring, StateSpace};

    #[test]
    fn records_hold_each_block_move_and_residual_range() {
        let ring = Ring::turnstyle(8, Metric::Lrf).unwrap();
        let structure = ring.capabilities().structure().unwrap();
        let data = of(&structure).unwrap();
        let words = &data.records;
        assert_eq!(words[0] as usize, structure.blocks.len());
        assert_eq!(words[1] as usize, structure.residual.len());
        assert_eq!(words[3], 8, "one domain per offset");
        let b = &structure.blocks[1];
        let at = HEADER + MOVE_WORDS;
        assert_eq!(
            u64::from(words[at]) | u64::from(words[at + 1]) << 32,
            b.from
        );
        assert_eq!(u64::from(words[at + 2]), b.to);
        let map_at = words[at + 10] as usize;
        assert_eq!(
            data.maps[map_at..map_at + b.window.map(false).len()],
            *b.window.map(false)
        );
    }
}
